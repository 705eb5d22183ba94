// Helpers of the runner tests: run the dxs CLI as a user would, read every byte a report
// directory holds (including the zip that Playwright's HTML report embeds), and put a recording
// proxy in front of a target to learn every token it handed out.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readZip } from '../../report/zip.ts';
import { SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../../lib/defaults.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The sandbox's keys, as a user passes them to a sandbox started on a port: dxs gives its own keys
 * only to the sandbox it starts itself, so a run against a base URL on this machine gets them here
 * when the test gave no key (DXS_API_KEY, --api-key). Tests of a run without keys pass `sandboxKeys: false`.
 */
export function withSandboxKeys(args: readonly string[], env: Record<string, string | undefined>): Record<string, string | undefined> {
  const flag = (name: string): string | undefined => {
    const index = args.indexOf(name);
    if (index >= 0) return args[index + 1];
    return args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const baseUrl = flag('--base-url') ?? env.DXS_BASE_URL;
  if (baseUrl === undefined || baseUrl === '' || flag('--api-key') !== undefined || (env.DXS_API_KEY ?? '') !== '') return env;
  let loopback = false;
  try {
    loopback = /^(127(?:\.\d{1,3}){3}|localhost|\[::1\])$/.test(new URL(baseUrl).hostname);
  } catch {
    return env;
  }
  if (!loopback) return env;
  return { ...env, DXS_API_KEY: SANDBOX_API_KEY, ...(flag('--api-key-without-delete') === undefined && env.DXS_API_KEY_WITHOUT_DELETE === undefined ? { DXS_API_KEY_WITHOUT_DELETE: SANDBOX_API_KEY_WITHOUT_DELETE } : {}) };
}

/** Runs bin/dxs.js with the DXS_* variables of the caller removed; killed after `timeoutMs` (a bound, not an assertion). */
export function runDxs(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string; onOutput?: (output: string, child: ChildProcess) => void; sandboxKeys?: boolean } = {},
): Promise<CliResult> {
  let env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('DXS_')) delete env[name];
  Object.assign(env, options.env, { FORCE_COLOR: '0', CI: '1' });
  if (options.sandboxKeys !== false) env = withSandboxKeys(args, env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'dxs.js'), ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      options.onOutput?.(stdout, child);
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function filesUnder(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push(path);
  }
  return files;
}

/** The entries of a zip archive (stored or deflated), enough for Playwright's embedded report. */
export function unzip(archive: Buffer): Map<string, Buffer> {
  return new Map(readZip(archive).map((entry) => [entry.name, entry.data]));
}

/** Every file of a report directory as text, plus the files inside Playwright's embedded zip. */
export function reportTexts(directory: string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const file of filesUnder(directory)) {
    const content = readFileSync(file);
    texts.set(file, content.toString('latin1'));
    const embedded = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/.exec(content.toString('latin1'));
    if (embedded !== null) {
      for (const [name, entry] of unzip(Buffer.from(embedded[1], 'base64'))) texts.set(`${file}!${name}`, entry.toString('latin1'));
    }
  }
  return texts;
}

export interface RecordingProxy {
  baseUrl: string;
  /** Every response body that passed through, as text. */
  bodies: string[];
  close(): Promise<void>;
}

/**
 * A pass-through HTTP proxy in front of `upstream` (a base URL), keeping each response body.
 * With `dieAfter`, it drops every connection after that many requests: a target that dies mid-run.
 */
export async function startRecordingProxy(upstream: string, options: { dieAfter?: number } = {}): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const bodies: string[] = [];
  let requests = 0;
  const server: Server = createServer((incoming, outgoing) => {
    if (options.dieAfter !== undefined && ++requests > options.dieAfter) {
      incoming.socket.destroy();
      return;
    }
    const headers = { ...incoming.headers, host: target.host, 'accept-encoding': 'identity' };
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        bodies.push(body.toString());
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        outgoing.end(body);
      });
    });
    forwarded.on('error', () => {
      outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs the items with at most `limit` at once; the results keep the order of the items. */
export async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A fetch answer read whole: its text, and its JSON when the text parses (undefined otherwise). */
export async function readAnswer(response: Response): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
