// Registering a company the way the guide does it, for fixtures and scenarios:
// register (APIkey) -> client token (APIkey + ErpId) -> poll the status until Registered.
import type { CompanyInput } from '../../fixtures/bodies.ts';
import { CLIENT_TOKEN_HEADER } from '../../lib/defaults.ts';
import { secrets } from '../../lib/redact.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { broken, brokenPrerequisite, recordBroken, requirePrerequisites, unlessTransport, runningTestTime, type PrerequisiteName, type RootCause } from './prerequisites.ts';
import type { RunContext } from './run-context.ts';
import { recordRunFinding, runFinding, runFindings } from './run-findings.ts';
import { backgroundKind, nextPollWait, recordBackgroundWait, waitBound } from './timing.ts';

export interface RegisteredCompany {
  input: CompanyInput;
  erpId: string;
  companyId: string;
  /** A client token of the company (already registered as a secret). */
  token: string;
  /** The normalised body of the last company status answer. */
  status: Record<string, any>;
}

/** Thrown when a fixture cannot set up what a test needs; the message carries the redacted exchange. */
export class SetupFailed extends Error {
  override readonly name: string = 'SetupFailed';
}

/**
 * A wait inside a test that the test's own time cut short, before the async timeout (issue 36):
 * nothing is known of the target, so what awaited it blocks this test (blockOnWait) and records
 * no broken prerequisite for the run.
 */
export class TestTimeRanOut extends SetupFailed {
  override readonly name: string = 'TestTimeRanOut';
}

/**
 * A prerequisite awaited inside a test was not reached: the test ends as blocked with the root
 * cause. Cut short by the test's own time, only this test is blocked, and the cause says so;
 * otherwise the target had its async timeout, and the cause is recorded for every later test.
 */
export function blockOnWait(error: unknown, cause: RootCause): never {
  if (error instanceof TestTimeRanOut) broken({ ...cause, message: `${error.message}; ${cause.message.replace(/ within \d+ s/, '')}` });
  broken(recordBroken(cause));
}

/** The call and what came back, in one line (for setup failures and root causes). */
export function shortly(response: ApiResponse): string {
  const answer = response.recorded.response;
  return `${response.recorded.title} answered ${answer?.status}${answer?.body !== undefined ? ` ${JSON.stringify(answer.body).slice(0, 300)}` : ''}`;
}

/**
 * Calls `attempt` until it returns a value, within the run's async timeout. The wait between
 * attempts follows what this target showed (timing.ts: a bounded backoff, paced by the quickest
 * completion of the same kind of work seen so far), so a fast sandbox is not slowed and staging
 * is not hammered. The time spent waiting is counted for the report.
 * `after`: the shared prerequisites the awaited state depends on; when one is already known broken
 * the target has had its async timeout once, so one attempt is made and its answer judged.
 */
