// Field-name casing, shared by the sandbox, the schemas, the suites and the k6 scripts.
// The reference names properties in PascalCase, the guide examples answer in camelCase,
// and whether the service matches names regardless of case is "not shown". So every
// consumer reads bodies through this one normaliser, which maps any casing of a known
// field name onto the spec's own spelling.
//
// Pure module: no Node APIs, explicit .ts imports, so k6 can load it as it is.

import { SPEC_FIELD_NAMES } from './field-names.ts';

export type Casing = 'pascal' | 'camel';

// Responses are rendered on every request (the sandbox's hot path), over a small set of names.
const camelCache = new Map<string, string>();
const NAME_CACHE_LIMIT = 4096;

/** camelCase the way System.Text.Json does it: a leading run of capitals is lowered ("GLN" -> "gln", "ErpId" -> "erpId"). */
export function toCamel(name: string): string {
  const cached = camelCache.get(name);
  if (cached !== undefined) return cached;
  const camel = computeCamel(name);
  if (camelCache.size < NAME_CACHE_LIMIT) camelCache.set(name, camel);
  return camel;
}

function computeCamel(name: string): string {
  if (name.length === 0 || !/[A-Z]/.test(name[0])) return name;
  const chars = name.split('');
  for (let index = 0; index < chars.length; index++) {
    const isUpper = chars[index] >= 'A' && chars[index] <= 'Z';
    if (!isUpper) break;
    const nextIsLower = index + 1 < chars.length && chars[index + 1] >= 'a' && chars[index + 1] <= 'z';
    // "URLValue" -> "urlValue": the capital that starts the next word stays.
    if (index > 0 && nextIsLower) break;
    chars[index] = chars[index].toLowerCase();
  }
  return chars.join('');
}

// Every request body is read through toPascal, key by key; most names recur.
const pascalCache = new Map<string, string>();

export function toPascal(name: string): string {
  const cached = pascalCache.get(name);
  if (cached !== undefined) return cached;
  const canonical = canonicalFieldName(name);
  const pascal = canonical ?? (name.length === 0 ? name : name[0].toUpperCase() + name.slice(1));
  if (pascalCache.size < NAME_CACHE_LIMIT) pascalCache.set(name, pascal);
  return pascal;
}

const canonicalByLowerCase: Map<string, string> = new Map(SPEC_FIELD_NAMES.map((name) => [name.toLowerCase(), name]));

/** The spec's own spelling of a field name given in any casing, or undefined when the spec does not name it. */
export function canonicalFieldName(name: string): string | undefined {
  return canonicalByLowerCase.get(name.toLowerCase());
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The loops below index Object.keys instead of destructuring Object.entries in a for-of: k6's
// interpreter makes an entry array and an iterator result per key, and a sampled response's schema
// check spent most of its normalising there.

/**
 * Returns a deep copy whose keys are in the spec's spelling (PascalCase, and the provider A
 * record's names PascalCased too). Unknown keys are PascalCased so that schemas see one form.
 * When two keys collapse onto one name, the first one seen wins.
 */
export function normaliseKeys<T = unknown>(value: unknown): T {
  if (Array.isArray(value)) return value.map((item) => normaliseKeys(item)) as T;
  if (!isPlainObject(value)) return value as T;
  const result: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const name = toPascal(keys[index]);
    if (!(name in result)) result[name] = normaliseKeys(value[keys[index]]);
  }
  return result as T;
}

/** Renders a PascalCase body in the given casing (used by the sandbox to answer). */
export function renderKeys<T = unknown>(value: unknown, casing: Casing): T {
  if (Array.isArray(value)) return value.map((item) => renderKeys(item, casing)) as T;
  if (!isPlainObject(value)) return value as T;
  const result: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    result[casing === 'camel' ? toCamel(key) : toPascal(key)] = renderKeys(value[key], casing);
  }
  return result as T;
}

export interface CasingViolation {
  path: string;
  key: string;
  expected: string;
}

/**
 * Keys that are not written in the required casing, for the strict mode of the contract checks.
 * "mixed" accepts either form per key; keys the spec does not name are not judged.
 */
export function casingViolations(value: unknown, casing: Casing | 'mixed', path = '$'): CasingViolation[] {
  const violations: CasingViolation[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => violations.push(...casingViolations(item, casing, `${path}[${index}]`)));
    return violations;
  }
  if (!isPlainObject(value)) return violations;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    const inner = value[key];
    const canonical = canonicalFieldName(key);
    if (canonical !== undefined) {
      const pascal = canonical;
      const camel = toCamel(canonical);
      const accepted = casing === 'pascal' ? [pascal] : casing === 'camel' ? [camel] : [pascal, camel];
      if (!accepted.includes(key)) violations.push({ path: `${path}.${key}`, key, expected: accepted.join(' or ') });
    }
    violations.push(...casingViolations(inner, casing, `${path}.${key}`));
  }
  return violations;
}

/** Reads one field in any casing from a raw (not normalised) object. */
export function readField(value: unknown, name: string): unknown {
  if (!isPlainObject(value)) return undefined;
  const wanted = name.toLowerCase();
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    if (keys[index].toLowerCase() === wanted) return value[keys[index]];
  }
  return undefined;
}
