// Wall time of `dxs test --destructive` against the embedded sandbox with each broken-prerequisite
// fault (issue 14), and against the clean sandbox: target exit 1 in under 60 s on 2 cores for each
// fault, and the clean run no slower than before. Prints the figures, never asserts.
// DXS_BENCH_FAULTS=name,name runs a subset (clean stands for the clean sandbox); DXS_BENCH_KEEP=1 keeps the reports.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../report/results.ts';

const root = new URL('..', import.meta.url).pathname;
const RUNS = ['clean', 'token-answer-without-token', 'token-create-500', 'never-registered', 'never-delivered', 'providera-status-unlisted', 'inbox-never-receives'];
const only = (process.env.DXS_BENCH_FAULTS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
/** Bounded: a run that hangs is killed, and shows as exit -. */
const KILL_AFTER_MS = 300_000;

const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: '0' };
for (const name of Object.keys(env)) if (name.startsWith('DXS_')) delete env[name];

async function run(name: string): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), `dxs-bench-prereq-${name}-`));
  const args = [join(root, 'bin', 'dxs.js'), 'test', '--destructive', '--report-dir', directory];
  if (name !== 'clean') args.push('--sandbox-fault', name);
  const started = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  let detail = 'no results.json';
  try {
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    const { passed, failed, skipped, blocked } = results.summary;
    const cause = results.rootCauses?.[0];
    detail = `${passed} passed, ${failed} failed, ${skipped} skipped, ${blocked ?? 0} blocked${cause !== undefined ? `; ${results.rootCauses?.length} root cause(s), first: [${cause.prerequisite}] ${cause.requirement}` : ''}`;
  } catch {
    // The line says so.
  }
  if (process.env.DXS_BENCH_KEEP === '1') console.log(`  (report kept in ${directory})`);
  else rmSync(directory, { recursive: true, force: true });
  return `${name.padEnd(28)} | ${seconds.toFixed(1).padStart(6)} s | exit ${code ?? '-'} | ${detail}`;
}

console.log('dxs test --destructive against the embedded sandbox (target: exit 1 in under 60 s per fault on 2 cores)');
console.log(`${'sandbox'.padEnd(28)} |  wall    | exit   | tests`);
for (const name of RUNS.filter((candidate) => only.length === 0 || only.includes(candidate))) console.log(await run(name));
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end (other work on the machine inflates the figures)`);
