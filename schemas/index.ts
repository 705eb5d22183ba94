// The JSON Schemas of every body, compiled once (lazily) with ajv and ajv-formats. Consumers pass
// normaliseKeys(body), so one PascalCase schema serves both casings; validateRaw adds the option to
// require one casing strictly. The k6 scripts use the standalone build of the same schemas
// (generated/k6/validators.js, see scripts/build/10-validators.ts).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Ajv2020, AnySchemaObject } from 'ajv/dist/2020.js';
import { casingViolations, normaliseKeys, type Casing } from '../lib/casing.ts';
import { DXS_FORMATS } from './formats.ts';
import { describeErrors } from './describe-errors.ts';

export const SCHEMA_DIRECTORY = new URL('./bodies/', import.meta.url).pathname;
export const SCHEMA_ID_BASE = 'https://dxs.invalid/schemas/';
const SUFFIX = '.schema.json';
/** Holds only shared $defs; it has no body of its own to validate. */
export const COMMON_SCHEMA = 'common';

export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

let documents: Map<string, AnySchemaObject> | undefined;

/** Every schema document by name ("client-token.response"), the shared definitions included. */
export function schemaDocuments(): Map<string, AnySchemaObject> {
  if (documents === undefined) {
    documents = new Map();
    for (const file of readdirSync(SCHEMA_DIRECTORY).filter((name) => name.endsWith(SUFFIX)).sort()) {
      documents.set(file.slice(0, -SUFFIX.length), JSON.parse(readFileSync(SCHEMA_DIRECTORY + file, 'utf8')) as AnySchemaObject);
    }
  }
  return documents;
}

/** A digest of everything the validators are made of, so a stale k6 bundle can be told from a current one. */
export function schemasDigest(): string {
  const hash = createHash('sha256');
  for (const [name, schema] of schemaDocuments()) hash.update(`${name}\n${JSON.stringify(schema)}\n`);
  for (const module of ['formats.ts', 'describe-errors.ts']) hash.update(readFileSync(new URL(`./${module}`, import.meta.url)));
  return hash.digest('hex').slice(0, 16);
}

/** Names a body can be validated against. */
export function schemaNames(): string[] {
  return [...schemaDocuments().keys()].filter((name) => name !== COMMON_SCHEMA);
}

export function schemaId(name: string): string {
  return `${SCHEMA_ID_BASE}${name}${SUFFIX}`;
}

let titles: Map<string, string> | undefined;

/**
 * A schema's name, given its name or its title ("ClientToken" -> "client-token.response"). The
 * titles are the OpenAPI component names, and the k6 scripts address bodies by them.
 */
export function resolveSchemaName(nameOrTitle: string): string | undefined {
  if (titles === undefined) {
    titles = new Map();
    for (const [name, schema] of schemaDocuments()) if (typeof schema.title === 'string' && name !== COMMON_SCHEMA) titles.set(schema.title, name);
  }
  if (nameOrTitle !== COMMON_SCHEMA && schemaDocuments().has(nameOrTitle)) return nameOrTitle;
  return titles.get(nameOrTitle);
}

// Loaded when first needed: a process that validates with the precompiled validators (below) never
// loads ajv, about 0.2 s of CPU, nor compiles a schema, 10 to 15 ms each.
const requireAjv = (): typeof import('ajv/dist/2020.js') => createRequire(import.meta.url)('ajv/dist/2020.js');

/** A fresh ajv holding every schema; the build step passes code options for the standalone output. */
export function createAjv(options: ConstructorParameters<typeof Ajv2020>[0] = {}): Ajv2020 {
  const ajv = new (requireAjv().Ajv2020)({ allErrors: true, strict: true, strictRequired: false, formats: DXS_FORMATS, ...options });
  for (const schema of schemaDocuments().values()) ajv.addSchema(schema);
  return ajv;
}

let shared: Ajv2020 | undefined;

type Validate = (schemaName: string, body: unknown) => ValidationResult;
let precompiled: Validate | undefined;

/** The standalone build of these schemas (scripts/build/10-validators.ts), which the k6 scripts load too. */
export const PRECOMPILED_VALIDATORS_PATH = fileURLToPath(new URL('../generated/k6/validators.js', import.meta.url));

/**
 * Validates with the standalone build from here on, when it was built from the schemas as they
 * are now (the same schemas and formats compiled ahead of time, the same results: see
 * validators-bundle.test.ts); otherwise with ajv, as before. Each Playwright worker calls it once
 * (issue 42: ajv's load and compiles were about 0.5 s of a worker's start on a run of 16).
 */
export async function usePrecompiledValidators(path: string = PRECOMPILED_VALIDATORS_PATH): Promise<boolean> {
  if (precompiled !== undefined) return true;
  if (!existsSync(path)) return false;
  try {
    const bundle = (await import(pathToFileURL(path).href)) as { schemasDigest?: unknown; validate?: Validate };
    if (bundle.schemasDigest !== schemasDigest() || typeof bundle.validate !== 'function') return false;
    precompiled = bundle.validate;
    return true;
  } catch {
    // A bundle that cannot be loaded (a partial build): ajv validates, as before.
    return false;
  }
}

export function validate(schemaName: string, body: unknown): ValidationResult {
  if (precompiled !== undefined) return precompiled(schemaName, body);
  shared ??= createAjv();
  const name = resolveSchemaName(schemaName);
  const validator = name === undefined ? undefined : shared.getSchema(schemaId(name));
  if (validator === undefined) return { valid: false, errors: [`unknown schema ${schemaName}`] };
  const valid = validator(body) as boolean;
  return { valid, errors: valid ? [] : describeErrors(validator.errors) };
}

export interface RawValidationOptions {
  /** Require this casing of the spec's field names; left out, either casing passes. */
  casing?: Casing | 'mixed';
}

/** Validates a body as received: names normalised first, then, when asked, judged for casing. */
export function validateRaw(schemaName: string, rawBody: unknown, options: RawValidationOptions = {}): ValidationResult {
  const result = validate(schemaName, normaliseKeys(rawBody));
  if (options.casing === undefined) return result;
  const casing = casingViolations(rawBody, options.casing).map((violation) => `${violation.path} should be written ${violation.expected}`);
  return { valid: result.valid && casing.length === 0, errors: [...result.errors, ...casing] };
}
