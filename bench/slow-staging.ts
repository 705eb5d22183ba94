// A slow staging at the default settings (issue 27): `dxs test --profile full-destructive` against
// the embedded sandbox with 80 ms added to every answer and 1 s per background step
// (--sandbox-variant latency-80ms,async-1s), no --workers. Prints the wall time next to the floor
// it computes from the run itself (its calls x the latency / its workers, plus the longest
// background chain), the CPU time the run took, what a Playwright worker costs in memory and
// CPU, and the run's own account of its waits (results.json's timing). Never asserts. Traffic stays on 127.0.0.1.
// Then the same against a staging whose background work takes several steps per state (issue 36:
// steps-3, a status 3 s after the last, a registration showing Processing on its way), as the Go
// implementation of the spec does.
// DXS_BENCH_STAGING_VARIANTS=latency-80ms,async-1s;latency-80ms,async-1s,steps-3 (sets of variants,
// `;` between sets), DXS_BENCH_STAGING_ARGS (more dxs test flags), DXS_BENCH_STAGING_RUNS=1 (runs of each set).
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { addedLatencyMs, variantStepDelayMs, variantStepsPerState } from '../sandbox/timing-variants.ts';
import { criticalPath, criticalPathLine, workerTimeLine, workerTimeSummary } from '../report/timeline.ts';
import { runDxsTest } from './run-dxs-test.ts';
import { stolenLine, stolenSeconds } from './process-cpu.ts';

const sets = (process.env.DXS_BENCH_STAGING_VARIANTS ?? 'latency-80ms,async-1s;latency-80ms,async-1s,steps-3').split(';').map((set) => set.split(',').filter(Boolean)).filter((set) => set.length > 0);
const extra = (process.env.DXS_BENCH_STAGING_ARGS ?? '').split(' ').filter(Boolean);
const runs = Math.max(1, Number(process.env.DXS_BENCH_STAGING_RUNS ?? 1));
const KILL_AFTER_MS = 600_000;
/** Register, activate, then a document's PendingInPlatform, Converting, ConversionComplete, Sent (into the inbox), Delivered: states, each steps-<N> steps. */
const LONGEST_CHAIN_STEPS = 7;

/** CPU seconds of this process's waited-for descendants so far (Linux /proc; ticks of 1/100 s). */
function childrenCpuSeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

for (const variants of sets) {
  const latencyMs = addedLatencyMs(variants);
  const stepMs = variantStepDelayMs(variants) ?? 20;
  const statesSteps = variantStepsPerState(variants);
  console.log(`dxs test --profile full-destructive --sandbox-variant ${variants.join(',')}${extra.length > 0 ? ` ${extra.join(' ')}` : ''} (default workers unless given)`);
  console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the start`);
  for (let run = 1; run <= runs; run++) {
    const cpuBefore = childrenCpuSeconds();
    const stolenBefore = stolenSeconds();
    const { seconds, code, results } = await runDxsTest(['--profile', 'full-destructive', '--sandbox-variant', variants.join(','), ...extra], { killAfterMs: KILL_AFTER_MS, name: 'slow-staging' });
    const cpuAfter = childrenCpuSeconds();
    const stolen = stolenLine(stolenBefore, stolenSeconds());
    const summary = results?.summary;
    const timing = results?.timing;
    const coverageCalls = Object.values(results?.coverage ?? {}).reduce((sum, statuses) => sum + Object.values(statuses).reduce((a, b) => a + b, 0), 0);
    const calls = timing?.calls ?? coverageCalls;
    const workers = timing?.workers;
    const verdicts = summary === undefined ? 'no results.json' : `${summary.total} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.info} info, ${summary.skipped} skipped, ${summary.blocked ?? 0} blocked`;
    console.log(`run ${run}: ${seconds.toFixed(1)} s wall, exit ${code ?? '-'} (${verdicts})`);
    if (workers !== undefined) {
      const floor = (calls * latencyMs) / workers / 1000 + (LONGEST_CHAIN_STEPS * statesSteps * stepMs) / 1000;
      console.log(`  floor: ${floor.toFixed(1)} s = ${calls} calls x ${latencyMs} ms / ${workers} workers + the longest background chain (${LONGEST_CHAIN_STEPS} states x ${statesSteps} step${statesSteps === 1 ? '' : 's'} x ${stepMs} ms)`);
    } else {
      console.log(`  floor: n/a (results.json has no timing section; ${coverageCalls} calls of the tests alone)`);
    }
    if (cpuBefore !== undefined && cpuAfter !== undefined) console.log(`  CPU: ${(cpuAfter - cpuBefore).toFixed(1)} s of all processes of the run (${((cpuAfter - cpuBefore) / cpus().length).toFixed(1)} s on ${cpus().length} cores at best)${stolen === '' ? '' : `; ${stolen}`}`);
    if (timing !== undefined) {
      console.log(`  a Playwright worker: ${timing.workerRssMb ?? '?'} MB resident at its end, ${((timing.workerStartupCpuMs ?? 0) / 1000).toFixed(1)} s of CPU to start (medians of ${timing.workerProcesses}); all workers ${((timing.workerCpuMs ?? 0) / 1000).toFixed(1)} s of CPU`);
      console.log(`  concurrency: ${timing.workers} workers (${timing.workersReason})`);
      console.log(`  waited for the network ${(timing.networkMs / 1000).toFixed(1)} s, for background work ${(timing.backgroundMs / 1000).toFixed(1)} s in ${timing.backgroundWaits} polls (summed over workers)`);
    }
    // Where the time between the floor and the wall went (issue 42): the run's own timeline.
    const timeline = results?.timeline;
    const path = timeline === undefined ? undefined : criticalPath(timeline);
    if (timeline !== undefined) console.log(`  ${workerTimeLine(workerTimeSummary(timeline))}`);
    if (path !== undefined) console.log(`  ${criticalPathLine(path)}`);
  }
}
console.log(`machine: load average ${loadavg()[0].toFixed(1)} at the end (other processes share the cores: compare runs made at like load)`);
