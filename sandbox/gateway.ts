// What stands in front of a real deployment (issue 31), as variants of the sandbox: legitimate,
// since the spec says "Rate limits: not shown", and dxs must pass through them, never judging
// their answers as the target's.
//   rate-limit       a token bucket per sandbox: N requests a second with a burst of N
//                    (DXS_SANDBOX_RATE_LIMIT, default 15); past it, 429 with Retry-After: 1 and a
//                    JSON string body, as a gateway in front of a staging answered.
//   rate-limit-per-address  a token bucket per client address instead (15 a second by default, the
//                    same setting), answering 429 with Retry-After: 1 and no RateLimit header at
//                    all, as a shared gateway in front of a staging did: the rate has to be learnt.
//   maintenance-503  one call in MAINTENANCE_EVERY answered 503 with Retry-After (alternately in
//                    seconds and as an HTTP date), as during a rolling deployment.
//   body-limit-1mb   a request body over 1 MiB is answered 413 with an HTML page, as nginx's default
//                    client_max_body_size does (issue 57): smaller than what the spec permits (a
//                    lookup of 500000 SSNs is 7.5 MB, an icon of 1 MB is 1.3 MB of Base64).
// Both answer before the body is read, as a gateway does; only calls of the API are limited.
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../lib/defaults.ts';

export const DEFAULT_SANDBOX_RATE_LIMIT = 15;
/** One call in this many meets the maintenance answer: often enough that every run meets it. */
export const MAINTENANCE_EVERY = 10;
/** nginx's default client_max_body_size (1m). */
export const GATEWAY_BODY_LIMIT_BYTES = 1024 * 1024;

/** nginx's own page for a body over its limit: HTML, not the API's JSON error. */
const TOO_LARGE_PAGE = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Client addresses the per-address gateway keeps a bucket for at once. */
const MAX_ADDRESSES = 10_000;

export interface GatewayOptions {
  /** Requests a second the bucket refills; its size (the burst) is the same. */
  rateLimit?: number;
}

/** The bucket's rate: the option, then DXS_SANDBOX_RATE_LIMIT, then the default. */
export function rateLimitOf(options: GatewayOptions, env: Record<string, string | undefined> = process.env): number {
  const value = options.rateLimit ?? (env.DXS_SANDBOX_RATE_LIMIT ? Number(env.DXS_SANDBOX_RATE_LIMIT) : DEFAULT_SANDBOX_RATE_LIMIT);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`invalid sandbox rate limit ${String(value)} (DXS_SANDBOX_RATE_LIMIT: requests a second, greater than 0)`);
  return value;
}

class TokenBucket {
  private tokens: number;
  private last = performance.now();
  private readonly rate: number;

  constructor(rate: number) {
    this.rate = rate;
    this.tokens = rate;
  }

  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

function isApiCall(url: string): boolean {
  return url.toLowerCase().startsWith(API_PREFIX.toLowerCase());
}

export function addGateway(app: FastifyInstance, variants: ReadonlySet<string>, options: GatewayOptions): void {
  if (variants.has('rate-limit')) {
    const rate = rateLimitOf(options);
    const bucket = new TokenBucket(rate);
    app.addHook('onRequest', (request, reply, done) => {
      if (!isApiCall(request.url) || bucket.take()) return done();
      reply
        .code(429)
        .header('retry-after', '1')
        .header('ratelimit-policy', `${rate};w=1`)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(`Too many requests: the limit is ${rate} requests per second.`));
    });
  }
  if (variants.has('rate-limit-per-address')) {
    const rate = rateLimitOf(options);
    const buckets = new Map<string, TokenBucket>();
    app.addHook('onRequest', (request, reply, done) => {
      if (!isApiCall(request.url)) return done();
      let bucket = buckets.get(request.ip);
      if (bucket === undefined) {
        // Bounded as every store of the sandbox: a flood of addresses starts them all afresh.
        if (buckets.size >= MAX_ADDRESSES) buckets.clear();
        bucket = new TokenBucket(rate);
        buckets.set(request.ip, bucket);
      }
      if (bucket.take()) return done();
      reply
        .code(429)
        .header('retry-after', '1')
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify('Too many requests from this address.'));
    });
  }
  if (variants.has('body-limit-1mb')) {
    app.addHook('onRequest', (request, reply, done) => {
      const length = Number(request.headers['content-length'] ?? 0);
      if (!isApiCall(request.url) || !(length > GATEWAY_BODY_LIMIT_BYTES)) return done();
      reply.code(413).header('content-type', 'text/html').send(TOO_LARGE_PAGE);
    });
  }
  if (variants.has('maintenance-503')) {
    let calls = 0;
    let answered = 0;
    app.addHook('onRequest', (request, reply, done) => {
      if (!isApiCall(request.url) || ++calls % MAINTENANCE_EVERY !== 0) return done();
      answered++;
      // Both forms RFC 9110 allows: delay-seconds, and an HTTP-date one second ahead.
      const retryAfter = answered % 2 === 0 ? new Date(Date.now() + 1000).toUTCString() : '1';
      reply
        .code(503)
        .header('retry-after', retryAfter)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify('The service is under maintenance; try again shortly.'));
    });
  }
}
