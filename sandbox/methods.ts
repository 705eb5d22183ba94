// 405 Method Not Allowed for a known path asked with a method it does not serve. The spec names
// only the methods each path serves; HTTP (RFC 9110, 15.5.6) says such a request gets 405 with an
// Allow header listing them, which is what clients and tools such as Schemathesis expect. An
// unknown path keeps its 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors.ts';

interface KnownPath {
  pattern: RegExp;
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
 * Records every route as it is added; returns the methods a path is served with (empty when
 * no route has that path). Call before any route is registered.
 */
export function trackRouteMethods(app: FastifyInstance): (path: string) => string[] {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const url = route.url ?? route.path;
    let entry = known.get(url.toLowerCase());
    if (entry === undefined) {
      entry = { pattern: pathPattern(url), methods: new Set() };
      known.set(url.toLowerCase(), entry);
    }
    for (const method of methods) entry.methods.add(method.toUpperCase());
  });
  return (path) => {
    const methods = new Set<string>();
    for (const entry of known.values()) if (entry.pattern.test(path)) for (const method of entry.methods) methods.add(method);
    return [...methods].sort();
  };
}

/** The not-found handler: 405 with Allow for a known path, 404 otherwise. */
export function answerUnroutable(allowedMethods: (path: string) => string[]) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const allowed = allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendError(request, reply.header('allow', allowed.join(', ')), 405, 'methodNotAllowed', { method: request.method, url: path, allowed: allowed.join(', ') });
    }
    return sendError(request, reply, 404, 'routeNotFound', { method: request.method, url: path });
  };
}
