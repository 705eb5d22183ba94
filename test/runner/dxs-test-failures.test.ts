// dxs test when things go wrong: a target that breaks a requirement, a run interrupted like
// Ctrl-C, a target that dies mid-run. And in every case: no secret in any report file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../sandbox/index.ts';
import { reportTexts, runDxs, startRecordingProxy } from './helpers.ts';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'dxs-runner-'));
}

test('a target that breaks a MUST exits 1 with the failure in the report, and no key or token reaches any report file', async () => {
  const directory = scratch();
  // PascalCase answers held to --casing strict-pascal: only the fault may fail.
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', casing: 'pascal', faults: ['revoked-token-accepted'] });
  // The proxy learns every token the target hands out, to look for each one in the report.
  const proxy = await startRecordingProxy(sandbox.baseUrl);
  try {
    const result = await runDxs([
      'test', '--base-url', proxy.baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete,
      '--area', 'tokens', 'security', '--casing', 'strict-pascal', '--report-dir', directory,
    ]);
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

test('an interrupted run still writes its report', async () => {
  const directory = scratch();
  try {
    let signalled = false;
    const result = await runDxs(['test', '--workers', '1', '--area', 'tokens', 'companies', 'security', '--report-dir', directory], {
      onOutput: (output, child) => {
        // Once the first test has passed, the run is under way: interrupt it like Ctrl-C would.
        if (!signalled && output.includes('✓')) {
          signalled = true;
          child.kill('SIGINT');
        }
      },
    });
    assert.ok(signalled, 'the run started');
    // 128 + SIGINT's number, as a shell reports Ctrl-C (issue 41), after the report is written.
    assert.equal(result.code, 130, result.stdout + result.stderr);
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
  const proxy = await startRecordingProxy(sandbox.baseUrl, { dieAfter: 10 });
  try {
    // A bound, not an assertion: each lost call is sent again and each test run again once (issue 57) before it is blocked.
    const result = await runDxs(['test', '--base-url', proxy.baseUrl, '--api-key', sandbox.apiKey, '--area', 'tokens', '--async-timeout', '2', '--report-dir', directory], { timeoutMs: 300_000 });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
    assert.match(results.run.message, /no response from the target/);
    // Every call closed without an answer is the deployment's transport (issue 57): sent again, run again, then blocked on it.
    assert.ok(results.summary.failed + results.summary.blocked > 0);
    assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /stopped answering/);
  } finally {
    await proxy.close();
    await sandbox.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
