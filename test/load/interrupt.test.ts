// Ctrl-C during k6 (issue 41): dxs load says the run was interrupted (not that k6 could not run),
// judges what the flows recorded, makes a short final read without waiting, cleans up, writes the
// report and exits 130, as dxs test does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_K6, ROOT, k6Binary, tempDirectory } from './helpers.ts';

const k6 = k6Binary();

test('an interrupted run is said to be interrupted, judges what it recorded, reads without waiting and exits 130', { skip: k6 === undefined ? NO_K6 : false, timeout: 180_000 }, async () => {
  const reportDir = tempDirectory('interrupt');
  // Its own process group, as a terminal's foreground job: Ctrl-C reaches dxs and k6 alike.
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'dxs.js'), 'load', '--script', 'inbox', '--duration', '2m', '--report-dir', reportDir], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const killer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 150_000);
  try {
    // Interrupted once k6 has sent invoices: its raw points are being written.
    const raw = join(reportDir, 'inbox', 'raw.json.gz');
    for (let waited = 0; waited < 90_000 && !existsSync(raw); waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    process.kill(-(child.pid as number), 'SIGINT');
    const code = await closed;
    assert.equal(code, 130, output);
    assert.match(output, /dxs load: interrupted: inbox stopped early/);
    assert.doesNotMatch(output, /k6 could not run/);
    assert.match(output, /cleanup:/);
    const summary = JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as { notes: string[]; results: Array<{ exchange?: { sent: number; finalRead?: { status: string } } }> };
    assert.ok(summary.notes.some((note) => note.startsWith('Interrupted: inbox stopped early')), summary.notes.join('\n'));
    const exchange = summary.results[0]?.exchange;
    assert.ok(exchange !== undefined && exchange.sent > 0, 'what the flows recorded was judged');
    assert.equal(exchange.finalRead?.status, 'interrupted');
  } finally {
    clearTimeout(killer);
  }
});
