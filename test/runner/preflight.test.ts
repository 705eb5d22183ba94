// Configuration errors are exit 2, found before the suites run (issue 59): a key the target refuses,
// a base URL that is not the API's, a base URL given without keys, a misspelled config key, and
// --last-failed with no run that ran. Against `dxs sandbox --port 0`, started as a user starts it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { preflight } from '../../lib/preflight.ts';
import { SecretRegistry } from '../../lib/redact.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { closestKey, ConfigError } from '../../lib/config.ts';
import { SANDBOX_API_KEY } from '../../lib/defaults.ts';
import { connectionInfo, SYSTEM_ROOTS } from '../../report/connection.ts';
import { loadLastFailed } from '../../report/last-failed.ts';
import type { Results } from '../../report/results.ts';
import { runDxs, type CliResult } from './helpers.ts';
import { k6Binary } from '../load/helpers.ts';

/** A bound on each command, not an assertion: a preflight ends a run in seconds. */
const TIMEOUT_MS = 120_000;

let work = '';
let baseUrl = '';
let sandboxProcess: ChildProcess | undefined;
let sandboxRun: Promise<CliResult> | undefined;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'dxs-preflight-'));
  sandboxRun = runDxs(['sandbox', '--port', '0'], {
    timeoutMs: 600_000,
    onOutput: (output, child) => {
      sandboxProcess = child;
      baseUrl = /listening on (http:\/\/\S+\/v1\/api)/.exec(output)?.[1] ?? '';
    },
  });
  for (let attempt = 0; attempt < 600 && baseUrl === ''; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1\/api$/, 'dxs sandbox --port 0 says where it listens');
});

after(async () => {
  sandboxProcess?.kill('SIGTERM');
  await sandboxRun;
  rmSync(work, { recursive: true, force: true });
});

function resultsOf(directory: string): Results {
  return JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
}

function folder(name: string): string {
  const directory = join(work, name);
  mkdirSync(directory, { recursive: true });
  return directory;
}

test('a wrong key is exit 2 before any test runs, naming the setting, its source and what the target answered', async () => {
  const fromFlag = await runDxs(['test', '--base-url', baseUrl, '--api-key', 'WRONG-key-of-the-flag', '--report-dir', join(work, 'flag')], { timeoutMs: TIMEOUT_MS });
  assert.equal(fromFlag.code, 2, fromFlag.stderr);
  assert.match(fromFlag.stderr, /the API key of --api-key \(flag\) was refused by .*POST \/clienttokens\/create answered 401.*POST \/companies\/register 401.*Likely fix/);
  assert.doesNotMatch(fromFlag.stderr, /WRONG-key-of-the-flag/, 'the key is redacted');
  const results = resultsOf(join(work, 'flag'));
  assert.equal(results.summary.total, 0, 'no test ran, none blocked');
  assert.equal(results.run.status, 'error');

  const fromEnv = await runDxs(['test', '--base-url', baseUrl, '--report-dir', join(work, 'env')], { env: { DXS_API_KEY: 'WRONG' }, timeoutMs: TIMEOUT_MS });
  assert.equal(fromEnv.code, 2, fromEnv.stderr);
  assert.match(fromEnv.stderr, /the API key of DXS_API_KEY \(environment variable\) was refused/);

  const config = join(work, 'dxs.json');
  writeFileSync(config, JSON.stringify({ baseUrl, apiKey: 'WRONG' }));
  const fromConfig = await runDxs(['test', '--config', config, '--report-dir', join(work, 'config')], { timeoutMs: TIMEOUT_MS });
  assert.equal(fromConfig.code, 2, fromConfig.stderr);
  assert.match(fromConfig.stderr, /the API key of "apiKey" \(config file .*dxs\.json\) was refused/);

  // The second key is checked too, and is never quietly the sandbox's.
  const second = await runDxs(['test', '--base-url', baseUrl, '--api-key', SANDBOX_API_KEY, '--api-key-without-delete', 'WRONG', '--report-dir', join(work, 'second')], { timeoutMs: TIMEOUT_MS });
  assert.equal(second.code, 2, second.stderr);
  assert.match(second.stderr, /the API key of --api-key-without-delete \(flag\) was refused/);
});

test('dxs certify with a wrong key exits 2 and writes no certificate', async () => {
  const packageDir = join(work, 'certify');
  const run = await runDxs(['certify', '--profile', 'invoice-sender', '--deployment', 'acme-dx 2.4.1', '--base-url', baseUrl, '--api-key', 'WRONG', '--report-dir', packageDir], { timeoutMs: TIMEOUT_MS });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /the API key of --api-key \(flag\) was refused/);
  assert.match(run.stderr, /no certificate is issued/);
  assert.doesNotMatch(run.stderr, /DOES NOT CONFORM/);
  for (const file of ['certificate.html', 'certificate.pdf', 'certificate.json', 'manifest.json']) assert.equal(existsSync(join(packageDir, file)), false, `no ${file}`);
  assert.equal(existsSync(`${packageDir}.zip`), false, 'no zip');
});

