// traffic.har of dxs fuzz (issue 43): Schemathesis writes the HAR of its calls (--report har) in the
// run's private folder, with the key and the tokens in it; what reaches the report is that HAR with
// every secret header redacted by its name and every known secret by its value, and each entry
// naming, in `_dxs` as dxs test's do, the operation it exercised.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { SecretRegistry } from '../../../lib/redact.ts';
import { endpointOf } from '../../../report/endpoints.ts';

interface NameValue {
  name: string;
  value: string;
}

interface RawEntry {
  request?: { method?: string; url?: string; headers?: NameValue[] };
  response?: { headers?: NameValue[]; content?: { text?: string } };
  [field: string]: unknown;
}

function redactHeaders(headers: NameValue[] | undefined, registry: SecretRegistry): NameValue[] | undefined {
  if (headers === undefined) return undefined;
  return headers.map(({ name, value }) => ({ name, value: registry.redactHeaders({ [name]: value })[name] ?? '' }));
}

/** Rewrites Schemathesis's HAR into the report; false when it wrote none. */
export function writeFuzzHar(raw: string, destination: string, baseUrl: string, version: string, registry: SecretRegistry): boolean {
  if (!existsSync(raw)) return false;
  const har = JSON.parse(readFileSync(raw, 'utf8')) as { log?: { entries?: RawEntry[]; creator?: unknown; comment?: string } };
  const base = new URL(baseUrl).pathname.replace(/\/+$/, '');
  // The tokens Schemathesis was handed: learnt from the answers first, so that the last pass replaces them everywhere.
  for (const entry of har.log?.entries ?? []) {
    const text = entry.response?.content?.text;
    if (text === undefined || !/^\s*[[{]/.test(text)) continue;
    try {
      registry.addTokensIn(JSON.parse(text));
    } catch {
      // Not JSON after all: nothing to learn from it.
    }
  }
  const entries = (har.log?.entries ?? []).map((entry) => {
    const method = entry.request?.method ?? 'GET';
    let path = '';
    try {
      path = new URL(entry.request?.url ?? '').pathname;
    } catch {
      // An entry without a URL stays as it is, under no endpoint.
    }
    const endpoint = endpointOf(method, path.startsWith(base) ? path.slice(base.length) : path);
    return {
      ...entry,
      request: { ...entry.request, headers: redactHeaders(entry.request?.headers, registry) },
      response: { ...entry.response, headers: redactHeaders(entry.response?.headers, registry) },
      _dxs: { test: `dxs fuzz: ${endpoint}`, requirements: [], endpoint },
    };
  });
  const log = { ...har.log, creator: { name: 'dxs fuzz (Schemathesis)', version }, comment: 'dxs fuzz: every call Schemathesis made; keys and tokens are [REDACTED]', entries };
  writeFileSync(destination, `${registry.redactText(JSON.stringify({ ...har, log }, null, 1))}\n`);
  return true;
}

/**
 * The answers of the report's HAR that took longer than limitMs (Schemathesis's `time`: until the
 * headers came), slowest first, one line each. The spec gives no response time, so they are warnings.
 */
export function slowAnswers(har: string, limitMs: number): string[] {
  if (!existsSync(har)) return [];
  const entries = ((JSON.parse(readFileSync(har, 'utf8')) as { log?: { entries?: Array<{ time?: number; _dxs?: { endpoint?: string } }> } }).log?.entries ?? []);
  return entries
    .filter((entry) => typeof entry.time === 'number' && entry.time > limitMs)
    .sort((a, b) => (b.time as number) - (a.time as number))
    .map((entry) => `${entry._dxs?.endpoint ?? 'a call'} answered in ${((entry.time as number) / 1000).toFixed(1)} s, over ${limitMs / 1000} s (the spec gives no response time: not a failure)`);
}
