// dxs test end to end: the CLI spawns Playwright against the embedded sandbox, a sandbox with a
// deliberate fault, or nothing at all, and the report directory is read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../sandbox/index.ts';
import { reportTexts, runDxs, startRecordingProxy } from './helpers.ts';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'dxs-runner-'));
}

test('dxs test against the embedded sandbox exits 0 and writes every report file', async () => {
  const directory = scratch();
  try {
    const result = await runDxs(['test', '--area', 'tokens', 'security', '--report-dir', directory]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    for (const file of ['index.html', 'results.json', 'junit.xml', 'playwright/index.html']) assert.ok(existsSync(join(directory, file)), `${file} written`);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
    assert.equal(results.run.status, 'passed');
    assert.equal(results.run.embedded, true);
    assert.ok(results.summary.total > 10);
    assert.ok(results.tests.every((entry: { requirements: string[]; area: string }) => entry.requirements.length > 0 && entry.area !== 'unknown'), 'every test names its IDs and area');
    assert.ok(results.coverage['POST /clienttokens/create']['200'] > 0);
    const html = readFileSync(join(directory, 'index.html'), 'utf8');
    assert.match(html, /PASSED/);
    assert.match(html, /TOK-01/);
    assert.match(html, /Endpoint coverage/);
    assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /<testsuites /);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('an unreachable base URL exits 2 with a clear message and still writes the report', async () => {
  const directory = scratch();
  try {
    const result = await runDxs(['test', '--base-url', 'http://127.0.0.1:1/v1/api', '--api-key', 'some-api-key-value', '--report-dir', directory], { timeoutMs: 30_000 });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /http:\/\/127\.0\.0\.1:1\/v1\/api is unreachable: connection refused/);
    const html = readFileSync(join(directory, 'index.html'), 'utf8');
    assert.match(html, /the target was unreachable/);
    assert.doesNotMatch(html, /some-api-key-value/);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
    assert.equal(results.run.status, 'unreachable');
    assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /failures="1"/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('usage and configuration errors exit 2 before anything runs', async () => {
  const unknownProfile = await runDxs(['test', '--profile', 'nope'], { timeoutMs: 30_000 });
  assert.equal(unknownProfile.code, 2);
  assert.match(unknownProfile.stderr, /unknown profile "nope" \(known: full/);
  const badWorkers = await runDxs(['test'], { env: { DXS_WORKERS: 'many' }, timeoutMs: 30_000 });
  assert.equal(badWorkers.code, 2);
  assert.match(badWorkers.stderr, /DXS_WORKERS: expected an integer/);
  const unknownFlag = await runDxs(['test', '--no-such-flag'], { timeoutMs: 30_000 });
  assert.equal(unknownFlag.code, 2);
});

test('a target that breaks a MUST makes dxs test exit 1, with the failure in the report', async () => {
  const directory = scratch();
  try {
    const result = await runDxs(['test', '--sandbox-fault', 'revoked-token-accepted', '--area', 'security', '--grep', '@TOK-11', '--report-dir', directory]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
    const failed = results.tests.filter((entry: { verdict: string }) => entry.verdict === 'failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0].requirementVerdicts['TOK-11'], 'failed');
    assert.match(failed[0].failure, /TOK-11 \(SECURITY\)/);
    assert.ok(failed[0].exchanges.length > 0, 'the failure carries its requests and responses');
    const html = readFileSync(join(directory, 'index.html'), 'utf8');
    assert.match(html, /FAILED: 1 test failed/);
    assert.match(html, /GET \/companies\/status/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('no API key or token value appears in any file of the report directory', async () => {
  const directory = scratch();
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  const proxy = await startRecordingProxy(sandbox.baseUrl);
  try {
    const result = await runDxs([
      'test', '--base-url', proxy.baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete,
      '--area', 'tokens', 'companies', 'security', '--report-dir', directory,
    ]);
    assert.notEqual(result.code, 2, result.stderr);
    const tokens = new Set<string>();
    for (const body of proxy.bodies) for (const match of body.matchAll(/"token"\s*:\s*"([^"]+)"/gi)) tokens.add(match[1]);
    assert.ok(tokens.size > 5, `the run received tokens (${tokens.size})`);
    const secrets = [sandbox.apiKey, sandbox.apiKeyWithoutDelete, ...tokens];
    const texts = reportTexts(directory);
    assert.ok([...texts.keys()].some((name) => name.includes('playwright/index.html!')), 'the embedded Playwright report was opened');
    assert.ok([...texts.values()].some((text) => text.includes('[REDACTED]')), 'redaction happened');
    for (const [file, text] of texts) {
      for (const secret of secrets) assert.ok(!text.includes(secret), `${file} holds a secret (${secret.slice(0, 4)}...)`);
    }
  } finally {
    await proxy.close();
    await sandbox.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('shards merge into one report with dxs report merge', async () => {
  const directory = scratch();
  try {
    const shards = [join(directory, 'shard-1'), join(directory, 'shard-2')];
    const runs = await Promise.all(shards.map((shard, index) => runDxs(['test', '--area', 'tokens', '--workers', '1', '--shard', `${index + 1}/2`, '--report-dir', shard])));
    for (const run of runs) assert.equal(run.code, 0, run.stdout + run.stderr);
    const totals = shards.map((shard) => JSON.parse(readFileSync(join(shard, 'results.json'), 'utf8')).summary.total as number);
    assert.ok(totals.every((total) => total > 0));
    const merged = join(directory, 'merged');
    const result = await runDxs(['report', 'merge', ...shards, '--out', merged], { timeoutMs: 30_000 });
    assert.equal(result.code, 0, result.stderr);
    const results = JSON.parse(readFileSync(join(merged, 'results.json'), 'utf8'));
    assert.equal(results.summary.total, totals[0] + totals[1]);
    assert.deepEqual(results.run.shards, ['1/2', '2/2']);
    assert.ok(results.coverage['POST /clienttokens/create']['200'] > 0);
    assert.match(readFileSync(join(merged, 'index.html'), 'utf8'), /Shards/);
    assert.match(readFileSync(join(merged, 'junit.xml'), 'utf8'), new RegExp(`tests="${results.summary.total}"`));
    const missing = await runDxs(['report', 'merge', join(directory, 'nope'), '--out', merged], { timeoutMs: 30_000 });
    assert.equal(missing.code, 2);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('an interrupted run still writes its report', async () => {
  const directory = scratch();
  try {
    let signalled = false;
    const result = await runDxs(['test', '--workers', '1', '--report-dir', directory], {
      onOutput: (output, child) => {
        // Once the first test has passed, the run is under way: interrupt it like Ctrl-C would.
        if (!signalled && output.includes('✓')) {
          signalled = true;
          child.kill('SIGINT');
        }
      },
    });
    assert.ok(signalled, 'the run started');
    assert.equal(result.code, 2, result.stdout + result.stderr);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
    assert.equal(results.run.status, 'interrupted');
    assert.ok(results.tests.some((entry: { skipReason?: string }) => /interrupted/.test(entry.skipReason ?? '')), 'tests that never ran say why');
    assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /the run was interrupted/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a target that dies mid-run fails the run, and the report says the target stopped answering', async () => {
  const directory = scratch();
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  const proxy = await startRecordingProxy(sandbox.baseUrl, { dieAfter: 25 });
  try {
    const result = await runDxs(['test', '--base-url', proxy.baseUrl, '--api-key', sandbox.apiKey, '--area', 'tokens', 'security', '--async-timeout', '2', '--report-dir', directory]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
    assert.match(results.run.message, /no response from the target/);
    assert.ok(results.summary.failed > 0);
    assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /stopped answering/);
  } finally {
    await proxy.close();
    await sandbox.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
