// Provider A setup for the suites: onboarding a Swedish company the way the guide does it,
// reading its record, and the worker-scoped fixtures the provider A tests share:
//   providerACompany  (worker) a Swedish company with provider A onboarded and its record Completed
//   swedishCompany    (worker) a Swedish company that never registers provider A (for refused bodies)
//   ssnLookupBodies   (worker) the 500000- and 500001-SSN lookup bodies, serialised once (~7 MB each)
// Onboarding is never done on the shared registeredCompany: other suites send with it and expect
// no business-to-consumer provider to be active.
import type { CompanyInput, ProviderARegistrationInput } from '../../fixtures/bodies.ts';
import { fieldSatisfies, type Check } from '../../lib/checks.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { blockOnWait, createClientToken, pollUntil, registrationCause, SetupFailed, shortly, TestTimeRanOut, type RegisteredCompany } from './companies.ts';
import { registerRole, test as base } from './fixtures.ts';
import { broken, recordBroken, requirePrerequisites, settle, TransportFailure, unwrap, type Outcome, type RootCause } from './prerequisites.ts';
import type { RunContext } from './run-context.ts';

export const PROVIDER_A_PATH = '/companies/deliverymethods/b2c/providera';
export const ICON_PATH = `${PROVIDER_A_PATH}/icon`;
export const LOOKUP_PATH = `${PROVIDER_A_PATH}/lookup`;
export const OFFBOARD_PATH = `${PROVIDER_A_PATH}/offboard`;
export const MAX_SSNS_PER_LOOKUP = 500_000;

/** The record's fields as our normaliser spells them (the spec writes them in camelCase). */
export const RECORD_CONTACT_FIELDS = ['DisplayName', 'ContactFirstName', 'ContactLastName', 'ContactPersonEmail', 'GeneralEmail', 'ContactPhone'] as const;

/** Text as a provider may normalise it: case, spaces, dashes and brackets aside (e-mail addresses, phone numbers). */
function normalisedText(value: unknown): string {
  return String(value).toLowerCase().replace(/[\s\-()]/g, '');
}

/**
 * One phone number in two writings: the national form and the international one (070-123 45 67
 * and +46701234567) are the same number once the trunk zero and the country code (1 to 3 digits)
 * are set aside, as a provider may normalise it.
 */
export function samePhoneNumber(left: unknown, right: unknown): boolean {
  const significant = (value: unknown) => String(value).replace(/\D/g, '').replace(/^0+/, '');
  const [a, b] = [significant(left), significant(right)].sort((x, y) => x.length - y.length);
  return a.length > 0 && b.endsWith(a) && b.length - a.length <= 3;
}

/** The checks that the record shows the registered display name and contact fields (PRA-23). */
export function recordShowsRegistration(registration: Pick<ProviderARegistrationInput, (typeof RECORD_CONTACT_FIELDS)[number]>): Check[] {
  return RECORD_CONTACT_FIELDS.map((field) =>
    field === 'ContactPhone'
      ? fieldSatisfies(field, `is the registered ${JSON.stringify(registration[field])} (national or international form)`, (value) => typeof value === 'string' && samePhoneNumber(value, registration[field]))
      : fieldSatisfies(field, `is the registered ${JSON.stringify(registration[field])} (case, spaces and dashes aside)`, (value) => typeof value === 'string' && normalisedText(value) === normalisedText(registration[field])));
}

/**
 * A company registered with an OrgNo another company of the run already has, for the provider A
 * tenant conflict. Whether a target registers two companies with one OrgNo is not shown: when it
 * refuses, or the company never reaches Registered, the answer is undefined and no shared
 * prerequisite is recorded broken (registerCompany would record one).
 */