export async function pollUntil<T>(context: RunContext, description: string, attempt: () => Promise<T | undefined>, after: readonly PrerequisiteName[] = []): Promise<T> {
  const known = after.some((name) => brokenPrerequisite(name) !== undefined);
  // Inside a test, the wait also ends before the test's own time does (timing.ts, waitBound).
  const bound = known ? { ms: 0, byTest: false } : waitBound(context.asyncTimeoutSeconds * 1000, runningTestTime(), Date.now());
  const deadline = Date.now() + bound.ms;
  const kind = backgroundKind(description);
  const started = performance.now();
  let tries = 0;
  let completed = false;
  try {
    for (;;) {
      tries++;
      const value = await attempt();
      if (value !== undefined) {
        // A value of false gives up; only a state reached after a wait says how long the work takes.
        completed = value !== false && tries > 1;
        return value;
      }
      const wait = nextPollWait(kind, performance.now() - started, tries - 1, context.latencyMs);
      if (Date.now() + wait > deadline) {
        if (bound.byTest) throw new TestTimeRanOut(`${description}: not reached before the test's own time ran out (${Math.round(bound.ms / 1000)} s of it were left for this wait, less than the async timeout of ${context.asyncTimeoutSeconds} s; ${tries} attempts)`);
        throw new SetupFailed(`${description}: not reached within the async timeout of ${context.asyncTimeoutSeconds} s (${tries} attempts; raise it with --async-timeout)`);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    recordBackgroundWait(kind, performance.now() - started, completed);
  }
}

/**
 * How long an answer must stay the same before a wait for something the spec does not promise
 * ends on it: a third of the async timeout (a document resting in a status that may be its last
 * waits as long).
 */
export function restingMs(context: RunContext): number {
  return (context.asyncTimeoutSeconds * 1000) / 3;
}

export interface SettledPoll {
  /** The last answer. */
  last: ApiResponse;
  reached: boolean;
  /** Why the wait ended: "reached", or what the answer did instead. */
  ended: string;
}

/**
 * Reads until `until` holds of the answer, for something the spec does not promise (a Name taken
 * from the input, processes listed): the wait also ends once the answer has stayed the same for
 * restingMs, and never runs to the async timeout for a value that is not coming (issue 36).
 */
export async function pollUntilSettled(context: RunContext, description: string, read: () => Promise<ApiResponse>, until: (response: ApiResponse) => boolean): Promise<SettledPoll> {
  let last: ApiResponse | undefined;
  let ended = `the async timeout of ${context.asyncTimeoutSeconds} s ran out`;
  let same: { answer: string; since: number } | undefined;
  try {
    await pollUntil(context, description, async () => {
      last = await read();
      if (until(last)) {
        ended = 'reached';
        return true;
      }
      const answer = `${last.status} ${JSON.stringify(last.json ?? last.text ?? '')}`;
      same = same?.answer === answer ? same : { answer, since: Date.now() };
      if (Date.now() - same.since < restingMs(context)) return undefined;
      ended = `the answer stayed ${last.status} with the same body for a third of the async timeout`;
      return false;
    });
  } catch (error) {
    // Cut short by the test's own time, the answer neither settled nor reached: no verdict on the target (issue 36).
    if (error instanceof TestTimeRanOut) blockOnWait(error, { prerequisite: 'registration', requirement: 'CMP-STA-06', message: `${description}: ${last === undefined ? 'no answer yet' : shortly(last)}` });
    if (!(error instanceof SetupFailed) || last === undefined) throw error;
  }
  return { last: last as ApiResponse, reached: ended === 'reached', ended };
}

/** The API key a company is registered under: the run's key, or its second one (another integrator's). */
export type ApiKeyAuth = 'apiKey' | 'apiKeyWithoutDelete';

export async function createClientToken(api: ApiClient, erpId: string, extra: Record<string, unknown> = {}, apiKey: ApiKeyAuth = 'apiKey'): Promise<{ response: ApiResponse; token?: string }> {
  const response = await api.post('/clienttokens/create', { auth: apiKey, json: { ErpId: erpId, ...extra } });
  const token = response.status === 200 && typeof response.data?.Token === 'string' ? (response.data.Token as string) : undefined;
  secrets.add(token);
  return { response, token };
}

/** Which kind of token a wait for a refusal is for: a kind found never refused is not waited for again (issue 58). */
export type RefusedKind = 'revoked' | 'expired';

/** The run finding (run-findings.ts) of a kind of token still accepted after the async timeout. */
export function neverRefusedFinding(kind: RefusedKind): string {
  return `${kind} token accepted`;
}

/**
 * Company status with the token, repeated until it is refused (bounded by the async timeout): a
 * revocation or an expiry may take a moment to reach every node. The last answer. Once one wait of
 * the run (any worker's) saw a token of this kind still accepted after the async timeout, that is
 * the finding: the others ask once and do not wait again.
 */
export async function untilTokenRefused(api: ApiClient, context: RunContext, token: string, kind: RefusedKind): Promise<ApiResponse> {
  const refused = (response: ApiResponse): boolean => response.status >= 400 && response.status < 500;
  const finding = neverRefusedFinding(kind);
  let last = await api.get('/companies/status', { auth: { clientToken: token } });
  if (refused(last) || runFinding(finding) !== undefined) return last;
  let foundElsewhere = false;
  let cut = false;
  await pollUntil(context, `the ${kind} token being refused`, async () => {
    last = await api.get('/companies/status', { auth: { clientToken: token } });
    if (refused(last)) return true;
    foundElsewhere = runFinding(finding) !== undefined;
    return foundElsewhere ? false : undefined;
  }).catch((error: unknown) => {
    // A lost call is the deployment's transport, not a finding: it ends the test as such.
    unlessTransport(undefined)(error);
    // Cut short by the test's own time: nothing is known of the target.
    cut = error instanceof TestTimeRanOut;
  });
  if (!refused(last) && !foundElsewhere && !cut) {
    recordRunFinding({ name: finding, message: `a ${kind} ClientToken was still accepted after the async timeout of ${context.asyncTimeoutSeconds} s: GET /companies/status answered ${last.status}` });
  }
  return last;
}

/**
 * Revokes a client token. Which scheme revoke takes is not shown (TOK-27): the call carries the
 * APIkey header and the token itself in the ClientToken header, so it is authenticated under
 * either reading.
 */
export function revokeClientToken(api: ApiClient, token: string): Promise<ApiResponse> {
  return api.post('/clienttokens/revoke', { auth: 'apiKey', headers: { [CLIENT_TOKEN_HEADER]: token }, json: { ClientToken: token } });
}

/** A company that never reads Status Registered within the async timeout. */
export function registrationCause(context: RunContext, last: ApiResponse | undefined): RootCause {
  return { prerequisite: 'registration', requirement: 'CMP-STA-06', message: `registration never reached Registered within ${context.asyncTimeoutSeconds} s: ${last === undefined ? 'no status answer' : shortly(last)}` };
}

/**
 * Registers a company (or takes the answer to its register call made early) and waits until it is
 * Registered with a client token. Both are shared
 * prerequisites (prerequisites.ts): when either is already known broken the test ends at once as
 * blocked, and when this call finds one broken it is recorded for every later test.
 */
export async function registerCompany(api: ApiClient, context: RunContext, input: CompanyInput, apiKey: ApiKeyAuth = 'apiKey', early?: Promise<ApiResponse | undefined>): Promise<RegisteredCompany> {
  requirePrerequisites('client-token', 'registration');
  // The answer to a register call made early (head-start.ts) is judged here, as if made now.
  const register = (await early) ?? (await api.post('/companies/register', { auth: apiKey, json: input }));
  if (register.status !== 202 && register.status !== 200) {
    broken(recordBroken({ prerequisite: 'registration', requirement: 'CMP-REG-01', message: `registering a company was refused: ${shortly(register)}` }));
  }
  let token: string | undefined;
  let tokenAnswer: ApiResponse | undefined;
  let last: ApiResponse | undefined;
  let reached: Record<string, any> | false | undefined;
  let cut: unknown;
  try {
    reached = await pollUntil(context, `company ${input.ErpId} reaching Status Registered`, async () => {
      // Whether a token can be had before registration completes is not shown, so it is retried too.
      if (token === undefined) {
        const created = await createClientToken(api, input.ErpId, {}, apiKey);
        tokenAnswer = created.response;
        token = created.token;
        // A 200 without a Token does not get better by waiting.
        if (token === undefined && tokenAnswer.status === 200) return false;
      }
      if (token === undefined) return undefined;
      last = await api.get('/companies/status', { auth: { clientToken: token } });
      return last.status === 200 && last.data?.Status === 'Registered' ? (last.data as Record<string, any>) : undefined;
    });
  } catch (error) {
    if (!(error instanceof SetupFailed)) throw error;
    cut = error;
  }
  if (token === undefined) {
    const answer = tokenAnswer as ApiResponse;
    const within = answer.status === 200 ? '' : ` within ${context.asyncTimeoutSeconds} s`;
    blockOnWait(cut, { prerequisite: 'client-token', requirement: answer.status === 200 ? 'TOK-02' : 'TOK-01', message: `no client token for a registered company${within}: ${shortly(answer)}` });
  }
  if (reached === undefined || reached === false) blockOnWait(cut, registrationCause(context, last));
  const company = { input, erpId: input.ErpId, companyId: String(reached.CompanyId ?? ''), token, status: reached };
  recordCompanyOfRun(company, apiKey, last as ApiResponse);
  return company;
}

const COMPANY_OF_RUN = 'company of the run';
/** The run finding of a token whose company status named another company of the run (issue 58): TOK-32 fails on it. */
export const TOKEN_OF_ANOTHER_COMPANY = 'token acts for another company';

/** The CompanyIds the run's registrations read on their tokens' first use, by this worker and the others. */
export function companiesOfRun(): Array<{ erpId: string; key: string; companyId: string }> {
  return runFindings(COMPANY_OF_RUN).map((finding) => ({ erpId: finding.facts?.erpId ?? '', key: finding.facts?.key ?? '', companyId: finding.facts?.companyId ?? '' }));
}

/**
 * A token's first use names whom it acts for (issue 58; the Authentication table: "the company the
 * token was created for"): two ErpIds are two companies of the integrator, so a CompanyId that
 * another registration of the run read already is another company's. (One ErpId under two keys may
 * be one company: whether two keys are one integrator is not shown.) No call is added: the status
 * read is the registration's own.
 */
function recordCompanyOfRun(company: RegisteredCompany, apiKey: ApiKeyAuth, status: ApiResponse): void {
  if (company.companyId === '') return;
  const other = companiesOfRun().find((seen) => seen.companyId === company.companyId && seen.erpId !== company.erpId);
  if (other !== undefined) {
    recordRunFinding({ name: TOKEN_OF_ANOTHER_COMPANY, message: `the client token created for ErpId ${company.erpId} acts for CompanyId ${company.companyId}, which company status named for ErpId ${other.erpId}, another registration of this run: ${shortly(status)}` });
  }
  recordRunFinding({ name: COMPANY_OF_RUN, message: company.erpId, facts: { erpId: company.erpId, key: apiKey, companyId: company.companyId } });
}
