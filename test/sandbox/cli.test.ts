import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function dxs(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'cli/index.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The first stdout line, or a rejection after the time limit (the child is then killed). */
function firstLine(child: ChildProcess, limitMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ready line within ${limitMs} ms`));
    }, limitMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end !== -1) {
        clearTimeout(timer);
        resolve(text.slice(0, end));
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before the ready line: ${text}`));
    });
  });
}

test('dxs sandbox prints one ready line with the base URL, serves, and stops on SIGTERM with exit 0', async () => {
  const child = dxs('sandbox', '--port', '0', '--async-delay', '1');
  const exit = exited(child);
  const line = await firstLine(child);
  const baseUrl = /(http:\/\/127\.0\.0\.1:\d+\/v1\/api)/.exec(line)?.[1];
  assert.ok(baseUrl, line);
  const response = await fetch(`${baseUrl}/companies/status`);
  assert.equal(response.status, 401);
  child.kill('SIGTERM');
  assert.equal(await exit, 0);
});

test('dxs sandbox exits 2 on a bad option and when the port is in use', async () => {
  assert.equal(await exited(dxs('sandbox', '--port', 'abc')), 2);
  assert.equal(await exited(dxs('sandbox', '--casing', 'snake')), 2);
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const child = dxs('sandbox', '--port', String(port));
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    assert.equal(await exited(child), 2);
    assert.match(errors, /already in use/);
  } finally {
    blocker.close();
  }
});
