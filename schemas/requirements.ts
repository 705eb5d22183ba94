// Typed access to the requirements catalog (schemas/requirements.json): every testable statement
// of the spec, one per entry. Suites name these IDs in their tags; reports group by area and level.
import { readFileSync } from 'node:fs';

export const REQUIREMENT_LEVELS = ['MUST', 'GUIDE', 'SECURITY', 'OBSERVE'] as const;
export type RequirementLevel = (typeof REQUIREMENT_LEVELS)[number];

export const REQUIREMENT_AREAS = [
  'tokens', 'companies', 'network', 'outbound', 'inbound', 'provider-a', 'security', 'conventions', 'observe', 'flows', 'access',
] as const;
export type RequirementArea = (typeof REQUIREMENT_AREAS)[number];

/** The ID prefixes each area may use (the part before the number). */
export const AREA_PREFIXES: Record<RequirementArea, readonly string[]> = {
  tokens: ['TOK'],
  companies: ['CMP-REG', 'CMP-SVC', 'CMP-STA', 'CMP-DET', 'CMP-USR', 'CMP-IDN', 'CMP-DEL'],
  network: ['NET-LKP', 'NET-SET'],
  outbound: ['OUT-UPL', 'OUT-SEND', 'OUT-STA', 'OUT-DL', 'OUT-LIST'],
  inbound: ['INB'],
  'provider-a': ['PRA'],
  security: ['SEC'],
  conventions: ['CNV'],
  observe: ['OBS'],
  flows: ['FLOW', 'XCH'],
  access: ['ACC'],
};

/**
 * What a requirement rests on, which decides how its failure counts (issue 21):
 * - spec: a sentence of the spec, quoted verbatim in `quote`; a failure fails the run.
 * - invariant: a rule no correct HTTP API breaks whatever the spec leaves open (INVARIANTS below),
 *   named in `rationale`; a failure fails the run.
 * - hardening: a good practice the spec does not ask for; a warning, a failure only with --strict.
 * - observe: the spec says "not shown"; the target's answer is recorded as info.
 */
export const REQUIREMENT_BASES = ['spec', 'invariant', 'hardening', 'observe'] as const;
export type RequirementBasis = (typeof REQUIREMENT_BASES)[number];

/**
 * The invariants a requirement may rest on without a sentence of the spec. The list is short on
 * purpose: each must hold for every implementation, whatever it chose where the spec is silent.
 */
export const INVARIANTS: Record<string, string> = {
  'no-server-error': 'No 5xx and no hang for client input: a 5xx says the server broke, and the client cannot fix what it sent.',
  'no-secret-echoed': 'No secret (API key, client token) is echoed in an answer: whoever sees the answer, a log or a proxy, would hold the credential.',
  'credentials-required': 'Where the spec names the scheme of a call, the call needs that credential: otherwise the scheme protects nothing.',
  'company-isolation': "One company never reads or changes another company's documents, inbox or provider A record: the ClientToken identifies the company, so acting for another is acting without its credential.",
};

export const REQUIREMENT_ID_PATTERN = /^[A-Z]{2,4}(-[A-Z]{2,4})?-\d{2}$/;

export interface Requirement {
  id: string;
  level: RequirementLevel;
  area: RequirementArea;
  /** "METHOD /path" relative to the base URL, or "*" for every endpoint. */
  endpoints: string[];
  statement: string;
  /** How a black-box test checks the statement. */
  test: string;
  basis?: RequirementBasis;
  /** With basis spec: a passage of the spec, verbatim (whitespace aside). */
  quote?: string;
  /** With basis invariant: which of INVARIANTS, and why it applies here, in one line. */
  rationale?: string;
  /** With basis invariant: the key of INVARIANTS it rests on. */
  invariant?: string;
}

let cached: readonly Requirement[] | undefined;
let byId: Map<string, Requirement> | undefined;

export const REQUIREMENTS_PATH = new URL('./requirements.json', import.meta.url).pathname;

/** The spec every `quote` is taken from: the project's own copy (spec/), so a package or a clone carries it; DXS_SPEC for another. */
export const SPEC_PATH = process.env.DXS_SPEC ?? new URL('../spec/document-exchange-api.md', import.meta.url).pathname;

export function loadRequirements(): readonly Requirement[] {
  cached ??= JSON.parse(readFileSync(REQUIREMENTS_PATH, 'utf8')) as Requirement[];
  return cached;
}

export function requirementById(id: string): Requirement | undefined {
  byId ??= new Map(loadRequirements().map((requirement) => [requirement.id, requirement]));
  return byId.get(id);
}

/** The prefix of an ID without its number: "CMP-REG-03" -> "CMP-REG". */
export function requirementPrefix(id: string): string {
  return id.replace(/-\d{2}$/, '');
}

export function filterRequirements(filter: { level?: string; area?: string; endpoint?: string } = {}): Requirement[] {
  return loadRequirements().filter(
    (requirement) =>
      (filter.level === undefined || requirement.level === filter.level.toUpperCase()) &&
      (filter.area === undefined || requirement.area === filter.area.toLowerCase()) &&
      (filter.endpoint === undefined || requirement.endpoints.includes(filter.endpoint) || requirement.endpoints.includes('*')),
  );
}