test('a base URL without /v1/api is exit 2, with the URL that answers as the likely fix', async () => {
  const origin = new URL(baseUrl).origin;
  const run = await runDxs(['test', '--base-url', origin, '--api-key', SANDBOX_API_KEY, '--report-dir', join(work, 'prefix')], { timeoutMs: TIMEOUT_MS });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, new RegExp(`base URL ${origin} from --base-url \\(flag\\) is not the API's base: POST /clienttokens/create and GET /companies/status both answered 404\\. Likely fix: did you mean ${origin}/v1/api\\?`));
  assert.equal(resultsOf(join(work, 'prefix')).summary.total, 0);
});

test('a base URL the user gives without keys is exit 2 saying the key is missing (the sandbox keys go only to the sandbox dxs starts)', async () => {
  const run = await runDxs(['test', '--base-url', baseUrl, '--report-dir', join(work, 'no-key')], { timeoutMs: TIMEOUT_MS, sandboxKeys: false });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /no API key for .*: the API key is missing; pass --api-key, set DXS_API_KEY/);
  const load = await runDxs(['load', '--script', 'client-tokens', '--base-url', baseUrl, '--report-dir', join(work, 'no-key-load')], { timeoutMs: TIMEOUT_MS, sandboxKeys: false });
  assert.equal(load.code, 2, load.stderr);
  assert.match(load.stderr, /the API key is missing|k6/);
});

test('dxs load and dxs fuzz stop on a wrong key with exit 2 before k6 or Schemathesis runs', async () => {
  const load = await runDxs(['load', '--script', 'register-and-poll', '--base-url', baseUrl, '--report-dir', join(work, 'load')], { env: { DXS_API_KEY: 'WRONG' }, timeoutMs: TIMEOUT_MS });
  assert.equal(load.code, 2, load.stderr);
  // Without k6 the run stops earlier, on that.
  assert.match(load.stderr, k6Binary() === undefined ? /k6/ : /the API key of DXS_API_KEY \(environment variable\) was refused/);
  assert.doesNotMatch(load.stderr, /CMP-REG-02/);
  const fuzz = await runDxs(['fuzz', '--base-url', baseUrl, '--api-key', 'WRONG', '--max-examples', '1', '--report-dir', join(work, 'fuzz')], { timeoutMs: TIMEOUT_MS });
  assert.equal(fuzz.code, 2, fuzz.stderr);
  assert.match(fuzz.stderr, /the API key of --api-key \(flag\) was refused|[Ss]chemathesis/);
});

