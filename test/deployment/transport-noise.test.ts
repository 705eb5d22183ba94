// The deployment's transport is not a verdict (issue 57), proven behind a gateway of the tests' own
// (noise-gateway.ts) that injects each transport failure on a chosen call: a 502 with nginx's HTML
// page, a 503 without Retry-After, a reset after the target answered, a stall past the per-call
// bound; and the target's own 500 with the API's error body, which stays a verdict. Each run is
// small (--grep, or one small area, --workers 2); no assertion is on time.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../../lib/defaults.ts';
import { preflight } from '../../lib/preflight.ts';
import type { Results } from '../../report/results.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import { runSetup } from '../../suites/support/run-setup.ts';
import type { RunContext } from '../../suites/support/run-context.ts';
import { runDxsWith } from './helpers.ts';
import { startNoiseGateway, type NoiseGateway, type NoiseRule } from './noise-gateway.ts';

/** One test whose revoke call is the only one of the run (no run's setup under --grep): its call is the one chosen. */
const REVOKE_TEST = 'revoking a client token answers 200 with no body';
/** A bound, not an assertion: a run of a few tests. */
const RUN_TIMEOUT_MS = 300_000;

let sandbox: RunningSandbox;
let gateway: NoiseGateway;
let work: string;

before(async () => {
  sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  // A stall outlasts the runs' --call-timeout of 2 s, then the gateway drops the call.
  gateway = await startNoiseGateway(sandbox.baseUrl, 6_000);
  work = mkdtempSync(join(tmpdir(), 'dxs-transport-noise-'));
});

after(async () => {
  await gateway.close();
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
});

interface Run {
  code: number;
  output: string;
  results: Results;
  directory: string;
}

async function runBehindGateway(name: string, rules: NoiseRule[], args: string[]): Promise<Run> {
  gateway.setRules(rules);
  const directory = join(work, name);
  const run = await runDxsWith(['test', '--base-url', gateway.baseUrl, '--api-key', SANDBOX_API_KEY, '--api-key-without-delete', SANDBOX_API_KEY_WITHOUT_DELETE, '--workers', '2', '--report-dir', directory, ...args], {}, RUN_TIMEOUT_MS);
  const output = `${run.stdout.slice(-6000)}\n${run.stderr.slice(-6000)}\ninjected: ${gateway.injected.join(', ')}`;
  for (const file of ['results.json', 'index.html', 'junit.xml']) assert.ok(existsSync(join(directory, file)), `${file} is written:\n${output}`);
  const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
  return { code: run.code, output, results, directory };
}

function leftoverRunFiles(directory: string): string[] {
  return readdirSync(directory).filter((file) => file.startsWith('.dxs-transient-') || file.startsWith('.dxs-transport-retries-'));
}

test("calls safe to send again are sent again through a 502, a 503 without Retry-After, a reset and a stall past the bound, dxs's own probe and cleanup too: the tests pass, the calls are listed as sent again", async () => {
  const { code, output, results, directory } = await runBehindGateway(
    'safe-calls',
    [
      // The preflight (lib/preflight.ts) goes first: a token creation with each key and one status read, left alone here.
      // The token creation of the registered company's chain: a 502 page, then a 503 without Retry-After, then through.
      { method: 'POST', path: '/clienttokens/create', noise: '502', skip: 2 },
      { method: 'POST', path: '/clienttokens/create', noise: '503', skip: 3 },
      // Its first status read stalls past --call-timeout, the second is reset after the target answered.
      { method: 'GET', path: '/companies/status', noise: 'stall', skip: 1 },
      { method: 'GET', path: '/companies/status', noise: 'reset', skip: 2 },
      // dxs's own work around the tests: the start's probe of the base URL is reset, the cleanup's first delete meets a 502.
      { method: 'GET', path: '', noise: 'reset' },
      { method: 'POST', path: '/companies/delete', noise: '502' },
    ],
    ['--grep', '@TOK-01', '--call-timeout', '2'],
  );
  assert.equal(code, 0, output);
  assert.equal(gateway.injected.length, 6, output);
  assert.equal(results.summary.failed, 0, output);
  assert.equal(results.summary.blocked, 0, output);
  assert.equal(results.summary.flaky ?? 0, 0, output);
  const rows = results.transport?.byEndpoint ?? [];
  const row = (endpoint: string, kind: RegExp) => rows.find((candidate) => candidate.endpoint === endpoint && kind.test(candidate.kind));
  assert.equal(row('POST /clienttokens/create', /^502$/)?.resent, 1, output);
  assert.equal(row('POST /clienttokens/create', /^503$/)?.resent, 1, output);
  assert.equal(row('GET /companies/status', /no answer \(timeout\)/)?.resent, 1, output);
  assert.equal(row('GET /companies/status', /no answer \((reset|closed)\)/)?.resent, 1, output);
  assert.equal(row('POST /companies/delete', /^502$/)?.resent, 1, output);
  assert.deepEqual(results.cleanup?.left ?? [], [], 'the delete sent again deleted the company');
  assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /id="transport"/);
  assert.match(output, /transport: 5 transient answers/, 'the probe\'s reset is sent again before any transient file exists: counted by none');
  assert.deepEqual(leftoverRunFiles(directory), [], 'the run removes its transport files');
});

