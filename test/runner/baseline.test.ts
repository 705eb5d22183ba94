// Comparing runs without Playwright: how tests are matched, what a diff holds, how a baseline and
// an expected-failures file judge a run's failures, and what the exit code, junit.xml and
// index.html make of it. All on synthetic results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDiff, runHistory, runMerge } from '../../cli/commands/report.ts';
import { ConfigError } from '../../lib/config.ts';
import { applyBaseline, diffRuns, exitCodeWithBaseline, junitView, matchTests, parseExpectedFailures, stableIdOf, type ExpectedFailure } from '../../report/baseline.ts';
import { renderHtml } from '../../report/html.ts';
import { renderJunit } from '../../report/junit.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';
import { writeReport } from '../../report/write.ts';

/** A test of file `file` titled `title`, naming `requirements` in its tags, all with `verdict`. */
function record(title: string, verdict: string, requirements: string[], file = 'security/auth.spec.ts'): TestRecord {
  const status = verdict === 'failed' ? 'failed' : verdict === 'skipped' ? 'skipped' : 'passed';
  return {
    id: `${file}#${title}`, title, file, titlePath: ['tokens', title], area: 'security', requirements, tags: ['@area:security', ...requirements.map((id) => `@${id}`)],
    status, verdict: verdict as TestRecord['verdict'], durationMs: 1, annotations: [], checks: [],
    requirementVerdicts: Object.fromEntries(requirements.map((id) => [id, verdict])) as TestRecord['requirementVerdicts'],
    failure: verdict === 'failed' ? `Error: ${requirements[0]} (MUST) broken\n  at somewhere` : undefined,
  };
}

function run(tests: TestRecord[], status?: Results['run']['status']): Results {
  const summary = summarise(tests);
  return {
    format: 'dxs-results/1',
    run: {
      target: 'http://127.0.0.1:1/v1/api', embedded: true, profile: 'full', areas: ['security'], casing: 'any', destructive: false, version: '0.1.0',
      startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:10.000Z', durationMs: 10_000, status: status ?? (summary.failed > 0 ? 'failed' : 'passed'), shards: [],
    },
    summary,
    tests,
    coverage: {},
  };
}

const titles = (entries: ReadonlyArray<{ title: string }>): string[] => entries.map((entry) => entry.title).sort();

test('tests are matched by file and title path, then a renamed title by file and requirement IDs, then a moved test by its requirement IDs alone', () => {
  const before = [record('a revoked token is rejected', 'passed', ['TOK-11']), record('old title', 'passed', ['TOK-21', 'SEC-06']), record('moved', 'passed', ['TOK-30'], 'contract/tokens.spec.ts'), record('gone', 'passed', ['TOK-40'])];
  const after = [record('a revoked token is rejected', 'failed', ['TOK-11']), record('new title', 'passed', ['SEC-06', 'TOK-21']), record('moved', 'passed', ['TOK-30'], 'security/other.spec.ts'), record('brand new', 'passed', ['TOK-50'])];
  const { pairs, added, removed } = matchTests(before, after);
  assert.deepEqual(pairs.map((pair) => `${pair.before.title} = ${pair.after.title}`).sort(), ['a revoked token is rejected = a revoked token is rejected', 'moved = moved', 'old title = new title']);
  assert.deepEqual(titles(added), ['brand new']);
  assert.deepEqual(titles(removed), ['gone']);
  assert.equal(stableIdOf(after[0]), 'security/auth.spec.ts › tokens › a revoked token is rejected');
});

test('two renamed tests with the same requirement IDs are not guessed at: both count as removed and added', () => {
  const { pairs, added, removed } = matchTests([record('x1', 'passed', ['TOK-01']), record('x2', 'passed', ['TOK-01'])], [record('y1', 'passed', ['TOK-01']), record('y2', 'passed', ['TOK-01'])]);
  assert.equal(pairs.length, 0);
  assert.equal(added.length, 2);
  assert.equal(removed.length, 2);
});

