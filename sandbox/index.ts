// The reference implementation of the Document Exchange Service API: one fastify app, one plugin
// per API area, one in-memory store and one background engine.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import compress from '@fastify/compress';
import type { Casing } from '../lib/casing.ts';
import { API_PREFIX, DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT } from '../lib/defaults.ts';
import { defaultConfig, loadConfigFile } from './config.ts';
import type { AreaOptions, Auth, SandboxContext } from './context.ts';
import { Engine } from './engine.ts';
import { ApiError, localise, sendError } from './errors.ts';
import { checkNames, expandVariants } from './faults.ts';
import { addGateway } from './gateway.ts';
import { addedLatencyMs, tokenCreationDelayMs, DEFAULT_ASYNC_DELAY_MS, variantStepDelayMs, variantStepsPerState } from './timing-variants.ts';
import { answerUnsupportedMethods } from './methods.ts';
import { Store } from './store.ts';
import { tokensArea } from './areas/tokens.ts';
import { companiesArea } from './areas/companies.ts';
import { networkArea } from './areas/network.ts';
import { outboundArea } from './areas/outbound.ts';
import { inboundArea } from './areas/inbound.ts';
import { providerAArea } from './areas/provider-a.ts';
import { stateRoute } from './state.ts';
import { httpsServerOptions, makeRunCertificates, tlsModeOf, type SandboxTlsFiles } from './tls.ts';
import { rmSync } from 'node:fs';

export interface SandboxOptions {
  host?: string;
  port?: number;
  casing?: Casing;
  asyncDelayMs?: number;
  configFile?: string;
  faults?: string[];
  variants?: string[];
  logger?: boolean;
  /** Host names the server certificate of the TLS variants names, besides localhost, 127.0.0.1 and ::1. */
  tlsHostNames?: string[];
  /** The rate-limit variant's requests a second (default: DXS_SANDBOX_RATE_LIMIT, else 15). */
  rateLimit?: number;
}

export interface RunningSandbox {
  baseUrl: string;
  apiKey: string;
  apiKeyWithoutDelete: string;
  /** The files of the run's CA and client certificate (TLS variants): what a client needs to reach it. */
  tls?: Pick<SandboxTlsFiles, 'caCert' | 'clientCert' | 'clientKey'>;
  close(): Promise<void>;
}

export { DEFAULT_ASYNC_DELAY_MS };
const SLOW_DELAY_MS = 250;
/** Large enough for a 500001-SSN lookup (about 7.5 MB of JSON), small enough to stay bounded. */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;
export const FILE_LIMIT_BYTES = 20 * 1024 * 1024;
/**
 * JSON bodies of every other call: no company, token, lookup or send body comes near it, so a
 * body of megabytes is refused (413) instead of being stored. The provider A icon (1 MB of PNG as
 * Base64) and SSN lookup (500000 numbers) keep BODY_LIMIT_BYTES; the upload has its own limits.
 */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
const LARGE_BODY_ROUTES = /\/deliverymethods\/b2c\/providera\/(?:icon|lookup)$|\/documents$/i;

/** How long a refused body is read (and dropped) before the connection is closed on the client. */
const DRAIN_TIMEOUT_MS = 10_000;
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Reads the rest of a refused body, so a client still writing it receives the 413 instead of a
 * broken pipe (fastify closes the connection at once). Bounded in time and bytes; true when the
 * body was read to its end.
 */
function drainBody(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let received = 0;
    const finish = (complete: boolean) => {
      clearTimeout(timer);
      raw.removeListener('data', onData);
      raw.removeListener('end', onEnd);
      raw.removeListener('error', onError);
      resolve(complete);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_LIMIT_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    const timer = setTimeout(() => finish(false), DRAIN_TIMEOUT_MS);
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onError);
    raw.resume();
  });
}

