// dxs's own HTTP calls outside Playwright and k6 (the reachability probe, the cleanup's deletes):
// node:http over a proxy when one applies (absolute-form requests for http, a CONNECT tunnel for
// https) and with the run's TLS settings (--ca-cert added to the trusted roots, a client
// certificate, --insecure). Our own code rather than undici's ProxyAgent: Node 20's fetch takes a
// dispatcher only from the npm undici package (a second HTTP stack to keep in step with Node's),
// and the probe needs the server's certificate and a word on each way a connection fails (proxy
// refused, proxy authentication, TLS trust, client certificate), which node:tls gives directly.
//
// Node-only module; k6 never loads it.
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates, type PeerCertificate, type TLSSocket } from 'node:tls';
import { ConfigError } from './config.ts';
import { displayProxy, proxyAuthorization, proxyCredentialValues, proxyFor, proxyUrlProblem, type ProxyEnvironment } from './proxy.ts';
import { secrets, type SecretRegistry } from './redact.ts';
import type { ServerCertificate } from './server-certificate.ts';
import { isTransientAnswer, isTransientReason } from './transient.ts';

export type { ServerCertificate };

/** The network options of a command (TARGET_OPTIONS of lib/config.ts), as given. */
export interface NetworkOptions {
  /** --proxy: overrides HTTPS_PROXY/HTTP_PROXY; "" means no proxy at all. */
  proxy?: string;
  /** PEM bundle added to the trusted roots. */
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
  /** Do not verify the server's certificate. Never the default; reports say so. */
  insecure?: boolean;
}

/** How dxs reaches one target: what every client of the run (Playwright, k6, Schemathesis, our own) is given. */
export interface Connection {
  /** The proxy for the target's URL (credentials included), after NO_PROXY. */
  proxy?: string;
  /** Absolute paths of the PEM files. */
  caCert?: string;
  /** caCert is SSL_CERT_FILE's (the roots curl, Python and Go read), not a --ca-cert of the user. */
  caCertFromEnvironment?: boolean;
  clientCert?: string;
  clientKey?: string;
  insecure: boolean;
}

/** The network options among a command's resolved options. */
export function networkOptionsOf(options: Record<string, unknown>): NetworkOptions {
  return {
    proxy: options.proxy as string | undefined,
    caCert: options.caCert as string | undefined,
    clientCert: options.clientCert as string | undefined,
    clientKey: options.clientKey as string | undefined,
    insecure: options.insecure === true,
  };
}

function readPem(path: string, what: string, marker: RegExp): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!marker.test(text)) throw new ConfigError(`${path} holds no PEM ${what} (expected a -----BEGIN ...----- block)`);
  return text;
}

/**
 * The connection to a target: which proxy applies to its URL, and the TLS files, checked to be
 * readable PEM. Registers the proxy's credentials as secrets. Throws ConfigError (exit 2).
 */
