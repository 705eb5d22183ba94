// The client catalog (schemas/client-requirements.json): what the spec asks of an ERP client of
// the API, graded by dxs client-check from the traffic the client sends. The same shape and the
// same bases as the server catalog (schemas/requirements.ts): spec with a verbatim quote,
// hardening (a warning), observe (info). IDs start with CLI- so they never meet the server's.
import { readFileSync } from 'node:fs';
import { REQUIREMENT_BASES, REQUIREMENT_ID_PATTERN, REQUIREMENT_LEVELS, type Requirement, type RequirementBasis, type RequirementLevel } from './requirements.ts';

export const CLIENT_AREAS = ['client-auth', 'client-tokens', 'client-bodies', 'client-references', 'client-pace', 'client-conventions', 'client-flows'] as const;
export type ClientArea = (typeof CLIENT_AREAS)[number];

export const CLIENT_AREA_PREFIXES: Record<ClientArea, string> = {
  'client-auth': 'CLI-AUTH',
  'client-tokens': 'CLI-TOK',
  'client-bodies': 'CLI-BODY',
  'client-references': 'CLI-REF',
  'client-pace': 'CLI-PACE',
  'client-conventions': 'CLI-CNV',
  'client-flows': 'CLI-FLOW',
};

/** A client requirement has the server's shape; only its area differs. */
export type ClientRequirement = Omit<Requirement, 'area'> & { area: ClientArea };

export const CLIENT_REQUIREMENTS_PATH = new URL('./client-requirements.json', import.meta.url).pathname;

let cached: readonly ClientRequirement[] | undefined;

export function loadClientRequirements(): readonly ClientRequirement[] {
  cached ??= JSON.parse(readFileSync(CLIENT_REQUIREMENTS_PATH, 'utf8')) as ClientRequirement[];
  return cached;
}

export function clientRequirementById(id: string): ClientRequirement | undefined {
  return loadClientRequirements().find((requirement) => requirement.id === id);
}

/** The client catalog as server-shaped requirements, for the renderers and the certificate that take those. */
export function clientCatalogAsRequirements(): readonly Requirement[] {
  return loadClientRequirements() as unknown as readonly Requirement[];
}

/** Everything wrong with a client catalog, as messages; empty when it is sound. */
export function clientCatalogProblems(requirements: readonly unknown[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  requirements.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null) {
      problems.push(`entry ${index}: not an object`);
      return;
    }
    const requirement = entry as Partial<Record<keyof ClientRequirement, unknown>>;
    const id = requirement.id;
    const label = typeof id === 'string' ? id : `entry ${index}`;
    if (typeof id !== 'string' || !REQUIREMENT_ID_PATTERN.test(id) || !id.startsWith('CLI-')) problems.push(`${label}: malformed id (CLI-AREA-NN)`);
    else if (seen.has(id)) problems.push(`${label}: duplicate id`);
    else seen.add(id);
    if (!REQUIREMENT_LEVELS.includes(requirement.level as RequirementLevel)) problems.push(`${label}: unknown level ${JSON.stringify(requirement.level)}`);
    const area = requirement.area as ClientArea;
    if (!CLIENT_AREAS.includes(area)) problems.push(`${label}: unknown area ${JSON.stringify(requirement.area)}`);
    else if (typeof id === 'string' && id.replace(/-\d{2}$/, '') !== CLIENT_AREA_PREFIXES[area]) problems.push(`${label}: prefix does not belong to area ${area}`);
    for (const field of ['statement', 'test'] as const) {
      if (typeof requirement[field] !== 'string' || (requirement[field] as string).trim() === '') problems.push(`${label}: empty ${field}`);
    }
    const basis = requirement.basis as RequirementBasis | undefined;
    // A client is graded by the spec, a good practice or an observation; the server's invariants are about servers.
    if (basis === undefined || !REQUIREMENT_BASES.includes(basis) || basis === 'invariant') problems.push(`${label}: basis must be spec, hardening or observe`);
    if (basis === 'spec' && (typeof requirement.quote !== 'string' || requirement.quote.trim() === '')) problems.push(`${label}: basis spec without a quote`);
    if ((basis === 'observe') !== (requirement.level === 'OBSERVE')) problems.push(`${label}: basis observe goes with level OBSERVE and only with it`);
    const endpoints = requirement.endpoints;
    if (!Array.isArray(endpoints) || endpoints.length === 0) problems.push(`${label}: no endpoints`);
    else for (const endpoint of endpoints) {
      if (typeof endpoint !== 'string' || !(endpoint === '*' || /^(GET|POST|PATCH|PUT|DELETE) \/\S*$/.test(endpoint))) problems.push(`${label}: malformed endpoint ${JSON.stringify(endpoint)}`);
    }
  });
  return problems;
}
