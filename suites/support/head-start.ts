// The companies a worker's fixtures register (issue 27), started at once when the worker starts
// instead of one by one as its tests reach them. Registration runs in the background on the
// target (a second or more on a staging); started together, it runs while the first tests do,
// and a fixture that asks for its company later mostly finds it Registered at the first poll.
//
// Only the register call is made early, and its answer kept unjudged: registerCompany judges it
// when the fixture asks, inside settle(), so a refusal blocks exactly the tests it blocked before
// and no verdict depends on when the call was made. A run narrowed by --grep makes no early call
// (a handful of tests should not register companies they may not use).
import { deriveSeed, generateGln, generateOrgNo, mulberry32, vatNumberFor, type CompanyInput, type Fixtures } from '../../fixtures/index.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import type { RunContext } from './run-context.ts';

export interface RoleContext {
  fixtures: Fixtures;
  target: RunContext;
  workerIndex: number;
}

interface Role {
  /** Areas whose tests use the role's company: the early start is made only when the run selects one. */
  areas: readonly string[] | 'all';
  input: (context: RoleContext) => CompanyInput;
}

/** The worker-scoped companies of the suites: their register bodies, in the order they are drawn. */
export const COMPANY_ROLES = {
  registeredCompany: { areas: 'all', input: ({ fixtures }) => fixtures.company('SE') },
  otherCompany: { areas: ['companies', 'outbound', 'provider-a', 'security', 'inbound', 'flows'], input: ({ fixtures }) => fixtures.company('DK') },
  outboundRecipient: { areas: ['outbound', 'flows'], input: ({ fixtures }) => fixtures.company('DK', { processes: ['ReceiveInvoices', 'SendInvoices'] }) },
  // Provider A requires a company registered in Sweden.
  b2cSender: { areas: ['outbound', 'provider-a', 'flows'], input: ({ fixtures }) => fixtures.company('SE') },
  recipientCompany: {
    areas: ['inbound', 'flows'],
    input: ({ fixtures, target, workerIndex }) => {
      const input = fixtures.company('FI', { processes: ['ReceiveInvoices', 'SendInvoices'] });
      // The seed repeats between runs (always 1 when Playwright is run directly), and a target
      // routes by these identifiers: drawn from the run prefix, no earlier run's company shares them.
      const random = mulberry32(deriveSeed(target.seed, `${target.runPrefix}:w${workerIndex}:recipient`));
      const orgNo = generateOrgNo('FI', random);
      return { ...input, OrgNo: orgNo, VatNo: vatNumberFor('FI', orgNo), GLN: generateGln(random, 'FI') };
    },
  },
  providerACompany: { areas: ['provider-a', 'flows'], input: ({ fixtures }) => fixtures.company('SE') },
  swedishCompany: { areas: ['provider-a'], input: ({ fixtures }) => fixtures.company('SE') },
} satisfies Record<string, Role>;

export type CompanyRole = keyof typeof COMPANY_ROLES;

export class HeadStart {
  private readonly inputs = new Map<CompanyRole, CompanyInput>();
  private readonly registrations = new Map<CompanyRole, Promise<ApiResponse | undefined>>();
  private readonly context: RoleContext;

  constructor(context: RoleContext) {
    this.context = context;
  }

  /** The register body of a role, drawn once. */
  input(role: CompanyRole): CompanyInput {
    let input = this.inputs.get(role);
    if (input === undefined) {
      input = (COMPANY_ROLES[role] as Role).input(this.context);
      this.inputs.set(role, input);
    }
    return input;
  }

  /** Sends the register call of every role the run's selection may use, all at once, without waiting. */
  start(api: ApiClient): void {
    const { target } = this.context;
    if (target.grep !== undefined && target.grep !== '') return;
    for (const [role, definition] of Object.entries(COMPANY_ROLES) as Array<[CompanyRole, Role]>) {
      const areas = definition.areas;
      if (areas !== 'all' && target.areas.length > 0 && !areas.some((area) => target.areas.includes(area))) continue;
      // A call that got no answer is made again by the fixture, which then judges it.
      this.registrations.set(role, api.post('/companies/register', { auth: 'apiKey', json: this.input(role), headStart: true }).catch(() => undefined));
    }
  }

  /** The answer to the early register call of a role, once; undefined when none was made or it got no answer. */
  async take(role: CompanyRole): Promise<ApiResponse | undefined> {
    const registration = this.registrations.get(role);
    this.registrations.delete(role);
    return registration;
  }

  /** Before the worker's client is closed: no early call is left in flight. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.registrations.values()]);
  }
}