/** Everything wrong with a catalog, as messages; empty when it is sound. */
export function catalogProblems(requirements: readonly unknown[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  requirements.forEach((entry, index) => {
    const where = `entry ${index}`;
    if (typeof entry !== 'object' || entry === null) {
      problems.push(`${where}: not an object`);
      return;
    }
    const requirement = entry as Partial<Record<keyof Requirement, unknown>>;
    const id = requirement.id;
    if (typeof id !== 'string' || !REQUIREMENT_ID_PATTERN.test(id)) problems.push(`${where}: malformed id ${JSON.stringify(id)}`);
    else if (seen.has(id)) problems.push(`${where}: duplicate id ${id}`);
    else seen.add(id);
    const label = typeof id === 'string' ? id : where;
    if (!REQUIREMENT_LEVELS.includes(requirement.level as RequirementLevel)) problems.push(`${label}: unknown level ${JSON.stringify(requirement.level)}`);
    const area = requirement.area as RequirementArea;
    if (!REQUIREMENT_AREAS.includes(area)) problems.push(`${label}: unknown area ${JSON.stringify(requirement.area)}`);
    else if (typeof id === 'string' && !AREA_PREFIXES[area].includes(requirementPrefix(id))) problems.push(`${label}: prefix does not belong to area ${area}`);
    for (const field of ['statement', 'test'] as const) {
      const value = requirement[field];
      if (typeof value !== 'string' || value.trim() === '') problems.push(`${label}: empty ${field}`);
    }
    problems.push(...basisProblems(label, requirement));
    const endpoints = requirement.endpoints;
    if (!Array.isArray(endpoints) || endpoints.length === 0) problems.push(`${label}: no endpoints`);
    else for (const endpoint of endpoints) {
      if (typeof endpoint !== 'string' || !(endpoint === '*' || /^(GET|POST|PATCH|PUT|DELETE) \/\S*$/.test(endpoint))) problems.push(`${label}: malformed endpoint ${JSON.stringify(endpoint)}`);
    }
  });
  return problems;
}

function basisProblems(label: string, requirement: Partial<Record<keyof Requirement, unknown>>): string[] {
  const { basis, quote, rationale, invariant } = requirement;
  if (basis === undefined) return [];
  if (!REQUIREMENT_BASES.includes(basis as RequirementBasis)) return [`${label}: unknown basis ${JSON.stringify(basis)}`];
  const problems: string[] = [];
  if (basis === 'spec' && (typeof quote !== 'string' || quote.trim() === '')) problems.push(`${label}: basis spec without a quote`);
  if (basis === 'invariant') {
    if (typeof invariant !== 'string' || !(invariant in INVARIANTS)) problems.push(`${label}: basis invariant names no known invariant (${Object.keys(INVARIANTS).join(', ')})`);
    if (typeof rationale !== 'string' || rationale.trim() === '') problems.push(`${label}: basis invariant without a rationale`);
  }
  if (requirement.level === 'OBSERVE' && basis !== 'observe') problems.push(`${label}: an OBSERVE requirement rests on basis observe`);
  if (basis === 'observe' && requirement.level !== 'OBSERVE') problems.push(`${label}: basis observe goes with level OBSERVE`);
  return problems;
}

/** Whitespace-normalised form, so a quote matches across the spec's line breaks and table padding. */
export function normaliseSpecText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The requirements whose spec quote does not occur in the spec text. */
export function quotesNotInSpec(requirements: readonly Requirement[], specText: string): Requirement[] {
  const spec = normaliseSpecText(specText);
  return requirements.filter((requirement) => requirement.basis === 'spec' && !spec.includes(normaliseSpecText(requirement.quote ?? '')));
}

/**
 * How a failed check of this requirement counts: observe -> info, hardening and GUIDE -> warning
 * (a failure with strict), spec and invariant -> failure. A requirement not yet graded counts by its level.
 */
export function failureSeverity(requirement: Pick<Requirement, 'level' | 'basis'> | undefined, strict: boolean): 'failure' | 'warning' | 'info' {
  if (requirement === undefined) return 'failure';
  if (requirement.basis === 'observe' || requirement.level === 'OBSERVE') return 'info';
  if (requirement.basis === 'hardening') return strict ? 'failure' : 'warning';
  if (requirement.level === 'GUIDE') return 'warning';
  return 'failure';
}

/** The line a failure message gives its ground with, so a reader can judge it against the spec at a glance. */
export function describeBasis(requirement: Requirement | undefined): string | undefined {
  switch (requirement?.basis) {
    case 'spec':
      return `Basis: the spec says "${requirement.quote}"`;
    case 'invariant':
      return `Basis: invariant ${requirement.invariant} (${INVARIANTS[requirement.invariant ?? ''] ?? '?'}): ${requirement.rationale}`;
    case 'hardening':
      return 'Basis: hardening, a good practice the spec does not require (fails only with --strict)';
    default:
      return undefined;
  }
}
