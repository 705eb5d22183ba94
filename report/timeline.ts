// The timeline of a run (issue 42): where a run's wall time went, worker by worker. The reporter
// records when each test ran, on which worker, and the fixtures its setup waited for; `dxs test`
// adds its own phases (the start before Playwright, the cleanup after). Laid out here, pure, into
// rows of phases that never overlap inside a worker, with the idle gaps named, and the critical
// path: the chain that ended last, which bounds the run's wall time. index.html draws it
// (report/timeline-html.ts); results.json keeps it as `timeline`.
import type { Verdict } from '../lib/run-record.ts';

export type TimelineKind = 'startup' | 'fixture' | 'test' | 'cleanup' | 'idle';

export interface TimelineEvent {
  kind: TimelineKind;
  name: string;
  /** Milliseconds from the run's start (the dxs command's). */
  startMs: number;
  endMs: number;
  /** A test's verdict. */
  verdict?: Verdict;
  /** Playwright's id of the test (of a test's fixtures too: the test whose setup they were part of). */
  testId?: string;
}

export interface TimelineRow {
  /** The worker's slot (Playwright's parallelIndex), 'run' for the phases of dxs itself, 'setup' for the run's setup it makes for the workers. */
  worker: number | 'run' | 'setup';
  label: string;
  events: TimelineEvent[];
  /** Worker processes that ran in this slot: more than one where a worker was replaced. */
  processes?: number;
}

export interface RunTimeline {
  /** The run's wall time as far as it was recorded (the last event's end once dxs has added its phases). */
  wallMs: number;
  rows: TimelineRow[];
  /** The tests queued first (file › titles), longest first: timed by an earlier run or tagged @background-chain (report/schedule.ts). */
  scheduledFirst?: string[];
}

/** One test as the reporter saw it, with the fixtures its setup waited for. */
export interface RecordedTest {
  testId: string;
  name: string;
  verdict: Verdict;
  /** Playwright's parallelIndex: the row. */
  worker: number;
  /** Playwright's workerIndex: a new one in a slot is a new process. */
  process: number;
  startMs: number;
  endMs: number;
  fixtures: ReadonlyArray<{ name: string; startMs: number; endMs: number }>;
}

