// The spec's limits tried at their edge, both sides (issue 57): the edge itself must be accepted,
// one past it refused. Behind a deployment's body limit (nginx's default 1 MB answers 413 with its
// own HTML page) the edge's refusal is said plainly as "this deployment refuses what the spec
// permits", and a refusal past the edge by that limit is not judged as the API's answer.
import { bodyIsJsonString, type Check } from '../../lib/checks.ts';
import type { ObservedResponse } from '../../lib/checks.ts';

/** A 413 whose body is not the API's error (a JSON string): the deployment's body limit refused the call before the API saw it. */
export function refusedByBodyLimit(response: ObservedResponse): boolean {
  return response.status === 413 && !bodyIsJsonString(response).ok;
}

/** "7.9 MB (7888901 bytes)". */
export function bodySize(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB (${bytes} bytes)`;
}

/** The spec's edge is accepted: one of `statuses`; a refusal is named as the deployment refusing what the spec permits. */
export function acceptsSpecEdge(permitted: string, bodyBytes: number, ...statuses: number[]): Check {
  return (response) => {
    const ok = statuses.includes(response.status);
    const refused = response.status >= 400 && response.status < 500;
    const byBodyLimit = refusedByBodyLimit(response) ? ', from the body limit of the deployment in front of the API (not its JSON error)' : '';
    return {
      check: 'acceptsSpecEdge',
      ok,
      expected: `status ${statuses.join(' or ')}: the spec permits ${permitted}`,
      actual: ok ? `status ${response.status}` : `status ${response.status} to a body of ${bodySize(bodyBytes)}${byBodyLimit}${refused ? ': this deployment refuses what the spec permits' : ''}`,
      severity: 'failure',
    };
  };
}
