// What every area plugin receives: the store, the engine, the options that shape answers, and the
// fault and variant switches (issue 6) looked up by name in one place.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderKeys, toCamel, toPascal, type Casing } from '../lib/casing.ts';
import { API_PREFIX } from '../lib/defaults.ts';
import { BoundedMap, type Store, type TokenRecord, type Company } from './store.ts';
import type { Engine } from './engine.ts';

export interface Auth {
  apiKey?: string;
  token?: TokenRecord;
  company?: Company;
  /** Fault refused-with-effect: the call is carried out, then answered 401 as a refusal. */
  refuseAfterEffect?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth;
    /** The sandbox's variants, for code that sees only the request. */
    readonly variants: ReadonlySet<string>;
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
  const value = typeof time === 'number' ? time : time.getTime();
  // Token answers repeat the ValidTo they were sent, so recent texts are remembered per context.
  let texts = formattedTimes.get(context);
  if (texts === undefined) formattedTimes.set(context, (texts = new BoundedMap(FORMATTED_TIMES_LIMIT)));
  let text = texts.get(value);
  if (text === undefined) {
    let iso = new Date(value).toISOString();
    if (hasVariant(context, 'time-seconds')) iso = iso.replace(/\.\d+Z$/, 'Z');
    text = hasVariant(context, 'offset-colon') ? iso.replace(/Z$/, '+00:00') : hasVariant(context, 'offset-0000') ? iso.replace(/Z$/, '+0000') : iso;
    texts.set(value, text);
  }
  return text;
}

const formattedTimes = new WeakMap<SandboxContext, BoundedMap<number, string>>();
const FORMATTED_TIMES_LIMIT = 256;

// `"name":` per casing and PascalCase key, so that a body is written in one pass without the
// renamed copy that renderKeys makes (this runs on every answer with a body).
// Two keys that render to one name (say "Gln" and "GLN") are left to renderKeys, which keeps one.
const quotedKeys: Record<Casing, Map<string, string>> = { camel: new Map(), pascal: new Map() };
const sourceKeys: Record<Casing, Map<string, string>> = { camel: new Map(), pascal: new Map() };
const ambiguous: Record<Casing, Set<string>> = { camel: new Set(), pascal: new Set() };
const QUOTED_KEYS_LIMIT = 4096;

function quotedKey(key: string, casing: Casing): string {
  const keys = quotedKeys[casing];
  let quoted = keys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(casing === 'camel' ? toCamel(key) : toPascal(key))}:`;
    const source = sourceKeys[casing].get(quoted);
    if (source !== undefined && source !== key) ambiguous[casing].add(quoted);
    if (keys.size < QUOTED_KEYS_LIMIT) {
      keys.set(key, quoted);
      if (source === undefined) sourceKeys[casing].set(quoted, key);
    } else {
      // Past the cache limit a collision can no longer be told apart: treat the name as shared.
      ambiguous[casing].add(quoted);
    }
  }
  return quoted;
}

function isPlainRecord(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * JSON.stringify(renderKeys(value, casing)) for the JSON types answers are built from (strings,
 * finite numbers, booleans, null, arrays and plain objects); anything else takes that very path.
 */
export function renderJson(value: unknown, casing: Casing): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'object':
      break;
    default:
      return JSON.stringify(renderKeys(value, casing));
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (index > 0) text += ',';
      text += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : renderJson(item, casing);
    }
    return `${text}]`;
  }
  if (!isPlainRecord(value)) return JSON.stringify(renderKeys(value, casing));
  let text = '{';
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const inner = value[key];
    if (key === 'toJSON') return JSON.stringify(renderKeys(value, casing));
    if (inner === undefined || typeof inner === 'function' || typeof inner === 'symbol') continue;
    const quoted = quotedKey(key, casing);
    if (ambiguous[casing].has(quoted)) return JSON.stringify(renderKeys(value, casing));
    if (text.length > 1) text += ',';
    text += quoted + renderJson(inner, casing);
  }
  return `${text}}`;
}

/** Sends a body written with the spec's PascalCase names in the configured casing. */
export function sendBody(context: SandboxContext, reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  let payload = body;
  if (hasVariant(context, 'extra-fields') && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    payload = { ...body, SandboxExtension: { Note: 'fields the spec does not name, which clients must ignore' } };
  }
  if (typeof payload !== 'object' || payload === null || reply.hasHeader('content-type')) return reply.code(statusCode).send(renderKeys(payload, context.casing));
  return reply.code(statusCode).header('content-type', 'application/json; charset=utf-8').send(renderJson(payload, context.casing));
}

/** Absolute URL of a path under the API prefix, as seen by the caller (its Host header). */
export function apiUrl(request: FastifyRequest, path: string): string {
  // urls-without-port: behind a proxy that passes Host without its port, the absolute URLs a
  // deployment builds from it name a port nobody listens on (issue 57).
  const host = request.variants.has('urls-without-port') ? request.hostname : request.host;
  return `${request.protocol}://${host}${API_PREFIX}${path}`;
}

/** Location header value: absolute by default, relative with the relative-location variant. */
export function locationOf(context: SandboxContext, request: FastifyRequest, path: string): string {
  return hasVariant(context, 'relative-location') ? `${API_PREFIX}${path}` : apiUrl(request, path);
}
