// What `dxs load --baseline` costs (issue 23): on two 1-minute average-profile runs of the
// business-day script (every endpoint; 10 iterations a second, ramp 20 %, hold 70 %, down 10 %),
// the time to read the baseline's raw points, the current run's, compare every endpoint
// (bootstrap of p50/p95/p99, 1000 resamples, Mann-Whitney U) and render the section with its
// plots. Reading the current run's points is counted although dxs load reads them for its own
// report anyway: the figure is an upper bound. Target: under 10 s.
//
// The two runs are made once against the embedded sandbox on 127.0.0.1 (about 2 minutes, bounded
// by k6's duration); DXS_BENCH_LOAD_DIRS=A,B takes two existing dxs load report folders instead.
// DXS_BENCH_RATE raises the profile's rate (more samples); DXS_BENCH_ROUNDS (default 3) repeats
// the comparison, and the median is printed. Prints, never asserts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, comparisonHtml, loadBaseline } from '../cli/commands/load/compare.ts';
import { DEFAULT_COMPARE_SETTINGS } from '../cli/commands/load/statistics.ts';
import { escapeHtml } from '../report/html.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const ROUNDS = Math.max(1, Math.min(10, Number(process.env.DXS_BENCH_ROUNDS ?? 3)));
const TARGET_SECONDS = 10;
/** DXS_BENCH_RATE: the average profile's peak iterations per second (default 10, the profile's own). */
const RATE = process.env.DXS_BENCH_RATE;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function rawBytes(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) total += rawBytes(path);
    else if (/^raw\.json(\.gz)?$/.test(entry)) total += statSync(path).size;
  }
  return total;
}

/** One 1-minute average-profile run of business-day against the embedded sandbox. */
function averageRun(directory: string): void {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'dxs.js'), 'load', '--script', 'business-day', '--profile', 'average', '--duration', '1m', ...(RATE === undefined ? [] : ['--rate', RATE]), '--report-dir', directory], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
  if (run.status !== 0 && run.status !== 1) throw new Error(`dxs load exited ${run.status}`);
}

const given = process.env.DXS_BENCH_LOAD_DIRS?.split(',').map((item) => item.trim());
const scratch = given === undefined ? mkdtempSync(join(tmpdir(), 'dxs-bench-load-compare-')) : undefined;
try {
  const [baselineDirectory, currentDirectory] = given ?? [join(scratch as string, 'a'), join(scratch as string, 'b')];
  if (given === undefined) {
    console.log('making the raw data: two 1-minute average-profile runs of business-day against the embedded sandbox');
    averageRun(baselineDirectory);
    averageRun(currentDirectory);
  }
  const timings: Array<{ read: number; compare: number; total: number }> = [];
  let summary = '';
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const baseline = await loadBaseline(baselineDirectory);
    const current = await loadBaseline(currentDirectory);
    const read = performance.now();
    const comparison = compareRuns(baselineDirectory, baseline, [...current.values()], DEFAULT_COMPARE_SETTINGS);
    comparisonHtml(comparison, escapeHtml);
    const done = performance.now();
    timings.push({ read: read - started, compare: done - read, total: done - started });
    const samples = comparison.endpoints.reduce((total, item) => total + item.baselineCount + item.currentCount, 0);
    summary = `${comparison.endpoints.length} endpoints compared, ${samples} latency samples (both runs), raw files ${(rawBytes(baselineDirectory) / 1e6).toFixed(1)} + ${(rawBytes(currentDirectory) / 1e6).toFixed(1)} MB gzip; verdicts: ${comparison.endpoints.map((item) => item.verdict).join(', ')}`;
  }
  console.log(summary);
  const total = median(timings.map((timing) => timing.total)) / 1000;
  console.log(`comparison cost (median of ${ROUNDS}): ${total.toFixed(2)} s = read raw points ${(median(timings.map((timing) => timing.read)) / 1000).toFixed(2)} s + compare and render ${(median(timings.map((timing) => timing.compare)) / 1000).toFixed(2)} s; target under ${TARGET_SECONDS} s: ${total < TARGET_SECONDS ? 'met' : 'NOT met'}`);
} finally {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
}
