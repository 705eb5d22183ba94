// A run that ends with its longest chain (issue 42): the tests an earlier run shows longest, and those
// tagged @background-chain, are queued first, in the same workers. The order is a choice of schedule,
// never of verdicts: the same selection run in file order and then longest first gives every test
// the same verdict, each test runs once, no worker process is started again, and the longest is the
// first to start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results, TestRecord } from '../../report/results.ts';
import { orderBySchedule, scheduleKey, scheduleOf, type SchedulableSuite, type SchedulableTest } from '../../report/schedule.ts';
import { BACKGROUND_CHAIN_TAG } from '../../suites/support/run-context.ts';
import { runDxs } from './helpers.ts';

const record = (file: string, title: string, durationMs: number, verdict: TestRecord['verdict'] = 'passed'): TestRecord =>
  ({ id: `${file}:${title}`, title, file, titlePath: [title], area: 'tokens', requirements: [], tags: [], status: 'passed', verdict, durationMs, annotations: [], checks: [], requirementVerdicts: {} }) as TestRecord;

test('the schedule of an earlier run: its tests of a second or more, longest first, skipped ones left out', () => {
  const tests = [
    record('contract/a.spec.ts', 'short', 200),
    record('scenarios/send.spec.ts', 'a document followed through its statuses', 12_000),
    record('contract/b.spec.ts', 'a third as long', 4000),
    record('contract/d.spec.ts', 'skipped but long', 20_000, 'skipped'),
    record('contract/e.spec.ts', 'just a second', 1000),
  ];
  assert.deepEqual(scheduleOf({ tests }).map((entry) => [entry.file, entry.titlePath, entry.durationMs]), [
    ['scenarios/send.spec.ts', ['a document followed through its statuses'], 12_000],
    ['contract/b.spec.ts', ['a third as long'], 4000],
    ['contract/e.spec.ts', ['just a second'], 1000],
  ]);
  assert.deepEqual(scheduleOf({ tests: [record('contract/a.spec.ts', 'short', 900)] }), []);
  // Bounded: the schedule travels in the workers' environment.
  const many = Array.from({ length: 300 }, (_, index) => record('contract/many.spec.ts', `test ${index}`, 1000 + index));
  assert.equal(scheduleOf({ tests: many }).length, 120);
  assert.equal(scheduleOf({ tests: many })[0].durationMs, 1299);
});

interface FakeTest extends SchedulableTest {
  file: string;
  titlePath: string[];
}
interface FakeSuite extends SchedulableSuite<FakeTest> {
  title: string;
}
const fakeTest = (file: string, titlePath: string[], tags: string[] = []): FakeTest => ({ file, titlePath, tags });
const fakeSuite = (title: string, entries: Array<FakeSuite | FakeTest>): FakeSuite => ({ title, entries: () => entries });
const keyOf = (test: FakeTest): string => scheduleKey(test.file, test.titlePath);
/** The queue Playwright would make: every test, depth first, in the entries' order. */
const queue = (suite: FakeSuite): string[] => suite.entries().flatMap((entry) => ('entries' in entry ? queue(entry as FakeSuite) : [keyOf(entry)]));

function project(): FakeSuite {
  return fakeSuite('', [
    fakeSuite('contract/a.spec.ts', [fakeTest('contract/a.spec.ts', ['a1']), fakeTest('contract/a.spec.ts', ['a2'])]),
    fakeSuite('contract/b.spec.ts', [
      fakeTest('contract/b.spec.ts', ['b1']),
      fakeSuite('a block', [fakeTest('contract/b.spec.ts', ['a block', 'b2']), fakeTest('contract/b.spec.ts', ['a block', 'b3'])]),
    ]),
    fakeSuite('scenarios/c.spec.ts', [fakeTest('scenarios/c.spec.ts', ['c1']), fakeTest('scenarios/c.spec.ts', ['c2'], [BACKGROUND_CHAIN_TAG])]),
    fakeSuite('security/d.spec.ts', [fakeTest('security/d.spec.ts', ['d1'])]),
  ]);
}

test('the queue: a file as early as its longest test (of two as long, the one longer on average first), the longest first within it, the rest in file order', () => {
  const suite = project();
  const first = orderBySchedule(suite, [
    { file: 'contract/b.spec.ts', titlePath: ['a block', 'b3'], durationMs: 9000 },
    { file: 'security/d.spec.ts', titlePath: ['d1'], durationMs: 3000 },
    { file: 'contract/a.spec.ts', titlePath: ['a2'], durationMs: 1500 },
  ], keyOf);
  // c2 is tagged and untimed: it weighs as the longest timed test, b3; as long as b, c is longer on average (one short file mate, not two).
  assert.deepEqual(queue(suite), [
    'scenarios/c.spec.ts › c2', 'scenarios/c.spec.ts › c1',
    'contract/b.spec.ts › a block › b3', 'contract/b.spec.ts › a block › b2', 'contract/b.spec.ts › b1',
    'security/d.spec.ts › d1',
    'contract/a.spec.ts › a2', 'contract/a.spec.ts › a1',
  ]);
  assert.deepEqual(first.map(keyOf), ['scenarios/c.spec.ts › c2', 'contract/b.spec.ts › a block › b3', 'security/d.spec.ts › d1', 'contract/a.spec.ts › a2']);
});

