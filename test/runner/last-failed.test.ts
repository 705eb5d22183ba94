// dxs test --last-failed [DIR] (issue 43): after a faulty run, only its failed tests run again;
// against the same faulty target they still fail (exit 1), against the clean one all are fixed (exit 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../sandbox/index.ts';
import type { Results } from '../../report/results.ts';
import { runDxs } from './helpers.ts';

const RUN_TIMEOUT_MS = 180_000;

function resultsOf(directory: string): Results {
  return JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
}

test('--last-failed runs again only the tests that failed, says which are fixed, and exits 0 when all are', async () => {
  const work = mkdtempSync(join(tmpdir(), 'dxs-last-failed-'));
  const faulty = await startSandbox({ port: 0, host: '127.0.0.1', faults: ['token-erpid-optional'] });
  const clean = await startSandbox({ port: 0, host: '127.0.0.1' });
  const target = (sandbox: typeof faulty): string[] => ['--base-url', sandbox.baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete];
  try {
    // In the working folder's reports/, so that reports/latest (the default of --last-failed) points to it.
    const first = await runDxs(['test', ...target(faulty), '--grep', '@TOK-0[1-4]', '--workers', '1'], { cwd: work, timeoutMs: RUN_TIMEOUT_MS });
    assert.equal(first.code, 1, first.stderr);
    const before = resultsOf(join(work, 'reports', 'latest'));
    const failed = before.tests.filter((entry) => entry.verdict === 'failed').map((entry) => entry.id);
    assert.equal(failed.length, 1, 'one test fails under the fault');
    assert.ok(before.tests.length > failed.length, 'the first run ran more tests than failed');

    const again = join(work, 'again');
    const still = await runDxs(['test', ...target(faulty), '--last-failed', join(work, 'reports', 'latest'), '--report-dir', again], { cwd: work, timeoutMs: RUN_TIMEOUT_MS });
    assert.equal(still.code, 1, still.stderr);
    const stillResults = resultsOf(again);
    assert.deepEqual(stillResults.tests.map((entry) => entry.id), failed, 'only the failed test ran again');
    assert.equal(stillResults.lastFailed?.stillFailing.length, 1);
    assert.match(still.stderr, /--last-failed .*: 0 of 1 fixed, 1 still failing/);
    assert.match(readFileSync(join(again, 'index.html'), 'utf8'), /0 of 1 fixed, 1 still failing/);

    // No folder: reports/latest.
    const fixed = await runDxs(['test', ...target(clean), '--last-failed'], { cwd: work, timeoutMs: RUN_TIMEOUT_MS });
    assert.equal(fixed.code, 0, fixed.stderr);
    const fixedResults = resultsOf(join(work, 'reports', 'latest'));
    assert.deepEqual(fixedResults.tests.map((entry) => entry.id), failed);
    assert.equal(fixedResults.lastFailed?.fixed.length, 1);
    assert.match(fixed.stderr, /--last-failed reports\/latest: 1 of 1 fixed, 0 still failing\n {2}fixed: contract\/tokens\.spec\.ts › /);
  } finally {
    await faulty.close();
    await clean.close();
    rmSync(work, { recursive: true, force: true });
  }
});
