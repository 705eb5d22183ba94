// The pieces of issue 57 without a network: which answers are the deployment's transport, which
// calls may be sent again, how a test's attempts settle into one verdict (a retry never hides a
// real failure), the exit code of flaky tests, and how junit.xml and the report carry them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runHistory } from '../../cli/commands/report.ts';
import { writeReport } from '../../report/write.ts';
import { isRepeatable, isTransientAnswer, isTransientCause, transportCause, TRANSPORT_FAILURE, type TransientAnswer } from '../../lib/transient.ts';
import { flakyTests, settleAttempts, type Attempt } from '../../report/attempts.ts';
import { renderJunit } from '../../report/junit.ts';
import type { Results, TestRecord } from '../../report/results.ts';
import { summarise } from '../../report/results.ts';
import { rootCausesOf } from '../../report/root-causes.ts';
import { mergeTransportSummaries, summariseTransport, transportLines } from '../../report/transport.ts';
import { githubAnnotations } from '../../report/github.ts';
import { transportExitCode } from '../../cli/commands/test-transport.ts';

const NGINX_502 = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>…</body></html>';

test("a 502, a 504 and a 503 without Retry-After are the deployment's transport, unless the body is the API's own error", () => {
  assert.equal(isTransientAnswer(502, { 'content-type': 'text/html' }, NGINX_502), true);
  assert.equal(isTransientAnswer(504, {}, ''), true);
  assert.equal(isTransientAnswer(503, {}, '<html>503</html>'), true);
  assert.equal(isTransientAnswer(503, { 'Retry-After': '1' }, ''), false, "a 503 with Retry-After is the gateway's 'not now' (lib/gateway.ts)");
  assert.equal(isTransientAnswer(500, {}, '<html>500</html>'), false, 'a 500 is the target\'s');
  assert.equal(isTransientAnswer(502, { 'content-type': 'application/json' }, '"Upstream failed."'), false, "a 5xx with the API's error body (a JSON string) is the target's answer");
  assert.equal(isTransientAnswer(503, {}, ' "Maintenance" '), false);
  assert.equal(isTransientAnswer(502, {}, '{"error":"x"}'), true, 'a JSON object is no error body of the API');
  assert.equal(isTransientCause('reset'), true);
  assert.equal(isTransientCause('closed'), true);
  assert.equal(isTransientCause('timeout'), true);
  assert.equal(isTransientCause('refused'), false, 'nothing listening is no blip');
  assert.equal(isTransientCause('not-found'), false);
});

test('the calls sent again are GETs and those the spec makes repeatable; a send, an upload, a network setup never', () => {
  for (const [method, path] of [
    ['GET', '/companies/status'],
    ['GET', '/documents/outbound/7f0c0000-0000-0000-0000-000000000000'],
    ['POST', '/clienttokens/create'],
    ['POST', '/clientTokens/create'],
    ['POST', '/clienttokens/createsearchtoken'],
    ['POST', '/companies/register'],
    ['POST', '/buyerparties/lookup'],
    ['POST', '/sellerparties/lookup'],
    ['POST', '/companies/deliverymethods/b2c/providera/lookup'],
    ['POST', '/documents/handled'],
    ['POST', '/companies/delete'],
  ]) assert.equal(isRepeatable(method, path), true, `${method} ${path}`);
  for (const [method, path] of [
    ['POST', '/documents/outbound'],
    ['POST', '/documents'],
    ['POST', '/network/setup'],
    ['POST', '/clienttokens/revoke'],
    ['POST', '/companies/users'],
    ['PATCH', '/companies/deliverymethods/b2c/providera'],
  ]) assert.equal(isRepeatable(method, path), false, `${method} ${path}`);
});

test('the root cause names the call and what the deployment did to every try', () => {
  assert.equal(transportCause('POST /companies/register', [{ status: 502 }, { status: 502 }, { status: 502 }], 3, true), 'the deployment answered 502 to 3 of 3 tries of POST /companies/register');
  assert.equal(transportCause('GET /companies/status', [{ cause: 'reset' }, { status: 504 }, { cause: 'reset' }], 3, true), 'the deployment answered 504 or gave no answer (reset) to 3 of 3 tries of GET /companies/status');
  assert.match(transportCause('POST /documents/outbound', [{ status: 502 }], 1, false), /^the deployment answered 502 to POST \/documents\/outbound, which is not sent again/);
});

function record(overrides: Partial<TestRecord>): TestRecord {
  return {
    id: 't1', title: 'sends', file: 'contract/outbound-send.spec.ts', titlePath: ['sends'], area: 'outbound', requirements: ['OUT-01'], tags: ['@OUT-01'],
    status: 'passed', verdict: 'passed', durationMs: 10, annotations: [], checks: [], requirementVerdicts: { 'OUT-01': 'passed' }, ...overrides,
  };
}

