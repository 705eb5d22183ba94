// The shared checks are recorded on a sample of the responses, so the status rule of every
// response is k6's own (responseCallback from the endpoint's statuses): a wrong status on every
// answer fails the run through http_req_failed even where no sampled check looked at it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import { NO_K6, dxs, k6Binary, readSummary, tempDirectory } from './helpers.ts';

const k6 = k6Binary();
let sandbox: RunningSandbox | undefined;

before(async () => {
  // The token-create-201 fault answers 201 where the spec says 200.
  if (k6 !== undefined) sandbox = await startSandbox({ port: 0, host: '127.0.0.1', faults: ['token-create-201'] });
});
after(async () => {
  await sandbox?.close();
});

test('an unexpected status on unsampled responses fails the run through the per-endpoint error rate (TOK-01)', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const directory = tempDirectory('status-rule');
  const run = await dxs(['load', '--script', 'client-tokens', '--base-url', sandbox!.baseUrl, '--api-key', sandbox!.apiKey,
    '--iterations', '200', '--vus', '2', '--duration', '60s', '--check-interval', '600000', '--report-dir', directory]);
  assert.equal(run.code, 1, `dxs load should fail its thresholds:\n${run.stdout}\n${run.stderr}`);
  const result = readSummary(directory).results[0];
  const failed = result.thresholds.filter((threshold) => !threshold.ok).map((threshold) => `${threshold.metric} ${threshold.expression}`);
  assert.ok(failed.includes('http_req_failed{name:POST /clienttokens/create} rate<=0.01'), `failed thresholds: ${failed.join(', ')}`);
  // Only the first token answer of each VU (the two and setup's own) fell in the check sample.
  const statusCheck = result.checks.find((check) => check.name === 'POST /clienttokens/create answers 200');
  assert.ok(statusCheck !== undefined && statusCheck.fails >= 1 && statusCheck.fails <= 3, `status check: ${JSON.stringify(statusCheck)}`);
});
