// The bridge between k6 and the shared checks of lib/checks.ts: k6's Response becomes the same
// ObservedResponse the contract suite builds, and every check is recorded with k6's check()
// under a name that says what it asserts, tagged with the endpoint so thresholds and the
// report can tell endpoints apart.
//
// k6 side only.

import { check } from 'k6';
import type { RefinedResponse, ResponseType } from 'k6/http';
import type { Check, ObservedResponse } from '../../lib/checks.ts';
import { SecretRegistry } from '../../lib/redact.ts';
import { settings } from './settings.ts';

type K6Response = RefinedResponse<ResponseType | undefined>;

function startsLikeJson(text: string): boolean {
  // Most bodies start with the bracket itself: no trimmed copy of the text for them.
  let first = text[0];
  if (first !== '{' && first !== '[' && first !== '"') first = text.trimStart()[0];
  return first === '{' || first === '[' || first === '"';
}

/**
 * The response as the shared checks see it. Headers and JSON are made on first use (prototype
 * getters): most checks only read the status, and copying every response costs throughput.
 */
class K6Observed implements ObservedResponse {
  readonly status: number;
  readonly text: string | undefined;
  readonly size: number;
  private readonly response: K6Response;
  private headerCopy: Record<string, string> | undefined;
  private parsed = false;
  private parsedJson: unknown;

  constructor(response: K6Response) {
    this.response = response;
    this.status = response.status;
    const body = response.body;
    this.text = typeof body === 'string' ? body : body === null || body === undefined ? '' : undefined;
    this.size = typeof body === 'string' ? body.length : body === null || body === undefined ? 0 : body.byteLength;
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
export interface CheckSet {
  readonly endpoint: string;
  readonly functions: Readonly<Record<string, (value: ObservedResponse) => boolean>>;
  readonly tags: Readonly<{ endpoint: string }>;
}

function runCheck(item: NamedCheck, endpoint: string, value: ObservedResponse): boolean {
  if (item.passes !== undefined && item.passes(value)) return true;
  const outcome = item.check(value);
  // The first failure of each check per VU goes to the log with expected and actual, so a
  // failed run says why without flooding the log.
  if (!outcome.ok && !reported.has(item.name)) {
    reported.add(item.name);
    console.warn(vuSecrets.redactText(`check failed: ${item.name} (${endpoint}): expected ${outcome.expected}, got ${outcome.actual}`));
  }
  return outcome.ok;
}

export function checkSet(endpoint: string, checks: readonly NamedCheck[]): CheckSet {
  const functions: Record<string, (value: ObservedResponse) => boolean> = {};
  for (const item of checks) functions[item.name] = (value) => runCheck(item, endpoint, value);
  return { endpoint, functions, tags: { endpoint } };
}

/** Runs a prepared set of checks on one observed response; true when all passed. */
export function verifySet(observed: ObservedResponse, set: CheckSet): boolean {
  return check(observed, set.functions, set.tags);
}

/** Runs the named checks on one observed response; true when all passed. */
export function verify(observed: ObservedResponse, endpoint: string, checks: NamedCheck[]): boolean {
  return verifySet(observed, checkSet(endpoint, checks));
}

/** A check that is not about one response (a poll that ended, a list that was not empty). */
export function verifyThat(name: string, endpoint: string, ok: boolean): boolean {
  return check(ok, { [name]: (value) => value }, { endpoint });
}
