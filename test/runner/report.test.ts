// The report logic without Playwright: verdicts per test and per requirement, the page, JUnit,
// merging and redaction of what is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretRegistry } from '../../lib/redact.ts';
import type { CheckRecord } from '../../suites/support/log.ts';
import { endpointOf } from '../../report/endpoints.ts';
import { escapeHtml, renderHtml } from '../../report/html.ts';
import { renderJunit } from '../../report/junit.ts';
import { mergeResults } from '../../report/merge.ts';
import { exitCodeOf, requirementVerdicts, summarise, testVerdict, type Results, type TestRecord } from '../../report/results.ts';
import { writeReport } from '../../report/write.ts';

const check = (requirement: string, verdict: CheckRecord['verdict']): CheckRecord => ({ requirement, level: 'MUST', verdict, check: 'statusIs', expected: 'status 200', actual: 'status 500' });

test('a test verdict: failed beats warning beats info beats passed; skips are skips', () => {
  assert.equal(testVerdict('failed', [], []), 'failed');
  assert.equal(testVerdict('timedOut', [], []), 'failed');
  assert.equal(testVerdict('passed', [check('A-01', 'warning'), check('A-02', 'info')], []), 'warning');
  assert.equal(testVerdict('passed', [], [{ type: 'info' }]), 'info');
  assert.equal(testVerdict('passed', [check('A-01', 'passed')], []), 'passed');
  assert.equal(testVerdict('skipped', [], []), 'skipped');
  assert.equal(testVerdict('interrupted', [], []), 'skipped');
});

test('a failure fails the requirement it is attributed to; unattributed failures fail them all', () => {
  assert.deepEqual(requirementVerdicts(['A-01', 'A-02', 'A-03'], 'failed', [check('A-01', 'passed'), check('A-02', 'failed')], []), { 'A-01': 'passed', 'A-02': 'failed', 'A-03': 'skipped' });
  assert.deepEqual(requirementVerdicts(['A-01', 'A-02'], 'failed', [check('A-01', 'passed')], []), { 'A-01': 'failed', 'A-02': 'failed' });
  assert.deepEqual(requirementVerdicts(['A-01', 'A-02'], 'passed', [check('A-01', 'warning')], [{ type: 'info', description: 'A-02: observed' }]), { 'A-01': 'warning', 'A-02': 'info' });
  assert.deepEqual(requirementVerdicts(['A-01'], 'skipped', [], []), { 'A-01': 'skipped' });
});

test('endpoints are folded onto the catalog templates, literal paths first', () => {
  assert.equal(endpointOf('GET', '/companies/details/7f0c2a4e-0000-4000-8000-000000000000'), 'GET /companies/details/{CompanyId}');
  assert.equal(endpointOf('POST', '/clientTokens/create'), 'POST /clienttokens/create');
  assert.equal(endpointOf('GET', '/documents/incoming?type=invoice'), 'GET /documents/incoming');
  assert.equal(endpointOf('GET', '/nowhere/7f0c2a4e-0000-4000-8000-000000000000'), 'GET /nowhere/{id}');
});

function record(id: string, verdict: TestRecord['verdict'], extra: Partial<TestRecord> = {}): TestRecord {
  return {
    id, title: `test ${id}`, file: 'contract/x.spec.ts', titlePath: [`test ${id}`], area: 'tokens', requirements: ['TOK-01'], tags: ['@area:tokens', '@TOK-01'],
    status: verdict === 'failed' ? 'failed' : verdict === 'skipped' ? 'skipped' : 'passed', verdict, durationMs: 5, annotations: [], checks: [],
    requirementVerdicts: { 'TOK-01': verdict }, ...extra,
  };
}

function results(tests: TestRecord[], extra: Partial<Results['run']> = {}): Results {
  const summary = summarise(tests);
  return {
    format: 'dxs-results/1',
    run: {
      target: 'http://127.0.0.1:1/v1/api', embedded: false, profile: 'full', areas: ['tokens'], casing: 'any', destructive: false, version: '0.1.0',
      startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:10.000Z', durationMs: 10_000, status: summary.failed > 0 ? 'failed' : 'passed', shards: [], ...extra,
    },
    summary,
    tests,
    coverage: { 'POST /clienttokens/create': { '200': 2 } },
  };
}

test('the page shows the verdict, the failure with its exchange, and escapes what the target sent', () => {
  const failing = record('t1', 'failed', {
    failure: 'TOK-01 (MUST) expected status 200; actual status 500',
    exchanges: [{ title: 'POST /clienttokens/create', endpoint: 'POST /clienttokens/create', durationMs: 3, request: { method: 'POST', url: 'http://x/v1/api/clienttokens/create', headers: { APIkey: '[REDACTED]' } }, response: { status: 500, headers: {}, body: '<script>alert(1)</script>', size: 25 } }],
  });
  const html = renderHtml({ results: results([failing, record('t2', 'passed')]), catalog: [], catalogEndpoints: ['POST /clienttokens/create', 'GET /companies/status'] });
  assert.match(html, /FAILED: 1 test failed/);
  assert.match(html, /expected status 200; actual status 500/);
  assert.doesNotMatch(html, /<script>alert/);
  assert.match(html, /&lt;script&gt;alert/);
  assert.match(html, /not called/);
  assert.equal(escapeHtml(`<a href="x">'`), '&lt;a href=&quot;x&quot;&gt;&#39;');
});

test('JUnit counts failures and skips; a run that could not be made is a failing case', () => {
  const xml = renderJunit(results([record('t1', 'failed', { failure: 'boom' }), record('t2', 'skipped', { skipReason: 'no key' }), record('t3', 'warning')]));
  assert.match(xml, /<testsuites name="dxs test" tests="3" failures="1" skipped="1"/);
  assert.match(xml, /<skipped message="no key"\/>/);
  const unreachable = renderJunit(results([], { status: 'unreachable', message: 'connection refused' }));
  assert.match(unreachable, /failures="1"/);
  assert.match(unreachable, /connection refused/);
});

test('merging keeps every test once, sums coverage and takes the worst status', () => {
  const merged = mergeResults([
    results([record('t1', 'passed'), record('t2', 'skipped', { status: 'not run' })], { shards: ['1/2'] }),
    results([record('t2', 'failed')], { shards: ['2/2'] }),
  ]);
  assert.equal(merged.summary.total, 2);
  assert.equal(merged.summary.failed, 1);
  assert.equal(merged.run.status, 'failed');
  assert.deepEqual(merged.run.shards, ['1/2', '2/2']);
  assert.equal(merged.coverage['POST /clienttokens/create']['200'], 4);
  assert.equal(exitCodeOf(merged), 1);
  assert.equal(exitCodeOf(results([record('t1', 'warning')])), 0);
  assert.equal(exitCodeOf(results([], { status: 'interrupted' })), 2);
});

test('every report file is redacted with the registry, however the secret got in', () => {
  const registry = new SecretRegistry();
  registry.add('secret-token-value-123');
  const directory = mkdtempSync(join(tmpdir(), 'dxs-report-'));
  try {
    writeReport(directory, results([record('t1', 'failed', { failure: 'the answer held secret-token-value-123', checks: [{ ...check('TOK-01', 'failed'), actual: 'Token = secret-token-value-123' }] })]), registry);
    for (const file of ['results.json', 'index.html', 'junit.xml']) {
      const text = readFileSync(join(directory, file), 'utf8');
      assert.ok(!text.includes('secret-token-value-123'), file);
      assert.ok(text.includes('[REDACTED]'), file);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
