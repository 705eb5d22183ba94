// The bridge between k6 and the shared checks of lib/checks.ts: k6's Response becomes the same
// ObservedResponse the contract suite builds, and every check is recorded with k6's check()
// under a name that says what it asserts, tagged with the endpoint so thresholds and the
// report can tell endpoints apart.
//
// k6 side only.

import { check } from 'k6';
import { Counter, Rate } from 'k6/metrics';
import http, { type RefinedResponse, type ResponseType } from 'k6/http';
import { statusIs, type Check, type ObservedResponse } from '../../lib/checks.ts';
import { RATE_LIMITED_STATUS } from '../../lib/gateway.ts';
import { SecretRegistry } from '../../lib/redact.ts';
import { settings } from './settings.ts';

export type K6Response = RefinedResponse<ResponseType | undefined>;

function startsLikeJson(text: string): boolean {
  // Most bodies start with the bracket itself: no trimmed copy of the text for them.
  let first = text[0];
  if (first !== '{' && first !== '[' && first !== '"') first = text.trimStart()[0];
  return first === '{' || first === '[' || first === '"';
}

/**
 * The response as the shared checks see it. The body and headers are read from k6 on first use
 * (prototype getters): an unsampled response is only asked its status, and each property of
 * k6's Response crosses from Go.
 */
class K6Observed implements ObservedResponse {
  readonly status: number;
  private readonly response: K6Response;
  private bodyRead = false;
  private bodyText: string | undefined;
  private bodySize = 0;
  private headerCopy: Record<string, string> | undefined;
  private parsed = false;
  private parsedJson: unknown;

  constructor(response: K6Response) {
    this.response = response;
    this.status = response.status;
  }

  get text(): string | undefined {
    this.readBody();
    return this.bodyText;
  }

  get size(): number {
    this.readBody();
    return this.bodySize;
  }

  get headers(): Record<string, string> {
    if (this.headerCopy === undefined) {
      const copy: Record<string, string> = {};
      for (const name in this.response.headers) copy[name.toLowerCase()] = this.response.headers[name];
      this.headerCopy = copy;
    }
    return this.headerCopy;
  }

  get json(): unknown {
    if (!this.parsed) {
      this.parsed = true;
      const text = this.text;
      // JSON when the body starts like JSON or the content type says so. The headers are only
      // read for the other bodies: k6 gives header names in canonical form, and reading them
      // crosses from k6's Go side on each response.
      if (text !== undefined && text.length > 0 && (startsLikeJson(text) || this.contentTypeSaysJson())) {
        try {
          this.parsedJson = JSON.parse(text);
        } catch {
          // Not JSON after all: the checks that need JSON say so.
        }
      }
    }
    return this.parsedJson;
  }

  private readBody(): void {
    if (this.bodyRead) return;
    this.bodyRead = true;
    const body = this.response.body;
    this.bodyText = typeof body === 'string' ? body : body === null || body === undefined ? '' : undefined;
    this.bodySize = typeof body === 'string' ? body.length : body === null || body === undefined ? 0 : body.byteLength;
  }

  private contentTypeSaysJson(): boolean {
    const headers = this.response.headers;
    return (headers['Content-Type'] ?? headers['content-type'] ?? '').includes('json');
  }
}

export function observe(response: K6Response): ObservedResponse {
  return new K6Observed(response);
}

/** A check of the shared library under the name that the k6 summary and our report show. */
export interface NamedCheck {
  name: string;
  check: Check;
  /**
   * Optional quick test that is true exactly when `check` passes, without building the outcome
   * (expected and actual text). When it says false, `check` runs and tells why.
   */
  passes?: (response: ObservedResponse) => boolean;
  /**
   * Set on the checks of an answer's contract (lib/contract.ts): the requirement IDs they serve and
   * their basis. A spec check is recorded with the tag contract=spec (its own threshold); a
   * hardening check only counts in dxs_hardening, a warning as in dxs test.
   */
  contract?: { requirements: readonly string[]; basis: 'spec' | 'hardening' };
}

