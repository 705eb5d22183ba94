// The gateway's answers of a run (issue 31): every 429, and every 503 with Retry-After, that dxs
// met and waited for (or, its budget spent, gave up on). The workers of a run are processes, so
// each appends one JSON line per answer to a file of the run; the same file is the shared budget
// (what has been waited in all) and, summarised, the `gateway` section of results.json, a
// property of junit.xml and a line of the console.
// Pure, apart from the file: the workers, the reporter, the CLI and the renderers share it.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** One answer of the gateway, as a worker or the cleanup met it. */
export interface GatewayAnswerRecord {
  /** "METHOD /template", as the coverage names it. */
  endpoint: string;
  status: number;
  retryAfter?: string;
  /** What was waited before sending again (0 when the budget was spent). */
  waitedMs: number;
  /** The budget was spent: the call was not sent again. */
  exhausted?: boolean;
  /** The answer as it showed its limit: "429 with Retry-After: 1". */
  limit?: string;
  /** Asked for: a probe of the limit (OBS-01's burst) sent its calls at once and took the answers as they came. */
  observed?: boolean;
}

/** The `gateway` section of results.json. */
export interface GatewaySummary {
  /** Answers 429, or 503 with Retry-After. */
  answers: number;
  /** Of them, answers a probe of the limit asked for (OBS-01's burst), not met by the run's pace. */
  observed?: number;
  /** Status -> count. */
  byStatus: Record<string, number>;
  /** "METHOD /template" -> status -> count. */
  byEndpoint: Record<string, Record<string, number>>;
  /** Waiting summed over the calls that waited (calls of several workers may wait at once). */
  waitedMs: number;
  /** The run's --rate-limit-budget. */
  budgetSeconds?: number;
  /** The run's --max-rps, when it paced its calls. */
  maxRps?: number;
  /** Calls a second the run's pace (dxs test) allowed at its end, when it was pacing then: what it learnt of the limit. */
  endPace?: number;
  /** The budget ran out: the tests that met the gateway afterwards are blocked. */
  exhausted: boolean;
  /** The first answer as it showed its limit. */
  limit?: string;
}

/** Named after the run, like the broken prerequisites' file, so a reused directory never passes an earlier run's answers on. */
export function gatewayAnswersFile(context: { reportDir: string; runPrefix: string }): string {
  return join(context.reportDir, `.dxs-gateway-answers-${context.runPrefix}`);
}

export function formatGatewayAnswer(record: GatewayAnswerRecord): string {
  return JSON.stringify(record);
}

export function parseGatewayAnswers(text: string): GatewayAnswerRecord[] {
  const records: GatewayAnswerRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const record = JSON.parse(line) as GatewayAnswerRecord;
      if (typeof record.endpoint === 'string' && typeof record.status === 'number' && typeof record.waitedMs === 'number') records.push(record);
    } catch {
      // A line cut by a worker killed mid-write: the others still count.
    }
  }
  return records;
}

