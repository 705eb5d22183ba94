// One `dxs test` run for the benches: its wall time from start to exit, its exit code and its
// results.json, without DXS_* variables of the caller leaking in. Bounded: a hung run is killed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../report/results.ts';

const root = new URL('..', import.meta.url).pathname;

export interface TestRun {
  seconds: number;
  /** null when the run had to be killed. */
  code: number | null;
  results?: Results;
  /** The report directory, when kept. */
  kept?: string;
}

export async function runDxsTest(args: readonly string[], options: { killAfterMs: number; keep?: boolean; name?: string; onSpawn?: (pid: number) => void }): Promise<TestRun> {
  const directory = mkdtempSync(join(tmpdir(), `dxs-bench-${options.name ?? 'test'}-`));
  const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: '0' };
  for (const name of Object.keys(env)) if (name.startsWith('DXS_')) delete env[name];
  const started = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'dxs.js'), 'test', ...args, '--report-dir', directory], { cwd: root, env, stdio: ['ignore', 'ignore', 'ignore'] });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  let results: Results | undefined;
  try {
    results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
  } catch {
    // The caller says there is none.
  }
  if (options.keep === true) return { seconds, code, results, kept: directory };
  rmSync(directory, { recursive: true, force: true });
  return { seconds, code, results };
}
