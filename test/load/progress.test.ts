// Progress in a CI log (issue 60): without a TTY, dxs load prints a line while each script runs
// (elapsed, iterations, requests, failed checks), read from k6's REST API. The spacing is checked on
// the elapsed figures the lines print, never on the clock of the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { figuresOf, freeApiPort, progressLine } from '../../cli/commands/load/progress.ts';
import { NO_K6, ROOT, k6Binary, tempDirectory } from './helpers.ts';

const k6 = k6Binary();

test('a progress line names the script, the elapsed time and the figures so far', () => {
  assert.equal(progressLine('lookup', 10_040, { iterations: 1, requests: 12, failedChecks: 0 }), 'lookup: running 10.0 s: 1 iteration, 12 requests, 0 failed checks');
  assert.equal(progressLine('lookup', 5000, undefined), 'lookup: running 5.0 s: k6 is starting (init and setup)');
});

test("the figures come from k6's GET /v1/metrics answer; the failed checks from the scripts' own counter", () => {
  const metric = (id: string, sample: Record<string, number>) => ({ type: 'metrics', id, attributes: { type: 'counter', sample } });
  assert.deepEqual(figuresOf({ data: [metric('iterations', { count: 7, rate: 1 }), metric('http_reqs', { count: 30, rate: 3 }), metric('dxs_checks_failed', { count: 2, rate: 0.1 }), { id: 'checks', attributes: { type: 'rate', sample: { rate: 0.9 } } }] }), { iterations: 7, requests: 30, failedChecks: 2 });
  assert.deepEqual(figuresOf({ data: [metric('http_reqs', { count: 4, rate: 1 })] }), { iterations: 0, requests: 4, failedChecks: 0 });
  assert.equal(figuresOf({ data: [metric('vus', { value: 1 })] }), undefined, 'k6 in its init and setup');
  assert.equal(figuresOf({ errors: [] }), undefined);
});

test("k6's REST API port is drawn below the ephemeral range and is free", async () => {
  const port = await freeApiPort();
  assert.ok(port >= 20000 && port < 32768, String(port));
});

test('without a TTY, dxs load prints a progress line at most 10 s apart while a script runs longer than 10 s, stdout to a file', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const reportDir = tempDirectory('progress');
  const outFile = join(reportDir, 'stdout.txt');
  const out = openSync(outFile, 'w');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'dxs.js'), 'load', '--script', 'client-tokens', '--profile', 'smoke', '--duration', '12s', '--report-dir', join(reportDir, 'report')], { cwd: ROOT, stdio: ['ignore', out, 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.stderr?.resume();
    child.on('error', reject);
    child.on('close', (exit) => {
      clearTimeout(killer);
      resolve(exit);
    });
  });
  closeSync(out);
  const stdout = readFileSync(outFile, 'utf8');
  assert.equal(code, 0, stdout);
  const lines = stdout.split('\n');
  const end = lines.findIndex((line) => line.startsWith('client-tokens: passed'));
  assert.ok(end > 0, `no summary line after progress lines:\n${stdout}`);
  const elapsed = lines.slice(0, end).map((line) => /^client-tokens: running (\d+\.\d) s: /.exec(line)?.[1]).filter((value) => value !== undefined).map(Number);
  // The run lasts longer than 10 s (k6 alone runs 12 s): a line by 10 s, then one at most 10 s after another.
  assert.ok(elapsed.length >= 1, stdout);
  assert.ok(elapsed[0] <= 10, `the first line came at ${elapsed[0]} s`);
  for (let index = 1; index < elapsed.length; index++) assert.ok(elapsed[index] - elapsed[index - 1] <= 10, `${elapsed[index - 1]} s, then ${elapsed[index]} s`);
  // The figures grow: the last line before the end has counted iterations and requests.
  assert.match(lines[end - 1], /^client-tokens: running \d+\.\d s: [1-9]\d* iterations?, [1-9]\d* requests?, 0 failed checks$/);
});
