// Why a call got no answer, in words a report can carry: "no response: unknown" tells an
// integrator nothing, while "connection reset by the target (ECONNRESET) after 0.4 s" or "no answer
// within 30 s" points at the target's proxy, its process or its speed. Pure, so the client, the
// reporter and the tests share it.

/**
 * reset: the target (or a proxy) broke the connection; closed: it closed the connection without
 * an answer (socket hang up); refused: nothing listens; timeout: the client stopped waiting;
 * unanswered: the test ended (its own timeout) while the call was still waiting; not-found: the
 * host name does not resolve; other: anything else, with the transport's message.
 */
export type NoResponseCause = 'reset' | 'closed' | 'refused' | 'timeout' | 'unanswered' | 'not-found' | 'other';

export interface NoResponse {
  cause: NoResponseCause;
  /** One line: the cause, its error code where there is one, and the time that passed. */
  text: string;
}

export function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

function wholeSeconds(milliseconds: number): string {
  const value = milliseconds / 1000;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} s`;
}

/**
 * The cause of a transport failure from the message of the error (the suites' transport, Playwright's
 * APIRequestContext and node's sockets all carry the errno name in it), the time from sending to the
 * failure, and the client's own bound.
 */
export function describeNoResponse(message: string, elapsedMs: number, timeoutMs?: number): NoResponse {
  const firstLine = message.split('\n')[0].replace(/^apiRequestContext\.\w+:\s*/, '');
  const after = `after ${seconds(elapsedMs)}`;
  if (/socket hang up/i.test(firstLine)) return { cause: 'closed', text: `connection closed by the target without an answer (socket hang up, ECONNRESET) ${after}` };
  if (/ECONNRESET/.test(firstLine)) return { cause: 'reset', text: `connection reset by the target (ECONNRESET) ${after}` };
  if (/ECONNREFUSED/.test(firstLine)) return { cause: 'refused', text: `connection refused (ECONNREFUSED) ${after}` };
  if (/ENOTFOUND|EAI_AGAIN/.test(firstLine)) return { cause: 'not-found', text: `host not found (${/EAI_AGAIN/.test(firstLine) ? 'EAI_AGAIN' : 'ENOTFOUND'}) ${after}` };
  const timeout = /Timeout (\d+)ms exceeded|ETIMEDOUT|timed? ?out/i.exec(firstLine);
  if (timeout !== null) {
    const bound = timeout[1] !== undefined ? Number(timeout[1]) : timeoutMs;
    return { cause: 'timeout', text: `timeout: no answer within ${bound !== undefined ? wholeSeconds(bound) : 'the time allowed'} (waited ${seconds(elapsedMs)})` };
  }
  return { cause: 'other', text: `${firstLine} ${after}` };
}

/** A call still waiting when its test ended: the test's own timeout (or its end) cut it short. */
export function describeUnanswered(elapsedMs: number): NoResponse {
  return { cause: 'unanswered', text: `no answer when the test ended, ${seconds(elapsedMs)} after the request was sent` };
}
