// The timeline of a run (issue 42), on a small recorded run: two worker slots, one of whose
// processes was replaced, tests with the fixtures they waited for, and dxs's own phases around
// Playwright. Phases come in order per worker and never overlap inside one, the gaps are named,
// and the critical path is the chain that ended last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureSpans, testEndMs } from '../../report/playwright-reporter.ts';
import { addRunSetupRow, addRunPhases, criticalPath, criticalPathLine, layoutTimeline, workerTimeLine, workerTimeSummary, type RecordedRun, type RunTimeline } from '../../report/timeline.ts';
import { renderTimeline } from '../../report/timeline-html.ts';

const recorded: RecordedRun = {
  beganMs: 1000,
  endedMs: 9000,
  tests: [
    // Worker 0: a registration waited for, then a test; then a second test after a hand-over gap.
    { testId: 'a', name: 'companies › a registered company has a token', verdict: 'passed', worker: 0, process: 0, startMs: 2000, endMs: 5000, fixtures: [{ name: 'registeredCompanyOutcome', startMs: 2100, endMs: 4000 }] },
    { testId: 'b', name: 'tokens › a token is refused', verdict: 'failed', worker: 0, process: 0, startMs: 5200, endMs: 6000, fixtures: [] },
    // Worker 1: its first test, then a new process (the first one stopped), then the test that ends last.
    { testId: 'c', name: 'conventions › gzip', verdict: 'info', worker: 1, process: 1, startMs: 1800, endMs: 2500, fixtures: [] },
    { testId: 'd', name: 'send and deliver › a document followed through its statuses', verdict: 'passed', worker: 1, process: 2, startMs: 3500, endMs: 8500, fixtures: [{ name: 'outboundRecipientOutcome', startMs: 3400, endMs: 4500 }, { name: 'b2cSenderOutcome', startMs: 4200, endMs: 5000 }] },
    // Never ran: no time of its own.
    { testId: 'e', name: 'not run', verdict: 'skipped', worker: 0, process: 0, startMs: 0, endMs: 0, fixtures: [] },
  ],
};

function laidOut(): RunTimeline {
  return addRunPhases(layoutTimeline(recorded), [
    { kind: 'startup', name: 'dxs starts', startMs: 0, endMs: 400 },
    { kind: 'cleanup', name: 'Playwright writes its reports', startMs: 9000, endMs: 9400 },
    { kind: 'cleanup', name: 'the cleanup', startMs: 9400, endMs: 10_000 },
  ]);
}

