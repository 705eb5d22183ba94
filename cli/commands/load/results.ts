// Reads what k6 wrote (the raw points of `--out json` and the `--summary-export` files) and
// computes, per endpoint, throughput, latency percentiles, errors and checks, and judges the
// thresholds. One process's files or the files of many runners (a segmented or k6-operator run)
// go through the same code: points are merged first, so percentiles stay exact and the
// thresholds are judged on the whole run, not runner by runner.
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { decodeEvent, EXCHANGE_METRIC, type ExchangeEvent } from '../../../lib/exchange-history.ts';
import type { ExchangeCheckResult, ExchangeRule, ExchangeViolation } from '../../../lib/exchange-check.ts';
import type { FinalReadSummary } from '../../../lib/final-read.ts';
import { GATEWAY_WAITED_METRIC, LOAD_GATEWAY_STATUSES } from '../../../lib/gateway.ts';

export interface EndpointResult {
  endpoint: string;
  requests: number;
  requestsPerSecond: number;
  failed: number;
  /** Answers 429: the gateway's limit, found by the load; neither failed nor judged by a check (absent before issue 31). */
  rateLimited?: number;
  /**
   * Answers of the gateway in front of the target, by status (lib/gateway.ts LOAD_GATEWAY_STATUSES;
   * absent before issue 57): counted apart, and left out of the latency figures and of the judged
   * http_req_* thresholds, since they say nothing of the target's speed.
   */
  gateway?: Record<string, number>;
  /** Of those, the answers a flow waited out (Retry-After) and sent again: the call went on to the target. */
  gatewayWaited?: number;
  /** The latency figures below are over the target's answers only (requests less the gateway's). */
  latency: { avg: number; p50: number; p90: number; p95: number; p99: number; max: number };
  checksPassed: number;
  checksFailed: number;
}

export interface CheckResult {
  name: string;
  endpoint: string;
  passes: number;
  fails: number;
}

export interface ThresholdVerdict {
  /** The k6 metric, with its tag filter: http_req_duration{name:POST /documents}. */
  metric: string;
  expression: string;
  ok: boolean;
  /** The aggregate the expression judged, e.g. 412.3 for p(95). */
  actual: number | undefined;
}

/** How a broken exchange rule counts, by the basis of its requirement (as dxs test counts a failed check). */
export type ExchangeSeverity = 'failure' | 'warning' | 'info';

