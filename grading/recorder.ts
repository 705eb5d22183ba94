// The grading sandbox's front: a recording proxy on the address the client is given. Every request
// is read whole (bounded), answered by a provocation or passed to the sandbox behind it, and
// recorded with its answer. A proxy rather than hooks inside the sandbox: the recording sees the
// bytes the client sent (multipart parts included, which the upload route reads as a stream) and
// the answer as the client received it, and the sandbox stays as every other run knows it.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../lib/defaults.ts';
import { secrets } from '../lib/redact.ts';
import { normaliseKeys } from '../lib/casing.ts';
import { endpointOf } from '../report/endpoints.ts';
import { multipartParts } from './multipart.ts';
import type { Provocations } from './provocations.ts';
import type { RecordedAnswer, RecordedCall } from './traffic.ts';

/** Above the sandbox's own upload limit, so that the sandbox, not the recorder, refuses a large body. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** A text body kept in the record is cut here. */
const MAX_TEXT = 64 * 1024;
const UPSTREAM_TIMEOUT_MS = 60_000;

export interface RecorderOptions {
  /** The sandbox behind the proxy: http://127.0.0.1:PORT */
  upstream: URL;
  host: string;
  port: number;
  provocations: Provocations;
}

export interface Recorder {
  /** The base URL the client is given, ending in /v1/api. */
  baseUrl: string;
  calls: RecordedCall[];
  /** When the last request arrived (ms since the epoch), for --idle. */
  lastCallAt(): number | undefined;
  /** Requests whose answer has not been sent yet. */
  pending(): number;
  close(): Promise<void>;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return result;
}

function readBody(request: IncomingMessage): Promise<{ body: Buffer; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve({ body: Buffer.concat(chunks), tooLarge }));
    request.on('error', reject);
  });
}

const isJson = (contentType: string | undefined): boolean => contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json/i.test(contentType);
const isText = (contentType: string | undefined): boolean => contentType !== undefined && /^text\//i.test(contentType);

function describeRequestBody(call: RecordedCall, body: Buffer): void {
  call.bodySize = body.length;
  if (body.length === 0) return;
  const contentType = call.contentType;
  if (contentType !== undefined && /^multipart\/form-data/i.test(contentType)) {
    call.parts = multipartParts(body, contentType);
    return;
  }
  const text = body.toString('utf8');
  try {
    call.body = JSON.parse(text);
    if (!isJson(contentType)) call.bodyText = text.slice(0, MAX_TEXT);
  } catch (error) {
    call.bodyText = text.slice(0, MAX_TEXT);
    if (isJson(contentType)) call.bodyError = (error as Error).message;
  }
}

function describeAnswer(status: number, headers: Record<string, string>, body: Buffer): RecordedAnswer {
  const answer: RecordedAnswer = { status, headers, size: body.length };
  if (body.length === 0) return answer;
  const contentType = headers['content-type'];
  if (isJson(contentType) || isText(contentType)) {
    const text = body.toString('utf8');
    try {
      answer.body = isJson(contentType) ? JSON.parse(text) : text.slice(0, MAX_TEXT);
    } catch {
      answer.body = text.slice(0, MAX_TEXT);
    }
  }
  return answer;
}

/** Path relative to the base URL, for the catalog's endpoint templates. */
export function apiPath(path: string): string {
  return path.toLowerCase().startsWith(`${API_PREFIX}/`) ? path.slice(API_PREFIX.length) : path;
}

function forward(upstream: URL, incoming: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...incoming.headers, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    const outgoing = httpRequest({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers, timeout: UPSTREAM_TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 502, headers: flatHeaders(response.headers), body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('the sandbox did not answer in time')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function reply(response: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!['transfer-encoding', 'connection', 'content-length', 'keep-alive'].includes(name)) sent[name] = value;
  sent['content-length'] = String(body.length);
  response.writeHead(status, sent);
  response.end(body);
}

export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const calls: RecordedCall[] = [];
  let last: number | undefined;
  let pending = 0;
  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const startedAt = Date.now();
    last = startedAt;
    pending++;
    const url = incoming.url ?? '/';
    const parsed = new URL(url, 'http://client.invalid');
    const call: RecordedCall = {
      seq: calls.length + 1,
      method: (incoming.method ?? 'GET').toUpperCase(),
      url,
      path: parsed.pathname,
      query: Object.fromEntries(parsed.searchParams),
      headers: flatHeaders(incoming.headers),
      contentType: incoming.headers['content-type'],
      bodySize: 0,
      startedAt,
      finishedAt: startedAt,
    };
    calls.push(call);
    try {
      const { body, tooLarge } = await readBody(incoming);
      if (tooLarge) {
        call.bodySize = MAX_BODY_BYTES;
        const text = Buffer.from(JSON.stringify('The request body is too large.'));
        call.answer = { status: 413, headers: { 'content-type': 'application/json; charset=utf-8' }, body: 'The request body is too large.', size: text.length };
        reply(response, 413, call.answer.headers, text);
        return;
      }
      describeRequestBody(call, body);
      const provoked = options.provocations.answer(call, endpointOf(call.method, apiPath(call.path)));
      if (provoked !== undefined) {
        call.provocation = Object.entries(options.provocations.triggered).find(([, seqs]) => seqs.includes(call.seq))?.[0];
        const text = provoked.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(provoked.body));
        const headers = { ...provoked.headers, ...(provoked.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }) };
        call.answer = { status: provoked.status, headers, body: provoked.body, size: text.length };
        reply(response, provoked.status, headers, text);
        return;
      }
      const answer = await forward(options.upstream, incoming, body);
      call.answer = describeAnswer(answer.status, answer.headers, answer.body);
      // Tokens handed out are secrets from now on: every report file redacts them.
      if (call.answer.body !== undefined) secrets.addTokensIn(normaliseKeys(call.answer.body));
      reply(response, answer.status, answer.headers, answer.body);
    } catch (error) {
      call.error = (error as Error).message;
      if (!response.headersSent) reply(response, 502, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify('The grading sandbox could not answer.')));
      else response.destroy();
    } finally {
      call.finishedAt = Date.now();
      pending--;
    }
  };
  const server: Server = createServer((incoming, response) => void handle(incoming, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}${API_PREFIX}`,
    calls,
    lastCallAt: () => last,
    pending: () => pending,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
