// The API client of the suites: a thin layer over the suites' HTTP transport (http.ts). Every call
// - is a test.step named after it ("POST /companies/register"),
// - sets its own auth header (no shared extraHTTPHeaders, so no call is authenticated by accident),
// - registers every token value it receives as a secret, and
// - records the request and the response, redacted, in the test's exchange log, and
// - waits for the gateway's 429s and 503s with Retry-After and sends again (gateway.ts), so no check judges them;
// - meets the deployment's transport (a 502, a 504, a 503 without Retry-After, a reset, a call past
//   its bound: lib/transient.ts) by sending a repeatable call again with backoff, and otherwise by
//   throwing TransportFailure: the test runs again from its start (transport.ts), no check judges it.
import { test } from '@playwright/test';
import type { AtOnce } from '../../lib/concurrency.ts';
import { normaliseKeys } from '../../lib/casing.ts';
import { parseJsonOrUndefined } from '../../lib/json.ts';
import type { ObservedResponse } from '../../lib/checks.ts';
import { truncate } from '../../lib/checks.ts';
import { API_KEY_HEADER, CLIENT_TOKEN_HEADER } from '../../lib/defaults.ts';
import { describeNoResponse } from '../../lib/no-response.ts';
import { bodyHead, isRepeatable, isTransientAnswer, isTransientCause, TRANSIENT_BACKOFF_MS, TRANSIENT_TRIES, transportCause, type TransientAnswer } from '../../lib/transient.ts';
import { secrets } from '../../lib/redact.ts';
import { endpointOf } from '../../report/endpoints.ts';
import { budgetFor, rateLimitCause, sendThroughGateway } from './gateway.ts';
import { paceFor } from './run-pace.ts';
import { journalCall } from './journal.ts';
import { recordAnswer, recordRequest } from './replay.ts';
import { recordCall } from './timing.ts';
import { step } from './step.ts';
import type { Exchange, ExchangeLog } from './log.ts';
import { broken, RateLimited, recordBroken, settingUp, transportFailed } from './prerequisites.ts';
import { recordTransient } from './transport.ts';
import type { Auth, RunContext } from './run-context.ts';
import type { HttpAnswer, HttpTransport, MultipartFile } from './http.ts';

// Its home is the run context (journal.ts, below the client, needs it too); the suites import it from here.
export type { Auth };

export type { MultipartFile };

export interface CallOptions {
  auth?: Auth;
  /** A JSON body (serialised by the client). */
  json?: unknown;
  /** A body sent as it is (malformed JSON, oversized bodies); give contentType with it. */
  rawBody?: string | Buffer;
  contentType?: string;
  multipart?: Record<string, string | MultipartFile>;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  /** Per-call bound; the default (--call-timeout) is generous for slow staging targets. */
  timeoutMs?: number;
  /**
   * A 429 (or a 503 with Retry-After) is the gateway's: by default the call waits and is sent
   * again, so no check ever judges it. 'return' hands it back, for the probe that observes the limit (OBS-01).
   */
  gatewayAnswers?: 'retry' | 'return';
  /**
   * The deployment's transport (a 502, 504, 503 without Retry-After, a lost call: lib/transient.ts):
   * by default a repeatable call is sent again, and a call that still meets it throws
   * TransportFailure. 'return' leaves it to the test, for a call whose refusal may be a closed
   * connection (a 20 MB body): a lost call throws as it came, a 502 is handed back.
   */
  transientAnswers?: 'handle' | 'return';
  /** A register call of the head start (head-start.ts): before any gateway answer the run's pace spreads these a little. */
  headStart?: boolean;
}

export interface ApiResponse extends ObservedResponse {
  /** The body with its field names in the spec's spelling (normaliseKeys), when JSON. */
  data: any;
  body: Buffer;
  /** Position of this call in the test's exchange log. */
  exchange: number;
  /** The recorded (redacted) exchange, for messages. */
  recorded: Exchange;
}

const RECORDED_BODY_LIMIT = 4000;
const LARGE_BODY_BYTES = 256 * 1024;
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /[/+]json\b/i.test(contentType);
}

function isTextType(contentType: string | undefined): boolean {
  return contentType === undefined || contentType === '' || /^text\/|[/+](json|xml)\b|javascript|urlencoded/i.test(contentType);
}

/** What a report shows of a body: JSON as a value (tokens redacted), text truncated, binaries as a size. */
function recordBody(body: Buffer | string | undefined, contentType: string | undefined, json: unknown): unknown {
  if (body === undefined || body.length === 0) return undefined;
  if (json !== undefined) {
    if (body.length > LARGE_BODY_BYTES) {
      // Redacting every value of a body of megabytes (a 500000-SSN lookup) takes seconds. Only the
      // shown head is redacted, with a margin, so a secret cut by the limit is still replaced whole.
      // A request's body is already its JSON text: serialised once, not again for the report.
      const text = typeof body === 'string' ? body : JSON.stringify(json);
      return `${secrets.redactText(text.slice(0, RECORDED_BODY_LIMIT + 1024)).slice(0, RECORDED_BODY_LIMIT)}… (${text.length} characters)`;
    }
    const redacted = secrets.redactValue(json);
    const serialised = JSON.stringify(redacted);
    return serialised.length > RECORDED_BODY_LIMIT ? secrets.redactText(truncate(serialised, RECORDED_BODY_LIMIT)) : redacted;
  }
  if (!isTextType(contentType)) return `(${body.length} bytes of ${contentType})`;
  return secrets.redactText(truncate(body.toString(), RECORDED_BODY_LIMIT));
}

