// dxs behind a company proxy (issue 31): the staging host resolves only through the proxy, as on
// most company networks and CI runners. dxs test (the whole full-destructive profile, over HTTPS
// with the run's CA, through a proxy that wants credentials), dxs load and dxs fuzz reach the
// sandbox through HTTPS_PROXY and through --proxy, and exit 2 with "host name not found" without
// it; the proxy sees their requests; its credentials are in no report file. Every address is
// 127.0.0.1: the made-up host name is the proxy's to resolve.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import { reportTexts } from '../runner/helpers.ts';
import { k6Binary, NO_K6 } from '../load/helpers.ts';
import { PROXY_ONLY_HOST, PROXY_PASSWORD, PROXY_USER, runDxsWith, startDeploymentSandbox, startForwardProxy, type ForwardProxy } from './helpers.ts';

const API_KEY = 'sandbox-key-with-delete-role';
const SCHEMATHESIS = new URL('../../.tools/venv/bin/schemathesis', import.meta.url).pathname;

let secure: RunningSandbox & { hostUrl: string };
let plain: RunningSandbox;
let plainHostUrl: string;
let proxy: ForwardProxy;
const work = mkdtempSync(join(tmpdir(), 'dxs-proxy-'));

before(async () => {
  secure = await startDeploymentSandbox(['tls']);
  plain = await startSandbox({ port: 0, host: '127.0.0.1' });
  plainHostUrl = plain.baseUrl.replace('127.0.0.1', PROXY_ONLY_HOST);
  proxy = await startForwardProxy({ hosts: [PROXY_ONLY_HOST], credentials: true });
});

after(async () => {
  await proxy.close();
  await secure.close();
  await plain.close();
  rmSync(work, { recursive: true, force: true });
});

/** The proxy's log from here on. */
function mark(): () => string[] {
  const start = proxy.seen.length;
  return () => proxy.seen.slice(start);
}

function assertNoCredentials(directory: string): void {
  const basic = Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64');
  for (const [file, text] of reportTexts(directory)) {
    assert.ok(!text.includes(PROXY_PASSWORD), `${file} holds the proxy password`);
    assert.ok(!text.includes(basic), `${file} holds the proxy's Basic credentials`);
  }
}

test('dxs test without the proxy exits 2: the host name is not found', async () => {
  const run = await runDxsWith(['test', '--base-url', secure.hostUrl, '--api-key', API_KEY, '--ca-cert', secure.tls!.caCert, '--report-dir', join(work, 'no-proxy')]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /is unreachable: host name not found/);
});

test('dxs test --profile full-destructive passes over HTTPS through HTTPS_PROXY with credentials, and no report file holds them', async () => {
  const seen = mark();
  const reportDir = join(work, 'full-destructive');
  const run = await runDxsWith(
    ['test', '--base-url', secure.hostUrl, '--api-key', API_KEY, '--ca-cert', secure.tls!.caCert, '--profile', 'full-destructive', '--workers', '2', '--report-dir', reportDir],
    { HTTPS_PROXY: proxy.urlWithCredentials },
    900_000,
  );
  assert.equal(run.code, 0, run.stdout.slice(-4000) + run.stderr);
  const results = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8'));
  assert.equal(results.run.status, 'passed');
  assert.equal(results.summary.failed, 0);
  assert.ok(results.summary.passed > 100, `the whole profile ran (${results.summary.passed} passed)`);
  assert.equal(results.run.connection.proxy, `http://[REDACTED]@${new URL(proxy.url).host}`);
  assert.match(results.cleanup.message, /every company the run registered is deleted/, 'the cleanup went through the proxy too');
  const connects = seen().filter((line) => line === `CONNECT ${new URL(secure.hostUrl).host}`);
  assert.ok(connects.length > 2, `the probe, the workers and the cleanup tunnelled through the proxy (${connects.length} CONNECTs)`);
  assert.ok(!run.stdout.includes(PROXY_PASSWORD) && !run.stderr.includes(PROXY_PASSWORD), 'the console does not show the password');
  assertNoCredentials(reportDir);
});