test('a diff holds new failures (a pass that fails, a new test that fails), fixed, still failing, new and removed tests and changed requirement verdicts', () => {
  const before = run([record('breaks', 'passed', ['TOK-01']), record('mended', 'failed', ['TOK-02']), record('still', 'failed', ['TOK-03']), record('skipped now', 'failed', ['TOK-04']), record('removed', 'passed', ['TOK-05'])]);
  const after = run([record('breaks', 'failed', ['TOK-01']), record('mended', 'warning', ['TOK-02']), record('still', 'failed', ['TOK-03']), record('skipped now', 'skipped', ['TOK-04']), record('added and failing', 'failed', ['TOK-06'])]);
  const diff = diffRuns(before, after);
  assert.deepEqual(titles(diff.newFailures), ['added and failing', 'breaks']);
  assert.deepEqual(titles(diff.fixed), ['mended'], 'a test that is skipped now is not fixed');
  assert.deepEqual(titles(diff.stillFailing), ['still']);
  assert.deepEqual(titles(diff.newTests), ['added and failing']);
  assert.deepEqual(titles(diff.removedTests), ['removed']);
  assert.deepEqual(diff.requirementChanges, [
    { id: 'TOK-01', before: 'passed', after: 'failed' },
    { id: 'TOK-02', before: 'failed', after: 'warning' },
    { id: 'TOK-04', before: 'failed', after: 'skipped' },
    { id: 'TOK-05', before: 'passed', after: 'not exercised' },
    { id: 'TOK-06', before: 'not exercised', after: 'failed' },
  ]);
  assert.equal(diff.newFailures.find((entry) => entry.title === 'breaks')?.failure, 'Error: TOK-01 (MUST) broken', 'the first line of the failure');
});

test('against a baseline, only failures it did not have are new; the exit code and junit.xml follow', () => {
  const baseline = run([record('known', 'failed', ['TOK-11']), record('mended', 'failed', ['TOK-12']), record('breaks', 'passed', ['TOK-21'])]);
  const same = run([record('known', 'failed', ['TOK-11']), record('mended', 'passed', ['TOK-12']), record('breaks', 'passed', ['TOK-21'])]);
  same.baseline = applyBaseline(same, { baseline: { results: baseline, source: 'base/results.json' } });
  assert.deepEqual(titles(same.baseline.known), ['known']);
  assert.deepEqual(titles(same.baseline.fixed), ['mended']);
  assert.deepEqual(same.baseline.newFailures, []);
  assert.equal(exitCodeWithBaseline(same), 0);
  const xml = renderJunit(junitView(same));
  assert.match(xml, /<testsuites name="dxs test" tests="3" failures="0" skipped="1"/);
  assert.match(xml, /<skipped message="known failure \(failed in the baseline\): Error: TOK-11 \(MUST\) broken"\/>/);

  const worse = run([record('known', 'failed', ['TOK-11']), record('mended', 'failed', ['TOK-12']), record('breaks', 'failed', ['TOK-21'])]);
  worse.baseline = applyBaseline(worse, { baseline: { results: baseline, source: 'base/results.json' } });
  assert.deepEqual(titles(worse.baseline.newFailures), ['breaks']);
  assert.equal(worse.baseline.newFailures[0].reason, 'passed in the baseline');
  assert.equal(exitCodeWithBaseline(worse), 1);
  assert.match(renderJunit(junitView(worse)), /failures="1" skipped="2"/);

  // A run that could not complete still exits 2 when nothing new failed.
  const interrupted = run([record('known', 'failed', ['TOK-11'])], 'interrupted');
  interrupted.baseline = applyBaseline(interrupted, { baseline: { results: baseline, source: 'base' } });
  assert.equal(exitCodeWithBaseline(interrupted), 2);
});

test('a blocked test counts as failing: blocked after a failure is known, blocked after a pass is new', () => {
  const baseline = run([record('was failing', 'failed', ['TOK-11']), record('was passing', 'passed', ['TOK-21'])]);
  const current = run([record('was failing', 'blocked', ['TOK-11']), record('was passing', 'blocked', ['TOK-21'])]);
  const section = applyBaseline(current, { baseline: { results: baseline, source: 'base' } });
  assert.deepEqual(titles(section.known), ['was failing']);
  assert.deepEqual(titles(section.newFailures), ['was passing']);
});