/** The delivery times of one delivery type, in milliseconds. */
export interface DeliveryTimeFigures {
  deliveryType: string;
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** The exchange as a whole (issue 35): what the history of the document flows shows, judged once k6 has ended (cli/commands/load/exchange.ts). */
export interface ExchangeSummary extends Pick<ExchangeCheckResult, 'events' | 'sent' | 'delivered' | 'lost' | 'notJudged' | 'notJudgedReasons' | 'notSubject' | 'untimedDeliveries'> {
  asyncTimeoutMs: number;
  /** --strict: hardening rules counted as failures. */
  strict: boolean;
  duplicated: number;
  misrouted: number;
  backAfterHandled: number;
  vanished: number;
  rules: Array<{ id: ExchangeRule; count: number; severity: ExchangeSeverity; basis: string }>;
  /** The first violations of each rule, with the smallest evidence. */
  /** reproduce: the violation's curl script, relative to the report folder (issue 43). */
  violations: Array<ExchangeViolation & { severity: ExchangeSeverity; reproduce?: string }>;
  deliveryTime: DeliveryTimeFigures[];
  /** Deliveries a list of the final read showed first ("arrived by the final read"), apart from the watched ones (absent before issue 41). */
  arrivedByFinalRead?: number;
  deliveryTimeFinalRead?: DeliveryTimeFigures[];
  /** The final read once k6 had ended (issue 41); absent when none was made. */
  finalRead?: FinalReadSummary;
  /** No rule whose breach is a failure was broken (with --strict: and no send left not judged). */
  passed: boolean;
}

export interface RunResult {
  script: string;
  runners: number;
  durationSeconds: number;
  iterations: number;
  requests: number;
  endpoints: EndpointResult[];
  checks: CheckResult[];
  /** The contract's hardening checks (lib/contract.ts): warnings, as dxs test counts them without --strict. */
  warnings?: CheckResult[];
  thresholds: ThresholdVerdict[];
  /**
   * Set when the gateway gave more than --max-gateway-share of an endpoint's answers (issue 57): the
   * run did not load the target as asked, and says so (exit 2), whatever its thresholds say.
   */
  gatewayRefused?: string;
  /** The exchange checker's verdict, for scripts whose flows recorded a history (absent before issue 35). */
  exchange?: ExchangeSummary;
  passed: boolean;
}

interface Point {
  metric: string;
  value: number;
  tags: Record<string, string>;
  time: number;
  /** k6 metadata (not indexed): the identifiers of a created entity (load/lib/journal.ts). */
  metadata?: Record<string, string>;
}

/** One dxs_created point: what a flow created, its kind and identifiers. */
export interface CreatedPoint {
  kind: string;
  at: string;
  fields: Record<string, string>;
}

/** What analyse() also hands back when asked: the run's created entities, the latency samples per endpoint. */
export interface AnalyseExtras {
  created?: CreatedPoint[];
  samples?: Map<string, number[]>;
  /** The history of the exchange (dxs_exchange points), for the checker. */
  exchange?: ExchangeEvent[];
}

const CREATED_METRIC = 'dxs_created';
/** load/lib/observe.ts's HARDENING_METRIC. */
const HARDENING_METRIC = 'dxs_hardening';

/** Streams the points of one `--out json` file (plain or .gz). */
async function* readPoints(path: string, types: Map<string, string>): AsyncGenerator<Point> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    let entry: { type?: string; metric?: string; data?: { type?: string; value?: number; tags?: Record<string, string> | null; time?: string; metadata?: Record<string, string> } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a runner killed mid-write leaves a torn last line
    }
    if (entry.type === 'Metric' && entry.metric !== undefined && entry.data?.type !== undefined) types.set(entry.metric, entry.data.type);
    else if (entry.type === 'Point' && entry.metric !== undefined && entry.data !== undefined) {
      yield { metric: entry.metric, value: entry.data.value ?? 0, tags: entry.data.tags ?? {}, time: Date.parse(entry.data.time ?? ''), metadata: entry.data.metadata };
    }
  }
}

/** Threshold expressions per metric key from `--summary-export` files (the union over runners). */
export function thresholdsFromSummaries(paths: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const path of paths) {
    const summary = JSON.parse(readFileSync(path, 'utf8')) as { metrics?: Record<string, { thresholds?: Record<string, boolean> }> };
    for (const [metric, value] of Object.entries(summary.metrics ?? {})) {
      for (const expression of Object.keys(value.thresholds ?? {})) {
        const list = found.get(metric) ?? [];
        if (!list.includes(expression)) list.push(expression);
        found.set(metric, list);
      }
    }
  }
  return found;
}

/** "http_req_duration{name:POST /documents,status:200}" -> name and tag filter. */
export function parseMetricKey(key: string): { name: string; tags: Record<string, string> } {
  const brace = key.indexOf('{');
  if (brace < 0) return { name: key, tags: {} };
  const tags: Record<string, string> = {};
  for (const part of key.slice(brace + 1, key.lastIndexOf('}')).split(',')) {
    const colon = part.indexOf(':');
    if (colon > 0) tags[part.slice(0, colon).trim()] = part.slice(colon + 1).trim();
  }
  return { name: key.slice(0, brace), tags };
}

/** k6's percentile: linear interpolation between the closest ranks of the sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const position = ((sorted.length - 1) * p) / 100;
  const lower = Math.floor(position);
  const upper = Math.min(sorted.length - 1, lower + 1);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

/** Values of one metric key, reduced as its metric type needs. */
class Series {
  values: number[] = [];
  count = 0;
  sum = 0;
  nonZero = 0;
  min = Infinity;
  max = -Infinity;
  last = 0;

  add(value: number): void {
    this.values.push(value);
    this.count++;
    this.sum += value;
    if (value !== 0) this.nonZero++;
    this.min = Math.min(this.min, value);
    this.max = Math.max(this.max, value);
    this.last = value;
  }
}