export function connectionFor(baseUrl: string, options: NetworkOptions, env: ProxyEnvironment = process.env, registry: SecretRegistry = secrets): Connection {
  if (options.proxy !== undefined && options.proxy !== '') {
    for (const value of proxyCredentialValues(options.proxy)) registry.add(value);
    const problem = proxyUrlProblem(options.proxy);
    if (problem !== undefined) throw new ConfigError(`--proxy ${displayProxy(options.proxy)} ${problem}`);
  }
  const proxy = proxyFor(baseUrl, options.proxy, env);
  if (proxy !== undefined) {
    for (const value of proxyCredentialValues(proxy)) registry.add(value);
    const problem = proxyUrlProblem(proxy);
    if (problem !== undefined) throw new ConfigError(`proxy ${displayProxy(proxy)} (from ${options.proxy !== undefined ? '--proxy' : 'HTTPS_PROXY/HTTP_PROXY'}) ${problem}`);
  }
  if ((options.clientCert === undefined) !== (options.clientKey === undefined)) {
    throw new ConfigError('mutual TLS needs both --client-cert FILE and --client-key FILE');
  }
  // SSL_CERT_FILE is what curl, Python and Go read for their roots; Node does not, so dxs adds it
  // to Node's roots itself, and every client of the run trusts the same certificates.
  const caCert = options.caCert ?? (env.SSL_CERT_FILE === undefined || env.SSL_CERT_FILE === '' ? undefined : env.SSL_CERT_FILE);
  if (caCert !== undefined) readPem(caCert, options.caCert !== undefined ? 'CA certificate bundle' : 'CA certificate bundle of SSL_CERT_FILE', /-----BEGIN CERTIFICATE-----/);
  if (options.clientCert !== undefined) readPem(options.clientCert, 'client certificate', /-----BEGIN CERTIFICATE-----/);
  if (options.clientKey !== undefined) readPem(options.clientKey, 'client key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/);
  return {
    proxy,
    caCert,
    ...(caCert !== undefined && options.caCert === undefined ? { caCertFromEnvironment: true } : {}),
    clientCert: options.clientCert,
    clientKey: options.clientKey,
    insecure: options.insecure === true,
  };
}

/** Node's trusted roots with the CA bundle added, and NODE_EXTRA_CA_CERTS kept (an explicit `ca` replaces both). */
export function trustedRoots(caCert: string | undefined, env: Record<string, string | undefined> = process.env): string[] | undefined {
  if (caCert === undefined) return undefined;
  const extra = env.NODE_EXTRA_CA_CERTS;
  const roots = [...rootCertificates, readFileSync(caCert, 'utf8')];
  if (extra !== undefined && extra !== '') {
    try {
      roots.push(readFileSync(extra, 'utf8'));
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS.
    }
  }
  return roots;
}

export interface TlsOptions {
  ca?: string[];
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

/** The TLS options of a connection for node:tls (and undici's connect), the CA bundle and NODE_EXTRA_CA_CERTS among the roots. */
export function tlsOptionsOf(connection: Connection): TlsOptions {
  return {
    ca: trustedRoots(connection.caCert),
    cert: connection.clientCert === undefined ? undefined : readFileSync(connection.clientCert, 'utf8'),
    key: connection.clientKey === undefined ? undefined : readFileSync(connection.clientKey, 'utf8'),
    rejectUnauthorized: !connection.insecure,
  };
}

function distinguishedName(name: PeerCertificate['subject'] | undefined): string {
  if (name === undefined || name === null) return '(none)';
  return Object.entries(name)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : String(value)}`)
    .join(', ');
}

function certificateOf(socket: TLSSocket, verified: boolean, now = Date.now()): ServerCertificate | undefined {
  const peer = socket.getPeerCertificate();
  if (peer === undefined || peer === null || Object.keys(peer).length === 0) return undefined;
  const validTo = new Date(peer.valid_to);
  return {
    subject: distinguishedName(peer.subject),
    issuer: distinguishedName(peer.issuer),
    validTo: Number.isNaN(validTo.getTime()) ? peer.valid_to : validTo.toISOString(),
    daysLeft: Math.floor((validTo.getTime() - now) / 86_400_000),
    verified,
  };
}

/** A call that got no HTTP answer; `reason` says why, in words. */
export class TransportError extends Error {
  override readonly name: string = 'TransportError';
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

const UNTRUSTED = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED']);

/** One error of a socket or a TLS handshake, in words, with what to do about it. */
export function describeFailure(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (UNTRUSTED.has(code)) {
    return `TLS: the server's certificate is not trusted (${code}: ${error.message}); give the CA that signed it with --ca-cert FILE (or DXS_CA_CERT, NODE_EXTRA_CA_CERTS)`;
  }
  if (code === 'CERT_HAS_EXPIRED') return `TLS: the server's certificate has expired (${error.message})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS: the server's certificate is not for this host name (${error.message})`;
  if (/CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN/i.test(code) || /alert (certificate required|bad certificate|unknown ca|handshake failure)/i.test(error.message)) {
    return `TLS: the server refused the connection during the handshake (${code || error.message}): it may require a client certificate (mutual TLS) the run did not present or that it does not accept; give one with --client-cert FILE --client-key FILE`;
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || /^(CERT_|ERR_OSSL)/.test(code)) return `TLS: ${code} ${error.message}`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the service running on that host and port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found (DNS)';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host or network unreachable';
    default:
      return code !== '' ? `${code} ${error.message}` : error.message;
  }
}

function proxyRefusal(proxy: string, status: number | undefined, statusMessage: string | undefined, target: string): string {
  const said = `${status ?? '?'}${statusMessage ? ` ${statusMessage}` : ''}`;
  if (status === 407) return `the proxy ${displayProxy(proxy)} wants credentials (407 Proxy Authentication Required): give them in the proxy URL, http://USER:PASSWORD@HOST:PORT`;
  return `the proxy ${displayProxy(proxy)} could not reach ${target} (it answered CONNECT with ${said})`;
}

export interface SendInput {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Node's headers as one string each (repeated ones joined), as the checks and the gateway read them. */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]])));
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The server's certificate, for a call over HTTPS. */
  certificate?: ServerCertificate;
}

/**
 * Whether an outcome of a call (its answer, or the error send() threw) was the deployment's
 * transport (issue 57): a gateway's 502, 504 or 503 without Retry-After, or a reset, a close or the
 * bound. sendAgainOnTransient's test for dxs's own repeatable calls.
 */