export async function secondCompanyWithOrgNo(api: ApiClient, context: RunContext, input: CompanyInput): Promise<RegisteredCompany | undefined> {
  const register = await api.post('/companies/register', { auth: 'apiKey', json: input });
  if (register.status !== 202 && register.status !== 200) return undefined;
  let token: string | undefined;
  const status = await pollUntil(context, `company ${input.ErpId} reaching Status Registered`, async () => {
    token ??= (await createClientToken(api, input.ErpId)).token;
    if (token === undefined) return undefined;
    const answer = await api.get('/companies/status', { auth: { clientToken: token } });
    return answer.status === 200 && answer.data?.Status === 'Registered' ? (answer.data as Record<string, any>) : undefined;
  }, ['client-token', 'registration']).catch((error: unknown) => {
    // A target may never register a second company with the same OrgNo (the test is skipped then), but a wait cut
    // short by the test's own time says nothing of that: the test is blocked.
    if (error instanceof TestTimeRanOut) blockOnWait(error, registrationCause(context, undefined));
    if (error instanceof TransportFailure) throw error;
    return undefined;
  });
  if (status === undefined || token === undefined) return undefined;
  return { input, erpId: input.ErpId, companyId: String(status.CompanyId ?? ''), token, status };
}

export interface ProviderACompany extends RegisteredCompany {
  registration: Required<ProviderARegistrationInput>;
  /** The normalised record once its status was Completed. */
  record: Record<string, unknown>;
}

export interface RecordPoll {
  /** The last GET answer. */
  response: ApiResponse;
  /** Every distinct (status, agreementStatus) seen while polling, in order. */
  seen: string[];
}

function describeRecord(data: any): string {
  return `status ${JSON.stringify(data?.Status)}, agreementStatus ${JSON.stringify(data?.AgreementStatus)}`;
}

/**
 * Repeats a call until its answer satisfies `until`, within the run's async timeout, and returns
 * the last answer either way: the caller's checks judge it, so a timeout reads as the expected
 * value against the one the target kept answering. Cut short by the test's own time instead, the
 * test is blocked (blockOnWait): the target did not have its async timeout.
 */
export async function pollResponse(context: RunContext, description: string, call: () => Promise<ApiResponse>, until: (response: ApiResponse) => boolean): Promise<ApiResponse> {
  let last: ApiResponse | undefined;
  try {
    await pollUntil(context, description, async () => {
      last = await call();
      return until(last) ? true : undefined;
    });
  } catch (error) {
    // The test's own time ran out first: nothing is known of the target, and the last answer is no verdict on it.
    if (error instanceof TestTimeRanOut) blockOnWait(error, { prerequisite: 'provider-a', requirement: 'FLOW-06', message: `${description}: ${last === undefined ? 'no answer yet' : shortly(last)}` });
    if (!(error instanceof SetupFailed) || last === undefined) throw error;
  }
  return last as ApiResponse;
}

const LISTED_STATUSES = ['Completed', 'CompleteConflict', 'Unknown'];

const completed = (data: any): boolean => data?.Status === 'Completed';

/** Onboarding provider A was refused: nothing that needs it can run. */
export function providerARefused(response: ApiResponse): RootCause {
  return { prerequisite: 'provider-a', requirement: 'PRA-01', message: `provider A registration was refused: ${shortly(response)}` };
}

/** Why provider A never reached Completed: a status outside the list (PRA-18) or one that never moved on (FLOW-06). */
export function providerACause(context: RunContext, last: ApiResponse): RootCause {
  const status = last.data?.Status;
  const unlisted = last.status === 200 && typeof status === 'string' && !LISTED_STATUSES.includes(status);
  const why = unlisted ? ` (status ${JSON.stringify(status)} is none of ${LISTED_STATUSES.join(', ')})` : '';
  return { prerequisite: 'provider-a', requirement: unlisted ? 'PRA-18' : 'FLOW-06', message: `the provider A record never reached Completed within ${context.asyncTimeoutSeconds} s${why}: ${shortly(last)}` };
}

/**
 * Reads the record until its status is Completed (or what `until` accepts). Whether and how the
 * status moves is not shown, so every value seen is kept for the PRA-48 observation. Waiting for
 * Completed is a shared prerequisite: known broken, the test ends at once as blocked; found broken
 * here, it is recorded for later tests and this one judges the last answer.
 */
