// The fuzz setup runs Playwright's request context in this process, and its fetch trusts only the
// roots the process started with (Node 20 cannot add one later, and the request context takes no
// CA). With --ca-cert the setup therefore runs in a child process started with NODE_EXTRA_CA_CERTS
// (and the proxy variables dxs decided on); the child hands its data back in a file only this
// user can read. Run as a script, this file is that child.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childNetwork } from '../../../lib/child-network.ts';
import type { Target } from '../../../lib/target.ts';
import type { FuzzData } from './setup.ts';

// Loaded when used: it brings in Playwright's request API, which every other command of the CLI would pay for at start.
const prepareFuzzData: typeof import('./setup.ts').prepareFuzzData = async (...args) => (await import('./setup.ts')).prepareFuzzData(...args);

const SETUP_ENV = 'DXS_FUZZ_SETUP';

interface SetupRequest {
  target: Pick<Target, 'baseUrl' | 'apiKey' | 'connection'>;
  asyncTimeoutSeconds: number;
  journalDir: string;
  resultFile: string;
}

type SetupResult = { data: FuzzData } | { error: { name: string; message: string } };

/** prepareFuzzData, in a child process when the run has a CA bundle, else here. */
export async function prepareFuzzDataFor(target: Target, asyncTimeoutSeconds: number, journalDir: string): Promise<FuzzData> {
  if (target.connection.caCert === undefined) return prepareFuzzData(target, asyncTimeoutSeconds, journalDir);
  const work = mkdtempSync(join(tmpdir(), 'dxs-fuzz-setup-'));
  const network = childNetwork(target.connection);
  try {
    const request: SetupRequest = {
      target: { baseUrl: target.baseUrl, apiKey: target.apiKey, connection: target.connection },
      asyncTimeoutSeconds,
      journalDir,
      resultFile: join(work, 'result.json'),
    };
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url)], {
        env: { ...network.env, [SETUP_ENV]: JSON.stringify(request) },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('close', (status) => resolve(status ?? 1));
    });
    let result: SetupResult;
    try {
      result = JSON.parse(readFileSync(request.resultFile, 'utf8')) as SetupResult;
    } catch {
      throw new Error(`the fuzz setup process ended with code ${code} without a result`);
    }
    if ('error' in result) {
      const error = new Error(result.error.message);
      error.name = result.error.name;
      throw error;
    }
    return result.data;
  } finally {
    network.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(raw: string): Promise<void> {
  const request = JSON.parse(raw) as SetupRequest;
  let result: SetupResult;
  try {
    result = { data: await prepareFuzzData(request.target, request.asyncTimeoutSeconds, request.journalDir) };
  } catch (error) {
    result = { error: { name: (error as Error).name, message: (error as Error).message } };
  }
  writeFileSync(request.resultFile, JSON.stringify(result), { mode: 0o600 });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.env[SETUP_ENV] !== undefined) {
  await main(process.env[SETUP_ENV] as string);
  process.exit(0);
}
