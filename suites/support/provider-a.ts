// Provider A setup for the suites: onboarding a Swedish company the way the guide does it,
// reading its record, and the worker-scoped fixtures the provider A tests share:
//   providerACompany  (worker) a Swedish company with provider A onboarded and its record Completed
//   swedishCompany    (worker) a Swedish company that never registers provider A (for refused bodies)
//   ssnLookupBodies   (worker) the 500000- and 500001-SSN lookup bodies, serialised once (~7 MB each)
// Onboarding is never done on the shared registeredCompany: other suites send with it and expect
// no business-to-consumer provider to be active.
import type { ProviderARegistrationInput } from '../../fixtures/bodies.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { pollUntil, registerCompany, SetupFailed, type RegisteredCompany } from './companies.ts';
import { test as base } from './fixtures.ts';
import type { RunContext } from './run-context.ts';

export const PROVIDER_A_PATH = '/companies/deliverymethods/b2c/providera';
export const ICON_PATH = `${PROVIDER_A_PATH}/icon`;
export const LOOKUP_PATH = `${PROVIDER_A_PATH}/lookup`;
export const OFFBOARD_PATH = `${PROVIDER_A_PATH}/offboard`;
export const MAX_SSNS_PER_LOOKUP = 500_000;

/** The record's fields as our normaliser spells them (the spec writes them in camelCase). */
export const RECORD_CONTACT_FIELDS = ['DisplayName', 'ContactFirstName', 'ContactLastName', 'ContactPersonEmail', 'GeneralEmail', 'ContactPhone'] as const;

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
 * value against the one the target kept answering.
 */
export async function pollResponse(context: RunContext, description: string, call: () => Promise<ApiResponse>, until: (response: ApiResponse) => boolean): Promise<ApiResponse> {
  let last: ApiResponse | undefined;
  try {
    await pollUntil(context, description, async () => {
      last = await call();
      return until(last) ? true : undefined;
    });
  } catch (error) {
    if (!(error instanceof SetupFailed) || last === undefined) throw error;
  }
  return last as ApiResponse;
}

/**
 * Reads the record until its status is Completed (or what `until` accepts). Whether and how the
 * status moves is not shown, so every value seen is kept for the PRA-48 observation.
 */
export async function pollRecord(api: ApiClient, context: RunContext, token: string, until: (data: any) => boolean = (data) => data?.Status === 'Completed'): Promise<RecordPoll> {
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
    (answer) => answer.status === 200 && until(answer.data),
  );
  return { response, seen };
}

/** Onboards provider A for a company and waits for the record to be Completed; for fixtures (throws SetupFailed). */
export async function onboardProviderA(api: ApiClient, context: RunContext, company: RegisteredCompany, registration: Required<ProviderARegistrationInput>): Promise<ProviderACompany> {
  const response = await api.post(PROVIDER_A_PATH, { auth: { clientToken: company.token }, json: registration });
  if (response.status !== 200) {
    throw new SetupFailed(`cannot onboard provider A for ${company.erpId}: POST ${PROVIDER_A_PATH} answered ${response.status} ${JSON.stringify(response.recorded.response?.body ?? '').slice(0, 300)}`);
  }
  const { response: record, seen } = await pollRecord(api, context, company.token);
  if (record.status !== 200 || record.data?.Status !== 'Completed') {
    throw new SetupFailed(`provider A record of ${company.erpId} did not reach Completed within ${context.asyncTimeoutSeconds} s; seen: ${seen.join(' -> ')}`);
  }
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
  providerACompany: ProviderACompany;
  swedishCompany: RegisteredCompany;
  ssnLookupBodies: SsnLookupBodies;
}

export const test = base.extend<{}, ProviderAWorkerFixtures>({
  providerACompany: [
    async ({ setupApi, target, fixtures }, use) => {
      const company = await registerCompany(setupApi, target, fixtures.company('SE'));
      const onboarded = await onboardProviderA(setupApi, target, company, fixtures.providerARegistration(company.input));
      await use(onboarded);
      // Frees the tenant (the company's OrgNo): a later run against the same target may draw it again.
      await setupApi.post(OFFBOARD_PATH, { auth: { clientToken: onboarded.token } });
    },
    { scope: 'worker' },
  ],

  swedishCompany: [
    async ({ setupApi, target, fixtures }, use) => {
      await use(await registerCompany(setupApi, target, fixtures.company('SE')));
    },
    { scope: 'worker' },
  ],

  ssnLookupBodies: [
    async ({ fixtures }, use) => {
      // Distinct numbers, so a target that drops duplicates still counts 500001.
      const ssns = fixtures.ssns(MAX_SSNS_PER_LOOKUP + 1);
      await use({ overLimit: lookupText(ssns), atLimit: lookupText(ssns.slice(0, MAX_SSNS_PER_LOOKUP)) });
    },
    { scope: 'worker' },
  ],
});
