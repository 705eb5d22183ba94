// Where a worker's time went (issue 27): how many calls it made and how long it waited for their
// answers (the network and the target), and how long it waited for background work (polls until a
// state is reached). Each worker writes its figures to a file of the run when it stops; `dxs test`
// adds them up into results.json (report/timing.ts). The first completions also tell the polls how
// fast this target's background work is, so later polls wait about that long before asking.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkerTiming } from '../../report/timing.ts';
import type { RunContext } from './run-context.ts';

export const TIMING_FOLDER = '.dxs-timing';

const figures: WorkerTiming = { calls: 0, networkMs: 0, backgroundWaits: 0, backgroundMs: 0, firstCompletions: {} };

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return Math.round((usage.user + usage.system) / 1000);
};

/** When the worker's first fixture is set up: what starting the worker cost (Playwright, loading the suites). */
export function recordWorkerStarted(): void {
  figures.startupCpuMs = cpuMs();
}

/** One answered call (or one that got no answer): its round trip. */
export function recordCall(durationMs: number): void {
  figures.calls++;
  figures.networkMs += durationMs;
}

/** Time spent in a poll for background work, and, when it was reached, how long that took. */
export function recordBackgroundWait(kind: string, waitedMs: number, reached: boolean): void {
  figures.backgroundWaits++;
  figures.backgroundMs += waitedMs;
  if (reached) {
    const seen = figures.firstCompletions[kind];
    figures.firstCompletions[kind] = seen === undefined ? waitedMs : Math.min(seen, waitedMs);
  }
}

/** How long the background work of this kind took the quickest time this worker saw it done. */
export function quickestCompletion(kind: string): number | undefined {
  return figures.firstCompletions[kind];
}

function writeFigures(context: RunContext, name: string, extra: Partial<WorkerTiming>): void {
  try {
    const folder = join(context.reportDir, TIMING_FOLDER);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${name}-${process.pid}.json`), JSON.stringify({ ...figures, ...extra }));
  } catch {
    // The figures are for the report's reading; a run is not failed for them.
  }
}

/** Writes this worker's figures (once, when it stops): a file per worker process, never shared. */
export function writeWorkerTiming(context: RunContext, workerIndex: number): void {
  writeFigures(context, `worker-${workerIndex}`, { cpuMs: cpuMs(), rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) });
}

/** The run's setup's figures (run-setup.ts), from the dxs test process: its calls, not a worker process. */
export function writeSetupTiming(context: RunContext): void {
  writeFigures(context, 'run-setup', { setup: true });
}

/** The kinds of background work whose completions pace later polls; any other wait is 'other'. */
const KINDS: Array<[RegExp, string]> = [
  [/reaching Status Registered/, 'registration'],
  [/^document .* reaching/, 'document status'],
  [/arriving in the inbox/, 'inbox delivery'],
  [/provider A .*Completed/, 'provider A'],
];

export function backgroundKind(description: string): string {
  return KINDS.find(([pattern]) => pattern.test(description))?.[1] ?? 'other';
}

/** When the running test began and how long Playwright gives it (its timeout). */
export interface TestTime {
  timeoutMs: number;
  startedAt: number;
}

/** What a wait inside a test leaves of the test's own time: for the checks after it and the teardown. */
const TEST_TIME_RESERVE_MS = 5000;
const TEST_TIME_RESERVE_SHARE = 0.15;

/**
 * How long a poll starting at `now` may wait: the async timeout, or less where the running test's
 * own time would run out first (a test awaiting several things on a slow or loaded machine), less a
 * reserve for what follows. `byTest` says the test's time is the bound: a prerequisite cut short by
 * it is blocked with that as its cause (issue 36), never left to Playwright's timeout, which would
 * read as a failure of the target.
 */
export function waitBound(asyncTimeoutMs: number, test: TestTime | undefined, now: number): { ms: number; byTest: boolean } {
  if (test === undefined || test.timeoutMs <= 0) return { ms: asyncTimeoutMs, byTest: false };
  const reserve = Math.max(TEST_TIME_RESERVE_MS, test.timeoutMs * TEST_TIME_RESERVE_SHARE);
  const left = Math.max(0, test.startedAt + test.timeoutMs - reserve - now);
  return left < asyncTimeoutMs ? { ms: left, byTest: true } : { ms: asyncTimeoutMs, byTest: false };
}

const FIRST_WAIT_MS = 50;
/** The longest wait between two attempts: a bounded backoff, so a completion is seen within about this. */
const MAX_WAIT_MS = 1000;
/**
 * Before this target has shown a completion of a kind, and for waits of no known kind (a token
 * being refused, a change showing): the backoff of before, 50 ms doubling to 1 s. A wait that runs
 * to the async timeout (a fault) then makes no more calls than it did.
 */
const UNPACED_MAX_WAIT_MS = MAX_WAIT_MS;

/**
 * The wait before the next attempt of a poll, `elapsed` ms after its first, `waits` waits in.
 * Until this worker has seen the kind of work done, the wait grows from 50 ms to 1 s. Once it
 * has, the poll sleeps through most of the quickest completion seen (less half a round trip, as
 * the next call reaches the target that much later) and then asks at a tenth of it, growing to
 * at most 1 s: fewer calls on a slow target, no slower on a fast one.
 */
export function nextPollWait(kind: string, elapsed: number, waits: number, latencyMs = 0): number {
  const quickest = kind === 'other' ? undefined : quickestCompletion(kind);
  if (quickest === undefined) return Math.min(FIRST_WAIT_MS * 2 ** waits, UNPACED_MAX_WAIT_MS);
  const ahead = quickest * 0.85 - latencyMs / 2 - elapsed;
  if (ahead > FIRST_WAIT_MS) return ahead;
  const step = Math.min(Math.max(FIRST_WAIT_MS, quickest / 10), MAX_WAIT_MS);
  return Math.min(step * 1.5 ** Math.max(0, waits - 1), MAX_WAIT_MS);
}
