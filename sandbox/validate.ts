// Field rules for normalised (PascalCase) request bodies. Every failure is an ApiError with a 4xx
// status, so bad input can never surface as a 5xx.
import { canonicalFieldName, normaliseKeys, toCamel, toPascal } from '../lib/casing.ts';
import { EMAIL as SPEC_EMAIL, extendedDateTimeMs } from '../schemas/formats.ts';
import { badRequest } from './errors.ts';
import { BoundedMap } from './store.ts';

export type Body = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** The request body as an object; an absent body counts as {} so that missing fields get their own message. */
export function objectBody(body: unknown): Body {
  if (body === undefined || body === '') return {};
  if (!isPlainObject(body)) throw badRequest('bodyNotObject');
  return body;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function optionalString(body: Body, name: string, path = name): string | undefined {
  const value = body[name];
  if (!present(value)) return undefined;
  if (typeof value !== 'string') throw badRequest('fieldType', { field: path, type: 'a string' });
  return value;
}

export function requiredString(body: Body, name: string, path = name): string {
  const value = optionalString(body, name, path);
  if (value === undefined || value.trim() === '') throw badRequest('fieldRequired', { field: path });
  return value;
}

export function optionalBoolean(body: Body, name: string, path = name): boolean | undefined {
  const value = body[name];
  if (!present(value)) return undefined;
  if (typeof value !== 'boolean') throw badRequest('fieldType', { field: path, type: 'a boolean' });
  return value;
}

export function optionalObject(body: Body, name: string, path = name): Body | undefined {
  const value = body[name];
  if (!present(value)) return undefined;
  if (!isPlainObject(value)) throw badRequest('fieldType', { field: path, type: 'an object' });
  return value;
}

export function requiredObject(body: Body, name: string, path = name): Body {
  const value = optionalObject(body, name, path);
  if (value === undefined) throw badRequest('fieldRequired', { field: path });
  return value;
}

export function optionalStringArray(body: Body, name: string, path = name): string[] | undefined {
  const value = body[name];
  if (!present(value)) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw badRequest('fieldType', { field: path, type: 'an array of strings' });
  }
  return value as string[];
}

export function optionalInteger(body: Body, name: string, minimum: number, maximum: number, path = name): number | undefined {
  const value = body[name];
  if (!present(value)) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum) {
    throw badRequest('fieldType', { field: path, type: `an integer from ${minimum} to ${maximum}` });
  }
  return value;
}


// Clients send one ValidTo many times over (a k6 VU formats it once a minute, and each VU its
// own), and parsing showed in token create's profile: recent texts are remembered.
const parsedTimes = new BoundedMap<string, number>(256);

/**
 * Parses an ISO 8601 date-time in every extended form the spec export allows (the `+0000` offset the
 * guide shows, +hh, none, a comma before the fraction): what dxs client-check's judge accepts in a
 * request body, the grading sandbox must not refuse.
 */
export function parseDateTime(text: string): Date | undefined {
  let time = parsedTimes.get(text);
  if (time === undefined) {
    time = extendedDateTimeMs(text) ?? NaN;
    if (text.length <= 64) parsedTimes.set(text, time);
  }
  return Number.isNaN(time) ? undefined : new Date(time);
}

export function optionalDateTime(body: Body, name: string, path = name): Date | undefined {
  const text = optionalString(body, name, path);
  if (text === undefined || text === '') return undefined;
  const date = parseDateTime(text);
  if (date === undefined) throw badRequest('dateTimeInvalid', { field: path });
  return date;
}

const EMAIL = /^[^\s@"(),:;<>[\]\\]+@[^\s@"(),:;<>[\]\\]+\.[^\s@"(),:;<>[\]\\]{2,}$/;

/** The sandbox's own form, or the e-mail format of the spec export (a one-letter top-level domain): what dxs client-check's judge accepts, the grading sandbox accepts. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && (EMAIL.test(value) || SPEC_EMAIL.test(value));
}

export function requiredEmail(body: Body, name: string, path = name): string {
  const value = requiredString(body, name, path);
  if (!isEmail(value)) throw badRequest('emailInvalid', { field: path });
  return value;
}

export function optionalEmail(body: Body, name: string, path = name): string | undefined {
  const value = optionalString(body, name, path);
  if (value === undefined) return undefined;
  if (!isEmail(value)) throw badRequest('emailInvalid', { field: path });
  return value;
}

/** The allowed value in its canonical spelling; values are matched regardless of case. */
export function allowedValue(value: string, allowed: readonly string[], path: string): string {
  const found = allowed.find((candidate) => candidate.toLowerCase() === value.toLowerCase());
  if (found === undefined) throw badRequest('fieldEnum', { field: path, value, allowed: allowed.join(', ') });
  return found;
}

/** Query parameters matched regardless of case, as the field names are. */
export function queryValue(query: unknown, name: string): string | undefined {
  if (!isPlainObject(query)) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(query)) {
    if (key.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

export function queryBoolean(query: unknown, name: string): boolean {
  const value = queryValue(query, name);
  if (value === undefined) return false;
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  throw badRequest('queryInvalid', { field: name, detail: 'expected true or false' });
}

/**
 * The names-exact variant: a name the spec knows counts only in its PascalCase or camelCase
 * spelling; any other casing ("ERPID") is kept as sent, so the field reads as absent.
 */
function normaliseExactKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseExactKeys);
  if (!isPlainObject(value)) return value;
  const result: Body = {};
  for (const key of Object.keys(value)) {
    const canonical = canonicalFieldName(key);
    const name = canonical === undefined ? toPascal(key) : key === canonical || key === toCamel(canonical) ? canonical : key;
    if (!(name in result)) result[name] = normaliseExactKeys(value[key]);
  }
  return result;
}

/** The request's JSON body with field names in the spec's spelling, whatever casing the client sent. */
export function bodyOf(request: { body: unknown; variants?: ReadonlySet<string> }): Body {
  let normalised: unknown;
  try {
    normalised = request.variants?.has('names-exact') ? normaliseExactKeys(request.body) : normaliseKeys(request.body);
  } catch (error) {
    // normaliseKeys recurses; a body nested thousands of levels deep overflows the stack.
    if (error instanceof RangeError) throw badRequest('bodyMalformed', { detail: 'nested too deeply' });
    throw error;
  }
  return objectBody(normalised);
}
