// dxs test against a target whose prerequisite is broken (issue 14): exit 1, the tests that need it
// blocked with the root cause, the cause first in the console's last lines and on the page; and
// --fail-fast, Playwright's blunt stop. Each run costs seconds, so one run serves several assertions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../../report/results.ts';
import { runDxs } from './helpers.ts';

test('token creation answering 500 blocks every test that needs a client token, names the root cause first, and exits 1', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-blocked-'));
  try {
    const run = await runDxs(['test', '--area', 'tokens', '--sandbox-fault', 'token-create-500', '--async-timeout', '3', '--workers', '2', '--report-dir', directory]);
    assert.equal(run.code, 1, run.stderr);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    assert.ok(results.summary.blocked > 1, `several tests blocked (${results.summary.blocked})`);
    assert.equal(results.run.status, 'failed');
    assert.equal(results.rootCauses?.length, 1, 'one root cause, however many workers found it');
    const cause = results.rootCauses?.[0];
    assert.equal(cause?.prerequisite, 'client-token');
    assert.equal(cause?.requirement, 'TOK-01');
    assert.match(cause?.message ?? '', /POST \/clienttokens\/create answered 500/);
    assert.equal(cause?.tests.length, results.summary.blocked);
    // The test that checks token creation itself fails on it rather than being blocked.
    assert.ok(results.tests.some((entry) => entry.verdict === 'failed' && entry.requirementVerdicts['TOK-01'] === 'failed'), 'a TOK-01 test failed');
    const blocked = results.tests.find((entry) => entry.verdict === 'blocked');
    assert.ok(blocked !== undefined && blocked.requirements.every((id) => blocked.requirementVerdicts[id] === 'blocked'), 'a blocked test blocks every ID it names');
    // The console's last lines: the summary, the root cause, the report's path.
    const lines = run.stderr.trim().split('\n');
    assert.match(lines[lines.length - 4], /FAILED: .* \d+ blocked/);
    assert.match(lines[lines.length - 3], /^1 root cause blocked \d+ tests:$/);
    assert.match(lines[lines.length - 2], /a client token for a registered company is broken \(TOK-01\)/);
    const html = readFileSync(join(directory, 'index.html'), 'utf8');
    assert.ok(html.indexOf('root cause blocked') < html.indexOf('class="meta"'), 'the root cause is at the top of the page');
    assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /<error message="blocked: a client token for a registered company is broken \(TOK-01\)/);
    assert.deepEqual(readdirSync(directory).filter((name) => name.startsWith('.dxs-broken-prerequisites')), [], 'the workers\' shared file is removed');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('--fail-fast stops at the first failed test; the rest are reported as not run', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-fail-fast-'));
  try {
    const run = await runDxs(['test', '--area', 'tokens', '--sandbox-fault', 'token-erpid-optional', '--fail-fast', '--workers', '1', '--report-dir', directory]);
    assert.equal(run.code, 1, run.stderr);
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    assert.equal(results.summary.failed, 1);
    assert.ok(results.tests.some((entry) => entry.status === 'not run'), 'tests after the failure did not run');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('dxs test --help documents the blunt stops and the workers default', async () => {
  const run = await runDxs(['test', '--help'], { timeoutMs: 30_000 });
  assert.equal(run.code, 0);
  assert.match(run.stdout, /--max-failures <N>/);
  assert.match(run.stdout, /--fail-fast/);
  assert.match(run.stdout, /Workers: chosen from what the start measures of the target/);
});