export function isTransientOutcome({ answer, error }: { answer?: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer | string }; error?: unknown }): boolean {
  if (answer !== undefined) return isTransientAnswer(answer.status, answer.headers, answer.body.toString());
  return error instanceof TransportError && isTransientReason(error.reason);
}

/** Opens a CONNECT tunnel through the proxy to host:port. */
function openTunnel(proxy: string, host: string, port: string, settle: (error: TransportError) => void, onSocket: (socket: Socket) => void): () => void {
  const proxyUrl = new URL(proxy);
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const authorization = proxyAuthorization(proxy);
  const connect = httpRequest({
    host: proxyUrl.hostname.replace(/^\[|\]$/g, ''),
    port: proxyUrl.port === '' ? 80 : Number(proxyUrl.port),
    method: 'CONNECT',
    path: authority,
    headers: { host: authority, ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }) },
    agent: false,
  });
  connect.once('connect', (response: IncomingMessage, socket: Socket) => {
    if (response.statusCode === 200) onSocket(socket);
    else {
      socket.destroy();
      settle(new TransportError(proxyRefusal(proxy, response.statusCode, response.statusMessage, authority)));
    }
  });
  connect.once('error', (error: NodeJS.ErrnoException) => settle(new TransportError(`cannot use the proxy ${displayProxy(proxy)}: ${describeFailure(error)}`)));
  connect.end();
  return () => connect.destroy();
}

/** One HTTP call, through the connection's proxy and with its TLS settings; rejects with TransportError. */
export function send(url: string, input: SendInput, connection: Connection): Promise<Answer> {
  const target = new URL(url);
  const https = target.protocol === 'https:';
  const tls = https ? tlsOptionsOf(connection) : undefined;
  const port = target.port !== '' ? target.port : https ? '443' : '80';
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    let settled = false;
    const cleanups: Array<() => void> = [];
    const finish = (error: TransportError | undefined, answer?: Answer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onAbort);
      for (const cleanup of cleanups) cleanup();
      if (error !== undefined) reject(error);
      else resolve(answer as Answer);
    };
    const timer = setTimeout(() => finish(new TransportError(`no answer within ${input.timeoutMs / 1000} s`)), input.timeoutMs);
    const onAbort = (): void => finish(new TransportError('aborted'));
    if (input.signal?.aborted) return onAbort();
    input.signal?.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { host: target.host, ...input.headers };
    if (input.body !== undefined) headers['content-length'] = String(Buffer.byteLength(input.body));
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error: NodeJS.ErrnoException) => finish(new TransportError(describeFailure(error))));
      response.on('end', () => {
        const socket = response.socket as TLSSocket | null;
        const certificate = https && socket !== null && typeof socket.getPeerCertificate === 'function' ? certificateOf(socket, !connection.insecure) : undefined;
        finish(undefined, { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), certificate });
      });
    };
    const issue = (request: ReturnType<typeof httpRequest>): void => {
      cleanups.push(() => request.destroy());
      request.on('error', (error: NodeJS.ErrnoException) => finish(new TransportError(describeFailure(error))));
      request.end(input.body);
    };
    const path = `${target.pathname}${target.search}`;
    if (connection.proxy === undefined) {
      const request = (https ? httpsRequest : httpRequest)(target, { method: input.method, headers, agent: false, ...tls, servername: https && !/^[\d.]+$|:/.test(host) ? host : undefined }, onResponse);
      issue(request);
    } else if (!https) {
      // Absolute-form through the proxy, as RFC 9112 asks of a request to a proxy.
      const proxyUrl = new URL(connection.proxy);
      const authorization = proxyAuthorization(connection.proxy);
      const request = httpRequest(
        {
          host: proxyUrl.hostname.replace(/^\[|\]$/g, ''),
          port: proxyUrl.port === '' ? 80 : Number(proxyUrl.port),
          method: input.method,
          path: target.href,
          headers: { ...headers, ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }) },
          agent: false,
        },
        onResponse,
      );
      request.on('error', (error: NodeJS.ErrnoException) => finish(new TransportError(`cannot use the proxy ${displayProxy(connection.proxy as string)}: ${describeFailure(error)}`)));
      issue(request);
    } else {
      cleanups.push(
        openTunnel(connection.proxy, host, port, (error) => finish(error), (socket) => {
          cleanups.push(() => socket.destroy());
          const secure = tlsConnect({ socket, servername: /^[\d.]+$|:/.test(host) ? undefined : host, ...tls });
          cleanups.push(() => secure.destroy());
          secure.on('error', (error: NodeJS.ErrnoException) => finish(new TransportError(describeFailure(error))));
          const request = httpRequest({ method: input.method, path, headers, createConnection: () => secure }, onResponse);
          issue(request);
        }),
      );
    }
  });
}
