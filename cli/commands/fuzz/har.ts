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

/** A call as the report's HAR holds it: Schemathesis's `time` and the operation dxs named. */
export interface FuzzHarEntry {
  time?: unknown;
  _dxs: { endpoint: string };
}

/** Rewrites Schemathesis's HAR into the report; returns its entries, none when it wrote no HAR. */
export function writeFuzzHar(raw: string, destination: string, baseUrl: string, version: string, registry: SecretRegistry): FuzzHarEntry[] {
  if (!existsSync(raw)) return [];
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
  return entries;
}

/**
 * The calls of the report's HAR (writeFuzzHar's entries) answered later than limitMs (Schemathesis's
 * `time`: until the headers came), slowest first, one line each. The spec gives no response time, so
 * they are warnings.
 */
export function slowAnswers(entries: readonly FuzzHarEntry[], limitMs: number): string[] {
  return entries
    .flatMap((entry) => (typeof entry.time === 'number' && entry.time > limitMs ? [{ time: entry.time, endpoint: entry._dxs.endpoint }] : []))
    .sort((a, b) => b.time - a.time)
    .map(({ time, endpoint }) => `${endpoint} answered in ${(time / 1000).toFixed(1)} s, over ${limitMs / 1000} s (the spec gives no response time: not a failure)`);
}

/**
 * Schemathesis's output without its lines naming the run's private folder (its list of reports names
 * the raw HAR there): the folder is deleted when the run ends, so such a path would lead nowhere.
 * dxs fuzz prints the report's copy instead, once it is written. Whole lines only: `pending` holds
 * what came after the last line break until the rest of the line comes.
 */
export function privateLinesDropped(folder: string): { take(text: string): string; end(): string } {
  let pending = '';
  const keep = (lines: string[]): string => lines.filter((line) => !line.includes(folder)).map((line) => `${line}\n`).join('');
  return {
    take(text) {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      return keep(lines);
    },
    end() {
      const rest = pending.includes(folder) ? '' : pending;
      pending = '';
      return rest;
    },
  };
}