const answer: TransientAnswer = { endpoint: 'POST /documents/outbound', status: 502, head: '<html> 502 Bad Gateway', at: '2026-12-07T10:00:00.000Z', attempt: 1, resent: false };
const transportFailure = `Error: ${TRANSPORT_FAILURE} the deployment answered 502 to POST /documents/outbound, which is not sent again (not repeatable): its test runs again from its start`;

function attempt(overrides: Partial<Attempt> & { record: TestRecord }): Attempt {
  return { transportFailed: false, refused: false, transient: [], ...overrides };
}

test('a test whose attempt failed on the transport and whose run again passed is flaky, listing what it met', () => {
  const settled = settleAttempts([
    attempt({ record: record({ status: 'failed', verdict: 'failed', failure: transportFailure }), transportFailed: true, transient: [answer] }),
    attempt({ record: record({}) }),
  ]);
  assert.equal(settled.verdict, 'flaky');
  assert.equal(settled.attempts, 2);
  assert.deepEqual(settled.transient, [answer]);
  assert.match(settled.flakyBecause ?? '', /^the deployment answered 502 to POST \/documents\/outbound/);
  const [flaky] = flakyTests([settled]);
  assert.equal(flaky.test, 'contract/outbound-send.spec.ts › sends');
  assert.equal(summarise([settled]).flaky, 1);
  assert.equal(summarise([settled]).passed, 0);
});

test('a retry the guard refused never hides a real failure: the attempt before it is the verdict', () => {
  const real = record({ status: 'failed', verdict: 'failed', failure: 'Error: OUT-01 (MUST) ...\n  ✗ statusIs: expected status 200; actual status 400' });
  const settled = settleAttempts([
    attempt({ record: real }),
    attempt({ record: record({ status: 'failed', verdict: 'failed', failure: 'Error: not run again: its attempt before failed on its own' }), refused: true }),
  ]);
  assert.equal(settled.verdict, 'failed');
  assert.equal(settled.failure, real.failure);
  assert.equal(settled.attempts, 2);
});

test('a run again that met a real failure is failed, and one that met the transport again is blocked with the root cause', () => {
  const first = attempt({ record: record({ status: 'failed', verdict: 'failed', failure: transportFailure }), transportFailed: true, transient: [answer] });
  const failed = settleAttempts([first, attempt({ record: record({ status: 'failed', verdict: 'failed', failure: 'Error: OUT-01 (MUST) ... actual status 400' }) })]);
  assert.equal(failed.verdict, 'failed');
  const blocked = settleAttempts([first, attempt({ record: record({ status: 'failed', verdict: 'failed', failure: transportFailure }), transportFailed: true, transient: [answer] })]);
  assert.equal(blocked.verdict, 'blocked');
  assert.equal(blocked.failure, 'blocked: the deployment answered 502 to POST /documents/outbound, which is not sent again (not repeatable): its test runs again from its start');
  assert.deepEqual(blocked.requirementVerdicts, { 'OUT-01': 'blocked' });
  const groups = rootCausesOf([blocked, { ...blocked, title: 'another', titlePath: ['another'] }]);
  assert.equal(groups.length, 1, 'said once for every test it blocked');
  assert.equal(groups[0].tests.length, 2);
});

test('a flaky test exits 0, or 1 with --fail-on-flaky; a failure exits 1 either way', () => {
  assert.equal(transportExitCode(0, { summary: { total: 1, passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0, flaky: 1 } }, false), 0);
  assert.equal(transportExitCode(0, { summary: { total: 1, passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0, flaky: 1 } }, true), 1);
  assert.equal(transportExitCode(0, { summary: { total: 1, passed: 1, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0 } }, true), 0);
  assert.equal(transportExitCode(2, { summary: { total: 1, passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0, flaky: 1 } }, true), 2);
});

