// dxs test --baseline and --expect-failures end to end: a run against a sandbox with one fault is
// the baseline; the same fault again passes with the failure known; a second fault fails the run
// and only it is named. Two tests of the security area keep each run to a few seconds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_EXPECTATIONS } from '../faults/expectations.ts';
import { runDxs, type CliResult } from './helpers.ts';

const FIRST = 'revoked-token-accepted';
const SECOND = 'search-token-company-access';
const SELECTION = ['--area', 'security', '--grep', `@${FAULT_EXPECTATIONS[FIRST].requirement}|@${FAULT_EXPECTATIONS[SECOND].requirement}`, '--workers', '1'];

interface ComparedTest {
  title: string;
  requirements: string[];
  reason?: string;
}
interface Section {
  newFailures: ComparedTest[];
  known: ComparedTest[];
  fixed: ComparedTest[];
  expired: Array<{ requirement?: string; test?: string }>;
}

const describe = (result: CliResult): string => `exit ${result.code}\n${result.stderr.slice(-3000)}`;
const section = (directory: string): Section => (JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as { baseline: Section }).baseline;
const failingRequirement = (fault: string): string => FAULT_EXPECTATIONS[fault].requirement;

let scratch: string;
let baseline: string;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'dxs-baseline-'));
  baseline = join(scratch, 'baseline');
  const result = await runDxs(['test', '--sandbox-fault', FIRST, ...SELECTION, '--report-dir', baseline]);
  assert.equal(result.code, 1, `the baseline run fails on ${FIRST}: ${describe(result)}`);
});

after(() => rmSync(scratch, { recursive: true, force: true }));

test('the same fault against its own run as baseline exits 0 and shows the failure as known', async () => {
  const directory = join(scratch, 'same');
  const result = await runDxs(['test', '--sandbox-fault', FIRST, ...SELECTION, '--baseline', baseline, '--report-dir', directory]);
  assert.equal(result.code, 0, describe(result));
  assert.match(result.stderr, /against the baseline: 0 new failures, 1 known, 0 fixed/);
  const { known, newFailures } = section(directory);
  assert.deepEqual(newFailures, []);
  assert.equal(known.length, 1);
  assert.ok(known[0].requirements.includes(failingRequirement(FIRST)), `the known failure is the one of ${failingRequirement(FIRST)}`);
  const html = readFileSync(join(directory, 'index.html'), 'utf8');
  assert.match(html, /NO NEW FAILURE: 1 known failure, 0 fixed/);
  assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /failures="0"[^>]*>[\s\S]*<skipped message="known failure \(failed in the baseline\)/, 'junit.xml does not fail CI on it');
});

test('the same baseline against a sandbox with a second fault exits 1 and names only the new failure', async () => {
  const directory = join(scratch, 'second');
  const result = await runDxs(['test', '--sandbox-fault', FIRST, SECOND, ...SELECTION, '--baseline', join(baseline, 'results.json'), '--report-dir', directory]);
  assert.equal(result.code, 1, describe(result));
  const named = result.stderr.split('\n').filter((line) => line.includes('new failure:'));
  assert.equal(named.length, 1, describe(result));
  assert.match(named[0], new RegExp(failingRequirement(SECOND)));
  const { known, newFailures } = section(directory);
  assert.deepEqual(newFailures.map((entry) => entry.requirements.includes(failingRequirement(SECOND))), [true]);
  assert.equal(newFailures[0].reason, 'passed in the baseline');
  assert.equal(known.length, 1);
});

test('an expected-failures file accepts a failure until its entry expires; a missing baseline is a configuration error', async () => {
  const file = join(scratch, 'dxs-expected.json');
  writeFileSync(
    file,
    JSON.stringify({
      expectedFailures: [
        { requirement: failingRequirement(FIRST), reason: 'revocation lags (ticket 1)', expires: '2000-01-01' },
        { requirement: failingRequirement(SECOND), reason: 'expiry is checked hourly (ticket 2)' },
      ],
    }),
  );
  const directory = join(scratch, 'expected');
  const result = await runDxs(['test', '--sandbox-fault', FIRST, SECOND, ...SELECTION, '--report-dir', directory], { env: { DXS_EXPECT_FAILURES: file } });
  assert.equal(result.code, 1, describe(result));
  const { known, newFailures, expired } = section(directory);
  assert.deepEqual(known.map((entry) => entry.requirements.includes(failingRequirement(SECOND))), [true]);
  assert.deepEqual(newFailures.map((entry) => entry.requirements.includes(failingRequirement(FIRST))), [true]);
  assert.match(newFailures[0].reason ?? '', /expired: revocation lags/);
  assert.deepEqual(expired.map((entry) => entry.requirement), [failingRequirement(FIRST)]);

  const missing = await runDxs(['test', '--baseline', join(scratch, 'nowhere'), '--report-dir', join(scratch, 'missing')]);
  assert.equal(missing.code, 2, describe(missing));
  assert.match(missing.stderr, /--baseline .*nowhere.* does not exist/);
});
