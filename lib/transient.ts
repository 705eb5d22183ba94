// The deployment's transport (issue 57): a 502, a 504, a 503 without Retry-After, a connection
// reset or closed before an answer, a call past its per-call bound. None of them is an answer of
// the API: a reverse proxy, a load balancer or the network said it, and a correct service behind a
// real network meets them now and then. Whoever calls the target tells them apart with these
// functions, sends a call again when the spec makes it repeatable, and otherwise reports the
// transport, never a verdict on the target. A 500, or any 5xx whose body is the API's own error
// (a JSON string), stays the target's answer.
//
// Node-free: k6 may load it.

import type { NoResponseCause } from './no-response.ts';

/** Statuses a gateway answers for a target it could not reach, or that did not answer it in time. */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/** How a test's failure on the deployment's transport begins: the reporter and the retry guard know it by this. */
export const TRANSPORT_FAILURE = 'transport failure:';

/** How many times a call safe to send again is sent, in all, before its test meets the transport failure. */
export const TRANSIENT_TRIES = 3;
/** The wait before the n-th try (n >= 2): doubled each time from this, so a blip of a second is outlived. */
export const TRANSIENT_BACKOFF_MS = 500;

/** The causes of a call without an answer that are the network's, not the target's refusal. */
const TRANSIENT_CAUSES: ReadonlySet<NoResponseCause> = new Set(['reset', 'closed', 'timeout']);

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** The API's own error body: a JSON string ("Internal error."), as the spec's errors are. */
export function isApiErrorBody(body: string | undefined): boolean {
  const text = body?.trim() ?? '';
  if (!text.startsWith('"')) return false;
  try {
    return typeof JSON.parse(text) === 'string';
  } catch {
    return false;
  }
}

/**
 * A 502, a 504, or a 503 without Retry-After (one with it is the gateway's "not now", lib/gateway.ts),
 * unless its body is the API's own error: then the target said it, and it is judged.
 */
export function isTransientAnswer(status: number, headers: Headers, body: string | undefined): boolean {
  if (!TRANSIENT_STATUSES.has(status)) return false;
  if (status === 503 && header(headers, 'retry-after') !== undefined) return false;
  return !isApiErrorBody(body);
}

/** A call that got no answer because the connection was reset or closed, or its bound ran out. */
export function isTransientCause(cause: NoResponseCause | undefined): boolean {
  return cause !== undefined && TRANSIENT_CAUSES.has(cause);
}

/** POST calls the spec makes repeatable: the same call again changes nothing the first did not. */
const REPEATABLE_POSTS = new Set(
  [
    // Token creation: another token for the same company (or search).
    '/clienttokens/create',
    '/clienttokens/createsearchtoken',
    // "To update, the same call is made with the same ErpId."
    '/companies/register',
    // The lookups and lists read.
    '/buyerparties/lookup',
    '/sellerparties/lookup',
    '/companies/deliverymethods/b2c/providera/lookup',
    '/documents/outbound/list',
    // Marking handled what is handled already.
    '/documents/handled',
    // "200 (duplicate request)".
    '/companies/delete',
  ].map((path) => path.toLowerCase()),
);

/** Whether a call may be sent again after a transport failure: GET (and HEAD, OPTIONS), and the POSTs the spec makes repeatable. */
export function isRepeatable(method: string, path: string): boolean {
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD' || upper === 'OPTIONS') return true;
  if (upper !== 'POST') return false;
  const bare = path.split('?')[0].replace(/\/+$/, '').toLowerCase();
  return [...REPEATABLE_POSTS].some((repeatable) => bare === repeatable || bare.endsWith(repeatable));
}

/** One transient answer a call met: what came back (or why nothing did), the head of its body, when. */
export interface TransientAnswer {
  /** "METHOD /template" */
  endpoint: string;
  /** The status, or undefined when no answer came. */
  status?: number;
  /** For a call without an answer: reset, closed, timeout. */
  cause?: NoResponseCause;
  /** The head of the body (a gateway's HTML page), or the transport's words for a call without an answer. */
  head: string;
  /** ISO time it came. */
  at: string;
  /** The try it came to: 1 for the first send. */
  attempt: number;
  /** Whether the call was sent again after it. */
  resent: boolean;
}

/** How much of a gateway's body a report shows. */
export const TRANSIENT_HEAD_CHARACTERS = 120;

/** The head of a body on one line. */
export function bodyHead(body: string | undefined): string {
  const text = (body ?? '').replace(/\s+/g, ' ').trim();
  return text.length > TRANSIENT_HEAD_CHARACTERS ? `${text.slice(0, TRANSIENT_HEAD_CHARACTERS)}…` : text;
}

/** "502", or "no answer (reset)": what the deployment did to a call, in a word or two. */
export function transientKind(answer: Pick<TransientAnswer, 'status' | 'cause'>): string {
  return answer.status !== undefined ? String(answer.status) : `no answer (${answer.cause ?? 'other'})`;
}

/**
 * The root cause of a call the transport kept failing: "the deployment answered 502 to 3 of 3
 * tries of POST /companies/register", or for a call not safe to send again "the deployment
 * answered 502 to POST /documents/outbound, which is not sent again (not repeatable)".
 */
export function transportCause(endpoint: string, answers: readonly Pick<TransientAnswer, 'status' | 'cause'>[], tries: number, repeatable: boolean): string {
  const kinds = [...new Set(answers.map(transientKind))];
  const statuses = kinds.filter((kind) => !kind.startsWith('no answer'));
  const lost = kinds.filter((kind) => kind.startsWith('no answer'));
  const verb = [...(statuses.length > 0 ? [`answered ${statuses.join(' or ')}`] : []), ...(lost.length > 0 ? [`gave ${lost.join(' or ')}`] : [])].join(' or ');
  if (!repeatable) return `the deployment ${verb} to ${endpoint}, which is not sent again (not repeatable): its test runs again from its start`;
  return `the deployment ${verb} to ${answers.length} of ${tries} tries of ${endpoint}`;
}

/** Words of a call without an answer (lib/transport.ts's TransportError reasons) that are the network's blip: a reset, a close, the bound. */
export function isTransientReason(reason: string): boolean {
  return /^connection reset|socket hang up|ECONNRESET|^no answer within/i.test(reason);
}

/**
 * Sends a repeatable call of dxs's own (the start's probe, the cleanup's deletes) until it meets no
 * transient answer, at most TRANSIENT_TRIES times with backoff: the last outcome, an answer or a
 * thrown error, is the caller's. `transient` says whether an outcome was the transport's.
 */
export async function sendAgainOnTransient<T>(
  send: () => Promise<T>,
  transient: (outcome: { answer?: T; error?: unknown }) => boolean,
  onTransient?: (outcome: { answer?: T; error?: unknown }, attempt: number, resent: boolean) => void,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let outcome: { answer?: T; error?: unknown };
    try {
      outcome = { answer: await send() };
    } catch (error) {
      outcome = { error };
    }
    const again = attempt < TRANSIENT_TRIES && transient(outcome);
    if (transient(outcome)) onTransient?.(outcome, attempt, again);
    if (!again) {
      if ('error' in outcome && outcome.error !== undefined) throw outcome.error;
      return outcome.answer as T;
    }
    await sleep(TRANSIENT_BACKOFF_MS * 2 ** (attempt - 1));
  }
}