test('with no earlier run the tagged tests go first; with neither, nothing moves', () => {
  const tagged = project();
  assert.deepEqual(orderBySchedule(tagged, [], keyOf).map(keyOf), ['scenarios/c.spec.ts › c2']);
  assert.deepEqual(queue(tagged).slice(0, 2), ['scenarios/c.spec.ts › c2', 'scenarios/c.spec.ts › c1']);
  assert.deepEqual(queue(tagged).slice(2), ['contract/a.spec.ts › a1', 'contract/a.spec.ts › a2', 'contract/b.spec.ts › b1', 'contract/b.spec.ts › a block › b2', 'contract/b.spec.ts › a block › b3', 'security/d.spec.ts › d1']);
  // Of two files as long, the one whose tests are longer on average goes first: its file mates hold fewer workers.
  const twice = fakeSuite('', [
    fakeSuite('contract/one.spec.ts', [fakeTest('contract/one.spec.ts', ['short']), fakeTest('contract/one.spec.ts', ['o1'], [BACKGROUND_CHAIN_TAG])]),
    fakeSuite('scenarios/two.spec.ts', [fakeTest('scenarios/two.spec.ts', ['t1'], [BACKGROUND_CHAIN_TAG]), fakeTest('scenarios/two.spec.ts', ['t2'], [BACKGROUND_CHAIN_TAG])]),
  ]);
  orderBySchedule(twice, [], keyOf);
  assert.deepEqual(queue(twice), ['scenarios/two.spec.ts › t1', 'scenarios/two.spec.ts › t2', 'contract/one.spec.ts › o1', 'contract/one.spec.ts › short']);
  const untagged = fakeSuite('', [fakeSuite('x.spec.ts', [fakeTest('x.spec.ts', ['x1']), fakeTest('x.spec.ts', ['x2'])]), fakeSuite('y.spec.ts', [fakeTest('y.spec.ts', ['y1'])])]);
  assert.deepEqual(orderBySchedule(untagged, [], keyOf), []);
  assert.deepEqual(queue(untagged), ['x.spec.ts › x1', 'x.spec.ts › x2', 'y.spec.ts › y1']);
});

const stable = (test: TestRecord): string => `${test.file} › ${test.titlePath.join(' › ')}`;

test('the same selection in file order and longest first: the same tests, each once, with the same verdicts, in the same workers', { timeout: 360_000 }, async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-schedule-'));
  try {
    const fileOrder = join(directory, 'file-order');
    const longestFirst = join(directory, 'longest-first');
    const args = ['test', '--area', 'tokens', '--workers', '2'];
    const first = await runDxs([...args, '--schedule-from', 'none', '--report-dir', fileOrder], { timeoutMs: 120_000 });
    assert.equal(first.code, 0, first.stderr.slice(-2000));
    assert.doesNotMatch(first.stderr, /schedule:/);
    const second = await runDxs([...args, '--schedule-from', fileOrder, '--report-dir', longestFirst], { timeoutMs: 120_000 });
    assert.equal(second.code, 0, second.stderr.slice(-2000));
    assert.match(second.stderr, /schedule: the longest tests first: those tagged @background-chain, then by .*'s durations \(\d+ tests? of 1 s or more, the longest \d+\.\d s\)/);
    const [before, after] = [fileOrder, longestFirst].map((folder) => JSON.parse(readFileSync(join(folder, 'results.json'), 'utf8')) as Results);
    const verdicts = (results: Results): Array<[string, string]> => results.tests.map((test): [string, string] => [stable(test), test.verdict]).sort(([a], [b]) => a.localeCompare(b));
    assert.equal(new Set(after.tests.map(stable)).size, after.tests.length, 'each test ran once');
    assert.deepEqual(verdicts(after), verdicts(before));
    // The report lists the tests in file order, whatever order they ran in.
    assert.deepEqual(after.tests.map(stable), before.tests.map(stable));
    assert.equal(before.timeline?.scheduledFirst, undefined, 'file order queues nothing first');
    const scheduled = after.timeline?.scheduledFirst ?? [];
    assert.ok(scheduled.length > 0, 'the run names the tests it queued first');
    const rows = (after.timeline?.rows ?? []).filter((row) => typeof row.worker === 'number');
    // One process a slot: the order costs no worker a second start.
    assert.deepEqual(rows.map((row) => row.processes), rows.map(() => 1));
    // The first slot takes the head of the queue: the longest test.
    const firstOfSlot0 = rows.find((row) => row.worker === 0)?.events.find((event) => event.kind === 'test')?.testId;
    const started = after.tests.find((test) => test.id === firstOfSlot0);
    assert.equal(started === undefined ? undefined : stable(started), scheduled[0]);
    // A shard keeps the file order: every shard must cut the same queue.
    const shard = join(directory, 'shard');
    const sharded = await runDxs([...args, '--shard', '1/2', '--schedule-from', fileOrder, '--report-dir', shard], { timeoutMs: 120_000 });
    assert.equal(sharded.code, 0, sharded.stderr.slice(-2000));
    assert.match(sharded.stderr, /schedule: file order under --shard/);
    const shardResults = JSON.parse(readFileSync(join(shard, 'results.json'), 'utf8')) as Results;
    assert.equal(shardResults.timeline?.scheduledFirst, undefined);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