function aggregate(series: Series, type: string, name: string, durationSeconds: number): number | undefined {
  const sorted = type === 'trend' ? [...series.values].sort((a, b) => a - b) : [];
  const percentileMatch = /^p\((\d+(?:\.\d+)?)\)$/.exec(name);
  if (percentileMatch !== null) return percentile(sorted, Number(percentileMatch[1]));
  switch (name) {
    case 'avg':
      return series.count === 0 ? 0 : series.sum / series.count;
    case 'min':
      return series.count === 0 ? 0 : series.min;
    case 'max':
      return series.count === 0 ? 0 : series.max;
    case 'med':
      return percentile(sorted, 50);
    case 'count':
      return series.sum;
    case 'value':
      return series.last;
    case 'rate':
      if (type === 'rate') return series.count === 0 ? 0 : series.nonZero / series.count;
      return durationSeconds > 0 ? series.sum / durationSeconds : 0;
    default:
      return undefined;
  }
}

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '===': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/** Judges one k6 threshold expression ("p(95)<800", "rate>=0.99") on a series. */
export function judge(expression: string, series: Series | undefined, type: string, durationSeconds: number): { ok: boolean; actual: number | undefined } {
  const match = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/i.exec(expression);
  if (match === null) return { ok: false, actual: undefined };
  // Like k6: a threshold on a metric without samples passes (no data to judge).
  if (series === undefined || series.count === 0) return { ok: true, actual: undefined };
  const actual = aggregate(series, type, match[1], durationSeconds);
  if (actual === undefined) return { ok: false, actual };
  return { ok: COMPARE[match[2]](actual, Number(match[3])), actual };
}

const GATEWAY_STATUS_TAGS = new Set(LOAD_GATEWAY_STATUSES.map(String));

function isGatewayStatus(status: string | undefined): status is string {
  return status !== undefined && GATEWAY_STATUS_TAGS.has(status);
}

interface EndpointAccumulator {
  requests: number;
  rateLimited: number;
  gateway: Record<string, number>;
  gatewayWaited: number;
  failed: number;
  durations: number[];
  checksPassed: number;
  checksFailed: number;
}

