// A slow staging (issue 27): the full destructive run against the sandbox with 80 ms added to
// every answer and 1 s per background step passes, with the same verdict for every test as a run
// against the default sandbox, at the default settings (the workers chosen from the measured
// latency, companies registered early, polls paced by what the target showed). Its report says
// what concurrency it chose and how long it waited. No assertion on time: bench/slow-staging.ts
// prints the figures.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Results } from '../../report/results.ts';
import { runDxs } from './helpers.ts';

/** A bound on each run, not an expectation of its time. */
const RUN_BOUND_MS = 900_000;

const key = (record: Results['tests'][number]): string => `${record.file} › ${record.titlePath.join(' › ')}`;

/**
 * A test that could not make its check at the timing it met says so with a warning "... not
 * checked" (FLOW-07 needs an invoice still Pending when offboarding arrives, which a loaded
 * machine can miss on the fast default sandbox): not a verdict on the target, so such a test is
 * left out of the comparison, in both runs.
 */
function notChecked(record: Results['tests'][number]): boolean {
  return record.annotations.some((annotation) => annotation.type === 'warning' && /not checked/.test(annotation.description ?? ''));
}

function verdicts(results: Results, leftOut: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(results.tests.filter((record) => !leftOut.has(key(record))).map((record) => [key(record), record.verdict]));
}

async function fullRun(directory: string, extra: string[]): Promise<Results> {
  const run = await runDxs(['test', '--profile', 'full-destructive', ...extra, '--report-dir', directory], { timeoutMs: RUN_BOUND_MS });
  assert.equal(run.code, 0, `dxs test ${extra.join(' ')} exited ${run.code}\n${run.stderr.slice(-3000)}`);
  assert.match(run.stderr, /dxs test: concurrency: \d+ workers?: /);
  assert.match(run.stderr, /dxs test: waited for the network: /);
  assert.match(run.stderr, /dxs test: waited for background work: /);
  return JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
}

test('a full destructive run against latency-80ms,async-1s passes with the verdicts of a default run, and says what it chose and waited for', async () => {
  const root = mkdtempSync(join(tmpdir(), 'dxs-slow-target-'));
  try {
    const slow = await fullRun(join(root, 'slow'), ['--sandbox-variant', 'latency-80ms,async-1s']);
    const plain = await fullRun(join(root, 'plain'), []);
    assert.equal(slow.summary.failed, 0);
    assert.equal(slow.summary.blocked, 0);
    const leftOut = new Set([...slow.tests, ...plain.tests].filter(notChecked).map(key));
    assert.ok(leftOut.size <= 2, `only a timing-bound check may be left out: ${[...leftOut].join('; ')}`);
    assert.deepEqual(verdicts(slow, leftOut), verdicts(plain, leftOut), 'every test has the verdict it has against the default sandbox');

    const timing = slow.timing;
    assert.ok(timing !== undefined, 'results.json has a timing section');
    assert.ok(timing.workers >= 1);
    assert.match(timing.workersReason, /target latency \d+ ms, background step (over )?\d+ ms/, 'the background delay was measured at the start');
    assert.ok(slow.cleanup?.deleted.some((company) => company.ErpId.includes('-probe-')), 'the company the start registered to time the background work is deleted with the others');
    assert.ok(typeof timing.latencyMs === 'number');
    assert.ok(timing.calls > 0 && timing.networkMs > 0, 'calls and their round trips are counted');
    assert.ok(timing.backgroundWaits > 0, 'polls for background work are counted');
    assert.ok(timing.firstCompletions.registration !== undefined || timing.firstCompletions['document status'] !== undefined, 'a completion of background work was seen');
    const html = readFileSync(join(root, 'slow', 'index.html'), 'utf8');
    for (const row of ['Concurrency', 'Waited for the network', 'Waited for background work']) assert.ok(html.includes(`<td>${row}</td>`), `index.html shows ${row}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
