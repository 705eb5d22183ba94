// Wall time of a full `dxs test` against the embedded sandbox (default profile, 2 workers), from
// the command's start to its exit, with the count of tests. Target: under 30 s on 2 cores.
// Prints, never asserts. Set DXS_BENCH_TEST_ARGS to add options (e.g. "--area tokens").
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../report/results.ts';
import { criticalPath, criticalPathLine, workerTimeLine, workerTimeSummary } from '../report/timeline.ts';
import { stolenLine, stolenSeconds } from './process-cpu.ts';

const root = new URL('..', import.meta.url).pathname;
const directory = mkdtempSync(join(tmpdir(), 'dxs-bench-test-'));
const extra = (process.env.DXS_BENCH_TEST_ARGS ?? '').split(' ').filter(Boolean);
const args = [join(root, 'bin', 'dxs.js'), 'test', '--report-dir', directory, ...extra];
const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: '0' };
for (const name of Object.keys(env)) if (name.startsWith('DXS_')) delete env[name];

const started = performance.now();
const stolenBefore = stolenSeconds();
const code = await new Promise<number | null>((resolve) => {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  // Bounded: a hung run is killed after ten minutes.
  const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  child.on('close', (exitCode) => {
    clearTimeout(timer);
    resolve(exitCode);
  });
});
const seconds = (performance.now() - started) / 1000;
const stolen = stolenLine(stolenBefore, stolenSeconds());
let summary = '';
/** Where the wall time went (issue 42): the run's own timeline. */
let timeline: string[] = [];
try {
  const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
  const { total, passed, failed, warning, info, skipped } = results.summary;
  summary = `${total} tests (${passed} passed, ${failed} failed, ${warning} warning, ${info} info, ${skipped} skipped), Playwright part ${(results.run.durationMs / 1000).toFixed(1)} s`;
  const path = results.timeline === undefined ? undefined : criticalPath(results.timeline);
  if (results.timeline !== undefined && path !== undefined) timeline = [workerTimeLine(workerTimeSummary(results.timeline)), criticalPathLine(path)];
} catch {
  summary = 'no results.json';
}
rmSync(directory, { recursive: true, force: true });
console.log(`dxs test ${extra.join(' ')}`.trim());
console.log(`  wall time      ${seconds.toFixed(1)} s (target: under 30 s on 2 cores)`);
console.log(`  exit code      ${code}`);
console.log(`  ${summary}`);
for (const line of timeline) console.log(`  ${line}`);
console.log(`  machine        ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end (other work on the machine inflates the figure)${stolen === '' ? '' : `; ${stolen}`}`);