test('junit.xml carries a flaky test as a passed case with a flakyFailure naming each transient answer, and the console lists the calls sent again', () => {
  const flaky = settleAttempts([
    attempt({ record: record({ status: 'failed', verdict: 'failed', failure: transportFailure }), transportFailed: true, transient: [answer] }),
    attempt({ record: record({}) }),
  ]);
  const results: Results = {
    format: 'dxs-results/1',
    run: { target: 'http://127.0.0.1:1/v1/api', embedded: false, profile: 'full', areas: [], casing: 'any', destructive: false, version: 'test', startedAt: '', finishedAt: '', durationMs: 1, status: 'passed', shards: [] },
    summary: summarise([flaky]),
    tests: [flaky],
    coverage: {},
    transport: summariseTransport([answer, { ...answer, endpoint: 'GET /companies/status', status: undefined, cause: 'reset', resent: true }], flakyTests([flaky])),
  };
  const xml = renderJunit(results);
  assert.match(xml, /<flakyFailure message="the deployment answered 502 to POST \/documents\/outbound[^"]*" type="transport">POST \/documents\/outbound: 502 &lt;html&gt; 502 Bad Gateway at 2026-12-07T10:00:00.000Z \(try 1\)<\/flakyFailure>/);
  assert.match(xml, /failures="0"/);
  assert.match(xml, /<testsuite name="dxs transport"[^>]*><properties><property name="dxs.transport.answers" value="2"\/><property name="dxs.transport.resent" value="1"\/><property name="dxs.transport.flaky" value="1"\/>/);
  const lines = transportLines(results.transport).join('\n');
  assert.match(lines, /transport: 2 transient answers .*, 1 followed by sending the call again/);
  assert.match(lines, /GET \/companies\/status: 1 × no answer \(reset\), 1 sent again/);
  assert.match(lines, /flaky: contract\/outbound-send.spec.ts › sends: passed when run again \(2 attempts\) after the deployment answered 502/);
});

test('dxs report history marks a test flaky across runs, in history.html and history.json', (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-flaky-history-'));
  try {
    const flakyOnce = settleAttempts([
      attempt({ record: record({ status: 'failed', verdict: 'failed', failure: transportFailure }), transportFailed: true, transient: [answer] }),
      attempt({ record: record({}) }),
    ]);
    const runOf = (tests: TestRecord[], startedAt: string): Results => ({
      format: 'dxs-results/1',
      run: { target: 'http://127.0.0.1:1/v1/api', embedded: false, profile: 'full', areas: [], casing: 'any', destructive: false, version: 'test', startedAt, finishedAt: startedAt, durationMs: 1, status: 'passed', shards: [] },
      summary: summarise(tests),
      tests,
      coverage: {},
    });
    writeReport(join(directory, 'a'), runOf([flakyOnce], '2026-12-01T00:00:00.000Z'));
    writeReport(join(directory, 'b'), runOf([record({})], '2026-12-02T00:00:00.000Z'));
    writeReport(join(directory, 'c'), runOf([flakyOnce], '2026-12-03T00:00:00.000Z'));
    const lines: string[] = [];
    t.mock.method(console, 'error', (line: string) => lines.push(line));
    assert.equal(runHistory(directory, undefined), 0);
    const history = JSON.parse(readFileSync(join(directory, 'history.json'), 'utf8')) as { runs: Array<{ flaky: string[] }>; flaky: Array<{ stableId: string; runs: number[]; ranIn: number }> };
    assert.deepEqual(history.runs.map((entry) => entry.flaky.length), [1, 0, 1]);
    assert.deepEqual(history.flaky, [{ stableId: 'contract/outbound-send.spec.ts › sends', runs: [1, 3], ranIn: 3 }]);
    assert.match(readFileSync(join(directory, 'history.html'), 'utf8'), /Flaky tests across runs \(1\)[\s\S]*contract\/outbound-send.spec.ts › sends[\s\S]*in 2 runs of 3/);
    assert.ok(lines.some((line) => /flaky: contract\/outbound-send.spec.ts › sends: in 2 of 3 runs \(#1, #3\)/.test(line)), lines.join('\n'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('dxs report merge adds the shards\' transport sections up, and GitHub gets a warning per flaky test', () => {
  const flaky = settleAttempts([
    attempt({ record: record({ status: 'failed', verdict: 'failed', failure: transportFailure }), transportFailed: true, transient: [answer] }),
    attempt({ record: record({}) }),
  ]);
  const first = summariseTransport([answer], flakyTests([flaky]));
  const second = summariseTransport([answer, { ...answer, resent: true }], []);
  const merged = mergeTransportSummaries([first, undefined, second]);
  assert.equal(merged?.answers, 3);
  assert.equal(merged?.resent, 1);
  assert.deepEqual(merged?.byEndpoint, [{ endpoint: 'POST /documents/outbound', kind: '502', answers: 3, resent: 1 }]);
  assert.equal(merged?.flaky.length, 1);
  assert.equal(mergeTransportSummaries([undefined]), undefined);
  const results = { run: { status: 'passed' }, tests: [flaky] } as unknown as Results;
  const [line] = githubAnnotations(results, []);
  assert.match(line, /^::warning title=flaky contract\/outbound-send.spec.ts › sends::Passed when run again \(2 attempts\) after the deployment answered 502/);
});