/** Merges the raw points of one or more runners of the same script and judges the thresholds. */
export async function analyse(script: string, rawFiles: string[], thresholds: Map<string, string[]>, extras: AnalyseExtras = {}): Promise<RunResult> {
  const types = new Map<string, string>();
  const endpoints = new Map<string, EndpointAccumulator>();
  const checks = new Map<string, CheckResult>();
  const warnings = new Map<string, CheckResult>();
  const watched = [...thresholds.keys()].map((key) => ({ key, ...parseMetricKey(key), series: new Series() }));
  let iterations = 0;
  let first = Infinity;
  let last = -Infinity;
  const endpointOf = (name: string): EndpointAccumulator => {
    let found = endpoints.get(name);
    if (found === undefined) {
      found = { requests: 0, rateLimited: 0, gateway: {}, gatewayWaited: 0, failed: 0, durations: [], checksPassed: 0, checksFailed: 0 };
      endpoints.set(name, found);
    }
    return found;
  };
  for (const file of rawFiles) {
    for await (const point of readPoints(file, types)) {
      if (Number.isFinite(point.time)) {
        first = Math.min(first, point.time);
        last = Math.max(last, point.time);
      }
      // The scripts name each request after its endpoint (k6's name tag).
      const endpoint = point.tags.name;
      // A gateway's answer is counted (http_reqs) and nothing else: no latency, no failure judged.
      const fromGateway = point.metric !== 'http_reqs' && point.metric.startsWith('http_req_') && isGatewayStatus(point.tags.status);
      if (point.metric === 'iterations') iterations += point.value;
      else if (point.metric === CREATED_METRIC) {
        if (extras.created !== undefined && point.tags.kind !== undefined) extras.created.push({ kind: point.tags.kind, at: Number.isFinite(point.time) ? new Date(point.time).toISOString() : new Date().toISOString(), fields: point.metadata ?? {} });
      }
      else if (point.metric === EXCHANGE_METRIC) {
        const event = extras.exchange === undefined ? undefined : decodeEvent(point.tags.op, point.metadata);
        if (event !== undefined) extras.exchange?.push(event);
      }
      else if (endpoint !== undefined) {
        if (point.metric === 'http_reqs') {
          const accumulator = endpointOf(endpoint);
          accumulator.requests += point.value;
          if (point.tags.status === '429') accumulator.rateLimited += point.value;
          if (isGatewayStatus(point.tags.status)) accumulator.gateway[point.tags.status] = (accumulator.gateway[point.tags.status] ?? 0) + point.value;
        }
        else if (fromGateway) continue;
        else if (point.metric === GATEWAY_WAITED_METRIC) endpointOf(endpoint).gatewayWaited += point.value;
        else if (point.metric === 'http_req_duration') endpointOf(endpoint).durations.push(point.value);
        else if (point.metric === 'http_req_failed' && point.value !== 0) endpointOf(endpoint).failed++;
        else if (point.metric === HARDENING_METRIC) {
          const name = point.tags.check ?? '(unnamed)';
          const entry = warnings.get(name) ?? { name, endpoint, passes: 0, fails: 0 };
          if (point.value !== 0) entry.passes++;
          else entry.fails++;
          warnings.set(name, entry);
        }
        else if (point.metric === 'checks') {
          const accumulator = endpointOf(endpoint);
          const name = point.tags.check ?? '(unnamed)';
          const entry = checks.get(name) ?? { name, endpoint, passes: 0, fails: 0 };
          if (point.value !== 0) {
            entry.passes++;
            accumulator.checksPassed++;
          } else {
            entry.fails++;
            accumulator.checksFailed++;
          }
          checks.set(name, entry);
        }
      }
      if (fromGateway) continue;
      for (const item of watched) {
        if (item.name !== point.metric) continue;
        let matches = true;
        for (const [tag, value] of Object.entries(item.tags)) if (point.tags[tag] !== value) matches = false;
        if (matches) item.series.add(point.value);
      }
    }
  }
  const durationSeconds = last > first ? (last - first) / 1000 : 0;
  const endpointResults: EndpointResult[] = [...endpoints.entries()]
    .filter(([, accumulator]) => accumulator.requests > 0)
    .map(([endpoint, accumulator]) => {
      const sorted = accumulator.durations.sort((a, b) => a - b);
      extras.samples?.set(endpoint, sorted);
      const sum = sorted.reduce((total, value) => total + value, 0);
      return {
        endpoint,
        requests: accumulator.requests,
        requestsPerSecond: durationSeconds > 0 ? accumulator.requests / durationSeconds : 0,
        failed: accumulator.failed,
        rateLimited: accumulator.rateLimited,
        gateway: accumulator.gateway,
        gatewayWaited: accumulator.gatewayWaited,
        latency: {
          avg: sorted.length === 0 ? 0 : sum / sorted.length,
          p50: percentile(sorted, 50),
          p90: percentile(sorted, 90),
          p95: percentile(sorted, 95),
          p99: percentile(sorted, 99),
          max: sorted.length === 0 ? 0 : sorted[sorted.length - 1],
        },
        checksPassed: accumulator.checksPassed,
        checksFailed: accumulator.checksFailed,
      };
    })
    .sort((a, b) => a.endpoint.localeCompare(b.endpoint));
  const verdicts: ThresholdVerdict[] = [];
  for (const item of watched) {
    for (const expression of thresholds.get(item.key) ?? []) {
      const { ok, actual } = judge(expression, item.series, types.get(item.name) ?? 'trend', durationSeconds);
      verdicts.push({ metric: item.key, expression, ok, actual });
    }
  }
  return {
    script,
    runners: rawFiles.length,
    durationSeconds,
    iterations,
    requests: endpointResults.reduce((total, item) => total + item.requests, 0),
    endpoints: endpointResults,
    checks: [...checks.values()].sort((a, b) => a.endpoint.localeCompare(b.endpoint) || a.name.localeCompare(b.name)),
    warnings: [...warnings.values()].sort((a, b) => a.endpoint.localeCompare(b.endpoint) || a.name.localeCompare(b.name)),
    thresholds: verdicts,
    passed: verdicts.every((verdict) => verdict.ok),
  };
}