export function summariseGatewayAnswers(records: readonly GatewayAnswerRecord[], settings: { budgetSeconds?: number; maxRps?: number } = {}): GatewaySummary {
  const summary: GatewaySummary = { answers: 0, byStatus: {}, byEndpoint: {}, waitedMs: 0, budgetSeconds: settings.budgetSeconds, maxRps: settings.maxRps, exhausted: false };
  for (const record of records) {
    const status = String(record.status);
    summary.answers++;
    if (record.observed === true) summary.observed = (summary.observed ?? 0) + 1;
    summary.byStatus[status] = (summary.byStatus[status] ?? 0) + 1;
    const byStatus = (summary.byEndpoint[record.endpoint] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    summary.waitedMs += record.waitedMs;
    if (record.exhausted === true) summary.exhausted = true;
    summary.limit ??= record.limit;
  }
  return summary;
}

/** Two summaries in one (shards of a run merged). */
export function mergeGatewaySummaries(summaries: ReadonlyArray<GatewaySummary | undefined>): GatewaySummary | undefined {
  const present = summaries.filter((summary): summary is GatewaySummary => summary !== undefined);
  if (present.length === 0) return undefined;
  const merged: GatewaySummary = { answers: 0, byStatus: {}, byEndpoint: {}, waitedMs: 0, budgetSeconds: present[0].budgetSeconds, maxRps: present[0].maxRps, exhausted: false };
  for (const summary of present) {
    merged.answers += summary.answers;
    if (summary.observed !== undefined) merged.observed = (merged.observed ?? 0) + summary.observed;
    merged.waitedMs += summary.waitedMs;
    merged.exhausted ||= summary.exhausted;
    merged.limit ??= summary.limit;
    for (const [status, count] of Object.entries(summary.byStatus)) merged.byStatus[status] = (merged.byStatus[status] ?? 0) + count;
    for (const [endpoint, byStatus] of Object.entries(summary.byEndpoint)) {
      const into = (merged.byEndpoint[endpoint] ??= {});
      for (const [status, count] of Object.entries(byStatus)) into[status] = (into[status] ?? 0) + count;
    }
  }
  return merged;
}

/** The endpoints by number of answers, most first: "GET /companies/status 12x 429". */
export function gatewayEndpointLines(summary: GatewaySummary): string[] {
  return Object.entries(summary.byEndpoint)
    .map(([endpoint, byStatus]) => ({ endpoint, byStatus, total: Object.values(byStatus).reduce((sum, count) => sum + count, 0) }))
    .sort((left, right) => right.total - left.total || left.endpoint.localeCompare(right.endpoint))
    .map(({ endpoint, byStatus }) => `${endpoint} ${Object.entries(byStatus).map(([status, count]) => `${count}x ${status}`).join(', ')}`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The console's line: "gateway: 37 answers (35x 429, 2x 503 with Retry-After), waited 38.0 s of a 180 s budget; most on GET /companies/status 20x 429". */
export function gatewayLine(summary: GatewaySummary | undefined): string | undefined {
  if (summary === undefined || (summary.answers === 0 && summary.maxRps === undefined)) return undefined;
  const paced = summary.maxRps !== undefined ? `calls paced to ${summary.maxRps}/s; ` : '';
  if (summary.answers === 0) return `gateway: ${paced}no 429 or 503 with Retry-After`;
  const statuses = Object.entries(summary.byStatus).map(([status, count]) => `${count}x ${status}${status === '503' ? ' with Retry-After' : ''}`).join(', ');
  const budget = summary.budgetSeconds !== undefined ? ` of a ${summary.budgetSeconds} s budget${summary.exhausted ? ' (spent: tests that met the gateway afterwards are blocked)' : ''}` : '';
  const endpoints = gatewayEndpointLines(summary);
  const shown = endpoints.slice(0, 3).join('; ') + (endpoints.length > 3 ? `; and ${endpoints.length - 3} more endpoints` : '');
  const observed = summary.observed === undefined ? '' : `, ${summary.observed} of them asked for by the probe of the limit, OBS-01`;
  const endPace = summary.endPace === undefined ? '' : `; the run's pace ended at ${summary.endPace} calls/s`;
  return `gateway: ${paced}${summary.answers} answer${summary.answers === 1 ? '' : 's'} (${statuses}${observed}), waited ${seconds(summary.waitedMs)}${budget}; on ${shown}${endPace}`;
}

/** The gateway's answers the workers wrote (suites/support/gateway.ts); the file is removed, its summary kept. */
export function takeGatewaySummary(context: { reportDir: string; runPrefix: string; rateLimitBudgetSeconds?: number; maxRps?: number }): GatewaySummary | undefined {
  const file = gatewayAnswersFile(context);
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // No answer of the gateway was met.
  }
  rmSync(file, { force: true });
  const summary = summariseGatewayAnswers(parseGatewayAnswers(text), { budgetSeconds: context.rateLimitBudgetSeconds, maxRps: context.maxRps });
  return summary.answers > 0 || context.maxRps !== undefined ? summary : undefined;
}

/** Every run's gateway answers left in a directory (the setup of dxs fuzz and its cleanup), summarised and removed. */
export function takeGatewaySummariesIn(directory: string, settings: { maxRps?: number } = {}): GatewaySummary | undefined {
  let names: string[] = [];
  try {
    names = readdirSync(directory).filter((name) => name.startsWith('.dxs-gateway-answers-'));
  } catch {
    return undefined;
  }
  const summaries = names.map((name) => takeGatewaySummary({ reportDir: directory, runPrefix: name.slice('.dxs-gateway-answers-'.length), maxRps: settings.maxRps }));
  return mergeGatewaySummaries(summaries);
}
