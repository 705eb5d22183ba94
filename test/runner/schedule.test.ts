// --schedule-from (issue 42): the earlier run's longest tests start first. The order is a choice of
// schedule, never of verdicts: the same selection run in file order and then longest first gives
// every test the same verdict, each test runs once, and the chosen ones are the first to start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results, TestRecord } from '../../report/results.ts';
import { firstTestsPattern, longestTests } from '../../report/schedule.ts';
import { runDxs } from './helpers.ts';

const record = (file: string, title: string, durationMs: number, verdict: TestRecord['verdict'] = 'passed'): TestRecord =>
  ({ id: `${file}:${title}`, title, file, titlePath: [title], area: 'tokens', requirements: [], tags: [], status: 'passed', verdict, durationMs, annotations: [], checks: [], requirementVerdicts: {} }) as TestRecord;

test('the longest tests of the earlier run: at most one per worker, long enough to be worth it, skipped ones left out', () => {
  const tests = [
    record('contract/a.spec.ts', 'short', 200),
    record('scenarios/send.spec.ts', 'a document followed through its statuses', 12_000),
    record('contract/b.spec.ts', 'a third as long', 4000),
    record('contract/c.spec.ts', 'a quarter of the longest', 3000),
    record('contract/d.spec.ts', 'skipped but long', 20_000, 'skipped'),
    record('contract/e.spec.ts', 'a fifth', 2400),
  ];
  assert.deepEqual(longestTests({ tests }, 16).map((entry) => entry.title), ['a document followed through its statuses', 'a third as long', 'a quarter of the longest']);
  assert.deepEqual(longestTests({ tests }, 2).map((entry) => entry.title), ['a document followed through its statuses', 'a third as long']);
  // Nothing long: file order.
  assert.deepEqual(longestTests({ tests: [record('contract/a.spec.ts', 'short', 900)] }, 4), []);
});

test("the chosen tests' filter matches them in Playwright's filter title, never another test", () => {
  const pattern = new RegExp(`^(?=[\\s\\S]*${firstTestsPattern([{ file: 'contract/tokens.spec.ts', title: 'a token (expired) is refused', durationMs: 3000 }])})`);
  // The root, the project, the file, the describe blocks and their tags, the title and its tags, joined by spaces.
  assert.match(' longest first contract/tokens.spec.ts client tokens a token (expired) is refused @area:tokens @TOK-11', pattern);
  assert.match(' the others contract/tokens.spec.ts a token (expired) is refused', pattern);
  assert.doesNotMatch(' the others contract/tokens.spec.ts client tokens a token (expired) is refused twice @area:tokens', pattern);
  assert.doesNotMatch(' the others contract/tokens-more.spec.ts a token (expired) is refused @area:tokens', pattern);
});

const stable = (test: TestRecord): string => `${test.file} › ${test.titlePath.join(' › ')}`;

test('the same selection in file order and longest first: the same tests, each once, with the same verdicts', { timeout: 240_000 }, async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-schedule-'));
  try {
    const fileOrder = join(directory, 'file-order');
    const longestFirst = join(directory, 'longest-first');
    const args = ['test', '--area', 'tokens', '--workers', '2'];
    const first = await runDxs([...args, '--report-dir', fileOrder], { timeoutMs: 120_000 });
    assert.equal(first.code, 0, first.stderr.slice(-2000));
    const second = await runDxs([...args, '--schedule-from', fileOrder, '--report-dir', longestFirst], { timeoutMs: 120_000 });
    assert.equal(second.code, 0, second.stderr.slice(-2000));
    assert.match(second.stderr, /schedule: \d+ tests? the earlier run shows longest start first/);
    const [before, after] = [fileOrder, longestFirst].map((folder) => JSON.parse(readFileSync(join(folder, 'results.json'), 'utf8')) as Results);
    const verdicts = (results: Results): Array<[string, string]> => results.tests.map((test): [string, string] => [stable(test), test.verdict]).sort(([a], [b]) => a.localeCompare(b));
    assert.equal(new Set(after.tests.map(stable)).size, after.tests.length, 'each test ran once');
    assert.deepEqual(verdicts(after), verdicts(before));
    // The chosen tests were queued first: the first test each worker ran was one of them, as far as there were enough.
    const chosen = new Set(after.timeline?.scheduledFirst ?? []);
    assert.ok(chosen.size > 0, 'the run names the tests it started first');
    const firstOfEachWorker = (after.timeline?.rows ?? []).filter((row) => typeof row.worker === 'number').map((row) => row.events.find((event) => event.kind === 'test')?.testId);
    const started = firstOfEachWorker.map((id) => after.tests.find((test) => test.id === id)).filter((test): test is TestRecord => test !== undefined).map((test) => `${test.file} › ${test.title}`);
    assert.equal(started.filter((name) => chosen.has(name)).length, Math.min(chosen.size, started.length), `the workers began with the chosen tests: ${started.join(' | ')}`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
