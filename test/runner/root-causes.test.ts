// Broken prerequisites (issue 14) without Playwright: the blocked verdict, root causes grouped and
// shown first, JUnit and exit code, and the file through which workers share a broken prerequisite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderHtml } from '../../report/html.ts';
import { renderJunit } from '../../report/junit.ts';
import { mergeResults } from '../../report/merge.ts';
import { exitCodeOf, requirementVerdicts, runStatus, summarise, testVerdict, type Results, type TestRecord } from '../../report/results.ts';
import { BLOCKED_ANNOTATION, brokenPrerequisitesFile, formatCause, parseCause, rootCauseLines, rootCausesOf, type RootCause } from '../../report/root-causes.ts';

const registration: RootCause = { prerequisite: 'registration', requirement: 'CMP-STA-06', message: 'registration never reached Registered within 30 s: GET /companies/status answered 200 {"status":"Pending"}' };
const blockedAnnotation = (cause: RootCause) => ({ type: BLOCKED_ANNOTATION, description: formatCause(cause) });

function record(id: string, verdict: TestRecord['verdict'], cause?: RootCause): TestRecord {
  const annotations = cause === undefined ? [] : [blockedAnnotation(cause)];
  return {
    id, title: `test ${id}`, file: 'contract/x.spec.ts', titlePath: [`test ${id}`], area: 'companies', requirements: ['CMP-DET-01'], tags: ['@area:companies', '@CMP-DET-01'],
    status: verdict === 'failed' ? 'failed' : verdict === 'passed' ? 'passed' : 'skipped', verdict, durationMs: 5, annotations, checks: [],
    requirementVerdicts: { 'CMP-DET-01': verdict }, failure: cause === undefined ? undefined : `blocked: ${cause.message}`,
  };
}

function results(tests: TestRecord[]): Results {
  const summary = summarise(tests);
  return {
    format: 'dxs-results/1',
    run: {
      target: 'http://127.0.0.1:1/v1/api', embedded: true, profile: 'full', areas: [], casing: 'any', destructive: true, version: '0.1.0',
      startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:10.000Z', durationMs: 10_000, status: runStatus(summary, false), shards: [],
    },
    summary,
    tests,
    coverage: {},
    rootCauses: rootCausesOf(tests),
  };
}

test('a cause survives its one-line form; anything else is no cause', () => {
  assert.deepEqual(parseCause(formatCause(registration)), registration);
  assert.deepEqual(parseCause(formatCause({ ...registration, message: 'two\nlines' }))?.message, 'two lines');
  assert.equal(parseCause('[nothing] X-01: no such prerequisite'), undefined);
  assert.equal(parseCause(undefined), undefined);
});

test('a skipped test with a blocked annotation is blocked, and so is every ID it names; a blocked run fails with exit 1', () => {
  const annotations = [{ type: 'skip' }, blockedAnnotation(registration)];
  assert.equal(testVerdict('skipped', [], annotations), 'blocked');
  assert.equal(testVerdict('skipped', [], [{ type: 'skip' }]), 'skipped');
  assert.deepEqual(requirementVerdicts(['A-01', 'A-02'], 'skipped', [], annotations), { 'A-01': 'blocked', 'A-02': 'blocked' });
  const run = results([record('t1', 'passed'), record('t2', 'blocked', registration), record('t3', 'blocked', registration)]);
  assert.equal(run.summary.blocked, 2);
  assert.equal(run.summary.failed, 0);
  assert.equal(run.run.status, 'failed');
  assert.equal(exitCodeOf(run), 1);
  // A results.json written before issue 14 has no blocked count.
  assert.equal(exitCodeOf({ run: run.run, summary: { total: 1, passed: 1, failed: 0, warning: 0, info: 0, skipped: 0 } as Results['summary'] }), 0);
});

test('root causes are grouped by prerequisite and requirement, the largest first, and come last on the console', () => {
  const token: RootCause = { prerequisite: 'client-token', requirement: 'TOK-01', message: 'POST /clienttokens/create answered 500' };
  const tests = [record('t1', 'blocked', registration), record('t2', 'blocked', token), record('t3', 'blocked', { ...registration, message: 'found by another worker' }), record('t4', 'failed')];
  const groups = rootCausesOf(tests);
  assert.deepEqual(groups.map((group) => [group.prerequisite, group.tests.length]), [['registration', 2], ['client-token', 1]]);
  // The first worker's message names the cause.
  assert.equal(groups[0].message, registration.message);
  const lines = rootCauseLines(tests);
  assert.equal(lines[0], '2 root causes blocked 3 tests:');
  assert.match(lines[1], /2 blocked: a company reaching Registered is broken \(CMP-STA-06\): registration never reached Registered within 30 s/);
  assert.deepEqual(rootCauseLines([record('t1', 'passed')]), []);
});

test('the page shows the root cause before anything else; JUnit shows each blocked test as an error with its cause', () => {
  const run = results([record('t1', 'blocked', registration), record('t2', 'blocked', registration), record('t3', 'failed')]);
  const html = renderHtml({ results: run, catalog: [], catalogEndpoints: [] });
  const causeAt = html.indexOf('1 root cause blocked 2 tests');
  assert.ok(causeAt > 0, 'the headline is on the page');
  assert.ok(causeAt < html.indexOf('id="failures"') && causeAt < html.indexOf('class="meta"'), 'the root cause comes before the summary table and the failures');
  assert.match(html, /FAILED: 1 test failed, 2 blocked/);
  const xml = renderJunit(run);
  assert.match(xml, /<testsuites [^>]*failures="1" skipped="0" errors="2"/);
  assert.match(xml, /<error message="blocked: registration never reached Registered[^"]*" type="blocked">/);
});

test('merging shards keeps the blocked tests, their root causes and the failed status', () => {
  const merged = mergeResults([results([record('t1', 'blocked', registration)]), results([record('t2', 'passed')])]);
  assert.equal(merged.summary.blocked, 1);
  assert.equal(merged.run.status, 'failed');
  assert.equal(merged.rootCauses?.[0].requirement, 'CMP-STA-06');
});

test('a worker records a broken prerequisite in the run\'s file, where every other worker finds it', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-prereq-'));
  const context = { reportDir: directory, runPrefix: 'dxs-test-prereq' };
  process.env.DXS_RUN_CONTEXT = JSON.stringify({ baseUrl: 'http://127.0.0.1:1/v1/api', apiKey: 'sandbox-key-for-this-test', asyncTimeoutSeconds: 30, casing: 'any', areas: [], destructive: false, profile: 'full', seed: 1, embedded: true, version: 'dev', startedAt: new Date().toISOString(), ...context });
  try {
    const { brokenPrerequisite, recordBroken } = await import('../../suites/support/prerequisites.ts');
    assert.equal(brokenPrerequisite('registration'), undefined);
    const kept = recordBroken({ ...registration, message: `${registration.message}\nwith the key sandbox-key-for-this-test` });
    assert.doesNotMatch(kept.message, /sandbox-key-for-this-test/, 'the message is redacted before it is shared');
    // The first cause counts: a second worker that finds it too does not replace it.
    assert.equal(recordBroken({ ...registration, message: 'second' }).message, kept.message);
    const lines = readFileSync(brokenPrerequisitesFile(context), 'utf8').trim().split('\n');
    assert.equal(lines.length, 1);
    assert.deepEqual(parseCause(lines[0]), kept);
    assert.ok(existsSync(brokenPrerequisitesFile(context)));
  } finally {
    delete process.env.DXS_RUN_CONTEXT;
    rmSync(directory, { recursive: true, force: true });
  }
});