/**
 * Errors node's HTTP parser finds before a request exists (headers over 16 kB, a broken request
 * line). Fastify's own answer is an object with camelCase keys; every other sandbox error is a
 * JSON string, in either casing, so these answer the same way. Only English: no header was read.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, text] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request was not received in time.']
      : [400, 'Bad Request', 'The request could not be read as HTTP.'];
  const body = JSON.stringify(text);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

const JSON_SYNTAX = /^application\/(?:[\w.+-]+\+)?json/i;
/** The bodies-unlimited variant: no limit of the spec's, only one that keeps the process alive. */
const UNLIMITED_BODY_BYTES = 64 * 1024 * 1024;

function resolveCasing(options: SandboxOptions, variants: ReadonlySet<string>): Casing {
  if (options.casing !== undefined) return options.casing;
  return variants.has('pascal') ? 'pascal' : 'camel';
}

async function createSandbox(options: SandboxOptions): Promise<{ app: FastifyInstance; context: SandboxContext; tls?: SandboxTlsFiles }> {
  const faults = new Set(options.faults ?? []);
  checkNames('fault', [...faults]);
  checkNames('variant', options.variants ?? []);
  const variants: ReadonlySet<string> = new Set(expandVariants(options.variants ?? []));
  if (options.casing !== undefined && options.casing !== 'camel' && options.casing !== 'pascal') {
    throw new Error(`unknown casing "${String(options.casing)}" (known: camel, pascal)`);
  }
  const delay = variantStepDelayMs(variants) ?? options.asyncDelayMs ?? DEFAULT_ASYNC_DELAY_MS;
  if (!Number.isFinite(delay) || delay < 0) throw new Error(`invalid async delay ${delay}`);
  const config = options.configFile !== undefined ? loadConfigFile(options.configFile) : defaultConfig();
  const store = new Store(config);
  const engine = new Engine(store, {
    stepDelayMs: variants.has('slow') ? Math.max(delay, SLOW_DELAY_MS) : delay,
    skipIntermediateStatuses: variants.has('skip-statuses'),
    inboundIdIsDocumentId: variants.has('inbound-id-is-document-id'),
    skipConversionStatuses: variants.has('statuses-no-conversion'),
    finalSentForPdfPaper: variants.has('final-sent-for-pdf-paper'),
    stepsPerState: variantStepsPerState(variants),
    faults,
  });
  const context: SandboxContext = { store, engine, casing: resolveCasing(options, variants), faults, variants };

  const tlsMode = tlsModeOf(variants);
  const tls = tlsMode === undefined ? undefined : makeRunCertificates({ ...tlsMode, hostNames: options.tlsHostNames });
  const app = fastify({
    ...(tls === undefined || tlsMode === undefined ? {} : { https: httpsServerOptions(tls, tlsMode.mode) }),
    // Logs go to stderr so that stdout carries only the CLI's ready line. Request logs carry no
    // headers; the redaction guards against a serializer that adds them.
    logger: options.logger ? { level: 'info', stream: process.stderr, redact: ['req.headers.apikey', 'req.headers.clienttoken'] } : false,
    bodyLimit: variants.has('bodies-unlimited') ? UNLIMITED_BODY_BYTES : BODY_LIMIT_BYTES,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 500 },
    clientErrorHandler: answerClientError,
  });
  app.decorateRequest('auth', null as unknown as Auth);
  // Code that sees only the request (body reading, error bodies) asks it for the variants.
  app.decorateRequest('variants', { getter: () => variants });
  answerUnsupportedMethods(
    app,
    (request, reply) => sendError(request, reply, 404, 'routeNotFound', { method: request.method, url: request.url.split('?')[0] }),
    { wrongMethodIsNotFound: variants.has('method-404') },
  );
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined && !LARGE_BODY_ROUTES.test(route.url ?? '') && !variants.has('bodies-unlimited') && !faults.has('long-arrays-500')) route.bodyLimit = JSON_BODY_LIMIT_BYTES;
  });
  if (faults.has('refused-with-effect')) {
    // The call was carried out; its answer says it was refused.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (request.auth?.refuseAfterEffect !== true || reply.statusCode >= 400) return done(null, payload);
      reply.code(401).removeHeader('location').header('content-type', 'application/json; charset=utf-8');
      done(null, JSON.stringify(localise(request, 'clientTokenRevoked')));
    });
  }
  if (variants.has('extra-headers')) {
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', String(request.id)).header('cache-control', 'no-store').header('x-api-version', '1');
      done(null, payload);
    });
  }
  app.addHook('onClose', async () => {
    engine.close();
    if (tls !== undefined) rmSync(tls.directory, { recursive: true, force: true });
  });
  addGateway(app, variants, { rateLimit: options.rateLimit });
  const latency = addedLatencyMs(variants);
  if (latency > 0) {
    // Half on the way in and half on the way out, as a network adds it: a poll sees the state of
    // the moment it arrives, and its answer comes back later still.
    const half = (done: () => void) => void setTimeout(done, latency / 2);
    app.addHook('onRequest', (_request, _reply, done) => half(() => done()));
    app.addHook('onSend', (_request, _reply, payload, done) => half(() => done(null, payload)));
  }
  const tokenDelay = tokenCreationDelayMs(variants);
  if (tokenDelay > 0) {
    // After the gateway's hooks: what it refuses is refused at once, what it lets through is slow.
    app.addHook('onRequest', (request, _reply, done) => {
      if (/\/clienttokens\/create\/?(?:\?|$)/i.test(request.url)) setTimeout(() => done(), tokenDelay);
      else done();
    });
  }

  // An empty JSON body counts as no body (the register answer may be `{}`, clients send the same),
  // and a body that tries to set __proto__ is refused before it reaches normaliseKeys.
  app.removeContentTypeParser('application/json');
  const parseJson = (_request: unknown, text: string | Buffer, done: (error: Error | null, body?: unknown) => void) => {
    const source = text as string;
    if (source.trim() === '') return done(null, undefined);
    if (source.includes('"__proto__"')) return done(new ApiError(400, 'bodyMalformed', { detail: '__proto__ is not allowed' }), undefined);
    // The faults deep-nesting-500 and long-arrays-500: a parser without bounds, which gives up late with an internal error.
    if (faults.has('deep-nesting-500') && nestingDepth(source) > 10_000) return done(new Error('deep-nesting-500: maximum call stack size exceeded'), undefined);
    try {
      const body = JSON.parse(source);
      if (faults.has('long-arrays-500') && longestArray(body) > 50_000) return done(new Error('long-arrays-500: out of memory'), undefined);
      done(null, body);
    } catch (error) {
      // The malformed-json-500 fault lets the parser's error through as an internal error.
      if (faults.has('malformed-json-500')) return done(error as Error, undefined);
      done(new ApiError(400, 'bodyMalformed', { detail: (error as Error).message }), undefined);
    }
  };
  app.addContentTypeParser(JSON_SYNTAX, { parseAs: 'string' }, parseJson);
  if (faults.has('gzip-bomb-500')) {
    // The fault: a compressed body is inflated without a bound, and a bomb runs the service out of memory.
    app.addHook('onRequest', (request, _reply, done) => {
      const encoding = String(request.headers['content-encoding'] ?? '').toLowerCase();
      done(encoding === 'gzip' || encoding === 'deflate' ? new Error('gzip-bomb-500: out of memory while inflating the body') : undefined);
    });
  }
  if (variants.has('content-type-lenient')) {
    // Any other media type (text/plain, none at all) is read as JSON; what does not parse is still 415.
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
      try {
        JSON.parse(text as string);
      } catch {
        if ((text as string).trim() !== '') return done(new ApiError(415, 'unsupportedMediaType', { type: request.headers['content-type'] ?? '(none)' }), undefined);
      }
      parseJson(request, text, done);
    });
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (faults.has('error-stack-trace') && error instanceof ApiError) {
      return reply.code(error.statusCode).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(`${error.message}\n${error.stack ?? ''}`));
    }
    if (error instanceof ApiError) return sendError(request, reply, error.statusCode, error.key, error.params);
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return drainBody(request.raw).then((complete) => {
          if (complete) reply.removeHeader('connection');
          return sendError(request, reply, 413, 'bodyTooLarge');
        });
      case 'FST_FILES_LIMIT':
      case 'FST_PARTS_LIMIT':
      case 'FST_FIELDS_LIMIT':
        return sendError(request, reply, 413, 'bodyTooLarge');
      case 'FST_REQ_FILE_TOO_LARGE':
        return sendError(request, reply, 413, 'fileTooLarge', { limit: FILE_LIMIT_BYTES });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(request, reply, 415, 'unsupportedMediaType', { type: request.headers['content-type'] ?? '(none)' });
      case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
        return sendError(request, reply, 415, 'uploadNotMultipart');
      default:
        break;
    }
    const statusCode = error.statusCode ?? 500;
    if (statusCode >= 400 && statusCode < 500) {
      return reply.code(statusCode).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(error.message));
    }
    request.log.error(error);
    return sendError(request, reply, 500, 'internalError');
  });

  // A multipart body elsewhere is accepted as no body, as @fastify/multipart's own parser does
  // (the stream is left unread). The plugin itself is registered only around the outbound area,
  // the one that reads uploads: it adds an async onResponse hook to every route in its scope.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
  if (variants.has('gzip')) await app.register(compress, { global: true, threshold: 0, encodings: ['gzip'] });

  const areaOptions: AreaOptions & { prefix: string } = { prefix: API_PREFIX, context };
  await app.register(tokensArea, areaOptions);
  await app.register(companiesArea, areaOptions);
  await app.register(networkArea, areaOptions);
  await app.register(async (uploads) => {
    uploads.removeContentTypeParser('multipart/form-data');
    // A part File sent without a filename is a field to busboy, and still the spec's part File: its
    // value is kept byte for byte (latin1) and as large as a file may be.
    await uploads.register(multipart, { defCharset: 'latin1', limits: { fileSize: FILE_LIMIT_BYTES, fieldSize: FILE_LIMIT_BYTES, files: 5, fields: 20, parts: 30 } });
    await uploads.register(outboundArea, areaOptions);
  });
  await app.register(inboundArea, areaOptions);
  await app.register(providerAArea, areaOptions);
  await app.register(stateRoute, { context });
  return { app, context, tls };
}

