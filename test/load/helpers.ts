// Helpers of the dxs load tests: run the CLI as a child process (bounded in time), and find k6.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, after } from 'node:test';
import { findK6 } from '../../cli/commands/load/k6.ts';
import { withSandboxKeys } from '../runner/helpers.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** The k6 binary, or undefined (the caller skips, saying why). */
export function k6Binary(): string | undefined {
  try {
    return findK6();
  } catch {
    return undefined;
  }
}

export const NO_K6 = 'k6 is not built yet: run bash scripts/install-k6.sh (scripts/setup.sh does it in CI)';

export interface DxsResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `dxs ...args`; killed after `timeoutMs` so a hung run cannot hang the suite. */
export function dxs(args: string[], env: Record<string, string> = {}, timeoutMs = 180_000): Promise<DxsResult> {
  return runCommand(process.execPath, [join(ROOT, 'bin', 'dxs.js'), ...args], withSandboxKeys(args, { ...process.env, ...env }) as NodeJS.ProcessEnv, timeoutMs);
}

/** Runs a command from the project root with exactly `env`; killed after `timeoutMs`. */
export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<DxsResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const madeDirectories: string[] = [];

// The reports and k6 outputs of a run are removed when the file's tests pass; after a failure
// they stay in the temporary directory, to be looked at.
process.on('exit', () => {
  if ((process.exitCode ?? 0) !== 0) return;
  for (const directory of madeDirectories) rmSync(directory, { recursive: true, force: true });
});

export function tempDirectory(label: string): string {
  const directory = mkdtempSync(join(tmpdir(), `dxs-load-${label}-`));
  madeDirectories.push(directory);
  return directory;
}

export interface SummaryJson {
  results: Array<{
    script: string;
    passed: boolean;
    iterations: number;
    requests: number;
    runners: number;
    checks: Array<{ name: string; passes: number; fails: number }>;
    thresholds: Array<{ metric: string; expression: string; ok: boolean }>;
  }>;
}

export function readSummary(directory: string): SummaryJson {
  return JSON.parse(readFileSync(join(directory, 'summary.json'), 'utf8')) as SummaryJson;
}

/** Every file under a directory as text (gzip files unpacked), for leak checks. */
export function allText(directory: string): Array<{ path: string; text: string }> {
  const found: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) found.push(...allText(path));
    else {
      const bytes = readFileSync(path);
      found.push({ path, text: (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8') });
    }
  }
  return found;
}

/**
 * A sandbox on 127.0.0.1 for the k6 tests of one file, started before them when k6 is built and
 * closed after them; the getter gives undefined without k6 (those tests skip).
 */
export function sandboxForK6Tests(k6: string | undefined): () => RunningSandbox | undefined {
  let sandbox: RunningSandbox | undefined;
  before(async () => {
    if (k6 !== undefined) sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await sandbox?.close();
  });
  return () => sandbox;
}