export async function pollRecord(api: ApiClient, context: RunContext, token: string, until?: (data: any) => boolean): Promise<RecordPoll> {
  if (until === undefined) requirePrerequisites('provider-a');
  const seen: string[] = [];
  const response = await pollResponse(
    context,
    'provider A record reaching the expected status',
    async () => {
      const answer = await api.get(PROVIDER_A_PATH, { auth: { clientToken: token } });
      const described = `${answer.status}: ${describeRecord(answer.data)}`;
      if (seen[seen.length - 1] !== described) seen.push(described);
      return answer;
    },
    (answer) => answer.status === 200 && (until ?? completed)(answer.data),
  );
  if (until === undefined && !completed(response.data)) recordBroken(providerACause(context, response));
  return { response, seen };
}

/** Onboards provider A for a company and waits for the record to be Completed; for fixtures (throws SetupFailed). */
export async function onboardProviderA(api: ApiClient, context: RunContext, company: RegisteredCompany, registration: Required<ProviderARegistrationInput>): Promise<ProviderACompany> {
  requirePrerequisites('provider-a');
  const response = await api.post(PROVIDER_A_PATH, { auth: { clientToken: company.token }, json: registration });
  if (response.status !== 200) broken(recordBroken(providerARefused(response)));
  const { response: record } = await pollRecord(api, context, company.token);
  if (record.status !== 200 || !completed(record.data)) broken(recordBroken(providerACause(context, record)));
  return { ...company, registration, record: record.data as Record<string, unknown> };
}

/** The two big lookup bodies, as JSON text: made once per worker, sent as they are. */
export interface SsnLookupBodies {
  atLimit: string;
  overLimit: string;
}

function lookupText(ssns: readonly string[]): string {
  return JSON.stringify({ Ssns: ssns });
}

interface ProviderAWorkerFixtures {
  providerACompanyOutcome: Outcome<ProviderACompany>;
  swedishCompanyOutcome: Outcome<RegisteredCompany>;
  ssnLookupBodies: SsnLookupBodies;
}

/** Test-scoped over the worker's outcome, so a broken prerequisite blocks the test at once. */
interface ProviderATestFixtures {
  providerACompany: ProviderACompany;
  swedishCompany: RegisteredCompany;
}

export const test = base.extend<ProviderATestFixtures, ProviderAWorkerFixtures>({
  providerACompanyOutcome: [
    async ({ setupApi, target, fixtures, headStart }, use) => {
      const outcome = await settle(async () => {
        const company = await headStart.company('providerACompany', setupApi);
        return onboardProviderA(setupApi, target, company, fixtures.providerARegistration(company.input));
      });
      await use(outcome);
      // Frees the tenant (the company's OrgNo): a later run against the same target may draw it again.
      if ('value' in outcome) await setupApi.post(OFFBOARD_PATH, { auth: { clientToken: outcome.value.token } });
    },
    { scope: 'worker' },
  ],

  swedishCompanyOutcome: [
    async ({ setupApi, headStart }, use) => {
      await use(await registerRole(headStart, setupApi, 'swedishCompany'));
    },
    { scope: 'worker' },
  ],

  providerACompany: async ({ providerACompanyOutcome }, use) => use(unwrap(providerACompanyOutcome)),
  swedishCompany: async ({ swedishCompanyOutcome }, use) => use(unwrap(swedishCompanyOutcome)),

  ssnLookupBodies: [
    async ({ fixtures }, use) => {
      // Distinct numbers, so a target that drops duplicates still counts 500001.
      const ssns = fixtures.ssns(MAX_SSNS_PER_LOOKUP + 1);
      await use({ overLimit: lookupText(ssns), atLimit: lookupText(ssns.slice(0, MAX_SSNS_PER_LOOKUP)) });
    },
    { scope: 'worker' },
  ],
});
