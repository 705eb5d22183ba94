// `dxs load --baseline DIR` (issue 23): this run against an earlier load report, per endpoint the
// two share (same script, same endpoint): the latency distributions from the raw points both
// keep (raw.json.gz), judged by ./statistics.ts, plus error rate and throughput side by side.
// Gives the console table, the HTML section (tables and an overlay ECDF per endpoint, inline
// SVG) and the JSON for summary.json.
import { existsSync, statSync } from 'node:fs';
import { ConfigError } from '../../../lib/config.ts';
import { collectMergeInputs } from './merge-inputs.ts';
import { analyse, percentile, type EndpointResult, type RunResult } from './results.ts';
import { deliveryTimeKey, DELIVERY_TIME_KEY_PREFIX, judgeExchange, DEFAULT_ASYNC_TIMEOUT_MS } from './exchange.ts';
import type { ExchangeEvent } from '../../../lib/exchange-history.ts';
import { compareDistributions, formatP, type CompareSettings, type DistributionComparison, type PercentileChange, type Verdict } from './statistics.ts';

/** One script's result with its latency samples per endpoint (ascending). */
export interface ScriptSamples {
  result: RunResult;
  samples: Map<string, number[]>;
}

export interface SideFigures {
  requests: number;
  failed: number;
  errorRate: number;
  requestsPerSecond: number;
}

export interface EndpointComparison extends DistributionComparison {
  script: string;
  endpoint: string;
  baseline: SideFigures;
  current: SideFigures;
  /** The overlay ECDF (inline SVG); not in summary.json. */
  plot?: string;
}

export interface LoadComparison {
  baselineDirectory: string;
  settings: Pick<CompareSettings, 'threshold' | 'floorMs' | 'alpha' | 'resamples' | 'minSamples' | 'minTailPoints' | 'seed'>;
  endpoints: EndpointComparison[];
  /** Scripts or endpoints only one of the runs has: not compared. */
  notShared: string[];
  regression: boolean;
}

/** The baseline report's scripts with their samples, from the raw points in its folder. */
export async function loadBaseline(directory: string): Promise<Map<string, ScriptSamples>> {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new ConfigError(`--baseline ${directory}: not a load report folder`);
  let groups;
  try {
    groups = collectMergeInputs([directory], 'baseline');
  } catch (error) {
    throw new ConfigError(`--baseline ${directory}: ${(error as Error).message}`);
  }
  const scripts = new Map<string, ScriptSamples>();
  for (const group of groups) {
    const samples = new Map<string, number[]>();
    const exchange: ExchangeEvent[] = [];
    const result = await analyse(group.script, group.rawFiles, new Map(), { samples, exchange });
    // The delivery times of the baseline: the async timeout changes only the verdicts, not these.
    if (exchange.length > 0) for (const [deliveryType, values] of Object.entries(judgeExchange(exchange, { asyncTimeoutMs: DEFAULT_ASYNC_TIMEOUT_MS }).deliveryTimes)) samples.set(deliveryTimeKey(deliveryType), values);
    scripts.set(group.script, { result, samples });
  }
  return scripts;
}

function figures(endpoint: EndpointResult): SideFigures {
  return { requests: endpoint.requests, failed: endpoint.failed, errorRate: endpoint.requests === 0 ? 0 : endpoint.failed / endpoint.requests, requestsPerSecond: endpoint.requestsPerSecond };
}

const COLOURS = { baseline: '#6e7781', current: '#cf222e' };

/** The plot's size and margins, in SVG units. */
const ECDF_FRAME = { width: 520, height: 220, left: 46, right: 12, top: 12, bottom: 44 };