export function named(name: string, checkFunction: Check, passes?: (response: ObservedResponse) => boolean): NamedCheck {
  return passes === undefined ? { name, check: checkFunction } : { name, check: checkFunction, passes };
}

/** Keys and tokens seen by this VU: a logged failure never shows them. */
export const vuSecrets = new SecretRegistry();
vuSecrets.add(settings.apiKey);
const reported = new Set<string>();

/**
 * Named checks made ready for k6's check() once, for one endpoint: the functions k6 calls and
 * the tags object are built here, not per response (per-call closures and objects showed in
 * the throughput of the busy scripts).
 */
interface CheckSet {
  readonly functions: Readonly<Record<string, (value: ObservedResponse) => boolean>>;
  /** The endpoint in `name`, as the requests carry it (lib/api.ts), so checks{name:…} counts them. */
  readonly tags: Readonly<{ name: string }>;
}

function runCheck(item: NamedCheck, endpoint: string, value: ObservedResponse): boolean {
  if (item.passes !== undefined && item.passes(value)) return true;
  const outcome = item.check(value);
  // The first failure of each check per VU goes to the log with expected and actual, so a
  // failed run says why without flooding the log.
  if (!outcome.ok && !reported.has(item.name)) {
    reported.add(item.name);
    const hardening = item.contract?.basis === 'hardening';
    const basis = item.contract === undefined ? '' : ` (basis: ${item.contract.basis}${hardening ? ', a warning as in dxs test without --strict' : ''})`;
    console.warn(vuSecrets.redactText(`${hardening ? 'warning' : 'check failed'}: ${item.name} (${endpoint}): expected ${outcome.expected}, got ${outcome.actual}${basis}`));
  }
  return outcome.ok;
}

/** Hardening checks of the contract: passes and failures per endpoint and check, never a threshold of their own. */
export const HARDENING_METRIC = 'dxs_hardening';
const hardening = new Rate(HARDENING_METRIC);

/**
 * Checks that failed, counted as they fail: k6's REST API gives the checks metric as a ratio only,
 * and the progress line dxs load prints off a terminal says how many failed so far
 * (cli/commands/load/progress.ts). Added to on a failure only, so a passing run pays nothing.
 */
export const FAILED_CHECKS_METRIC = 'dxs_checks_failed';
const failedChecks = new Counter(FAILED_CHECKS_METRIC);

function checkSet(endpoint: string, checks: readonly NamedCheck[]): CheckSet {
  const functions: Record<string, (value: ObservedResponse) => boolean> = {};
  for (const item of checks) {
    functions[item.name] = (value) => {
      const ok = runCheck(item, endpoint, value);
      if (!ok) failedChecks.add(1);
      return ok;
    };
  }
  return { functions, tags: { name: endpoint } };
}

/**
 * An endpoint's shared checks. Every response's status is judged by k6 itself: the request
 * carries `responseCallback` (the endpoint's statuses), so http_req_failed and its per-endpoint
 * threshold count every unexpected answer at no cost to the script. The named checks of
 * lib/checks.ts (the status among them) are recorded with check() on a sample of the responses,
 * per VU and endpoint: the first response, then the first one after each `--check-interval`
 * milliseconds; the schema check on one in `--schema-sample` of those. A checked response costs
 * k6 about three bare requests, so a sample by time keeps that cost flat under load while a
 * slow run still has most of its responses checked.
 */
