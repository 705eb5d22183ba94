// How long the target's background work takes, measured before the run (issue 27): one company is
// registered and its status polled until Registered. The spec: "Registration runs in the background
// and is monitored with the company status call." The figure joins the latency in choosing the
// workers (lib/concurrency.ts): a target whose background steps take seconds holds each worker in
// polls, and more workers keep the cores busy meanwhile.
//
// Never a verdict: any answer that is not the expected one (a refused key, a gateway's 429, a
// status that never reads Registered) ends the probe without a figure, and the tests judge the
// target as before. The company is created with the run's prefix and journaled by the caller the
// moment the register call is answered 2xx, so the run's cleanup deletes it with the others.
import { readField } from './casing.ts';
import { parseJsonOrUndefined } from './json.ts';
import { API_KEY_HEADER, CLIENT_TOKEN_HEADER } from './defaults.ts';
import { isGatewayAnswer, retryAfterOf, retryAfterSeconds } from './gateway.ts';
import { secrets } from './redact.ts';
import { flatHeaders, send, type Answer, type Connection } from './transport.ts';

export interface BackgroundProbeInput {
  baseUrl: string;
  apiKey: string;
  connection: Connection;
  /** A complete register body (Company input, Register) with the run's prefix in its ErpId. */
  company: Record<string, unknown> & { ErpId: string };
  /** Called once the register call is answered 2xx, before any wait: the company exists from then on. */
  onRegistered: () => void;
  /** The whole probe stops here. A registration still running then is reported as taking at least this long. */
  deadlineMs: number;
  /** The shortest pause between polls (--max-rps). */
  minPauseMs?: number;
  /**
   * True once a registration known to take at least this long already decides what the figure is
   * for (the workers reach their bound): the probe then ends with that lower bound instead of waiting on.
   */
  decided?: (atLeastMs: number) => boolean;
  /**
   * The run's pace (suites/support/run-pace.ts): each call takes its slot there, and a gateway's
   * answer is told to it, so the workers start paced and held instead of meeting the gateway again.
   */
  pace?: { pass(): Promise<number>; answered(waitMs: number, headers: Record<string, string>, ticket: number, call: { endpoint: string; status: number }): unknown };
}

export interface BackgroundProbe {
  /** From the register call's answer to the first status that reads Registered (a lower bound when `atLeast`). */
  delayMs?: number;
  atLeast?: boolean;
  /** Why there is no figure, in a few words; or what was measured. */
  note: string;
}

const FIRST_POLL_MS = 25;
const LONGEST_POLL_MS = 250;

export async function measureBackgroundDelay(input: BackgroundProbeInput): Promise<BackgroundProbe> {
  const ends = Date.now() + input.deadlineMs;
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> => {
    const ticket = await input.pace?.pass();
    const answer = await send(`${input.baseUrl}${path}`, {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: Math.max(1, ends - Date.now()),
    }, input.connection);
    if (input.pace !== undefined && isGatewayAnswer(answer.status, answer.headers)) {
      await input.pace.answered(Math.round(retryAfterSeconds(retryAfterOf(answer.headers)) * 1000), flatHeaders(answer.headers), ticket ?? 0, { endpoint: `${method} ${path}`, status: answer.status });
    }
    return answer;
  };
  try {
    const register = await call('POST', '/companies/register', { [API_KEY_HEADER]: input.apiKey }, input.company);
    if (register.status < 200 || register.status > 299) return { note: `not measured: POST /companies/register answered ${register.status}` };
    const registeredAt = performance.now();
    input.onRegistered();
    let token: string | undefined;
    let pause = FIRST_POLL_MS;
    while (Date.now() < ends) {
      // Whether a token can be had before registration completes is not shown: asked again until one comes.
      if (token === undefined) {
        const created = await call('POST', '/clienttokens/create', { [API_KEY_HEADER]: input.apiKey }, { ErpId: input.company.ErpId });
        const value = readField(parseJsonOrUndefined(created.body), 'Token');
        if (created.status === 200 && typeof value === 'string' && value !== '') {
          token = value;
          secrets.add(token);
        } else if (created.status !== 200 && (created.status < 400 || created.status > 499)) {
          return { note: `not measured: POST /clienttokens/create answered ${created.status}` };
        }
      }
      if (token !== undefined) {
        const status = await call('GET', '/companies/status', { [CLIENT_TOKEN_HEADER]: token });
        if (status.status === 200 && readField(parseJsonOrUndefined(status.body), 'Status') === 'Registered') {
          const delayMs = performance.now() - registeredAt;
          return { delayMs, note: `a registration took ${Math.round(delayMs)} ms` };
        }
        if (status.status !== 200 && (status.status < 400 || status.status > 499)) return { note: `not measured: GET /companies/status answered ${status.status}` };
      }
      const waited = performance.now() - registeredAt;
      if (token !== undefined && input.decided?.(waited) === true) return { delayMs: waited, atLeast: true, note: `a registration took more than ${Math.round(waited)} ms, which decided` };
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(pause, input.minPauseMs ?? 0), Math.max(0, ends - Date.now()))));
      pause = Math.min(LONGEST_POLL_MS, pause * 2);
    }
    if (token === undefined) return { note: `not measured: no client token for the company within ${Math.round(input.deadlineMs / 1000)} s` };
    // Still registering when the probe has to end: that long at least, which is what the choice needs.
    const delayMs = performance.now() - registeredAt;
    return { delayMs, atLeast: true, note: `a registration took more than ${Math.round(delayMs)} ms` };
  } catch (error) {
    return { note: `not measured: ${(error as Error).message}` };
  }
}
