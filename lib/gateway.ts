// A gateway's answers (issue 31): a 429, or a 503 with Retry-After, says "not now" for the
// deployment in front of the target, not what the target thinks of the request. The spec says
// "Rate limits: not shown", so any deployment may send them. Whoever calls the target (the suites'
// client, the cleanup, k6, Schemathesis's hooks) tells them apart from the target's own answers
// with these functions, and waits as Retry-After asks.
//
// Node-free: k6 loads it.

export const RATE_LIMITED_STATUS = 429;
export const MAINTENANCE_STATUS = 503;

/**
 * The statuses a load run counts as the deployment's in front of the target (issue 57): a limit
 * (429, with or without Retry-After: nginx's limit_req sends none), a gateway that could not reach
 * the target or gave up on it (502, 504) and one that shed the call (503). k6's raw points carry
 * the status and no body, so they are told apart by status alone: none of them enters a latency
 * figure or threshold of dxs load, and their share of an endpoint's answers says whether the target
 * was loaded at all.
 */
export const LOAD_GATEWAY_STATUSES: readonly number[] = [RATE_LIMITED_STATUS, 502, MAINTENANCE_STATUS, 504];

/** k6 metric of dxs load: a gateway's answer a flow waited out and sent again, tagged with the endpoint. */
export const GATEWAY_WAITED_METRIC = 'dxs_gateway_waited';

/** When Retry-After is absent or unreadable: a short wait, as curl's --retry and most SDKs do. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;
/** A Retry-After of an hour is a closed gateway, not a pause: no single wait is longer than this. */
export const MAX_RETRY_AFTER_SECONDS = 60;
/** Waiting, in all, that a run of dxs test accepts before it calls the target rate limited. */
export const DEFAULT_RATE_LIMIT_BUDGET_SECONDS = 180;

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** A 429, or a 503 that says when to come back: the gateway's answer, never the target's verdict. */
export function isGatewayAnswer(status: number, headers: Headers): boolean {
  if (status === RATE_LIMITED_STATUS) return true;
  return status === MAINTENANCE_STATUS && header(headers, 'retry-after') !== undefined;
}

/**
 * Seconds to wait before sending again (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), within
 * 0 and MAX_RETRY_AFTER_SECONDS; the default when the header is absent or unreadable.
 */
export function retryAfterSeconds(value: string | undefined, now: number = Date.now()): number {
  const text = value?.trim() ?? '';
  let seconds: number;
  if (/^\d+(\.\d+)?$/.test(text)) seconds = Number(text);
  else if (text !== '' && Number.isFinite(Date.parse(text))) seconds = Math.max(0, (Date.parse(text) - now) / 1000);
  else seconds = DEFAULT_RETRY_AFTER_SECONDS;
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

export function retryAfterOf(headers: Headers): string | undefined {
  return header(headers, 'retry-after');
}

/** Headers by which gateways announce their limit (IETF RateLimit, the X-RateLimit family). */
const LIMIT_HEADERS = ['ratelimit-policy', 'ratelimit', 'ratelimit-limit', 'x-ratelimit-limit', 'x-rate-limit-limit'];

/** "429 with Retry-After: 1 (ratelimit-policy: 15;w=1)": the limit as the answer showed it. */
export function describeGatewayAnswer(status: number, headers: Headers): string {
  const retryAfter = header(headers, 'retry-after');
  const limits = LIMIT_HEADERS.map((name) => [name, header(headers, name)] as const).filter(([, value]) => value !== undefined);
  return `${status} with ${retryAfter === undefined ? 'no Retry-After' : `Retry-After: ${retryAfter}`}${limits.length > 0 ? ` (${limits.map(([name, value]) => `${name}: ${value}`).join(', ')})` : ''}`;
}
