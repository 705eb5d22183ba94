// A deployment on this machine for the tests of issue 31: a forward proxy that is the only way to
// resolve a made-up host name (to 127.0.0.1), as a company network's proxy is the only way to
// its staging host; and the sandbox behind HTTPS with a CA made for the run. Every address is
// 127.0.0.1.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { runCommand, type DxsResult } from '../load/helpers.ts';
import { withSandboxKeys } from '../runner/helpers.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Resolves nowhere but through the test's proxy (.test is reserved, RFC 2606). */
export const PROXY_ONLY_HOST = 'dxs-staging.proxy-only.test';
export const PROXY_USER = 'proxyuser';
export const PROXY_PASSWORD = 'pr0xy-s3cret-pass';

export interface ForwardProxy {
  /** http://127.0.0.1:PORT, without credentials. */
  url: string;
  /** With the credentials the proxy requires, when it requires any. */
  urlWithCredentials: string;
  /** One line per request: "CONNECT host:port" or "GET http://host:port/path". */
  seen: string[];
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1: absolute-form requests for http, CONNECT for https. It knows only
 * the host names of `hosts` (each to 127.0.0.1); any other answers 502. With `credentials` it
 * answers 407 to a request without them.
 */
export async function startForwardProxy(options: { hosts: readonly string[]; credentials?: boolean }): Promise<ForwardProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const expected = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;
  const authorised = (request: IncomingMessage): boolean => options.credentials !== true || request.headers['proxy-authorization'] === expected;
  const resolve = (host: string): string | undefined => (options.hosts.includes(host.toLowerCase()) ? '127.0.0.1' : undefined);

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    seen.push(`${request.method} ${request.url}`);
    if (!authorised(request)) {
      response.writeHead(407, { 'proxy-authenticate': 'Basic realm="dxs test proxy"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      response.writeHead(400).end('absolute-form expected');
      return;
    }
    const address = resolve(target.hostname);
    if (address === undefined) {
      response.writeHead(502).end(`unknown host ${target.hostname}`);
      return;
    }
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest({ host: address, port: Number(target.port || 80), method: request.method, path: `${target.pathname}${target.search}`, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.headersSent ? response.destroy() : response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${request.url}`);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!authorised(request)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="dxs test proxy"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const match = /^([^:]+):(\d+)$/.exec(request.url ?? '');
    const address = match === null ? undefined : resolve(match[1]);
    if (match === null || address === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    urlWithCredentials: options.credentials === true ? `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${port}` : `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** The sandbox with TLS variants, its certificate also naming the proxy-only host. */
export async function startDeploymentSandbox(variants: string[]): Promise<RunningSandbox & { hostUrl: string }> {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', variants, tlsHostNames: [PROXY_ONLY_HOST] });
  return { ...sandbox, hostUrl: sandbox.baseUrl.replace('127.0.0.1', PROXY_ONLY_HOST) };
}

const CLEARED = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'];

/**
 * Runs bin/dxs.js with none of the caller's DXS_*, proxy or CA variables, and `env` added; killed
 * after `timeoutMs` (a bound, not an assertion).
 */
export function runDxsWith(args: string[], env: Record<string, string> = {}, timeoutMs = 600_000): Promise<DxsResult> {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(childEnv)) if (name.startsWith('DXS_') || CLEARED.includes(name)) delete childEnv[name];
  return runCommand(process.execPath, [join(ROOT, 'bin', 'dxs.js'), ...args], withSandboxKeys(args, { ...childEnv, ...env, FORCE_COLOR: '0', CI: '1' }) as NodeJS.ProcessEnv, timeoutMs);
}
