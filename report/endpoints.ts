// Maps a concrete call ("GET /companies/details/7f0c...") onto the endpoint template the catalog
// names ("GET /companies/details/{CompanyId}"), for the endpoint coverage of the report.
import { loadRequirements } from '../schemas/requirements.ts';

interface Template {
  endpoint: string;
  method: string;
  pattern: RegExp;
  parameters: number;
}

let templates: Template[] | undefined;

function compile(endpoints: Iterable<string>): Template[] {
  const compiled: Template[] = [];
  for (const endpoint of new Set(endpoints)) {
    if (endpoint === '*') continue;
    const [method, path] = endpoint.split(' ');
    const parameters = (path.match(/\{[^}]+\}/g) ?? []).length;
    const source = path
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    // Paths are matched regardless of case: the guide writes /clientTokens/create.
    compiled.push({ endpoint, method, pattern: new RegExp(`^${source}/?$`, 'i'), parameters });
  }
  // Literal paths before templated ones: GET /documents/incoming is not GET /documents/{id}.
  return compiled.sort((a, b) => a.parameters - b.parameters);
}

/** The catalog's endpoints, plus any the caller knows of. */
export function catalogEndpoints(): string[] {
  try {
    return [...new Set(loadRequirements().flatMap((requirement) => requirement.endpoints))].filter((endpoint) => endpoint !== '*').sort();
  } catch {
    return [];
  }
}

export function endpointOf(method: string, path: string): string {
  templates ??= compile(catalogEndpoints());
  const upper = method.toUpperCase();
  const bare = path.split('?')[0];
  const match = templates.find((template) => template.method === upper && template.pattern.test(bare));
  if (match !== undefined) return match.endpoint;
  // Not in the catalog (a probe of an unknown path, say): ids are folded so the coverage stays short.
  return `${upper} ${bare.replace(/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '/{id}')}`;
}