test('expected failures accept a failure by requirement or by test id until they expire; an expired entry fails again even if the baseline had the failure', () => {
  const entries: ExpectedFailure[] = [
    { requirement: 'TOK-11', reason: 'revocation is cached for 5 minutes (ticket 123)', expires: '2026-06-30' },
    { test: 'security/auth.spec.ts › tokens › by name', reason: 'known, ticket 124' },
    { requirement: 'TOK-21', reason: 'was accepted until the end of May', expires: '2026-05-31' },
    { requirement: 'TOK-99', reason: 'matches nothing' },
  ];
  const current = run([
    record('by requirement', 'failed', ['TOK-11']),
    record('by name', 'failed', ['TOK-30']),
    record('expired', 'failed', ['TOK-21']),
    record('half covered', 'failed', ['TOK-11', 'TOK-40']),
  ]);
  const baseline = run([record('expired', 'failed', ['TOK-21'])]);
  const section = applyBaseline(current, { baseline: { results: baseline, source: 'base' }, expected: { entries, source: 'dxs-expected.json' }, now: new Date('2026-06-30T12:00:00Z') });
  assert.deepEqual(titles(section.known), ['by name', 'by requirement'], 'the entry is valid all of its expiry day');
  assert.match(section.known.find((entry) => entry.title === 'by requirement')?.reason ?? '', /^expected failure: revocation is cached/);
  assert.deepEqual(titles(section.newFailures), ['expired', 'half covered'], 'a failure of TOK-40 is not accepted by the entry of TOK-11');
  assert.match(section.newFailures.find((entry) => entry.title === 'expired')?.reason ?? '', /expired: was accepted until the end of May \(until 2026-05-31\)/);
  assert.deepEqual(section.expired.map((entry) => entry.requirement), ['TOK-21']);
  assert.deepEqual(section.unused.map((entry) => entry.requirement), ['TOK-99']);
  assert.equal(section.expectedFailures?.entries, 4);

  const later = applyBaseline(current, { expected: { entries, source: 'dxs-expected.json' }, now: new Date('2026-07-01T00:00:00Z') });
  assert.ok(later.newFailures.some((entry) => entry.title === 'by requirement'), 'the day after its expiry the entry accepts nothing');
});

test('an expected-failures file names a requirement or a test, with a reason and an optional date', () => {
  assert.deepEqual(parseExpectedFailures('{"expectedFailures":[{"requirement":"TOK-11","reason":"r","expires":"2026-12-31"}]}', 'f.json'), [{ requirement: 'TOK-11', reason: 'r', expires: '2026-12-31' }]);
  assert.deepEqual(parseExpectedFailures('[{"test":"a › b","reason":"r"}]', 'f.json'), [{ test: 'a › b', reason: 'r' }]);
  for (const [text, problem] of [
    ['{', /not valid JSON/],
    ['{"entries":[]}', /must hold/],
    ['[{"requirement":"TOK-11"}]', /"reason" is required/],
    ['[{"reason":"r"}]', /either "requirement"/],
    ['[{"requirement":"TOK-11","test":"x","reason":"r"}]', /either "requirement"/],
    ['[{"requirement":"TOK-11","reason":"r","expires":"soon"}]', /"expires" must be a date/],
  ] as const) {
    assert.throws(() => parseExpectedFailures(text, 'f.json'), (error: unknown) => error instanceof ConfigError && problem.test(error.message), text);
  }
});

test('index.html of a run with a baseline shows the comparison first, new and known failures by name', () => {
  const baseline = run([record('known one', 'failed', ['TOK-11']), record('new one', 'passed', ['TOK-21'])]);
  const current = run([record('known one', 'failed', ['TOK-11']), record('new one', 'failed', ['TOK-21'])]);
  current.baseline = applyBaseline(current, { baseline: { results: baseline, source: 'reports/base/results.json' } });
  const html = renderHtml({ results: current, catalog: [], catalogEndpoints: [] });
  const section = html.indexOf('id="baseline"');
  assert.ok(section > 0 && section < html.indexOf('class="verdict'), 'the comparison comes before the run verdict');
  assert.match(html, /1 NEW FAILURE: 1 known, 0 fixed/);
  const newTable = html.slice(html.indexOf('id="baseline-new"'), html.indexOf('id="baseline-known"'));
  assert.match(newTable, /new one/);
  assert.doesNotMatch(newTable, /known one/);
  const cards = html.slice(html.indexOf('id="failures"'), html.indexOf('id="warnings"'));
  assert.match(cards, /known one<\/strong> <span class="badge failed">failed<\/span> <span class="tag known" title="failed in the baseline">known<\/span>/);
  assert.match(cards, /new one<\/strong> <span class="badge failed">failed<\/span> <span class="tag new" title="passed in the baseline">new<\/span>/);
  assert.doesNotMatch(renderHtml({ results: run([]), catalog: [], catalogEndpoints: [] }), /id="baseline"/, 'no section without a baseline');
});

