// No wait without a reason (issue 36). A poll for something the spec does not promise ends once
// what it watches can no longer change, and its observation says why it ended; no assertion on
// time: the observation names the reason, which would be the async timeout had it run out.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Results } from '../../report/results.ts';
import { runDxs } from './helpers.ts';

test('against a target that sets no ErrorInfo on a failed conversion, the Accept-Language observation ends when the document is final and says so', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-no-errorinfo-'));
  try {
    const run = await runDxs(['test', '--area', 'conventions', '--sandbox-variant', 'conversion-error-no-errorinfo', '--workers', '1', '--report-dir', directory]);
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    assert.equal(results.summary.failed, 0);
    assert.equal(results.summary.blocked, 0);
    const record = results.tests.find((entry) => entry.title.startsWith('an error call with Accept-Language sv-SE'));
    assert.ok(record !== undefined, 'the Accept-Language error test ran');
    const observations = record.annotations.filter((annotation) => annotation.type === 'info').map((annotation) => annotation.description ?? '');
    assert.ok(
      observations.some((text) => /CNV-17: ErrorInfo\.Message after .*ConversionFailed \(the document reached ConversionFailed, a final status with no ErrorInfo\.Message: the target sets none\)/.test(text)),
      `the observation says the wait ended at the final status: ${observations.join(' | ')}`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
