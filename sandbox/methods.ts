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
 * (QUERY, TRACE, DELETE ...), in the not-found handler's own onRequest hook, and a method that only
 * a parameter route serves where a static route owns the path (GET /documents/handled is not GET
 * /documents/{id}), in a hook of the parameter routes alone. No hook runs for the static routes,
 * which carry the hot paths (token create, company status). Register before any route: it also sets
 * the not-found handler, `notFound`.
 */
export function answerUnsupportedMethods(
  app: FastifyInstance,
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown,
  options: { wrongMethodIsNotFound?: boolean } = {},
): void {
  // The method-404 variant: a wrong method is answered like an unknown path (the spec names no 405).
  const methodNotAllowed = options.wrongMethodIsNotFound
    ? (request: FastifyRequest, reply: FastifyReply) => notFound(request, reply)
    : answerMethodNotAllowed;
  const known = new Map<string, KnownPath>();
  // Static paths that a parameter route would also match, by that route's url: the only case
  // where a routed request may still be a wrong method. Built once, on the first such request.
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
    if (url.includes(':')) {
      const shadowHook = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
        shadowed ??= shadowedPaths();
        const path = request.url.split('?')[0];
        const statics = shadowed.get(url);
        if (statics !== undefined && statics.some((candidate) => candidate.pattern.test(path))) {
          methodNotAllowed(request, reply, path, allowedFor(path));
          return;
        }
        done();
      };
      route.onRequest = route.onRequest === undefined ? [shadowHook] : [...(Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]), shadowHook];
    }
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

  // The not-found handler gets the onRequest hooks of the plugin that sets it, and only those.
  void app.register(async (scope) => {
    scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const path = request.url.split('?')[0];
      const allowed = allowedFor(path);
      if (allowed.length > 0) return methodNotAllowed(request, reply, path, allowed);
      done();
      return undefined;
    });
    scope.setNotFoundHandler(notFound);
  });
}

function answerMethodNotAllowed(request: FastifyRequest, reply: FastifyReply, path: string, allowed: string[]): FastifyReply {
  return sendError(request, reply.header('allow', allowed.join(', ')), 405, 'methodNotAllowed', { method: request.method, url: path, allowed: allowed.join(', ') });
}