test('a run that never started leaves reports/latest alone; --last-failed with no run that ran is exit 2', async () => {
  const cwd = folder('latest');
  const stopped = await runDxs(['test', '--base-url', baseUrl, '--api-key', 'WRONG'], { cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(stopped.code, 2, stopped.stderr);
  assert.equal(readdirSync(join(cwd, 'reports')).length, 1, 'the stopped run wrote its report');
  assert.equal(lstatSync(join(cwd, 'reports', 'latest'), { throwIfNoEntry: false }), undefined, 'reports/latest does not point to it');
  const again = await runDxs(['test', '--base-url', baseUrl, '--api-key', SANDBOX_API_KEY, '--last-failed'], { cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(again.code, 2, again.stderr);
  assert.match(again.stderr, /--last-failed reports\/latest: .* no earlier run that ran tests/);

  // A report of a run that ran no test (one written before this rule) is no run to repeat either.
  const empty = folder('empty-run');
  const stoppedResults = resultsOf(readdirSync(join(cwd, 'reports')).map((name) => join(cwd, 'reports', name))[0]);
  writeFileSync(join(empty, 'results.json'), JSON.stringify(stoppedResults));
  assert.throws(() => loadLastFailed(empty), (error: unknown) => error instanceof ConfigError && /that run ran no test/.test(error.message));
});

test('a misspelled config key is exit 2 naming it and the closest key; the new settings have flags and config keys', async () => {
  const config = join(work, 'misspelled.json');
  writeFileSync(config, JSON.stringify({ apikey: 'x', wrokers: 2 }));
  const run = await runDxs(['test', '--config', config], { timeoutMs: TIMEOUT_MS });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /unknown keys "apikey" \(did you mean "apiKey"\?\), "wrokers" \(did you mean "workers"\?\)/);
  assert.equal(closestKey('lokedOutUserName', ['lockedOutUserName', 'baseUrl']), 'lockedOutUserName');
  assert.equal(closestKey('something', ['baseUrl']), undefined);

  // A key of dxs load is no unknown key to dxs test: one file serves both.
  const shared = join(work, 'shared.json');
  writeFileSync(shared, JSON.stringify({ baseUrl, apiKey: 'WRONG', vus: 2, identifierTypes: ['GLN'], erpIdWithoutIdentifiers: 'erp-1', lockedOutUserName: 'locked', notApprovedUserName: 'pending' }));
  const sharedRun = await runDxs(['test', '--config', shared, '--report-dir', join(work, 'shared')], { timeoutMs: TIMEOUT_MS });
  assert.equal(sharedRun.code, 2, sharedRun.stderr);
  assert.match(sharedRun.stderr, /was refused/, 'the file is read; the run stops at the preflight, not at a key');

  const flags = await runDxs(['test', '--base-url', baseUrl, '--api-key', 'WRONG', '--identifier-types', 'GLN,VatNo', '--erp-id-without-identifiers', 'erp-1', '--locked-out-user-name', 'locked', '--not-approved-user-name', 'pending', '--report-dir', join(work, 'flags')], { timeoutMs: TIMEOUT_MS });
  assert.equal(flags.code, 2, flags.stderr);
  assert.match(flags.stderr, /was refused/, 'the flags are accepted');
  const help = await runDxs(['test', '--help'], { timeoutMs: TIMEOUT_MS });
  for (const name of ['DXS_ERP_ID_WITHOUT_IDENTIFIERS', 'DXS_IDENTIFIER_TYPES', 'DXS_LOCKED_OUT_USER_NAME', 'DXS_NOT_APPROVED_USER_NAME']) assert.ok(help.stdout.includes(name), `--help lists ${name}`);
});

test('a worker setting given in the config file reaches the checks that need it (CMP-IDN-05 runs instead of being skipped)', async () => {
  const config = join(work, 'worker-settings.json');
  // No company has this ErpId: the check runs and fails, which is what shows the setting arrived.
  writeFileSync(config, JSON.stringify({ erpIdWithoutIdentifiers: 'no-such-erp-id-of-this-test' }));
  const run = await runDxs(['test', '--base-url', baseUrl, '--config', config, '--grep', '@CMP-IDN-05(?![\\w-])', '--workers', '1', '--report-dir', join(work, 'worker-settings')], { timeoutMs: TIMEOUT_MS });
  const results = resultsOf(join(work, 'worker-settings'));
  assert.equal(results.summary.total, 1, run.stderr);
  assert.equal(results.summary.skipped, 0, 'not skipped for want of --erp-id-without-identifiers');
});

test('the roots of SSL_CERT_FILE are named, not given by their path; a --ca-cert by its file name', () => {
  const system = connectionInfo({ insecure: false, caCert: '/etc/ssl/certs/ca-certificates.crt', caCertFromEnvironment: true }, undefined);
  assert.equal(system.caCert, SYSTEM_ROOTS);
  const given = connectionInfo({ insecure: false, caCert: '/home/someone/corp-ca.pem', clientCert: '/home/someone/erp.pem', clientKey: '/home/someone/erp.key' }, undefined);
  assert.equal(given.caCert, 'corp-ca.pem');
  assert.equal(given.clientCert, 'erp.pem');
});

/** A target that answers each "METHOD /path" with the status given (404 for the rest). */
async function fakeTarget(statuses: Record<string, number>): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    const status = statuses[`${request.method} ${request.url?.replace(/^\/v1\/api/, '')}`] ?? 404;
    response.writeHead(status, status === 429 ? { 'retry-after': '1' } : {}).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/api`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const key = { value: 'a-key-of-this-test', setting: '--api-key (flag)', flag: '--api-key' };

test('the preflight never judges a gateway (429, 503), nor a key refused on one call and taken on another, nor a 401 for the unknown ErpId alone', async () => {
  const gateway = await fakeTarget({ 'POST /clienttokens/create': 429, 'GET /companies/status': 503, 'POST /companies/register': 429 });
  try {
    const outcome = await preflight({ baseUrl: gateway.baseUrl, connection: { insecure: false }, baseSetting: '--base-url (flag)', keys: [key], registry: new SecretRegistry() });
    assert.equal(outcome.notJudged.length, 2, outcome.notJudged.join('; '));
  } finally {
    await gateway.close();
  }
  const partly = await fakeTarget({ 'POST /clienttokens/create': 401, 'GET /companies/status': 401, 'POST /companies/register': 400 });
  try {
    await preflight({ baseUrl: partly.baseUrl, connection: { insecure: false }, baseSetting: '--base-url (flag)', keys: [key], registry: new SecretRegistry() });
  } finally {
    await partly.close();
  }
  // The defensible reading that answers 401 for a token of an ErpId without a company, with the right key.
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', variants: ['token-unknown-erpid-401'] });
  try {
    await preflight({ baseUrl: sandbox.baseUrl, connection: { insecure: false }, baseSetting: '--base-url (flag)', keys: [{ ...key, value: sandbox.apiKey }, { ...key, value: sandbox.apiKeyWithoutDelete }], registry: new SecretRegistry() });
  } finally {
    await sandbox.close();
  }
});