/** The app without listening, for fastify.inject in tests. */
export async function buildSandbox(options: SandboxOptions = {}): Promise<FastifyInstance> {
  return (await createSandbox(options)).app;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const { app, context, tls } = await createSandbox(options);
  const host = options.host ?? DEFAULT_SANDBOX_HOST;
  try {
    await app.listen({ host, port: options.port ?? DEFAULT_SANDBOX_PORT });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port ?? DEFAULT_SANDBOX_PORT;
  const config = context.store.config;
  const withDelete = config.apiKeys.find((apiKey) => apiKey.roles.includes('DeleteRegistration')) ?? config.apiKeys[0];
  const withoutDelete = config.apiKeys.find((apiKey) => !apiKey.roles.includes('DeleteRegistration')) ?? config.apiKeys[0];
  return {
    baseUrl: `${tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}${API_PREFIX}`,
    apiKey: withDelete.key,
    apiKeyWithoutDelete: withoutDelete.key,
    tls: tls === undefined ? undefined : { caCert: tls.caCert, clientCert: tls.clientCert, clientKey: tls.clientKey },
    close: () => app.close(),
  };
}

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), for the fault deep-nesting-500. */
function nestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < source.length; index++) {
    const character = source[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '[' || character === '{') deepest = Math.max(deepest, ++depth);
    else if (character === ']' || character === '}') depth--;
  }
  return deepest;
}

/** The length of the longest array anywhere in a parsed body, for the fault long-arrays-500. */
function longestArray(value: unknown): number {
  if (Array.isArray(value)) return Math.max(value.length, ...value.slice(0, 100).map(longestArray));
  if (typeof value === 'object' && value !== null) return Math.max(0, ...Object.values(value).map(longestArray));
  return 0;
}
