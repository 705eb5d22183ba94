// The final read of `dxs load merge` (issue 41): runners that made none (as k6-operator runners,
// simulated here by removing the runners' final-read.jsonl) leave their last invoices unjudged;
// the merge reads the inboxes at the target with --base-url and --api-key, from the journal's
// ErpIds, and proves a lost invoice lost. Without a target, or with one unreachable, it says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import { NO_K6, dxs, k6Binary, tempDirectory } from './helpers.ts';
import { readFileSync } from 'node:fs';

const k6 = k6Binary();
let sandbox: RunningSandbox | undefined;
before(async () => {
  if (k6 !== undefined) sandbox = await startSandbox({ port: 0, host: '127.0.0.1', faults: ['inbound-list-lossy'] });
});
after(async () => {
  await sandbox?.close();
});

interface MergedExchange {
  sent: number;
  lost: number;
  notJudged: number;
  notJudgedReasons: Record<string, number>;
  finalRead?: { status: string };
  violations: Array<{ rule: string; evidence: Array<{ op: string; finalRead?: boolean }> }>;
}

function exchangeOf(directory: string): MergedExchange {
  return (JSON.parse(readFileSync(join(directory, 'summary.json'), 'utf8')) as { results: Array<{ exchange: MergedExchange }> }).results[0].exchange;
}

test('dxs load merge makes the final read the runners did not: a lost invoice proven with --base-url, not judged with the reason without one', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const target = ['--base-url', sandbox!.baseUrl, '--api-key', sandbox!.apiKey];
  // The async timeout outlasts the run: no list of the flows can prove an absence; the companies stay for the merge.
  const runner = (segment: string, directory: string) => dxs(['load', '--script', 'inbox', '--vus', '2', '--duration', '4s', '--async-timeout', '8', '--keep-data', '--segment', segment, ...target, '--report-dir', directory]);
  const first = tempDirectory('final-read-runner-1');
  const second = tempDirectory('final-read-runner-2');
  const runs = await Promise.all([runner('1/2', first), runner('2/2', second)]);
  for (const run of runs) assert.ok(run.code === 0 || run.code === 1, `${run.stdout}\n${run.stderr}`);
  for (const directory of [first, second]) rmSync(join(directory, 'inbox', 'final-read.jsonl'));

  const none = tempDirectory('merge-no-target');
  const blind = await dxs(['load', 'merge', first, second, '--out', none]);
  assert.equal(blind.code, 0, `${blind.stdout}\n${blind.stderr}`);
  const unread = exchangeOf(none);
  assert.ok(unread.notJudged > 0, JSON.stringify(unread));
  assert.deepEqual(Object.keys(unread.notJudgedReasons), ['dxs load merge was given no --base-url and --api-key, so it made no final read']);
  assert.match(blind.stdout, /exchange: \d+ invoices? not judged: dxs load merge was given no --base-url/);

  const away = tempDirectory('merge-unreachable');
  const closed = await dxs(['load', 'merge', first, second, '--out', away, '--base-url', 'http://127.0.0.1:1/v1/api', '--api-key', 'some-key']);
  assert.match(closed.stderr, /is unreachable: .*no final read/);
  assert.match(Object.keys(exchangeOf(away).notJudgedReasons)[0], /^the target was unreachable for the final read: connection refused/);

  const read = tempDirectory('merge-final-read');
  const merged = await dxs(['load', 'merge', first, second, '--out', read, ...target]);
  assert.equal(merged.code, 1, `${merged.stdout}\n${merged.stderr}`);
  const judged = exchangeOf(read);
  assert.equal(judged.finalRead?.status, 'done');
  assert.equal(judged.notJudged, 0);
  assert.ok(judged.lost > 0 && judged.lost <= unread.notJudged, `${judged.lost} lost, ${unread.notJudged} not judged before`);
  const loss = judged.violations.find((violation) => violation.rule === 'FLOW-04');
  assert.ok(loss?.evidence.some((event) => event.op === 'send') && loss.evidence.some((event) => event.op === 'list' && event.finalRead === true), JSON.stringify(loss));
});
