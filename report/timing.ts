// The `timing` section of results.json (issue 27): what concurrency the run chose and why, and
// where its time went: waiting for the network (every call's round trip, summed over workers) and
// waiting for background work (time in polls until a state was reached, summed over workers).
// Each worker writes its figures when it stops (suites/support/timing.ts); they are added up here.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** One worker's figures, as it writes them. */
export interface WorkerTiming {
  calls: number;
  networkMs: number;
  backgroundWaits: number;
  backgroundMs: number;
  /** Per kind of background work (registration, a final status, ...): the quickest it was seen done. */
  firstCompletions: Record<string, number>;
  /** CPU time of the worker process when its first fixture was set up, and when it stopped. */
  startupCpuMs?: number;
  cpuMs?: number;
  /** Its resident memory when it stopped. */
  rssMb?: number;
  /** The figures of the run's setup, made by dxs test itself (suites/support/run-setup.ts). */
  setup?: boolean;
}

export interface RunTiming {
  workers: number;
  /** Why that many: the --workers flag, or what the preflight measured and the bound that decided. */
  workersReason: string;
  /** The target's round trip as the preflight measured it (the quickest of a few probes). */
  latencyMs?: number;
  /** Memory a worker takes, as the default choice assumed it. */
  workerMemoryMb?: number;
  /** Calls of the tests and their fixtures (the cleanup after the run not counted). */
  calls: number;
  /** Summed over workers: time spent waiting for an answer. */
  networkMs: number;
  /** Summed over workers: time spent in polls for background work (their calls included). */
  backgroundMs: number;
  backgroundWaits: number;
  /** The quickest completion seen of each kind of background work. */
  firstCompletions: Record<string, number>;
  /** Worker processes that reported (one per worker started; more when a worker was replaced). */
  workerProcesses: number;
  /** What the worker processes cost: CPU in all, CPU to start (median), resident memory at the end (median). */
  workerCpuMs?: number;
  workerStartupCpuMs?: number;
  workerRssMb?: number;
}

const median = (values: number[]): number | undefined => (values.length === 0 ? undefined : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);

/** Adds up the workers' files in the folder, and removes them. */
export function collectTiming(folder: string, choice: { workers: number; workersReason: string; latencyMs?: number; workerMemoryMb?: number }): RunTiming {
  const timing: RunTiming = { ...choice, calls: 0, networkMs: 0, backgroundMs: 0, backgroundWaits: 0, firstCompletions: {}, workerProcesses: 0 };
  const startups: number[] = [];
  const memories: number[] = [];
  let files: string[] = [];
  try {
    files = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return timing;
  }
  for (const name of files) {
    let worker: WorkerTiming;
    try {
      worker = JSON.parse(readFileSync(join(folder, name), 'utf8')) as WorkerTiming;
    } catch {
      continue;
    }
    // The run's own setup made calls, but is no worker process.
    if (worker.setup !== true) timing.workerProcesses++;
    timing.calls += worker.calls;
    timing.networkMs += worker.networkMs;
    timing.backgroundMs += worker.backgroundMs;
    timing.backgroundWaits += worker.backgroundWaits;
    if (worker.cpuMs !== undefined) timing.workerCpuMs = (timing.workerCpuMs ?? 0) + worker.cpuMs;
    if (worker.startupCpuMs !== undefined) startups.push(worker.startupCpuMs);
    if (worker.rssMb !== undefined) memories.push(worker.rssMb);
    for (const [kind, ms] of Object.entries(worker.firstCompletions)) {
      const seen = timing.firstCompletions[kind];
      timing.firstCompletions[kind] = Math.round(seen === undefined ? ms : Math.min(seen, ms));
    }
  }
  timing.workerStartupCpuMs = median(startups);
  timing.workerRssMb = median(memories);
  timing.networkMs = Math.round(timing.networkMs);
  timing.backgroundMs = Math.round(timing.backgroundMs);
  rmSync(folder, { recursive: true, force: true });
  return timing;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The lines the console and index.html show. */
export function timingLines(timing: RunTiming): string[] {
  const mean = timing.calls > 0 ? ` (${Math.round(timing.networkMs / timing.calls)} ms a call)` : '';
  const completions = Object.entries(timing.firstCompletions).map(([kind, ms]) => `${kind} ${seconds(ms)}`).join(', ');
  return [
    `concurrency: ${timing.workers} worker${timing.workers === 1 ? '' : 's'}: ${timing.workersReason}`,
    `waited for the network: ${seconds(timing.networkMs)} over ${timing.calls} calls${mean}, summed over workers`,
    `waited for background work: ${seconds(timing.backgroundMs)} in ${timing.backgroundWaits} polls, summed over workers${completions === '' ? '' : `; quickest completions: ${completions}`}`,
  ];
}