export interface EndpointChecks {
  readonly endpoint: string;
  readonly statuses: readonly number[];
  /** For the request's params: k6 marks any other status failed. */
  readonly responseCallback: ReturnType<typeof http.expectedStatuses>;
  /**
   * True when the response passed: its status always, the recorded checks when it fell in the
   * sample. Given k6's own response, the observed copy is only made for a sampled one; a flow
   * that reads the answer passes its observed response, so the body is read from k6 once.
   * `extra` adds checks that depend on the call's own input (made per call).
   */
  verify(response: K6Response | ObservedResponse, extra?: readonly NamedCheck[]): boolean;
  /**
   * For a flow that does not use the answer: true when the next response falls in the sample, and
   * then goes to record(). Asked before the request, so that an unsampled one can be made with
   * `responseType: 'none'` (k6 then makes no string of its body), and never read: reading even the
   * status of k6's Response cost about 8 µs of k6 CPU per request under load, a tenth of the request.
   */
  due(): boolean;
  record(response: K6Response): void;
}

export function endpointChecks(endpoint: string, statuses: readonly number[], checks: readonly NamedCheck[], contract: readonly NamedCheck[] = []): EndpointChecks {
  const always = [answers(endpoint, statuses), ...checks];
  const named = checkSet(endpoint, always);
  const spec = checkSet(endpoint, contract.filter((item) => item.contract?.basis !== 'hardening'));
  const specTags = { ...spec.tags, contract: 'spec' };
  const warnings = contract.filter((item) => item.contract?.basis === 'hardening').map((item) => ({ item, tags: { name: endpoint, check: item.name } }));
  // Read once: k6 interprets the script, and the unsampled path runs on every response.
  const checkInterval = settings.checkInterval;
  const schemaSample = contract.length === 0 ? 0 : settings.schemaSample;
  const statusPasses = statusRule(statuses);
  let nextCheckAt = 0;
  let checked = 0;
  const due = (): boolean => {
    if (checkInterval === 0) return true;
    const now = Date.now();
    if (now < nextCheckAt) return false;
    nextCheckAt = now + checkInterval;
    return true;
  };
  const record = (observed: ObservedResponse, extra: readonly NamedCheck[] | undefined): boolean => {
    const schemaChecked = schemaSample > 0 && checked++ % schemaSample === 0;
    const set = extra !== undefined && extra.length > 0 ? checkSet(endpoint, [...always, ...extra]) : named;
    let ok = check(observed, set.functions, set.tags);
    if (schemaChecked) {
      // The contract's spec checks under their own tag, so that one wrong body fails the run (thresholds.ts).
      ok = check(observed, spec.functions, specTags) && ok;
      for (const warning of warnings) hardening.add(runCheck(warning.item, endpoint, observed), warning.tags);
    }
    return ok;
  };
  return {
    endpoint,
    statuses,
    // A 429 is the gateway's answer (lib/gateway.ts): not failed in http_req_failed, never judged
    // by a check; the report counts it apart (http_reqs{status:429}), a limit the load has found.
    responseCallback: http.expectedStatuses(...statuses, RATE_LIMITED_STATUS),
    verify(response, extra) {
      const statusOk = statusPasses(response);
      if (!statusOk && response.status === RATE_LIMITED_STATUS) return false;
      if (!due()) return statusOk;
      const observed = response instanceof K6Observed ? response : observe(response as K6Response);
      return record(observed, extra) && statusOk;
    },
    due,
    record(response) {
      const observed = observe(response);
      if (observed.status !== RATE_LIMITED_STATUS) record(observed, undefined);
    },
  };
}

/** True when the status is one of the endpoint's; a single status is compared directly. */
function statusRule(statuses: readonly number[]): (response: { status: number }) => boolean {
  const only = statuses.length === 1 ? statuses[0] : undefined;
  return only !== undefined ? (response) => response.status === only : (response) => statuses.includes(response.status);
}

/** The status rule as a named check of lib/checks.ts, for the sampled responses. */
function answers(endpoint: string, statuses: readonly number[]): NamedCheck {
  return named(`${endpoint} answers ${statuses.join(' or ')}`, statusIs(...statuses), statusRule(statuses));
}

/** A check that is not about one response (a poll that ended, a list that was not empty). */
export function verifyThat(name: string, endpoint: string, ok: boolean): boolean {
  if (!ok) failedChecks.add(1);
  return check(ok, { [name]: (value) => value }, { name: endpoint });
}