/** The two empirical distribution functions over each other, up to the larger p99.5 (the far tail would squash the rest). */
export function ecdfPlot(endpoint: string, baseline: readonly number[], current: readonly number[]): string {
  const { width, height, left, right, top, bottom } = ECDF_FRAME;
  const most = Math.max(percentile(baseline, 99.5), percentile(current, 99.5), 0.001);
  const x = (value: number): number => left + ((width - left - right) * Math.min(value, most)) / most;
  const y = (fraction: number): number => top + (height - top - bottom) * (1 - fraction);
  // 200 quantiles per line: the shape, at a size that does not grow with the sample.
  const line = (sorted: readonly number[], colour: string, label: string): string => {
    if (sorted.length === 0) return '';
    const points: string[] = [];
    let previousX = x(sorted[0]);
    points.push(`${previousX.toFixed(1)},${y(0).toFixed(1)}`);
    for (let step = 1; step <= 200; step++) {
      const fraction = step / 200;
      const at = x(percentile(sorted, fraction * 100));
      points.push(`${at.toFixed(1)},${y(fraction - 1 / 200).toFixed(1)}`, `${at.toFixed(1)},${y(fraction).toFixed(1)}`);
      previousX = at;
    }
    return `<polyline fill="none" stroke="${colour}" stroke-width="1.8" points="${points.join(' ')}"><title>${label}: ${sorted.length} samples</title></polyline>`;
  };
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((fraction) => `<line x1="${x(most * fraction).toFixed(1)}" x2="${x(most * fraction).toFixed(1)}" y1="${top}" y2="${height - bottom}" stroke="#eef0f3"/><text x="${x(most * fraction).toFixed(1)}" y="${height - bottom + 14}" text-anchor="middle">${formatMs(most * fraction)}</text>`)
    .join('');
  const levels = [0, 0.5, 0.95]
    .map((fraction) => `<line x1="${left}" x2="${width - right}" y1="${y(fraction).toFixed(1)}" y2="${y(fraction).toFixed(1)}" stroke="#eef0f3"/><text x="${left - 4}" y="${(y(fraction) + 4).toFixed(1)}" text-anchor="end">${fraction}</text>`)
    .join('');
  const legend = `<rect x="${left}" y="${height - 14}" width="10" height="10" fill="${COLOURS.baseline}"/><text x="${left + 14}" y="${height - 5}">baseline</text><rect x="${left + 90}" y="${height - 14}" width="10" height="10" fill="${COLOURS.current}"/><text x="${left + 104}" y="${height - 5}">this run</text><text x="${width - right}" y="${height - 5}" text-anchor="end">latency (ms)</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" class="ecdf" viewBox="0 0 ${width} ${height}" width="${width}" role="img" aria-label="latency distribution of ${escapeAttribute(endpoint)}: baseline and this run">${ticks}${levels}${line(baseline, COLOURS.baseline, 'baseline')}${line(current, COLOURS.current, 'this run')}${legend}</svg>`;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function formatMs(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Compares the current run's scripts with the baseline's, endpoint by endpoint. */
export function compareRuns(baselineDirectory: string, baseline: Map<string, ScriptSamples>, current: readonly ScriptSamples[], settings: CompareSettings): LoadComparison {
  const endpoints: EndpointComparison[] = [];
  const notShared: string[] = [];
  for (const now of current) {
    const before = baseline.get(now.result.script);
    if (before === undefined) {
      notShared.push(`${now.result.script}: not in the baseline`);
      continue;
    }
    for (const endpoint of now.result.endpoints) {
      const earlier = before.result.endpoints.find((item) => item.endpoint === endpoint.endpoint);
      if (earlier === undefined) {
        notShared.push(`${now.result.script} ${endpoint.endpoint}: not in the baseline`);
        continue;
      }
      const baselineSamples = before.samples.get(endpoint.endpoint) ?? [];
      const currentSamples = now.samples.get(endpoint.endpoint) ?? [];
      endpoints.push({
        script: now.result.script,
        endpoint: endpoint.endpoint,
        baseline: figures(earlier),
        current: figures(endpoint),
        ...compareDistributions(baselineSamples, currentSamples, settings),
        plot: ecdfPlot(endpoint.endpoint, baselineSamples, currentSamples),
      });
    }
    for (const endpoint of before.result.endpoints) {
      if (!now.result.endpoints.some((item) => item.endpoint === endpoint.endpoint)) notShared.push(`${now.result.script} ${endpoint.endpoint}: only in the baseline`);
    }
    endpoints.push(...compareDeliveryTimes(now, before, settings, notShared));
  }
  for (const script of baseline.keys()) if (!current.some((item) => item.result.script === script)) notShared.push(`${script}: only in the baseline`);
  const { threshold, floorMs, alpha, resamples, minSamples, minTailPoints, seed } = settings;
  return { baselineDirectory, settings: { threshold, floorMs, alpha, resamples, minSamples, minTailPoints, seed }, endpoints, notShared, regression: endpoints.some((item) => item.verdict === 'slower') };
}

/** The delivery time of each delivery type the two runs share, compared as an endpoint's latency is (issue 35). */
function compareDeliveryTimes(now: ScriptSamples, before: ScriptSamples, settings: CompareSettings, notShared: string[]): EndpointComparison[] {
  const keys = (samples: Map<string, number[]>): string[] => [...samples.keys()].filter((key) => key.startsWith(DELIVERY_TIME_KEY_PREFIX));
  const compared: EndpointComparison[] = [];
  const side = (values: readonly number[]): SideFigures => ({ requests: values.length, failed: 0, errorRate: 0, requestsPerSecond: 0 });
  for (const key of keys(now.samples)) {
    const baselineSamples = before.samples.get(key);
    const currentSamples = now.samples.get(key) ?? [];
    if (baselineSamples === undefined) {
      notShared.push(`${now.result.script} ${key}: not in the baseline`);
      continue;
    }
    compared.push({ script: now.result.script, endpoint: key, baseline: side(baselineSamples), current: side(currentSamples), ...compareDistributions(baselineSamples, currentSamples, settings), plot: ecdfPlot(key, baselineSamples, currentSamples) });
  }
  for (const key of keys(before.samples)) if (!now.samples.has(key)) notShared.push(`${now.result.script} ${key}: only in the baseline`);
  return compared;
}

function signedPercent(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+inf' : '-inf';
  return `${value >= 0 ? '+' : ''}${(value * 100).toFixed(value !== 0 && Math.abs(value) < 0.1 ? 1 : 0)}%`;
}

/** "1.20 -> 51.3 ms +4175% [+3900%, +4400%]" */
export function changeText(change: PercentileChange): string {
  return `${formatMs(change.baseline)} -> ${formatMs(change.current)} ms ${signedPercent(change.relative)} [${signedPercent(change.relativeInterval[0])}, ${signedPercent(change.relativeInterval[1])}]${change.judged ? '' : ' (not judged: too few samples beyond it)'}`;
}

function verdictText(item: EndpointComparison): string {
  return item.verdict === 'too few samples' ? `too few samples (${item.baselineCount} / ${item.currentCount})` : item.verdict;
}

/** The console lines: one per endpoint, then the verdict. */
export function comparisonLines(comparison: LoadComparison): string[] {
  const lines = [`baseline ${comparison.baselineDirectory}: regression threshold ${Math.round(comparison.settings.threshold * 100)} % and ${comparison.settings.floorMs} ms per percentile, 95 % bootstrap intervals, Mann-Whitney alpha ${comparison.settings.alpha}`];
  for (const item of comparison.endpoints) {
    const percentiles = item.percentiles.map((change) => `${change.name} ${changeText(change)}`).join('; ');
    const errors = `errors ${(item.baseline.errorRate * 100).toFixed(2)}% -> ${(item.current.errorRate * 100).toFixed(2)}%`;
    const throughput = `req/s ${item.baseline.requestsPerSecond.toFixed(1)} -> ${item.current.requestsPerSecond.toFixed(1)}`;
    lines.push(`  ${verdictText(item).toUpperCase().padEnd(9)} ${item.script} ${item.endpoint}: n ${item.baselineCount} -> ${item.currentCount}${percentiles === '' ? '' : `; ${percentiles}`}; ${errors}; ${throughput}`);
  }
  for (const item of comparison.notShared) lines.push(`  not compared: ${item}`);
  const slower = comparison.endpoints.filter((item) => item.verdict === 'slower');
  lines.push(slower.length === 0 ? 'baseline: no endpoint is slower' : `baseline: REGRESSION: ${slower.map((item) => `${item.script} ${item.endpoint}`).join(', ')} slower`);
  return lines;
}

/** summary.json's form: everything but the plots. */
export function comparisonJson(comparison: LoadComparison): unknown {
  return { ...comparison, endpoints: comparison.endpoints.map(({ plot: _plot, ...rest }) => rest) };
}

const VERDICT_CLASS: Record<Verdict, string> = { slower: 'fail', faster: 'pass', same: 'muted', 'too few samples': 'muted' };

/** The section of summary.html: a table per endpoint's figures, the verdicts, and the overlay plots. */
export function comparisonHtml(comparison: LoadComparison, escapeHtml: (text: string) => string): string {
  const rows = comparison.endpoints
    .map((item) => {
      const cells = ['p50', 'p95', 'p99'].map((name) => {
        const change = item.percentiles.find((candidate) => candidate.name === name);
        return change === undefined ? '<td class="muted">-</td>' : `<td>${escapeHtml(changeText(change))}</td>`;
      });
      return `<tr><td class="name">${escapeHtml(item.script)}</td><td class="name endpoint">${escapeHtml(item.endpoint)}</td><td>${item.baselineCount} / ${item.currentCount}</td>${cells.join('')}` +
        `<td>${(item.baseline.errorRate * 100).toFixed(2)}% / ${(item.current.errorRate * 100).toFixed(2)}%</td><td>${item.baseline.requestsPerSecond.toFixed(1)} / ${item.current.requestsPerSecond.toFixed(1)}</td>` +
        `<td class="${VERDICT_CLASS[item.verdict]} verdict">${escapeHtml(verdictText(item))}</td><td class="name">${escapeHtml(item.reason)}${item.mannWhitney === undefined ? '' : ` <span class="muted">(U = ${item.mannWhitney.u}, z = ${item.mannWhitney.z.toFixed(2)}, p ${escapeHtml(formatP(item.mannWhitney.p))})</span>`}</td></tr>`;
    })
    .join('\n');
  const plots = comparison.endpoints
    .map((item) => `<figure><figcaption class="name">${escapeHtml(item.script)} · ${escapeHtml(item.endpoint)}: <span class="${VERDICT_CLASS[item.verdict]}">${escapeHtml(verdictText(item))}</span></figcaption>${item.plot ?? ''}</figure>`)
    .join('\n');
  const slower = comparison.endpoints.filter((item) => item.verdict === 'slower');
  const { settings } = comparison;
  return `<h2 id="baseline">Against the baseline <span class="badge ${slower.length === 0 ? 'pass' : 'fail'}">${slower.length === 0 ? 'no endpoint slower' : `${slower.length} slower`}</span></h2>
<p>Baseline: <code>${escapeHtml(comparison.baselineDirectory)}</code>. Per percentile: baseline -> this run, the change and its 95 % bootstrap interval (${settings.resamples} seeded resamples, seed ${settings.seed}). An endpoint is slower only when its distributions differ (Mann-Whitney U, two-sided, alpha ${settings.alpha}) towards this run and for p50, p95 or p99 the whole interval lies above +${Math.round(settings.threshold * 100)} % and +${settings.floorMs} ms; faster alike; fewer than ${settings.minSamples} samples on a side are too few to tell. A tail percentile is judged only with ${settings.minTailPoints} samples beyond it on each side (p95 from ${Math.ceil(settings.minTailPoints / 0.05)} samples, p99 from ${Math.ceil(settings.minTailPoints / 0.01)}).</p>
<table><thead><tr><th class="name">script</th><th class="name">endpoint</th><th>samples (baseline / now)</th><th>p50</th><th>p95</th><th>p99</th><th>error rate</th><th>req/s</th><th>verdict</th><th class="name">why</th></tr></thead>
<tbody>${rows || '<tr><td class="name" colspan="10">no endpoint shared with the baseline</td></tr>'}</tbody></table>
${comparison.notShared.length === 0 ? '' : `<p class="muted">Not compared: ${escapeHtml(comparison.notShared.join('; '))}.</p>`}
<div class="plots">${plots}</div>`;
}