test("a call not safe to send again that meets a 502 is not sent again: its test runs again from its start and is reported flaky (exit 0)", async () => {
  const { code, output, results, directory } = await runBehindGateway('flaky', [{ method: 'POST', path: '/clienttokens/revoke', noise: '502' }], ['--grep', REVOKE_TEST]);
  assert.equal(code, 0, output);
  assert.deepEqual(gateway.injected, ['POST /clienttokens/revoke 502'], 'the revoke was not sent again through the gateway by the client: only its test ran again');
  const flaky = results.tests.filter((candidate) => candidate.verdict === 'flaky');
  assert.equal(flaky.length, 1, output);
  assert.equal(results.summary.flaky, 1);
  assert.equal(results.summary.failed, 0);
  assert.equal(results.run.status, 'passed');
  const [test] = flaky;
  assert.equal(test.attempts, 2);
  const met = test.transient ?? [];
  assert.equal(met.length, 1);
  assert.equal(met[0].endpoint, 'POST /clienttokens/revoke');
  assert.equal(met[0].status, 502);
  assert.match(met[0].head, /502 Bad Gateway/, 'the head of the gateway body is listed');
  assert.ok(!Number.isNaN(Date.parse(met[0].at)), 'when it came');
  assert.match(test.flakyBecause ?? '', /502 to POST \/clienttokens\/revoke/);
  assert.match(output, /1 flaky/);
  assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /<flakyFailure message="[^"]*POST \/clienttokens\/revoke/);
  const html = readFileSync(join(directory, 'index.html'), 'utf8');
  assert.match(html, /<span class="badge flaky">flaky<\/span>/);
  assert.match(html, /Flaky tests \(1\)/);
});

test('--fail-on-flaky: a test that passed only when run again after a reset of its call exits 1', async () => {
  const { code, output, results } = await runBehindGateway('fail-on-flaky', [{ method: 'POST', path: '/clienttokens/revoke', noise: 'reset' }], ['--grep', REVOKE_TEST, '--fail-on-flaky']);
  assert.equal(code, 1, output);
  assert.equal(results.summary.flaky, 1, output);
  assert.equal(results.summary.failed, 0, output);
  const [met] = results.tests.find((candidate) => candidate.verdict === 'flaky')?.transient ?? [];
  assert.match(met?.cause ?? '', /^(reset|closed)$/, output);
});

test('a transport failure that persists blocks the tests with its root cause said once (exit 1, the report written)', async () => {
  const { code, output, results } = await runBehindGateway('persistent', [{ method: 'POST', path: '/companies/register', noise: '502', times: Infinity }], ['--grep', REVOKE_TEST]);
  assert.equal(code, 1, output);
  assert.ok(results.tests.length > 0, output);
  for (const test of results.tests) {
    assert.equal(test.verdict, 'blocked', `${test.title}: ${output}`);
    assert.equal(test.attempts, 2, 'run again once, from its start');
  }
  assert.equal(results.rootCauses?.length, 1, output);
  assert.equal(results.rootCauses?.[0].message, 'the deployment answered 502 to 3 of 3 tries of POST /companies/register');
  assert.match(output, /1 root cause blocked \d+ tests?:\n\s+\d+ blocked: the deployment answered 502 to 3 of 3 tries of POST \/companies\/register\n/, 'the console says the root cause once');
  assert.equal(results.summary.failed, 0, 'no check judged the gateway');
});

