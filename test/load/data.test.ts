// Issue 23: a load run leaves nothing behind. Every entity it creates is journaled (from the
// dxs_created points of raw.json.gz), and when k6 ends, also after Ctrl-C, its companies are
// deleted with the run's key; --keep-data keeps them for dxs clean --from, which also takes a merged
// distributed run. Each test asks the sandbox's state route what is left, by run prefix.
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningSandbox } from '../../sandbox/index.ts';
import type { SandboxState } from '../../sandbox/state.ts';
import type { CleanupReport } from '../../report/cleanup.ts';
import { readJournal, type Journal } from '../../suites/support/journal.ts';
import { scriptTag } from '../../cli/commands/load/run.ts';
import { NO_K6, ROOT, dxs, k6Binary, sandboxForK6Tests, tempDirectory, type DxsResult } from './helpers.ts';

const k6 = k6Binary();
const sandbox = sandboxForK6Tests(k6);
const skip = k6 === undefined ? NO_K6 : false;

function target(): RunningSandbox {
  const running = sandbox();
  assert.ok(running !== undefined);
  return running;
}

function journalOf(directory: string): Journal {
  const journal = readJournal(directory);
  assert.ok(journal !== undefined, `a journal in ${directory}`);
  return journal;
}

function cleanupOf(directory: string): CleanupReport {
  const summary = JSON.parse(readFileSync(join(directory, 'summary.json'), 'utf8')) as { cleanup?: CleanupReport };
  assert.ok(summary.cleanup !== undefined, 'summary.json holds the cleanup');
  return summary.cleanup;
}

/** The run's companies still live at the sandbox, once its background deletes have run (bounded). */
async function liveOf(running: RunningSandbox, runPrefix: string): Promise<string[]> {
  let live: string[] = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    const response = await fetch(`${new URL(running.baseUrl).origin}/_sandbox/state?erpIdPrefix=${encodeURIComponent(`${runPrefix}-`)}`);
    live = ((await response.json()) as SandboxState).byApiKey[0].liveErpIds;
    if (live.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return live;
}

async function tokenStatus(running: RunningSandbox, erpId: string): Promise<number> {
  const response = await fetch(`${running.baseUrl}/clienttokens/create`, {
    method: 'POST',
    headers: { APIkey: running.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ ErpId: erpId }),
  });
  await response.arrayBuffer();
  return response.status;
}

function targetArguments(running: RunningSandbox): string[] {
  return ['--base-url', running.baseUrl, '--api-key', running.apiKey];
}

