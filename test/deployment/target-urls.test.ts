// URLs the target hands out are checked, not skipped (issue 57): behind a proxy that passes Host
// without the port, InfoUrl, DownloadUrl and the file information's URLs name a port nobody listens
// on. dxs does not follow them (a token never goes to another origin), and says so: a warning that
// names the URL, the base URL and what differs, and the requirements that would have followed them
// not reached, for that reason. Proven on the sandbox variant urls-without-port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { urlDifference } from '../../suites/support/target-urls.ts';
import { NOT_REACHED_ANNOTATION, requirementVerdicts, type Results } from '../../report/results.ts';
import { runDxs } from '../runner/helpers.ts';

test('what keeps a URL from lying under the base URL is said plainly', () => {
  const base = 'http://127.0.0.1:4010/v1/api/';
  assert.equal(urlDifference('http://127.0.0.1:4010/v1/api/documents/1/info', base), undefined);
  assert.equal(urlDifference('/v1/api/documents/1/info', base), undefined, 'a path relative to the host is followed');
  assert.equal(urlDifference('http://127.0.0.1/v1/api/documents/1/info', base), 'the port is missing (the base URL has :4010)');
  assert.equal(urlDifference('http://127.0.0.1:8080/v1/api/documents/1', base), 'another port (:8080 instead of :4010)');
  assert.equal(urlDifference('https://staging.example:8443/v1/api/x', 'https://staging.example/v1/api'), 'another port (:8443; the base URL has none)');
  assert.equal(urlDifference('https://cdn.example/v1/api/x', 'https://staging.example/v1/api'), 'another host (cdn.example instead of staging.example)');
  assert.equal(urlDifference('http://staging.example/v1/api/x', 'https://staging.example/v1/api'), 'another scheme (http instead of https)');
  assert.equal(urlDifference('http://127.0.0.1:4010/files/1', base), 'not under the base path /v1/api');
  assert.equal(urlDifference('http://[::1', base), 'not a URL');
});

test('a requirement marked not reached is skipped in a passing test, unless a check of its own warned or failed', () => {
  const annotations = [{ type: NOT_REACHED_ANNOTATION, description: 'INB-12: not reached: InfoUrl ... is not under the base URL' }];
  const passed = { requirement: 'INB-12', level: 'MUST', verdict: 'passed', check: 'c', expected: '', actual: '' } as const;
  assert.deepEqual(requirementVerdicts(['INB-12', 'INB-10'], 'passed', [], annotations), { 'INB-12': 'skipped', 'INB-10': 'passed' });
  assert.deepEqual(requirementVerdicts(['INB-12'], 'passed', [passed], annotations), { 'INB-12': 'skipped' }, 'a check made before the URL does not make the requirement reached');
  assert.deepEqual(requirementVerdicts(['INB-12'], 'passed', [{ ...passed, verdict: 'warning' }], annotations), { 'INB-12': 'warning' });
});

test('behind a proxy that drops the port, the URLs the target gives are a warning naming each URL, the base and "the port is missing", and INB-12, INB-13 and OUT-DL-06 are not reached', { timeout: 300_000 }, async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-target-urls-'));
  try {
    const run = await runDxs(['test', '--workers', '2', '--grep', 'delivered invoice is listed|download URLs of the file information', '--sandbox-variant', 'urls-without-port', '--report-dir', directory], { timeoutMs: 240_000 });
    assert.equal(run.code, 0, `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    const inbound = results.tests.find((item) => item.title.startsWith('a delivered invoice is listed'));
    const outbound = results.tests.find((item) => item.title.startsWith('the download URLs of the file information'));
    assert.ok(inbound !== undefined && outbound !== undefined, results.tests.map((item) => item.title).join('; '));
    assert.equal(inbound.verdict, 'warning');
    assert.equal(inbound.requirementVerdicts['INB-31'], 'warning');
    assert.equal(inbound.requirementVerdicts['INB-12'], 'skipped');
    assert.equal(inbound.requirementVerdicts['INB-13'], 'skipped');
    assert.equal(inbound.requirementVerdicts['INB-10'], 'passed', 'what does not follow the URLs is judged as before');
    const warnings = inbound.annotations.filter((annotation) => annotation.type === 'warning').map((annotation) => annotation.description ?? '');
    const base = /under the base URL (http:\/\/127\.0\.0\.1:(\d+)\/v1\/api)/.exec(warnings.join('\n'));
    assert.ok(base !== null, warnings.join('\n'));
    for (const field of ['InfoUrl', 'DownloadUrl']) {
      assert.ok(warnings.some((text) => new RegExp(`^INB-31: .*the target answered ${field} http://127\\.0\\.0\\.1/v1/api/documents/\\S+: the port is missing \\(the base URL has :${base[2]}\\)$`).test(text)), `${field}: ${warnings.join('\n')}`);
    }
    const notReached = inbound.annotations.filter((annotation) => annotation.type === NOT_REACHED_ANNOTATION).map((annotation) => annotation.description ?? '');
    assert.ok(notReached.some((text) => /^INB-12: not reached: InfoUrl http:\/\/127\.0\.0\.1\/v1\/api\/\S+ is not under the base URL .*: the port is missing/.test(text)), notReached.join('\n'));
    assert.equal(outbound.verdict, 'warning');
    assert.equal(outbound.requirementVerdicts['OUT-DL-10'], 'warning');
    assert.equal(outbound.requirementVerdicts['OUT-DL-06'], 'skipped');
    assert.ok(outbound.annotations.some((annotation) => /^OUT-DL-10: .*DownloadUrl http:\/\/127\.0\.0\.1\/v1\/api\/documents\/outbound\/download\/\S+: the port is missing/.test(annotation.description ?? '')), JSON.stringify(outbound.annotations));
    const html = readFileSync(join(directory, 'index.html'), 'utf8');
    assert.match(html, /the port is missing/);
    assert.match(html, /<li>INB-12: not reached: InfoUrl http:\/\/127\.0\.0\.1\/v1\/api\/\S+ is not under the base URL/, 'the report says why INB-12 was not reached');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