test('history: a run that ran no test is skipped as a reference, so the run after it is no regression; diff and history exit 2 on nothing to read', (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-history-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const failing = (startedAt: string): Results => ({ ...run([record('known', 'failed', ['TOK-11'])]), run: { ...run([]).run, startedAt, status: 'failed' } });
  writeReport(join(directory, 'a'), failing('2026-01-01T00:00:00.000Z'));
  writeReport(join(directory, 'b'), { ...run([], 'unreachable'), run: { ...run([], 'unreachable').run, startedAt: '2026-01-02T00:00:00.000Z' } });
  writeReport(join(directory, 'c'), failing('2026-01-03T00:00:00.000Z'));
  writeReport(join(directory, 'd'), { ...run([record('known', 'failed', ['TOK-11']), record('breaks', 'failed', ['TOK-21'])]), run: { ...run([]).run, startedAt: '2026-01-04T00:00:00.000Z' } });
  t.mock.method(console, 'error', () => undefined);
  assert.equal(runHistory(directory, undefined), 0);
  const history = JSON.parse(readFileSync(join(directory, 'history.json'), 'utf8')) as { runs: Array<{ source: string; newFailures: string[] }> };
  assert.deepEqual(history.runs.map((entry) => [entry.source, entry.newFailures.length]), [['a', 0], ['b', 0], ['c', 0], ['d', 1]]);
  assert.match(readFileSync(join(directory, 'history.html'), 'utf8'), /<svg[\s\S]*class="regression"/);
  assert.equal(runHistory(join(directory, 'nowhere'), undefined), 2);
  assert.equal(runDiff(join(directory, 'a'), join(directory, 'nowhere'), join(directory, 'diff')), 2);
  assert.equal(runDiff(join(directory, 'a'), join(directory, 'c'), join(directory, 'diff')), 0);
  assert.equal(runDiff(join(directory, 'c'), join(directory, 'd'), join(directory, 'diff')), 1);
});

test('dxs report merge --baseline judges the merged shards as one run: a failure the baseline had is known, a new one fails', () => {
  const work = mkdtempSync(join(tmpdir(), 'dxs-merge-baseline-'));
  try {
    writeReport(join(work, 'baseline'), run([record('revoked', 'failed', ['TOK-11']), record('expired', 'passed', ['TOK-21'])]));
    writeReport(join(work, 'shard-1'), { ...run([record('revoked', 'failed', ['TOK-11'])]), run: { ...run([]).run, status: 'failed', shards: ['1/2'] } });
    writeReport(join(work, 'shard-2'), { ...run([record('expired', 'passed', ['TOK-21'])]), run: { ...run([]).run, shards: ['2/2'] } });
    assert.equal(runMerge([join(work, 'shard-1'), join(work, 'shard-2')], join(work, 'merged'), { baseline: join(work, 'baseline') }), 0);
    const merged = JSON.parse(readFileSync(join(work, 'merged', 'results.json'), 'utf8')) as Results;
    assert.deepEqual(merged.baseline?.known.map((entry) => entry.title), ['revoked']);
    assert.equal(merged.baseline?.newFailures.length, 0);

    writeReport(join(work, 'shard-2'), { ...run([record('expired', 'failed', ['TOK-21'])]), run: { ...run([]).run, status: 'failed', shards: ['2/2'] } });
    assert.equal(runMerge([join(work, 'shard-1'), join(work, 'shard-2')], join(work, 'merged'), { baseline: join(work, 'baseline') }), 1);
    const again = JSON.parse(readFileSync(join(work, 'merged', 'results.json'), 'utf8')) as Results;
    assert.deepEqual(again.baseline?.newFailures.map((entry) => entry.title), ['expired']);
    assert.equal(runMerge([join(work, 'shard-1')], join(work, 'merged'), { baseline: join(work, 'no-such-run') }), 2);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