test('dxs test --proxy reaches a plain HTTP target (the probe in absolute-form, Playwright tunnelled), and dxs clean --proxy deletes what it kept', async () => {
  let seen = mark();
  const reportDir = join(work, 'flag');
  const run = await runDxsWith(['test', '--base-url', plainHostUrl, '--api-key', API_KEY, '--proxy', proxy.urlWithCredentials, '--area', 'tokens', '--workers', '1', '--keep-data', '--report-dir', reportDir]);
  assert.equal(run.code, 0, run.stdout.slice(-3000) + run.stderr);
  const lines = seen();
  assert.ok(lines.includes(`GET ${plainHostUrl}`), `the probe went through the proxy:\n${lines.join('\n')}`);
  assert.ok(lines.includes(`CONNECT ${new URL(plainHostUrl).host}`), 'Playwright went through the proxy');
  assertNoCredentials(reportDir);

  const unreachable = await runDxsWith(['clean', '--from', reportDir, '--api-key', API_KEY]);
  assert.equal(unreachable.code, 2, unreachable.stderr);
  assert.match(unreachable.stderr, /host name not found/);
  seen = mark();
  const clean = await runDxsWith(['clean', '--from', reportDir, '--api-key', API_KEY], { DXS_PROXY: proxy.urlWithCredentials });
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.ok(seen().includes(`POST ${plainHostUrl}/companies/delete`), 'the deletes went through the proxy');
  assert.ok(!clean.stdout.includes(PROXY_PASSWORD) && !clean.stderr.includes(PROXY_PASSWORD));
});

test('dxs load --profile smoke reaches the target through HTTPS_PROXY (HTTPS, the CA as SSL_CERT_FILE) and through --proxy, and exits 2 without', { skip: k6Binary() === undefined ? NO_K6 : undefined }, async () => {
  const without = await runDxsWith(['load', '--profile', 'smoke', '--script', 'client-tokens', '--base-url', secure.hostUrl, '--api-key', API_KEY, '--ca-cert', secure.tls!.caCert, '--report-dir', join(work, 'load-none')]);
  assert.equal(without.code, 2, without.stderr);
  assert.match(without.stderr, /host name not found/);

  let seen = mark();
  const viaEnv = await runDxsWith(
    ['load', '--profile', 'smoke', '--script', 'client-tokens', '--base-url', secure.hostUrl, '--api-key', API_KEY, '--ca-cert', secure.tls!.caCert, '--duration', '5s', '--report-dir', join(work, 'load-env')],
    { HTTPS_PROXY: proxy.urlWithCredentials },
  );
  assert.equal(viaEnv.code, 0, viaEnv.stdout + viaEnv.stderr);
  assert.match(viaEnv.stdout, /client-tokens: passed/);
  assert.ok(seen().filter((line) => line.startsWith('CONNECT ')).length > 2, 'k6 tunnelled through the proxy');
  assertNoCredentials(join(work, 'load-env'));

  seen = mark();
  const viaFlag = await runDxsWith(['load', '--profile', 'smoke', '--script', 'client-tokens', '--base-url', plainHostUrl, '--api-key', API_KEY, '--proxy', proxy.urlWithCredentials, '--duration', '5s', '--report-dir', join(work, 'load-flag')]);
  assert.equal(viaFlag.code, 0, viaFlag.stdout + viaFlag.stderr);
  assert.ok(seen().some((line) => line.startsWith(`POST ${plainHostUrl}/clienttokens/create`)), 'k6 sent its requests to the proxy in absolute-form');
  assertNoCredentials(join(work, 'load-flag'));
});

test('dxs fuzz reaches the target through --proxy (HTTPS) and through HTTP_PROXY, and exits 2 without', { skip: existsSync(SCHEMATHESIS) ? undefined : 'Schemathesis is not installed (scripts/setup.sh)' }, async () => {
  const fuzz = ['fuzz', '--api-key', API_KEY, '--max-examples', '1', '--seed', '1', '--duration', '30'];
  const without = await runDxsWith([...fuzz, '--base-url', secure.hostUrl, '--ca-cert', secure.tls!.caCert, '--report-dir', join(work, 'fuzz-none')]);
  assert.equal(without.code, 2, without.stderr);
  assert.match(without.stderr, /host name not found/);

  let seen = mark();
  const viaFlag = await runDxsWith([...fuzz, '--base-url', secure.hostUrl, '--ca-cert', secure.tls!.caCert, '--proxy', proxy.urlWithCredentials, '--report-dir', join(work, 'fuzz-flag')]);
  assert.equal(viaFlag.code, 0, viaFlag.stdout.slice(-3000) + viaFlag.stderr);
  assert.ok(seen().filter((line) => line.startsWith('CONNECT ')).length > 3, 'the setup and Schemathesis tunnelled through the proxy');
  assertNoCredentials(join(work, 'fuzz-flag'));

  seen = mark();
  const viaEnv = await runDxsWith([...fuzz, '--base-url', plainHostUrl, '--report-dir', join(work, 'fuzz-env')], { HTTP_PROXY: proxy.urlWithCredentials });
  assert.equal(viaEnv.code, 0, viaEnv.stdout.slice(-3000) + viaEnv.stderr);
  const calls = seen().filter((line) => line.includes(`${plainHostUrl}/`));
  assert.ok(calls.length > 20, `the setup and Schemathesis sent their requests to the proxy (${calls.length})`);
  assertNoCredentials(join(work, 'fuzz-env'));
});
