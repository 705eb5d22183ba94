// The access matrix in the report (issue 40): the cells a run recorded become the "Access control"
// table of index.html, a testcase per failing cell in junit.xml, and a line of the certificate's facts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessCellAnnotation, accessCellsOf } from '../../report/access-cells.ts';
import { renderHtml } from '../../report/html.ts';
import { renderJunit } from '../../report/junit.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';

function accessTest(failed: boolean): TestRecord {
  return {
    id: 'a1', title: 'POST /documents is refused', file: 'security/access-matrix.spec.ts', titlePath: ['POST /documents is refused'], area: 'access', requirements: ['ACC-03'], tags: ['@area:access', '@ACC-03'],
    status: failed ? 'failed' : 'passed', verdict: failed ? 'failed' : 'info', durationMs: 5, checks: [], requirementVerdicts: { 'ACC-03': failed ? 'failed' : 'passed' },
    annotations: [
      accessCellAnnotation({ endpoint: 'POST /documents', form: 'none', outcome: 'passed', requirement: 'ACC-01', status: 401 }),
      accessCellAnnotation({ endpoint: 'POST /documents', form: 'api-key-alone', outcome: failed ? 'failed' : 'passed', requirement: 'ACC-03', status: failed ? 202 : 401, note: 'expected a refusal (4xx)' }),
      accessCellAnnotation({ endpoint: 'POST /documents', form: 'both-headers', outcome: 'observed', requirement: 'ACC-08', status: 202 }),
      { type: 'info', description: 'ACC-08: not a cell' },
    ],
  };
}

function results(tests: TestRecord[]): Results {
  const summary = summarise(tests);
  return {
    format: 'dxs-results/1',
    run: { target: 'http://127.0.0.1:1/v1/api', embedded: true, profile: 'full', areas: ['access'], casing: 'any', destructive: false, version: '0.1.0', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:10.000Z', durationMs: 10_000, status: summary.failed > 0 ? 'failed' : 'passed', shards: [] },
    summary, tests, coverage: {},
  };
}

test('the cells of a run are read back from its tests, other annotations left out', () => {
  const cells = accessCellsOf([accessTest(true)]);
  assert.deepEqual(cells.map((cell) => `${cell.form}:${cell.outcome}`), ['none:passed', 'api-key-alone:failed', 'both-headers:observed']);
});

test('index.html has an Access control table with a row per operation, and junit.xml a testcase per failing cell', () => {
  const html = renderHtml({ results: results([accessTest(true)]), catalog: [], catalogEndpoints: [] });
  assert.match(html, /<h2 id="access">Access control<\/h2>/);
  assert.match(html, /3 cells, 1 failed/);
  assert.equal((html.match(/<tr><td>(POST|GET|PATCH) \//g) ?? []).length >= 31, true);
  assert.match(html, /<a href="#failures"><span class="badge failed"[^>]*>failed 202<\/span><\/a>/);
  assert.match(html, /badge info"[^>]*>observed 202/);
  const xml = renderJunit(results([accessTest(true)]));
  assert.match(xml, /<testcase name="POST \/documents with api-key-alone" classname="dxs access matrix"/);
  assert.match(xml, /<testsuites name="dxs test" tests="2" failures="2"/);
  assert.doesNotMatch(renderJunit(results([accessTest(false)])), /dxs access matrix/);
  assert.doesNotMatch(renderHtml({ results: results([]), catalog: [], catalogEndpoints: [] }), /id="access"/);
});