export interface RecordedRun {
  /** When Playwright began running tests (its reporter's onBegin) and when it ended (onEnd). */
  beganMs: number;
  endedMs: number;
  tests: readonly RecordedTest[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Lays out what the reporter recorded: a row for dxs's start, and one per worker with its start-up, fixtures, tests and idle gaps. */
export function layoutTimeline(recorded: RecordedRun): RunTimeline {
  const run: TimelineRow = {
    worker: 'run',
    label: 'dxs',
    events: recorded.beganMs > 0 ? [{ kind: 'startup', name: 'Playwright starts and loads the suites', startMs: 0, endMs: recorded.beganMs }] : [],
  };
  const bySlot = new Map<number, RecordedTest[]>();
  for (const test of recorded.tests) {
    // A test that never ran (skipped before it began, interrupted) has no time of its own.
    if (test.endMs <= test.startMs && test.fixtures.length === 0) continue;
    const list = bySlot.get(test.worker) ?? [];
    list.push(test);
    bySlot.set(test.worker, list);
  }
  const rows: TimelineRow[] = [];
  for (const worker of [...bySlot.keys()].sort((a, b) => a - b)) {
    const tests = [...(bySlot.get(worker) ?? [])].sort((a, b) => a.startMs - b.startMs);
    const events: TimelineEvent[] = [];
    let cursor = recorded.beganMs;
    let process: number | undefined;
    const processes = new Set<number>();
    for (const test of tests) {
      const start = Math.max(cursor, test.startMs);
      if (start > cursor) {
        // Before a worker's first test, and where a slot's process was replaced, the gap is a process starting.
        const starting = process !== test.process;
        events.push({ kind: starting ? 'startup' : 'idle', name: starting ? `worker process ${test.process} starting` : 'between two tests: Playwright hands the worker its next one', startMs: cursor, endMs: start });
      }
      process = test.process;
      processes.add(test.process);
      let at = start;
      for (const fixture of [...test.fixtures].sort((a, b) => a.startMs - b.startMs)) {
        // Contiguous: what Playwright does before a fixture's own step (the hooks, the next fixture) is setup too.
        const fixtureStart = at;
        const fixtureEnd = Math.min(Math.max(fixtureStart, fixture.endMs), Math.max(test.endMs, fixtureStart));
        if (fixtureEnd <= fixtureStart) continue;
        events.push({ kind: 'fixture', name: `${fixture.name} (setup of: ${test.name})`, startMs: fixtureStart, endMs: fixtureEnd, testId: test.testId });
        at = fixtureEnd;
      }
      const end = Math.max(at, test.endMs);
      events.push({ kind: 'test', name: test.name, startMs: at, endMs: end, verdict: test.verdict, testId: test.testId });
      cursor = end;
    }
    if (recorded.endedMs > cursor) events.push({ kind: 'idle', name: 'idle: waiting for the other workers to finish (and this one to stop)', startMs: cursor, endMs: recorded.endedMs });
    rows.push({ worker, label: `worker ${worker}`, events, processes: processes.size });
  }
  return { wallMs: Math.max(recorded.endedMs, ...rows.map((row) => row.events.at(-1)?.endMs ?? 0)), rows: [run, ...rows] };
}

/**
 * dxs's own phases on the run's row (its start before Playwright, its reports and cleanup after);
 * an earlier phase of the row is cut where a new one covers it, so the row never overlaps itself.
 * The wall time ends with the last.
 */
export function addRunPhases(timeline: RunTimeline, phases: ReadonlyArray<Omit<TimelineEvent, 'verdict' | 'testId'>>): RunTimeline {
  const rows = timeline.rows.map((row) => {
    if (row.worker !== 'run') return row;
    const added = phases.filter((phase) => phase.endMs > phase.startMs);
    const kept = row.events.map((event) => {
      let startMs = event.startMs;
      for (const phase of added) if (phase.startMs <= startMs && phase.endMs > startMs) startMs = phase.endMs;
      return { ...event, startMs };
    });
    const events = [...kept, ...added].filter((event) => event.endMs > event.startMs).sort((a, b) => a.startMs - b.startMs);
    return { ...row, events };
  });
  const wallMs = Math.max(timeline.wallMs, ...phases.map((phase) => phase.endMs));
  return { ...timeline, wallMs, rows };
}

/**
 * The run's setup (suites/support/run-setup.ts) as a row of its own under dxs's: the companies and
 * settings it made for the workers while they started, which their fixtures then found made.
 */
export function addRunSetupRow(timeline: RunTimeline, setup: { name: string; startMs: number; endMs: number }): RunTimeline {
  if (setup.endMs <= setup.startMs) return timeline;
  const row: TimelineRow = { worker: 'setup', label: 'run setup', events: [{ kind: 'fixture', name: setup.name, startMs: setup.startMs, endMs: setup.endMs }] };
  const at = timeline.rows.findIndex((candidate) => candidate.worker === 'run') + 1;
  return { ...timeline, wallMs: Math.max(timeline.wallMs, setup.endMs), rows: [...timeline.rows.slice(0, at), row, ...timeline.rows.slice(at)] };
}

export interface CriticalPath {
  /** The worker whose chain ended last. */
  worker: number;
  /** When its last busy phase ended. */
  endMs: number;
  wallMs: number;
  /** dxs's start, the worker's phases in order (its idle end left out), dxs's phases after. */
  events: TimelineEvent[];
  /** Milliseconds of the chain by kind. */
  byKind: Record<TimelineKind, number>;
  /** The busy part of the chain (idle gaps left out) over the wall time, 0 to 1. */
  share: number;
  /** The longest test on the chain. */
  longestTest?: TimelineEvent;
  /** Summed over every worker: time idle after its last test, waiting for the chain to end. */
  idleAtEndMs: number;
}

/**
 * The chain that ended last: dxs's start, then the worker whose last test ended last, phase by
 * phase (inside a worker each phase waits for the one before), then dxs's phases after
 * Playwright. Undefined when no test ran.
 */
export function criticalPath(timeline: RunTimeline): CriticalPath | undefined {
  const busy = (row: TimelineRow): TimelineEvent[] => {
    const events = [...row.events];
    while (events.length > 0 && events.at(-1)?.kind === 'idle') events.pop();
    return events;
  };
  let last: { row: TimelineRow; events: TimelineEvent[]; endMs: number } | undefined;
  let idleAtEndMs = 0;
  for (const row of timeline.rows) {
    if (typeof row.worker !== 'number') continue;
    const events = busy(row);
    idleAtEndMs += row.events.slice(events.length).reduce((sum, event) => sum + (event.endMs - event.startMs), 0);
    const endMs = events.at(-1)?.endMs;
    if (endMs !== undefined && (last === undefined || endMs > last.endMs)) last = { row, events, endMs };
  }
  if (last === undefined || typeof last.row.worker !== 'number') return undefined;
  const runRow = timeline.rows.find((row) => row.worker === 'run');
  const firstStart = last.events[0]?.startMs ?? 0;
  const before = (runRow?.events ?? []).filter((event) => event.endMs <= firstStart);
  const after = (runRow?.events ?? []).filter((event) => event.startMs >= last.endMs);
  const events = [...before, ...last.events, ...after];
  const byKind: Record<TimelineKind, number> = { startup: 0, fixture: 0, test: 0, cleanup: 0, idle: 0 };
  for (const event of events) byKind[event.kind] += event.endMs - event.startMs;
  const busyMs = events.filter((event) => event.kind !== 'idle').reduce((sum, event) => sum + (event.endMs - event.startMs), 0);
  const tests = events.filter((event) => event.kind === 'test');
  const longestTest = tests.reduce<TimelineEvent | undefined>((longest, event) => (longest === undefined || event.endMs - event.startMs > longest.endMs - longest.startMs ? event : longest), undefined);
  return { worker: last.row.worker, endMs: last.endMs, wallMs: timeline.wallMs, events, byKind, share: timeline.wallMs > 0 ? busyMs / timeline.wallMs : 0, longestTest, idleAtEndMs };
}

const percent = (part: number, whole: number): string => `${whole > 0 ? Math.round((100 * part) / whole) : 0} %`;

/** The critical path in one sentence, for the console and under the picture. */
export function criticalPathLine(path: CriticalPath): string {
  const parts = (['startup', 'fixture', 'test', 'idle', 'cleanup'] as const)
    .filter((kind) => path.byKind[kind] > 0)
    .map((kind) => `${{ startup: 'start-up', fixture: 'fixtures', test: 'tests', idle: 'idle', cleanup: 'reports and cleanup' }[kind]} ${seconds(path.byKind[kind])} (${percent(path.byKind[kind], path.wallMs)})`);
  const longest = path.longestTest === undefined ? '' : `; its longest test: ${path.longestTest.name} (${seconds(path.longestTest.endMs - path.longestTest.startMs)})`;
  return `critical path: worker ${path.worker}, the chain that ended last (its last test at ${seconds(path.endMs)} of ${seconds(path.wallMs)}), busy ${percent(path.share * path.wallMs, path.wallMs)} of the wall time: ${parts.join(', ')}${longest}; the other workers waited ${seconds(path.idleAtEndMs)} for it in all`;
}

/** Where the workers' time went, per worker on average: the lines a bench prints beside its floor. */
export interface WorkerTimeSummary {
  workers: number;
  startupMs: number;
  fixtureMs: number;
  testMs: number;
  /** Gaps between two tests of a worker (Playwright handing it the next one). */
  betweenTestsMs: number;
  /** A worker's idle end, after its last test. */
  idleAtEndMs: number;
}

export function workerTimeSummary(timeline: RunTimeline): WorkerTimeSummary {
  const rows = timeline.rows.filter((row) => typeof row.worker === 'number');
  const sum = { startupMs: 0, fixtureMs: 0, testMs: 0, betweenTestsMs: 0, idleAtEndMs: 0 };
  for (const row of rows) {
    row.events.forEach((event, index) => {
      const ms = event.endMs - event.startMs;
      if (event.kind === 'startup') sum.startupMs += ms;
      else if (event.kind === 'fixture') sum.fixtureMs += ms;
      else if (event.kind === 'test') sum.testMs += ms;
      else if (event.kind === 'idle') sum[index === row.events.length - 1 ? 'idleAtEndMs' : 'betweenTestsMs'] += ms;
    });
  }
  const mean = (ms: number): number => (rows.length === 0 ? 0 : Math.round(ms / rows.length));
  return { workers: rows.length, startupMs: mean(sum.startupMs), fixtureMs: mean(sum.fixtureMs), testMs: mean(sum.testMs), betweenTestsMs: mean(sum.betweenTestsMs), idleAtEndMs: mean(sum.idleAtEndMs) };
}

/** One line: a worker's time on average, by kind. */
export function workerTimeLine(summary: WorkerTimeSummary): string {
  return `a worker's time on average (${summary.workers} workers): start-up ${seconds(summary.startupMs)}, fixtures ${seconds(summary.fixtureMs)}, tests ${seconds(summary.testMs)}, between tests ${seconds(summary.betweenTestsMs)}, idle at the end ${seconds(summary.idleAtEndMs)}`;
}

export const TIMELINE_KIND_LABEL: Record<TimelineKind, string> = { startup: 'start-up', fixture: 'fixture setup', test: 'test', cleanup: 'reports and cleanup', idle: 'idle' };
