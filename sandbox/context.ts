// What every area plugin receives: the store, the engine, the options that shape answers, and the
// fault and variant switches (issue 6) looked up by name in one place.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderKeys, type Casing } from '../lib/casing.ts';
import { API_PREFIX } from '../lib/defaults.ts';
import type { Store, TokenRecord, Company } from './store.ts';
import type { Engine } from './engine.ts';

export interface Auth {
  apiKey?: string;
  token?: TokenRecord;
  company?: Company;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth;
  }
}

export interface SandboxContext {
  store: Store;
  engine: Engine;
  casing: Casing;
  faults: ReadonlySet<string>;
  variants: ReadonlySet<string>;
}

export interface AreaOptions {
  context: SandboxContext;
}

export function hasFault(context: SandboxContext, name: string): boolean {
  return context.faults.has(name);
}

export function hasVariant(context: SandboxContext, name: string): boolean {
  return context.variants.has(name);
}

/** Date-times as ISO 8601 in UTC; the offset-0000 variant writes `+0000` as the guide examples do. */
export function formatTime(context: SandboxContext, time: number | Date): string {
  const text = new Date(time).toISOString();
  return hasVariant(context, 'offset-0000') ? text.replace(/Z$/, '+0000') : text;
}

/** Sends a body written with the spec's PascalCase names in the configured casing. */
export function sendBody(context: SandboxContext, reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  let payload = body;
  if (hasVariant(context, 'extra-fields') && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    payload = { ...body, SandboxExtension: { Note: 'fields the spec does not name, which clients must ignore' } };
  }
  return reply.code(statusCode).send(renderKeys(payload, context.casing));
}

/** Absolute URL of a path under the API prefix, as seen by the caller (its Host header). */
export function apiUrl(request: FastifyRequest, path: string): string {
  return `${request.protocol}://${request.host}${API_PREFIX}${path}`;
}

/** Location header value: absolute by default, relative with the relative-location variant. */
export function locationOf(context: SandboxContext, request: FastifyRequest, path: string): string {
  return hasVariant(context, 'relative-location') ? `${API_PREFIX}${path}` : apiUrl(request, path);
}
