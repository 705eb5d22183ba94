// The companies a worker's fixtures register (issue 27), started at once when the worker starts
// instead of one by one as its tests reach them. Registration runs in the background on the
// target (a second or more on a staging); started together, it runs while the first tests do,
// and a fixture that asks for its company later mostly finds it Registered at the first poll.
//
// Only the register call is made early, and its answer kept unjudged: registerCompany judges it
// when the fixture asks, inside settle(), so a refusal blocks exactly the tests it blocked before
// and no verdict depends on when the call was made. A run narrowed by --grep makes no early call
// (a handful of tests should not register companies they may not use).
//
// Under `dxs test` the run itself makes the whole of each role's company for the first workers
// while they start (run-setup.ts); a worker then takes it from there (prepared.ts) and makes no
// early call for it.
import { deriveSeed, generateGln, generateOrgNo, mulberry32, vatNumberFor, type CompanyInput, type Fixtures } from '../../fixtures/index.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { activatedCompany } from './companies-more.ts';
import { registerCompany, type RegisteredCompany } from './companies.ts';
import { settle, TransportFailure, unwrap } from './prerequisites.ts';
import type { PreparedSetup } from './prepared.ts';
import type { RunContext } from './run-context.ts';
import { selectedRoles, type CompanyRole } from './setup-items.ts';

export type { CompanyRole };

export interface RoleContext {
  fixtures: Fixtures;
  target: RunContext;
  /** Whose companies are drawn: `w<workerIndex>` for a worker's own, `s<workerIndex>` for the run's setup of that worker. */
  stream: string;
  /** What the run's setup made for this worker; absent, the worker makes its companies itself. */
  prepared?: PreparedSetup;
}

interface Role {
  input: (context: RoleContext) => CompanyInput;
  /** The role's company made from its body and the answer to its early register call; registered and Registered unless said. */
  make?: (api: ApiClient, context: RoleContext, input: CompanyInput, early: Promise<ApiResponse | undefined>) => Promise<RegisteredCompany>;
}

/** The worker-scoped companies of the suites: their register bodies (the areas that use each are in setup-items.ts). */
export const COMPANY_ROLES = {
  registeredCompany: { input: ({ fixtures }) => fixtures.company('SE') },
  otherCompany: { input: ({ fixtures }) => fixtures.company('DK') },
  outboundRecipient: { input: ({ fixtures }) => fixtures.company('DK', { processes: ['ReceiveInvoices', 'SendInvoices'] }) },
  // Provider A requires a company registered in Sweden.
  b2cSender: { input: ({ fixtures }) => fixtures.company('SE') },
  recipientCompany: {
    input: ({ fixtures, target, stream }) => {
      const input = fixtures.company('FI', { processes: ['ReceiveInvoices', 'SendInvoices'] });
      // The seed repeats between runs (always 1 when Playwright is run directly), and a target
      // routes by these identifiers: drawn from the run prefix, no earlier run's company shares them.
      const random = mulberry32(deriveSeed(target.seed, `${target.runPrefix}:${stream}:recipient`));
      const orgNo = generateOrgNo('FI', random);
      return { ...input, OrgNo: orgNo, VatNo: vatNumberFor('FI', orgNo), GLN: generateGln(random, 'FI') };
    },
    // Registered with ReceiveInvoices and its services activated: whether register alone
    // activates the process is a reading (register "activates services"; POST /companies/services
    // "activates services on a registered company"), and the recipient is active under both.
    make: (api, { fixtures, target }, input, early) => activatedCompany(api, target, input, fixtures.searchId(), early),
  },
  providerACompany: { input: ({ fixtures }) => fixtures.company('SE') },
  swedishCompany: { input: ({ fixtures }) => fixtures.company('SE') },
} satisfies Record<CompanyRole, Role>;

/** A role's company, made as its fixture makes it. */
function makeRoleCompany(api: ApiClient, context: RoleContext, role: CompanyRole, input: CompanyInput, early: Promise<ApiResponse | undefined> = Promise.resolve(undefined)): Promise<RegisteredCompany> {
  const make = (COMPANY_ROLES[role] as Role).make;
  return make === undefined ? registerCompany(api, context.target, input, 'apiKey', early) : make(api, context, input, early);
}

export class HeadStart {
  private readonly inputs = new Map<CompanyRole, CompanyInput>();
  private readonly registrations = new Map<CompanyRole, Promise<ApiResponse | TransportFailure | undefined>>();
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

  /** Sends the register call of every role the run's selection may use and the run did not make, all at once, without waiting. */
  start(api: ApiClient): void {
    for (const role of selectedRoles(this.context.target)) {
      if (this.context.prepared?.has(role) !== true) this.startRole(role, api);
    }
  }

  /** Sends the register call of one role without waiting: spread by the run's pace before any gateway answer (gateway.ts). */
  startRole(role: CompanyRole, api: ApiClient): void {
    // A call that got no answer is made again by the fixture, which then judges it; one the deployment's
    // transport kept failing through every try (client.ts) is that failure for the fixture, not tried three times more.
    this.registrations.set(role, api.post('/companies/register', { auth: 'apiKey', json: this.input(role), headStart: true }).catch((error: unknown) => (error instanceof TransportFailure ? error : undefined)));
  }

  /**
   * The role's company, inside the fixture's settle(): the one the run made for this worker, or
   * made now (from the early register call's answer). A broken prerequisite throws as it would have.
   */
  async company(role: CompanyRole, api: ApiClient): Promise<RegisteredCompany> {
    const make = (): Promise<RegisteredCompany> => {
      const early = this.take(role);
      // Judged where the making awaits it; a making that ends before (a prerequisite known broken) leaves no unhandled rejection.
      early.catch(() => undefined);
      return makeRoleCompany(api, this.context, role, this.input(role), early);
    };
    const prepared = this.context.prepared;
    if (prepared === undefined) return make();
    return unwrap(await prepared.outcome<RegisteredCompany>(role, () => settle(make)));
  }

  /** The answer to the early register call of a role, once; undefined when none was made or it got no answer; throws the transport failure it met. */
  async take(role: CompanyRole): Promise<ApiResponse | undefined> {
    const registration = this.registrations.get(role);
    this.registrations.delete(role);
    const answer = await registration;
    if (answer instanceof TransportFailure) throw answer;
    return answer;
  }

  /** Before the worker's client is closed: no early call is left in flight. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.registrations.values()]);
  }
}
