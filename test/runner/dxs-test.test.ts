// dxs test end to end: the CLI spawns Playwright against the embedded sandbox (in two shards,
// merged afterwards), against nothing at all, and with bad options; the report directory is read back.
// Each run costs seconds, so one run serves several assertions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDxs } from './helpers.ts';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'dxs-runner-'));
}

test('dxs test against the embedded sandbox exits 0 in two shards, and dxs report merge joins them', async () => {
  const directory = scratch();
  try {
    const shards = [join(directory, 'shard-1'), join(directory, 'shard-2')];
    const runs = await Promise.all(shards.map((shard, index) => runDxs(['test', '--area', 'tokens', '--casing', 'strict-camel', '--workers', '1', '--shard', `${index + 1}/2`, '--report-dir', shard])));
    for (const run of runs) assert.equal(run.code, 0, run.stdout + run.stderr);
    for (const shard of shards) {
      for (const file of ['index.html', 'results.json', 'junit.xml', 'playwright/index.html']) assert.ok(existsSync(join(shard, file)), `${file} written`);
    }
    const first = JSON.parse(readFileSync(join(shards[0], 'results.json'), 'utf8'));
    assert.equal(first.run.status, 'passed');
    assert.equal(first.run.embedded, true);
    assert.ok(first.tests.every((entry: { requirements: string[]; area: string }) => entry.requirements.length > 0 && entry.area === 'tokens'), 'every test names its IDs and area');
    assert.match(readFileSync(join(shards[0], 'index.html'), 'utf8'), /PASSED/);
    const totals = shards.map((shard) => JSON.parse(readFileSync(join(shard, 'results.json'), 'utf8')).summary.total as number);
    assert.ok(totals.every((total) => total > 0));

    const merged = join(directory, 'merged');
    const result = await runDxs(['report', 'merge', ...shards, '--out', merged], { timeoutMs: 30_000 });
    assert.equal(result.code, 0, result.stderr);
    const results = JSON.parse(readFileSync(join(merged, 'results.json'), 'utf8'));
    assert.equal(results.summary.total, totals[0] + totals[1]);
    assert.deepEqual(results.run.shards, ['1/2', '2/2']);
    assert.ok(results.coverage['POST /clienttokens/create']['200'] > 0);
    const html = readFileSync(join(merged, 'index.html'), 'utf8');
    assert.match(html, /Shards/);
    assert.match(html, /TOK-01/);
    assert.match(html, /Endpoint coverage/);
    assert.match(readFileSync(join(merged, 'junit.xml'), 'utf8'), new RegExp(`tests="${results.summary.total}"`));
    const missing = await runDxs(['report', 'merge', join(directory, 'nope'), '--out', merged], { timeoutMs: 30_000 });
    assert.equal(missing.code, 2);
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
