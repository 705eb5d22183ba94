// 405 Method Not Allowed for a known path asked with a method it does not serve. The spec names
// only the methods each path serves; HTTP (RFC 9110, 15.5.6) says such a request gets 405 with an
// Allow header listing them, which is what clients and tools such as Schemathesis expect. An
// unknown path keeps its 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors.ts';

interface KnownPath {
  url: string;
  pattern: RegExp;
  /** Segments without a parameter: where two routes match a path, the router takes the one with more. */
  staticSegments: number;
  methods: Set<string>;
}

/** A route url ("/v1/api/documents/:id/info") as a case-insensitive regex over a request path. */
function pathPattern(url: string): RegExp {
  const source = url
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`, 'i');
}

/**
 * Records every route as it is added and answers 405 with Allow, in onRequest (before a body is
 * parsed), when the path is known but not with this method. That covers a method no route has
 * (QUERY, TRACE, DELETE ...) and a method that only a parameter route serves where a static route
 * owns the path (GET /documents/handled is not GET /documents/{id}). Register before any route.
 */
export function answerUnsupportedMethods(app: FastifyInstance): void {
  const known = new Map<string, KnownPath>();
  // Static paths that a parameter route would also match, by that route's url: the only case
  // where a routed request may still be a wrong method. Built once, on the first request.
  let shadowed: Map<string, KnownPath[]> | undefined;

  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    let entry = known.get(url.toLowerCase());
    if (entry === undefined) {
      entry = { url, pattern: pathPattern(url), staticSegments: url.split('/').filter((segment) => segment !== '' && !segment.startsWith(':')).length, methods: new Set() };
      known.set(url.toLowerCase(), entry);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(method.toUpperCase());
    shadowed = undefined;
  });

  /** The methods of the routes that own the path: the best-matching ones. */
  function allowedFor(path: string): string[] {
    const matches = [...known.values()].filter((entry) => entry.pattern.test(path));
    const best = Math.max(...matches.map((entry) => entry.staticSegments));
    return [...new Set(matches.filter((entry) => entry.staticSegments === best).flatMap((entry) => [...entry.methods]))].sort();
  }

  function shadowedPaths(): Map<string, KnownPath[]> {
    const result = new Map<string, KnownPath[]>();
    for (const entry of known.values()) {
      if (!entry.url.includes(':')) continue;
      const statics = [...known.values()].filter((other) => !other.url.includes(':') && entry.pattern.test(other.url));
      if (statics.length > 0) result.set(entry.url, statics);
    }
    return result;
  }

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const path = request.url.split('?')[0];
    if (request.is404) {
      const allowed = allowedFor(path);
      if (allowed.length > 0) return methodNotAllowed(request, reply, path, allowed);
      return done();
    }
    shadowed ??= shadowedPaths();
    const statics = shadowed.get(request.routeOptions.url ?? '');
    if (statics !== undefined && statics.some((entry) => entry.pattern.test(path))) return methodNotAllowed(request, reply, path, allowedFor(path));
    done();
  });
}

function methodNotAllowed(request: FastifyRequest, reply: FastifyReply, path: string, allowed: string[]): FastifyReply {
  return sendError(request, reply.header('allow', allowed.join(', ')), 405, 'methodNotAllowed', { method: request.method, url: path, allowed: allowed.join(', ') });
}
