// The suites' HTTP transport: one undici dispatcher per worker (keep-alive connections, the run's
// proxy and TLS settings), each call's body read whole. Not Playwright's APIRequestContext: its
// every call is two API calls of playwright-core (the fetch, then the body), each capturing and
// source-mapping a stack and reporting a step to the runner, about 3 ms of CPU a call on top of
// our own step (issue 42: half a worker's CPU on 2 cores). It has no cookie jar either, so a call
// carries only the credentials it names.
import { randomBytes } from 'node:crypto';
import { brotliDecompress, gunzip, inflate, type InputType, type ZlibOptions } from 'node:zlib';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { proxyAuthorization } from '../../lib/proxy.ts';
import { flatHeaders, tlsOptionsOf, type Connection } from '../../lib/transport.ts';

export interface MultipartFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  multipart?: Record<string, string | MultipartFile>;
  timeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  /** One string per header name, lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Decoded when the answer names a Content-Encoding the client asked for. */
  body: Buffer;
}

// A body that inflates past this is refused rather than held in memory (a decompression bomb from the target).
const MAX_DECODED_BYTES = 512 * 1024 * 1024;
// Below Node's server default of 5 s: a kept connection is dropped before the server closes it under a request.
const KEEP_ALIVE_MS = 4_000;

function decoder(encoding: string): ((input: InputType, options: ZlibOptions, callback: (error: Error | null, result: Buffer) => void) => void) | undefined {
  switch (encoding.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzip;
    case 'deflate':
      return inflate;
    case 'br':
      return brotliDecompress;
    default:
      return undefined;
  }
}

/** The body with its codings undone; as it came when one is unknown or does not decode (the target's to explain). */
async function decoded(body: Buffer, contentEncoding: string | undefined): Promise<Buffer> {
  if (contentEncoding === undefined || body.length === 0) return body;
  let result = body;
  // Codings are listed in the order they were applied: undone from the last.
  for (const encoding of contentEncoding.split(',').reverse()) {
    const decode = decoder(encoding);
    if (decode === undefined) return body;
    try {
      result = await new Promise<Buffer>((resolve, reject) => decode(result, { maxOutputLength: MAX_DECODED_BYTES }, (error, output) => (error === null ? resolve(output) : reject(error))));
    } catch {
      return body;
    }
  }
  return result;
}

/** A multipart/form-data body as browsers and Playwright write it: quotes and line breaks of names percent-encoded. */
export function multipartBody(fields: Record<string, string | MultipartFile>): { contentType: string; body: Buffer } {
  const boundary = `----dxs${randomBytes(12).toString('hex')}`;
  const quoted = (value: string): string => value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`));
    } else {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(value.name)}"\r\nContent-Type: ${value.mimeType}\r\n\r\n`), value.buffer, Buffer.from('\r\n'));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

/** A transport failure as one line that names its cause the way lib/no-response.ts reads it (the errno name, a timeout). */
function failureMessage(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `Timeout ${timeoutMs}ms exceeded`;
  const failure = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = failure.code ?? failure.cause?.code;
  const message = failure.cause?.message ?? failure.message;
  // undici's word for a connection the target closed before its answer was complete.
  if (code === 'UND_ERR_SOCKET' && /other side closed/i.test(message)) return `socket hang up (the connection was closed by the target: ${message})`;
  if (code === 'UND_ERR_SOCKET' && /ECONNRESET|reset/i.test(message)) return `read ECONNRESET (${message})`;
  return code !== undefined && !message.includes(code) ? `${code} ${message}` : message;
}

export class HttpTransport {
  private readonly dispatcher: Dispatcher;

  constructor(connection: Connection | undefined) {
    const tls = connection === undefined ? undefined : tlsOptionsOf(connection);
    const common = { keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS, headersTimeout: 0, bodyTimeout: 0 };
    if (connection?.proxy !== undefined) {
      const uri = new URL(connection.proxy);
      const token = proxyAuthorization(connection.proxy);
      uri.username = '';
      uri.password = '';
      // Like Playwright's, a tunnel (CONNECT) for http targets too.
      this.dispatcher = new ProxyAgent({ uri: uri.toString(), token, requestTls: tls, ...common });
    } else {
      this.dispatcher = new Agent({ connect: tls, ...common });
    }
  }

  /** One call; rejects with an Error whose message names why no answer came. */
  async send(input: HttpRequest): Promise<HttpAnswer> {
    const headers: Record<string, string> = { 'user-agent': 'dxs', ...input.headers };
    let body = input.body;
    if (input.multipart !== undefined) {
      const multipart = multipartBody(input.multipart);
      body = multipart.body;
      const named = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
      if (named === undefined) headers['content-type'] = multipart.contentType;
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, input.timeoutMs);
    try {
      const answer = await request(input.url, { method: input.method as Dispatcher.HttpMethod, headers, body, dispatcher: this.dispatcher, signal: controller.signal });
      const raw = Buffer.from(await answer.body.arrayBuffer());
      // undici names them in lower case, as node:http does.
      const answerHeaders = flatHeaders(answer.headers);
      // Only a coding the call asked for is undone: one it did not ask for is shown as it came.
      const asked = Object.entries(headers).some(([name, value]) => name.toLowerCase() === 'accept-encoding' && value !== '');
      return { status: answer.statusCode, headers: answerHeaders, body: asked ? await decoded(raw, answerHeaders['content-encoding']) : raw };
    } catch (error) {
      throw new Error(failureMessage(error, timedOut, input.timeoutMs));
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close().catch(() => undefined);
  }
}
