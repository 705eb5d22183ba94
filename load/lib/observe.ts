// The bridge between k6 and the shared checks of lib/checks.ts: k6's Response becomes the same
// ObservedResponse the contract suite builds, and every check is recorded with k6's check()
// under a name that says what it asserts, tagged with the endpoint so thresholds and the
// report can tell endpoints apart.
//
// k6 side only.

import { check } from 'k6';
import type { RefinedResponse, ResponseType } from 'k6/http';
import type { Check, ObservedResponse } from '../../lib/checks.ts';

type K6Response = RefinedResponse<ResponseType | undefined>;

function looksLikeJson(contentType: string, text: string): boolean {
  if (contentType.includes('json')) return true;
  const first = text.trimStart()[0];
  return first === '{' || first === '[' || first === '"';
}

export function observe(response: K6Response): ObservedResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = value;
  const body = response.body;
  if (body === null || body === undefined) return { status: response.status, headers, text: '', size: 0 };
  if (typeof body !== 'string') return { status: response.status, headers, size: body.byteLength };
  const observed: ObservedResponse = { status: response.status, headers, text: body, size: body.length };
  if (body.length > 0 && looksLikeJson(headers['content-type'] ?? '', body)) {
    try {
      observed.json = JSON.parse(body);
    } catch {
      // Not JSON after all: the checks that need JSON say so.
    }
  }
  return observed;
}

/** A check of the shared library under the name that the k6 summary and our report show. */
export interface NamedCheck {
  name: string;
  check: Check;
}

export function named(name: string, checkFunction: Check): NamedCheck {
  return { name, check: checkFunction };
}

/** Runs the named checks on one observed response; true when all passed. */
export function verify(observed: ObservedResponse, endpoint: string, checks: NamedCheck[]): boolean {
  const sets: Record<string, () => boolean> = {};
  for (const item of checks) sets[item.name] = () => item.check(observed).ok;
  return check(observed, sets, { endpoint });
}

/** A check that is not about one response (a poll that ended, a list that was not empty). */
export function verifyThat(name: string, endpoint: string, ok: boolean): boolean {
  return check(ok, { [name]: (value) => value }, { endpoint });
}
