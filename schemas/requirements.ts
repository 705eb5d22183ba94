// Typed access to the requirements catalog (schemas/requirements.json): every testable statement
// of the spec, one per entry. Suites name these IDs in their tags; reports group by area and level.
import { readFileSync } from 'node:fs';

export const REQUIREMENT_LEVELS = ['MUST', 'GUIDE', 'SECURITY', 'OBSERVE'] as const;
export type RequirementLevel = (typeof REQUIREMENT_LEVELS)[number];

export const REQUIREMENT_AREAS = [
  'tokens', 'companies', 'network', 'outbound', 'inbound', 'provider-a', 'security', 'conventions', 'observe', 'flows',
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
  flows: ['FLOW'],
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
}

let cached: readonly Requirement[] | undefined;
let byId: Map<string, Requirement> | undefined;

export const REQUIREMENTS_PATH = new URL('./requirements.json', import.meta.url).pathname;

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
    const endpoints = requirement.endpoints;
    if (!Array.isArray(endpoints) || endpoints.length === 0) problems.push(`${label}: no endpoints`);
    else for (const endpoint of endpoints) {
      if (typeof endpoint !== 'string' || !(endpoint === '*' || /^(GET|POST|PATCH|PUT|DELETE) \/\S*$/.test(endpoint))) problems.push(`${label}: malformed endpoint ${JSON.stringify(endpoint)}`);
    }
  });
  return problems;
}
