// Sandbox configuration: defaults plus an optional JSON file. Everything that the spec leaves to
// "a set agreed beforehand with the operator" or to manual support lives here, so a test or an
// integrator can change it without touching code.
import { readFileSync } from 'node:fs';
import { SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../lib/defaults.ts';
import { MAX_TOKEN_SLOTS } from './token-table.ts';

export interface ApiKeyConfig {
  key: string;
  roles: string[];
}

export interface SandboxConfig {
  apiKeys: ApiKeyConfig[];
  /** When false, POST /companies/delete answers 501. */
  deletesEnabled: boolean;
  /** Identifier types accepted by POST /companies/identifiers. */
  identifierTypes: string[];
  /** When false, POST /companies/identifiers answers 400 "not allowed". */
  identifiersEnabled: boolean;
  /** Number of seeded parties in the lookup directory. */
  directorySize: number;
  /** Cap on stored document bytes (uploads); oldest are evicted first. */
  storageCapBytes: number;
  /** Cap on stored tokens (at most 2^24); oldest are forgotten first. */
  maxTokens: number;
  /** Cap on stored companies (and users, delete requests); oldest are forgotten first. */
  maxCompanies: number;
  /** Cap on stored outbound and inbound documents (metadata); oldest are forgotten first. */
  maxDocuments: number;
  /** OrgNos whose companies have provider B activated (the spec activates it through support). */
  providerBOrgNos: string[];
  /** User names that exist but are locked out (POST /companies/users answers 409). */
  lockedOutUserNames: string[];
  /** User names that exist but are not approved (409). */
  notApprovedUserNames: string[];
  /** SSNs reported as registered with provider A besides those matched by the rule. */
  registeredSsns: string[];
}

export function defaultConfig(): SandboxConfig {
  return {
    apiKeys: [
      { key: SANDBOX_API_KEY, roles: ['DeleteRegistration'] },
      { key: SANDBOX_API_KEY_WITHOUT_DELETE, roles: [] },
    ],
    deletesEnabled: true,
    identifierTypes: ['GLN', 'OrgNo', 'VatNo', 'PeppolParticipantIdentifier'],
    identifiersEnabled: true,
    directorySize: 1000,
    storageCapBytes: 256 * 1024 * 1024,
    maxTokens: 200_000,
    maxCompanies: 100_000,
    maxDocuments: 100_000,
    providerBOrgNos: [],
    lockedOutUserNames: ['lockeduser'],
    notApprovedUserNames: ['unapproveduser'],
    registeredSsns: [],
  };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

const CHECKS: Record<keyof SandboxConfig, (value: unknown) => boolean> = {
  apiKeys: (value) =>
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === 'object' && item !== null && typeof item.key === 'string' && item.key.length > 0 && isStringArray(item.roles ?? [])),
  deletesEnabled: (value) => typeof value === 'boolean',
  identifierTypes: (value) => isStringArray(value) && value.length > 0,
  identifiersEnabled: (value) => typeof value === 'boolean',
  directorySize: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 1_000_000,
  storageCapBytes: (value) => Number.isInteger(value) && (value as number) > 0,
  maxTokens: (value) => Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_TOKEN_SLOTS,
  maxCompanies: (value) => Number.isInteger(value) && (value as number) > 0,
  maxDocuments: (value) => Number.isInteger(value) && (value as number) > 0,
  providerBOrgNos: isStringArray,
  lockedOutUserNames: isStringArray,
  notApprovedUserNames: isStringArray,
  registeredSsns: isStringArray,
};

/** Merges a partial configuration over the defaults; throws with a clear message on any bad key or value. */
export function resolveConfig(partial: unknown, source = 'configuration'): SandboxConfig {
  const config = defaultConfig();
  if (partial === undefined) return config;
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) throw new Error(`${source}: expected a JSON object`);
  for (const [key, value] of Object.entries(partial)) {
    if (!(key in CHECKS)) throw new Error(`${source}: unknown key "${key}" (known: ${Object.keys(CHECKS).join(', ')})`);
    const name = key as keyof SandboxConfig;
    if (!CHECKS[name](value)) throw new Error(`${source}: invalid value for "${key}"`);
    (config as unknown as Record<string, unknown>)[name] = name === 'apiKeys'
      ? (value as ApiKeyConfig[]).map((item) => ({ key: item.key, roles: item.roles ?? [] }))
      : value;
  }
  return config;
}

export function loadConfigFile(path: string): SandboxConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return resolveConfig(parsed, `config file ${path}`);
}