/** Inside a test (not a worker fixture's setup), where a test can be skipped as blocked. */
function insideTest(): boolean {
  try {
    test.info();
    return true;
  } catch {
    return false;
  }
}

/** Waiting for the gateway is no slowness of the target: the running test gets that time added. */
function extendTestTimeout(waitedMs: number): void {
  try {
    const info = test.info();
    if (info.timeout > 0) info.setTimeout(info.timeout + waitedMs);
  } catch {
    // A worker fixture's setup, outside any test.
  }
}

export class ApiClient {
  private readonly http: HttpTransport;
  private readonly context: RunContext;
  private readonly log: ExchangeLog;
  private readonly steps: boolean;
  private readonly atOnce: AtOnce | undefined;

  /**
   * steps: false for worker-scoped setup, which runs outside any test's step tree. atOnce: a gate
   * for a client whose calls come from many chains at once (the run's setup), so the target sees
   * no more calls at once than the run's workers would send it.
   */
  constructor(http: HttpTransport, context: RunContext, log: ExchangeLog, options: { steps?: boolean; atOnce?: AtOnce } = {}) {
    this.http = http;
    this.context = context;
    this.log = log;
    this.steps = options.steps ?? true;
    this.atOnce = options.atOnce;
  }

  get(path: string, options: CallOptions = {}): Promise<ApiResponse> {
    return this.call('GET', path, options);
  }

  post(path: string, options: CallOptions = {}): Promise<ApiResponse> {
    return this.call('POST', path, options);
  }

  patch(path: string, options: CallOptions = {}): Promise<ApiResponse> {
    return this.call('PATCH', path, options);
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const title = `${method} ${path.split('?')[0]}`;
    const atOnce = this.atOnce;
    const perform = atOnce === undefined ? () => this.perform(method, path, title, options) : () => atOnce(() => this.perform(method, path, title, options));
    return this.steps ? step(title, perform) : perform();
  }

  private authHeaders(auth: Auth): Record<string, string> {
    if (auth === 'none') return {};
    if (auth === 'apiKey') return { [API_KEY_HEADER]: this.context.apiKey };
    if (auth === 'apiKeyWithoutDelete') {
      if (this.context.apiKeyWithoutDelete === undefined) throw new Error('no API key without the DeleteRegistration role is configured');
      return { [API_KEY_HEADER]: this.context.apiKeyWithoutDelete };
    }
    if ('apiKey' in auth) return { [API_KEY_HEADER]: auth.apiKey };
    return { [CLIENT_TOKEN_HEADER]: auth.clientToken };
  }