test('each worker row holds its phases in order, never overlapping, with its gaps named', () => {
  const timeline = laidOut();
  assert.equal(timeline.wallMs, 10_000);
  assert.deepEqual(timeline.rows.map((row) => row.label), ['dxs', 'worker 0', 'worker 1']);
  for (const row of timeline.rows) {
    for (let index = 0; index < row.events.length; index++) {
      const event = row.events[index];
      assert.ok(event.endMs > event.startMs, `${row.label}: ${event.name} has a length`);
      if (index > 0) assert.ok(event.startMs >= row.events[index - 1].endMs, `${row.label}: ${event.name} starts after ${row.events[index - 1].name} ends`);
    }
  }
  const [run, first, second] = timeline.rows;
  // dxs's start before Playwright, Playwright's loading cut to begin where it ends, the phases after.
  assert.deepEqual(run.events.map((event) => [event.kind, event.startMs, event.endMs]), [['startup', 0, 400], ['startup', 400, 1000], ['cleanup', 9000, 9400], ['cleanup', 9400, 10_000]]);
  assert.deepEqual(first.events.map((event) => [event.kind, event.startMs, event.endMs]), [
    ['startup', 1000, 2000],
    // Its setup from the test's start: the moments before the fixture's own step are setup too.
    ['fixture', 2000, 4000],
    ['test', 4000, 5000],
    ['idle', 5000, 5200],
    ['test', 5200, 6000],
    ['idle', 6000, 9000],
  ]);
  assert.equal(first.events[2].verdict, 'passed');
  assert.equal(first.events[4].verdict, 'failed');
  assert.match(first.events[3].name, /between two tests/);
  assert.match(first.events[5].name, /waiting for the other workers/);
  // The replaced process: the gap before its first test is a start, not idle time; its fixtures never overlap.
  assert.equal(second.processes, 2);
  assert.deepEqual(second.events.map((event) => [event.kind, event.startMs, event.endMs]), [
    ['startup', 1000, 1800],
    ['test', 1800, 2500],
    ['startup', 2500, 3500],
    ['fixture', 3500, 4500],
    ['fixture', 4500, 5000],
    ['test', 5000, 8500],
    ['idle', 8500, 9000],
  ]);
  assert.match(second.events[3].name, /outboundRecipientOutcome \(setup of: send and deliver/);
});

test('the critical path is the chain that ended last, with its share of the wall time', () => {
  const path = criticalPath(laidOut());
  assert.ok(path !== undefined);
  assert.equal(path.worker, 1);
  assert.equal(path.endMs, 8500);
  // dxs's start, the worker's phases without its idle end, dxs's phases after Playwright.
  assert.deepEqual(path.events.map((event) => event.kind), ['startup', 'startup', 'startup', 'test', 'startup', 'fixture', 'fixture', 'test', 'cleanup', 'cleanup']);
  assert.deepEqual(path.byKind, { startup: 2800, fixture: 1500, test: 4200, cleanup: 1000, idle: 0 });
  assert.equal(path.share, 0.95);
  assert.equal(path.longestTest?.testId, 'd');
  // Worker 0 waited 3 s at its end, worker 1 0.5 s.
  assert.equal(path.idleAtEndMs, 3500);
  assert.match(criticalPathLine(path), /^critical path: worker 1, .*8\.5 s of 10\.0 s.*busy 95 %.*fixtures 1\.5 s \(15 %\).*a document followed through its statuses \(3\.5 s\)/);
  assert.equal(criticalPath(layoutTimeline({ beganMs: 10, endedMs: 20, tests: [] })), undefined);
});

test("a worker's time on average, by kind, tells the gaps between tests from the idle end", () => {
  const summary = workerTimeSummary(laidOut());
  // Worker 0: start 1000, fixture 2000, tests 1800, a gap of 200, idle end 3000; worker 1: start 1800, fixtures 1500, tests 4200, idle end 500.
  assert.deepEqual(summary, { workers: 2, startupMs: 1400, fixtureMs: 1750, testMs: 3000, betweenTestsMs: 100, idleAtEndMs: 1750 });
  assert.equal(workerTimeLine(summary), "a worker's time on average (2 workers): start-up 1.4 s, fixtures 1.8 s, tests 3.0 s, between tests 0.1 s, idle at the end 1.8 s");
});

test('the picture has a row per worker and one for dxs, a titled bar per phase, a legend and the critical path', () => {
  const timeline = laidOut();
  const html = renderTimeline(timeline);
  assert.equal([...html.matchAll(/<g class="timeline-row/g)].length, 3);
  assert.match(html, /data-worker="1"/);
  assert.match(html, /<g class="timeline-row critical" data-worker="1">/);
  assert.equal([...html.matchAll(/<rect class="bar /g)].length, timeline.rows.reduce((sum, row) => sum + row.events.length, 0));
  assert.match(html, /<title>failed: tokens › a token is refused: 0\.80 s \(from 5\.20 s to 6\.00 s\)<\/title>/);
  assert.match(html, /class="legend legend-fixture"/);
  assert.match(html, /id="critical-path"/);
  assert.doesNotMatch(html, /id="scheduled-first"/);
  assert.equal(renderTimeline(undefined), '');
});

test('the tests queued first are named under the picture, the first five and a count of the others', () => {
  const names = Array.from({ length: 7 }, (_, index) => `scenarios/send-and-deliver.spec.ts › a <document> ${index}`);
  const html = renderTimeline({ ...laidOut(), scheduledFirst: names });
  assert.match(html, /<div id="scheduled-first"><p>Queued first, longest first [^<]*: 7 tests<\/p><ol><li>scenarios\/send-and-deliver\.spec\.ts › a &lt;document&gt; 0<\/li>/);
  assert.equal([...html.matchAll(/<li>scenarios/g)].length, 5);
  assert.match(html, /<\/ol><p class="muted">and 2 more \(results\.json, timeline\.scheduledFirst\)<\/p>/);
});

test('the fixtures of a test are its outermost fixture steps of the before hooks, long enough to show', () => {
  const at = (ms: number): Date => new Date(1_000_000 + ms);
  type Step = Parameters<typeof fixtureSpans>[0][number];
  const step = (title: string, category: string, startMs: number, duration: number, steps: Step[] = []): Step => ({ title, category, startTime: at(startMs), duration, steps }) as unknown as Step;
  const steps = [
    step('Before Hooks', 'hook', 0, 900, [
      step('Fixture "request"', 'fixture', 0, 5),
      step('Fixture "registeredCompanyOutcome"', 'fixture', 10, 800, [step('Fixture "setupApi"', 'fixture', 12, 100)]),
    ]),
    step('POST /companies/register', 'test.step', 900, 100),
    step('After Hooks', 'hook', 1000, 300, [step('Fixture "api"', 'fixture', 1000, 300)]),
  ];
  assert.deepEqual(fixtureSpans(steps, 1_000_000), [{ name: 'registeredCompanyOutcome', startMs: 10, endMs: 810 }]);
  // Playwright's duration leaves out the 800 ms of the worker fixture: the test ends with its after hooks, at 1300 ms.
  assert.equal(testEndMs({ startTime: at(0), duration: 500, steps }, 1_000_000), 1300);
  assert.equal(testEndMs({ startTime: at(0), duration: 2000, steps }, 1_000_000), 2000);
});

test("the run's setup is a row of its own under dxs's: drawn, but neither a worker nor on the critical path", () => {
  const timeline = laidOut();
  const withSetup = addRunSetupRow(timeline, { name: "the run's setup: 20 companies and settings for the first 2 workers", startMs: 400, endMs: 2600 });
  assert.deepEqual(withSetup.rows.map((row) => row.worker), ['run', 'setup', 0, 1]);
  assert.deepEqual(criticalPath(withSetup), criticalPath(timeline));
  assert.deepEqual(workerTimeSummary(withSetup), workerTimeSummary(timeline));
  const html = renderTimeline(withSetup);
  assert.match(html, /<g class="timeline-row" data-worker="setup"><text[^>]*>run setup<\/text><rect class="bar fixture"/);
  assert.equal(addRunSetupRow(timeline, { name: 'nothing', startMs: 5, endMs: 5 }), timeline, 'a setup that took no time adds no row');
});
