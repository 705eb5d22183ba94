// A distributed run: two k6 processes with the execution segments 0:1/2 and 1/2:1 against one
// sandbox, a fixed number of iterations, and the merged report counts what one process counts.
// Thresholds judged on the merged points fail the merge with exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_K6, dxs, k6Binary, readSummary, sandboxForK6Tests, tempDirectory } from './helpers.ts';

const k6 = k6Binary();
const ITERATIONS = 20;
const sandbox = sandboxForK6Tests(k6);

function runArgs(reportDir: string, extra: string[] = []): string[] {
  return ['load', '--script', 'client-tokens', '--base-url', sandbox()!.baseUrl, '--api-key', sandbox()!.apiKey,
    '--iterations', String(ITERATIONS), '--vus', '2', '--duration', '60s', '--report-dir', reportDir, ...extra];
}

test('two segmented runners, merged, count the iterations of one process', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const first = tempDirectory('segment-1');
  const second = tempDirectory('segment-2');
  const single = tempDirectory('single');
  const merged = tempDirectory('merged');
  const runners = await Promise.all([dxs(runArgs(first, ['--segment', '1/2'])), dxs(runArgs(second, ['--segment', '2/2']))]);
  for (const runner of runners) assert.equal(runner.code, 0, `${runner.stdout}\n${runner.stderr}`);
  const one = await dxs(runArgs(single));
  assert.equal(one.code, 0, `${one.stdout}\n${one.stderr}`);

  const firstCount = readSummary(first).results[0].iterations;
  const secondCount = readSummary(second).results[0].iterations;
  assert.ok(firstCount > 0 && secondCount > 0, `each runner ran a share (${firstCount} + ${secondCount})`);
  const singleCount = readSummary(single).results[0].iterations;
  assert.equal(singleCount, ITERATIONS);

  const merge = await dxs(['load', 'merge', first, second, '--out', merged]);
  assert.equal(merge.code, 0, `${merge.stdout}\n${merge.stderr}`);
  const result = readSummary(merged).results[0];
  assert.equal(result.script, 'client-tokens');
  assert.equal(result.runners, 2);
  assert.equal(result.iterations, singleCount, 'merged iterations equal those of one process');
  assert.equal(result.iterations, firstCount + secondCount);
  assert.ok(result.thresholds.length > 0 && result.thresholds.every((verdict) => verdict.ok));
});

test('a failing threshold exits 1, for one run and for a merge', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const files = tempDirectory('thresholds');
  const impossible = join(files, 'impossible.json');
  writeFileSync(impossible, JSON.stringify({ endpoints: { 'POST /clienttokens/create': { p95: 0.001 } }, k6: { checks: ['rate==1.01'] } }));
  const run = await dxs(runArgs(join(files, 'run'), ['--thresholds', impossible]));
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  const result = readSummary(join(files, 'run')).results[0];
  assert.equal(result.passed, false);
  const failed = result.thresholds.filter((verdict) => !verdict.ok).map((verdict) => `${verdict.metric} ${verdict.expression}`).sort();
  assert.deepEqual(failed, ['checks rate==1.01', 'http_req_duration{name:POST /clienttokens/create} p(95)<0.001']);
  assert.match(run.stdout, /^client-tokens: FAILED/m);
  // Failed thresholds (k6 exit 99) end the run like any other: what setup() registered is deleted.
  const { cleanup } = JSON.parse(readFileSync(join(files, 'run', 'summary.json'), 'utf8')) as { cleanup?: { status: string; deleted: unknown[] } };
  assert.equal(cleanup?.status, 'done');
  assert.equal(cleanup?.deleted.length, 3, 'the three companies of client-tokens setup()');

  const merge = await dxs(['load', 'merge', join(files, 'run'), '--out', join(files, 'merged')]);
  assert.equal(merge.code, 1, `${merge.stdout}\n${merge.stderr}`);
  assert.equal(readSummary(join(files, 'merged')).results[0].passed, false);
});

test('abortOnFail stops a run whose error rate spikes, and the run exits 1', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const files = tempDirectory('abort');
  const thresholds = join(files, 'abort.json');
  // No error rate is below 0: the abort threshold is crossed at its first evaluation after 1 s.
  writeFileSync(thresholds, JSON.stringify({ abortOnFail: { errorRate: 0, delayAbortEval: '1s' } }));
  const run = await dxs(['load', '--script', 'client-tokens', '--base-url', sandbox()!.baseUrl, '--api-key', sandbox()!.apiKey,
    '--vus', '1', '--duration', '60s', '--thresholds', thresholds, '--report-dir', join(files, 'run')]);
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  assert.match(readFileSync(join(files, 'run', 'client-tokens', 'k6.log'), 'utf8'), /abortOnFail/);
});