  private async perform(method: string, path: string, title: string, options: CallOptions): Promise<ApiResponse> {
    const url = new URL(this.context.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...this.authHeaders(options.auth ?? 'none'), ...options.headers };
    let data: string | Buffer | undefined;
    if (options.json !== undefined) {
      data = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.rawBody !== undefined) {
      // Byte for byte, as given: malformed JSON arrives malformed.
      data = typeof options.rawBody === 'string' ? Buffer.from(options.rawBody) : options.rawBody;
      if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    }
    const exchange: Exchange = {
      title,
      endpoint: endpointOf(method, path),
      request: {
        method,
        url: secrets.redactText(url.toString()),
        headers: secrets.redactHeaders(headers),
        body:
          options.multipart !== undefined
            ? Object.fromEntries(
                Object.entries(options.multipart).map(([name, part]) => [name, typeof part === 'string' ? secrets.redactText(part) : `(file ${part.name}, ${part.mimeType}, ${part.buffer.length} bytes)`]),
              )
            : recordBody(data, headers['content-type'], options.json),
      },
      durationMs: 0,
    };
    const index = this.log.exchanges.push(exchange) - 1;
    const replay = recordRequest({ method, url: url.toString(), headers, data, multipart: options.multipart }, this.context.runPrefix, this.steps ? this.log : undefined, index, this.log);
    let started = performance.now();
    const timeout = options.timeoutMs ?? (this.context.callTimeoutSeconds === undefined ? DEFAULT_CALL_TIMEOUT_MS : this.context.callTimeoutSeconds * 1000);
    const send = async (): Promise<{ status: number; headers: Record<string, string>; answer: HttpAnswer }> => {
      // Each sending again is the same call: the exchange shows the last, with the waits before it.
      started = performance.now();
      exchange.sentAt = new Date().toISOString();
      try {
        // No redirect is followed: a 3xx is the target's answer, judged as it came.
        const answer = await this.http.send({ method, url: url.toString(), headers, body: data, multipart: options.multipart, timeoutMs: timeout });
        return { status: answer.status, headers: answer.headers, answer };
      } catch (error) {
        exchange.durationMs = Math.round(performance.now() - started);
        recordCall(exchange.durationMs);
        const failure = describeNoResponse((error as Error).message, exchange.durationMs, timeout);
        exchange.error = secrets.redactText(failure.text);
        exchange.cause = failure.cause;
        // The message names the call and the cause, so a target that died mid-run reads as such.
        throw new Error(`${title}: no response from the target: ${exchange.error}`);
      }
    };
    const budget = budgetFor(this.context);
    const throughGateway = () =>
      sendThroughGateway({
        endpoint: exchange.endpoint,
        send,
        ...paceFor({ ...this.context, answersFile: budget.file }),
        start: options.headStart,
        budget,
        retry: options.gatewayAnswers !== 'return',
        onWait: (wait) => {
          (exchange.gatewayWaits ??= []).push(wait);
          extendTestTimeout(wait.waitedMs);
        },
        // Behind a gateway a worker's calls wait their turn among every worker's: the test's time runs on meanwhile.
        onHeld: (heldMs) => extendTestTimeout(Math.ceil(heldMs)),
      });
    const repeatable = isRepeatable(method, path);
    const tries = repeatable ? TRANSIENT_TRIES : 1;
    const met: TransientAnswer[] = [];
    let gaveUpOnTransport: string | undefined;
    let sent: Awaited<ReturnType<typeof throughGateway>> | undefined;
    for (let attempt = 1; ; attempt++) {
      let lost: Error | undefined;
      try {
        sent = await throughGateway();
      } catch (error) {
        // Refused, not found, or the transport's own error: no transient blip, said as before.
        if (!isTransientCause(exchange.cause) || options.transientAnswers === 'return') throw error;
        lost = error as Error;
      }
      if (options.transientAnswers === 'return') break;
      const answer = lost === undefined ? sent!.response.answer : undefined;
      const transient = answer === undefined || (sent!.gaveUp === undefined && isTransientAnswer(answer.status, answer.headers, answer.body.subarray(0, 4096).toString()));
      if (!transient) break;
      const entry: TransientAnswer = {
        endpoint: exchange.endpoint,
        ...(answer === undefined ? { cause: exchange.cause } : { status: answer.status }),
        head: secrets.redactText(answer === undefined ? (exchange.error ?? '') : bodyHead(answer.body.subarray(0, 1024).toString())),
        at: exchange.sentAt ?? new Date().toISOString(),
        attempt,
        resent: attempt < tries,
      };
      met.push(entry);
      (exchange.transient ??= []).push(entry);
      recordTransient(this.context, entry);
      if (attempt >= tries) {
        // The last answer is recorded as it came (the report shows the gateway's page), then the test meets it.
        gaveUpOnTransport = transportCause(exchange.endpoint, met, tries, repeatable);
        if (answer === undefined) throw transportFailed(gaveUpOnTransport, lost?.message);
        break;
      }
      const backoffMs = TRANSIENT_BACKOFF_MS * 2 ** (attempt - 1);
      extendTestTimeout(backoffMs + (answer === undefined ? exchange.durationMs : 0));
      exchange.error = undefined;
      exchange.cause = undefined;
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
    }
    // Each pass of the loop above either sent and got an answer, or threw.
    const answered = sent as Awaited<ReturnType<typeof throughGateway>>;
    const response = answered.response.answer;
    const body = response.body;
    exchange.durationMs = Math.round(performance.now() - started);
    recordCall(exchange.durationMs);
    const responseHeaders = response.headers;
    const contentType = responseHeaders['content-type'];
    const text = isTextType(contentType) ? body.toString() : undefined;
    const json = text !== undefined && (isJsonType(contentType) || /^\s*[[{"]/.test(text)) ? parseJsonOrUndefined(text) : undefined;
    secrets.addTokensIn(json);
    recordAnswer(replay, response.status, responseHeaders, json);
    exchange.response = {
      status: response.status,
      headers: secrets.redactHeaders(responseHeaders),
      body: recordBody(body, contentType, json),
      size: body.length,
    };
    if (gaveUpOnTransport !== undefined) throw transportFailed(gaveUpOnTransport);
    if (answered.gaveUp !== undefined) {
      // No check may judge the gateway's answer: the test is blocked, the cause said once for the run.
      const cause = recordBroken(rateLimitCause(exchange.endpoint, answered.gaveUp, budget));
      if (!settingUp() && insideTest()) broken(cause);
      throw new RateLimited(cause, answered.gaveUp);
    }
    const normalised = json === undefined ? undefined : normaliseKeys(json);
    journalCall(this.context, { method, path, auth: options.auth, json: options.json, rawBody: options.rawBody, status: response.status, data: normalised, headers: responseHeaders });
    return {
      status: response.status,
      headers: responseHeaders,
      json,
      text,
      size: body.length,
      data: normalised,
      body,
      exchange: index,
      recorded: exchange,
    };
  }
}
