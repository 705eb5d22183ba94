// A gateway of the tests' own in front of the sandbox (issue 57): a reverse proxy on 127.0.0.1
// that forwards every call, and injects the deployment's transport on the calls a rule chooses:
//   502          nginx's "502 Bad Gateway" HTML page, the call not forwarded;
//   503          a 503 without Retry-After (HTML), not forwarded;
//   reset        the call forwarded and answered by the target, then the connection reset before
//                a byte of the answer reaches the client;
//   stall        the call held without an answer (past the client's per-call bound), then dropped;
//   500-json     the target's own 500 with the API's error body (a JSON string), not forwarded.
// A rule matches a method and a path (after the API prefix) and, optionally, a text in the body;
// counting the calls of that method and path, it leaves the first `skip` alone and applies to the
// `times` after them (Infinity: every one).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { API_PREFIX } from '../../lib/defaults.ts';

export type Noise = '502' | '503' | 'reset' | 'stall' | '500-json';

export interface NoiseRule {
  method: string;
  /** The path after the API prefix, e.g. /clienttokens/create (compared without case). */
  path: string;
  noise: Noise;
  /** Matches left alone before the rule applies (default 0). */
  skip?: number;
  /** Matches the rule applies to (default 1; Infinity for every one). */
  times?: number;
  /** Only calls whose body holds this text. */
  bodyIncludes?: string;
}

export interface NoiseGateway {
  /** The base URL through the gateway (http://127.0.0.1:PORT/v1/api). */
  baseUrl: string;
  /** "POST /clienttokens/create 502", one a call the gateway injected into. */
  injected: string[];
  /** Replaces the rules (and their counts): one gateway serves several runs. */
  setRules(rules: NoiseRule[]): void;
  close(): Promise<void>;
}

const BAD_GATEWAY_PAGE = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n';
const UNAVAILABLE_PAGE = '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n';

export async function startNoiseGateway(upstreamBaseUrl: string, stallMs = 60_000): Promise<NoiseGateway> {
  const upstream = new URL(upstreamBaseUrl);
  const injected: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let rules: NoiseRule[] = [];
  /** Calls seen of each method and path (and body text a rule looks for): the n-th is what a rule's skip counts. */
  const seen = new Map<string, number>();

  const choose = (method: string, path: string, body: string): NoiseRule | undefined => {
    const counted = new Set<string>();
    let chosen: NoiseRule | undefined;
    for (const rule of rules) {
      if (rule.method.toUpperCase() !== method.toUpperCase() || rule.path.toLowerCase() !== path.toLowerCase()) continue;
      if (rule.bodyIncludes !== undefined && !body.includes(rule.bodyIncludes)) continue;
      const key = `${method.toUpperCase()} ${path.toLowerCase()} ${rule.bodyIncludes ?? ''}`;
      if (!counted.has(key)) seen.set(key, (seen.get(key) ?? 0) + 1);
      counted.add(key);
      const nth = seen.get(key) ?? 0;
      const skip = rule.skip ?? 0;
      if (chosen === undefined && nth > skip && nth <= skip + (rule.times ?? 1)) chosen = rule;
    }
    return chosen;
  };

  const forward = (request: IncomingMessage, body: Buffer, onAnswer: (answer: IncomingMessage, answerBody: Buffer) => void, onError: () => void): void => {
    const headers = { ...request.headers, host: upstream.host };
    const call = httpRequest({ host: upstream.hostname, port: Number(upstream.port), method: request.method, path: request.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => onAnswer(answer, Buffer.concat(chunks)));
      answer.on('error', onError);
    });
    call.on('error', onError);
    call.end(body);
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const pathname = (request.url ?? '').split('?')[0];
      const path = pathname.toLowerCase().startsWith(API_PREFIX.toLowerCase()) ? pathname.slice(API_PREFIX.length) : pathname;
      const rule = choose(request.method ?? 'GET', path, body.toString());
      if (rule !== undefined) injected.push(`${request.method} ${path} ${rule.noise}`);
      switch (rule?.noise) {
        case '502':
          response.writeHead(502, { 'content-type': 'text/html', server: 'nginx/1.22.1' }).end(BAD_GATEWAY_PAGE);
          return;
        case '503':
          response.writeHead(503, { 'content-type': 'text/html', server: 'nginx/1.22.1' }).end(UNAVAILABLE_PAGE);
          return;
        case '500-json':
          response.writeHead(500, { 'content-type': 'application/json' }).end('"Internal error."');
          return;
        case 'stall': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            request.socket.destroy();
          }, stallMs);
          timers.add(timer);
          return;
        }
        case 'reset':
          // The target did the work; its answer never reaches the client.
          forward(request, body, () => request.socket.resetAndDestroy(), () => request.socket.resetAndDestroy());
          return;
        default:
          forward(
            request,
            body,
            (answer, answerBody) => {
              const headers = { ...answer.headers };
              delete headers['transfer-encoding'];
              headers['content-length'] = String(answerBody.length);
              response.writeHead(answer.statusCode ?? 502, headers).end(answerBody);
            },
            () => (response.headersSent ? response.destroy() : response.writeHead(502, { 'content-type': 'text/html' }).end(BAD_GATEWAY_PAGE)),
          );
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${API_PREFIX}`,
    injected,
    setRules(next) {
      rules = [...next];
      seen.clear();
      injected.length = 0;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
