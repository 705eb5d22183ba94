// What the access matrix (issue 40) costs: `dxs test` of the full profile against the embedded
// sandbox with and without the access area, and the access area alone (its tests' own time
// summed, and the wall time a run of it takes with Playwright's start). Target: the full run at
// most 15 s longer with it on 2 cores. Prints the figures, never asserts.
// DXS_BENCH_RUNS=N repeats each run (1); DXS_BENCH_KEEP=1 keeps the reports.
import { cpus, loadavg } from 'node:os';
import { loadProfiles } from '../cli/commands/test.ts';
import { runDxsTest } from './run-dxs-test.ts';

/** Bounded: a run that hangs is killed, and shows as exit -. */
const KILL_AFTER_MS = 600_000;
const RUNS = Math.max(1, Number(process.env.DXS_BENCH_RUNS ?? 1));
const full = loadProfiles().full.areas;

async function measure(name: string, areas: readonly string[]): Promise<void> {
  for (let run = 1; run <= RUNS; run++) {
    const { seconds, code, results, kept } = await runDxsTest(['--area', ...areas, '--workers', '2'], { killAfterMs: KILL_AFTER_MS, keep: process.env.DXS_BENCH_KEEP === '1', name });
    const access = results?.tests.filter((test) => test.area === 'access') ?? [];
    const accessSeconds = access.reduce((sum, test) => sum + test.durationMs, 0) / 1000;
    const tests = results === undefined ? 'no results.json' : `${results.summary.total} tests, ${access.length} of the access area taking ${accessSeconds.toFixed(1)} s of test time`;
    console.log(`${name.padEnd(22)} | run ${run} | ${seconds.toFixed(1).padStart(6)} s | exit ${code ?? '-'} | ${tests}${kept !== undefined ? ` (report kept in ${kept})` : ''}`);
  }
}

console.log('dxs test against the embedded sandbox, 2 workers (target: the full profile at most 15 s longer with the access area)');
await measure('full without access', full.filter((area) => area !== 'access'));
await measure('full', full);
await measure('access alone', ['access']);
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end (other work on the machine inflates the figures)`);