test('after dxs load --script register-and-poll --profile smoke with the delete key, no company of the run can get a client token, and the report counts them', { skip, timeout: 300_000 }, async () => {
  const running = target();
  const reportDir = tempDirectory('data');
  const run = await dxs(['load', '--script', 'register-and-poll', '--profile', 'smoke', ...targetArguments(running), '--report-dir', reportDir]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const journal = journalOf(reportDir);
  assert.ok(journal.companies.length > 5, `the run journaled its companies: ${journal.companies.length}`);
  assert.ok(journal.companies.every((company) => company.ErpId.startsWith(`${journal.runPrefix}-${scriptTag('register-and-poll')}-register-`)), 'the ErpIds derive from the run prefix, the script and iterationInTest');
  const cleanup = cleanupOf(reportDir);
  assert.equal(cleanup.status, 'done', cleanup.message);
  assert.equal(cleanup.created.companies, journal.companies.length);
  assert.equal(cleanup.deleted.length, journal.companies.length);
  assert.match(run.stderr, /cleanup: every company the run registered is deleted/);
  assert.deepEqual(await liveOf(running, journal.runPrefix), []);
  for (const company of journal.companies) assert.notEqual(await tokenStatus(running, company.ErpId), 200, `${company.ErpId} still gets a client token`);
  for (const page of ['index.html', 'summary.html']) {
    assert.match(readFileSync(join(reportDir, page), 'utf8'), new RegExp(`The run created ${journal.companies.length} companies, 0 uploads and 0 documents\\. None is left at the target`), page);
  }
});

test('send-and-poll journals its uploads and documents; --keep-data keeps the companies, and dxs clean --from deletes them from the run and from a merge of it', { skip, timeout: 300_000 }, async () => {
  const running = target();
  const reportDir = tempDirectory('keep');
  const run = await dxs(['load', '--script', 'send-and-poll', '--iterations', '4', '--keep-data', ...targetArguments(running), '--report-dir', reportDir]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const journal = journalOf(reportDir);
  assert.deepEqual(journal.companies.map((company) => company.ErpId), [`${journal.runPrefix}-sender`]);
  assert.equal(journal.uploads.length, 4);
  assert.equal(journal.documents.length, 4);
  const cleanup = cleanupOf(reportDir);
  assert.equal(cleanup.status, 'kept');
  assert.match(readFileSync(join(reportDir, 'index.html'), 'utf8'), /The run created 1 company, 4 uploads and 4 documents\. Left at the target: 1 company \(--keep-data\)/);
  assert.deepEqual(await liveOf(running, journal.runPrefix), [`${journal.runPrefix}-sender`]);

  // A merge of the run (as a distributed run's collector makes it) carries the journal too; the target is not in it.
  const merged = tempDirectory('keep-merged');
  const merge = await dxs(['load', 'merge', reportDir, '--out', merged]);
  assert.equal(merge.code, 0, merge.stdout + merge.stderr);
  assert.deepEqual(journalOf(merged).companies.map((company) => company.ErpId), [`${journal.runPrefix}-sender`]);
  const clean = await dxs(['clean', '--from', merged, ...targetArguments(running)], {}, 60_000);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, new RegExp(`^deleted ${journal.runPrefix}-sender `, 'm'));
  assert.deepEqual(await liveOf(running, journal.runPrefix), []);
  // The run's own folder: the target comes from its journal, and deleting again is harmless.
  const again = await dxs(['clean', '--from', reportDir, '--api-key', running.apiKey], {}, 60_000);
  assert.equal(again.code, 0, again.stdout + again.stderr);
});

/** A run of register-and-poll stopped a few seconds in by `signal`: to the process group (Ctrl-C) or to dxs alone (a CI job cancelled). */
async function stoppedRun(signal: 'SIGINT' | 'SIGTERM', group: boolean): Promise<void> {
  const running = target();
  const reportDir = tempDirectory(`stopped-${signal}`);
  // Its own process group, as a terminal makes it: Ctrl-C reaches dxs and k6 together.
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'dxs.js'), 'load', '--script', 'register-and-poll', '--profile', 'smoke', '--duration', '60s', ...targetArguments(running), '--report-dir', reportDir], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const rawFile = join(reportDir, 'register-and-poll', 'raw.json.gz');
  // Once k6 is writing points, a few seconds in (bounded).
  for (let waited = 0; waited < 60_000 && !existsSync(rawFile); waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  process.kill(group ? -child.pid! : child.pid!, signal);
  const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);
  const run: DxsResult = { code: code ?? -1, ...output };
  // 128 + the signal's number, as shells answer an interrupt (issue 41); exit 2 would say the run was misconfigured.
  assert.equal(run.code, signal === 'SIGINT' ? 130 : 143, run.stdout + run.stderr);
  const journal = journalOf(reportDir);
  assert.ok(journal.companies.length > 0, 'the stopped run journaled its companies');
  const cleanup = cleanupOf(reportDir);
  assert.equal(cleanup.status, 'done', cleanup.message);
  assert.deepEqual(await liveOf(running, journal.runPrefix), []);
}

test('Ctrl-C during a run: k6 stops, and dxs load still deletes what it registered', { skip, timeout: 300_000 }, () => stoppedRun('SIGINT', true));

test('SIGTERM to dxs load alone: it stops k6, and still deletes what the run registered', { skip, timeout: 300_000 }, () => stoppedRun('SIGTERM', false));