test("the target's own 500 with the API's error body is judged as before: the test fails, and its retry cannot hide it", async () => {
  const { code, output, results } = await runBehindGateway('own-500', [{ method: 'POST', path: '/clienttokens/revoke', noise: '500-json' }], ['--grep', REVOKE_TEST]);
  assert.equal(code, 1, output);
  const failed = results.tests.filter((candidate) => candidate.verdict === 'failed');
  assert.equal(failed.length, 1, output);
  assert.match(failed[0].failure ?? '', /TOK-09[\s\S]*actual status 500/, 'the failure is the verdict');
  assert.equal(failed[0].attempts, undefined, 'a failure of its own is not run again');
  assert.equal(results.summary.flaky ?? 0, 0);
  assert.equal(results.transport, undefined, 'a 500 is no transient answer');
  assert.deepEqual(gateway.injected, ['POST /clienttokens/revoke 500-json'], 'the 500 was not sent again');
});

test("resets during the run's start (its setup's registrations, every try) leave results.json, index.html and junit.xml, and the tests that needed them run again", async () => {
  const setupRegistrations = (stream: string): NoiseRule => ({ method: 'POST', path: '/companies/register', noise: 'reset', times: Infinity, bodyIncludes: `-${stream}-company` });
  const { code, output, results } = await runBehindGateway('start', [setupRegistrations('s0'), setupRegistrations('s1')], ['--area', 'observe']);
  assert.ok(gateway.injected.length >= 3, output);
  assert.equal(code, 0, output);
  assert.equal(results.summary.failed, 0, output);
  assert.equal(results.summary.blocked, 0, output);
  assert.ok((results.summary.flaky ?? 0) >= 1, output);
  for (const flaky of results.transport?.flaky ?? []) assert.match(flaky.because ?? '', /3 of 3 tries of POST \/companies\/register/);
});

test("a reset of the access setting's revoke during the run's setup is that setting's outcome, never an unhandled rejection that ends dxs", async () => {
  gateway.setRules([{ method: 'POST', path: '/clienttokens/revoke', noise: 'reset', times: Infinity }]);
  const folder = join(work, 'setup-items');
  const runPrefix = `dxs-noise${Date.now().toString(36)}`;
  const context: RunContext = {
    baseUrl: gateway.baseUrl,
    apiKey: SANDBOX_API_KEY,
    apiKeyWithoutDelete: SANDBOX_API_KEY_WITHOUT_DELETE,
    asyncTimeoutSeconds: 30,
    casing: 'any',
    areas: ['access'],
    destructive: false,
    profile: 'full',
    reportDir: join(work, 'setup-report'),
    runPrefix,
    seed: 7,
    embedded: false,
    version: 'test',
    startedAt: new Date().toISOString(),
    connection: { insecure: false },
  };
  const plan = { folder, workers: 1, items: ['registeredCompany', 'access', 'access-inbox', 'foreign'] };
  const summary = await runSetup(context, plan, Date.now());
  assert.equal(summary.items, 4);
  const access = JSON.parse(readFileSync(join(folder, 'w0-access.json'), 'utf8')) as { cause?: { prerequisite: string; message: string } };
  assert.equal(access.cause?.prerequisite, 'transport', JSON.stringify(access).slice(0, 500));
  assert.match(access.cause?.message ?? '', /POST \/clienttokens\/revoke/);
  assert.ok(gateway.injected.includes('POST /clienttokens/revoke reset'));
});

test("the preflight of the keys and the base URL sends its calls again through a 502 and a reset: a wrong key is still found, a right one is no configuration error", async () => {
  const input = { baseUrl: gateway.baseUrl, connection: { insecure: false }, baseSetting: '--base-url (flag)' };
  gateway.setRules([
    { method: 'POST', path: '/clienttokens/create', noise: '502' },
    { method: 'GET', path: '/companies/status', noise: 'reset' },
  ]);
  const outcome = await preflight({ ...input, keys: [{ value: SANDBOX_API_KEY, setting: '--api-key (flag)', flag: '--api-key' }] });
  assert.deepEqual(outcome.notJudged, [], 'nothing left unjudged: each call was sent again');
  assert.deepEqual(gateway.injected, ['POST /clienttokens/create 502', 'GET /companies/status reset']);
  gateway.setRules([{ method: 'POST', path: '/clienttokens/create', noise: '502' }]);
  await assert.rejects(preflight({ ...input, keys: [{ value: 'not-a-key-of-the-sandbox', setting: '--api-key (flag)', flag: '--api-key' }] }), /the API key of --api-key \(flag\) was refused/);
});
