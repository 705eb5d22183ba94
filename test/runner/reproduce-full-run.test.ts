// Every reproduce script of a full run reproduces (issue 59): CI keeps a full run's report, not a
// --grep'd one. There the companies and tokens come from the run's setup (made by `dxs test` itself,
// in another process than the test's worker), and a worker's memory has seen thousands of answers,
// so a script once sent `ClientToken: [REDACTED]` and put a value handed out inside a JSON key
// ("Send'"$DOCUMENTTYPE_6"'As"). Against sandboxes started as a user starts them (`dxs sandbox
// --port`), one with two faults: the run is narrowed to the areas where those faults fail, with
// two workers; each script it leaves, run with curl and only DXS_API_KEY, reproduces against the
// faulty sandbox (exit 0) and is not reproduced against the clean one (exit 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../../report/results.ts';
import { pool, runDxs } from './helpers.ts';

const FAULTS = ['inbound-read-any-company', 'send-type-unchecked'];
/** Where those faults fail: the send refusals, the inbound security tests, the access matrix's path ids. */
const AREAS = ['outbound', 'inbound', 'access'];
const CAUGHT = ['OUT-SEND-07', 'INB-20', 'ACC-12'];
/** Bounds, not assertions. */
const RUN_TIMEOUT_MS = 300_000;
const SCRIPT_TIMEOUT_MS = 120_000;

interface CliSandbox {
  baseUrl: string;
  apiKey: string;
  apiKeyWithoutDelete: string;
  close: () => Promise<void>;
}

/** `dxs sandbox --port 0`, as a user starts it; its ready line names the base URL and both keys. */
function sandboxCli(faults: readonly string[]): Promise<CliSandbox> {
  return new Promise((resolve, reject) => {
    const exited = runDxs(['sandbox', '--port', '0', ...(faults.length === 0 ? [] : ['--fault', ...faults])], {
      timeoutMs: RUN_TIMEOUT_MS * 2,
      onOutput: (output, running) => {
        const ready = /listening on (http:\/\/\S+\/v1\/api) \(API keys: (\S+) with the DeleteRegistration role, (\S+) without\)/.exec(output);
        if (ready !== null) {
          resolve({
            baseUrl: ready[1],
            apiKey: ready[2],
            apiKeyWithoutDelete: ready[3],
            close: async () => {
              running.kill('SIGTERM');
              await exited;
            },
          });
        }
      },
    });
    exited.then((result) => reject(new Error(`dxs sandbox exited before its ready line: ${result.stderr}`)), reject);
  });
}

function runScript(path: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('sh', [path], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: SCRIPT_TIMEOUT_MS }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: `${stdout}${stderr}` });
    });
  });
}

test('every reproduce script of a run over the failing areas reproduces against the faulty sandbox and is not reproduced against the clean one', async () => {
  const [faulty, clean] = await Promise.all([sandboxCli(FAULTS), sandboxCli([])]);
  const directory = mkdtempSync(join(tmpdir(), 'dxs-reproduce-full-'));
  try {
    const run = await runDxs(['test', '--base-url', faulty.baseUrl, '--api-key', faulty.apiKey, '--api-key-without-delete', faulty.apiKeyWithoutDelete, '--area', AREAS.join(','), '--workers', '2', '--report-dir', directory], { timeoutMs: RUN_TIMEOUT_MS });
    assert.equal(run.code, 1, run.stderr.slice(-3000));
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    const failed = results.tests.filter((entry) => entry.verdict === 'failed');
    for (const requirement of CAUGHT) assert.ok(failed.some((entry) => entry.requirementVerdicts[requirement] === 'failed'), `the faults fail ${requirement}`);
    const scripts = failed.map((entry) => {
      assert.ok(entry.reproduce?.script !== undefined && entry.reproduce.call !== undefined, `${entry.title}: a script and its curl line`);
      return { title: entry.title, path: join(directory, entry.reproduce.script), call: entry.reproduce.call };
    });
    assert.ok(scripts.length >= CAUGHT.length, `one script per failed test: ${scripts.length}`);
    const html = readFileSync(join(directory, 'index.html'), 'utf8');
    for (const { title, path, call } of scripts) {
      const text = readFileSync(path, 'utf8');
      // A redacted credential cannot work: the script makes its own (register, token) from DXS_API_KEY.
      assert.ok(!text.includes('[REDACTED]') && !call.includes('[REDACTED]'), `${title}: no redacted literal in the script or its curl line:\n${call}`);
      assert.match(text, /POST \/clienttokens\/create/, `${title}: the script makes its client tokens`);
      // A value handed out stands only where the test sent it as a value: never glued inside a word or a key.
      assert.doesNotMatch(text, /[A-Za-z]'"\$[A-Z0-9_]+"'[A-Za-z]/, `${title}: a variable inside a word`);
    }
    const copyLines = [...html.matchAll(/<pre id="curl-[^"]*">([^<]*)<\/pre>/g)].map((match) => match[1]);
    assert.equal(copyLines.length, scripts.length, 'a Copy line on each failure card');
    for (const line of copyLines) assert.ok(!line.includes('[REDACTED]'), `a Copy line holds a redacted credential: ${line}`);
    const send = scripts.find(({ call }) => call.includes('/documents/outbound'));
    assert.ok(send !== undefined && send.call.includes('"SendDocumentAs":{"Type":"Pigeon"'), `the send's body as the test sent it: ${send?.call}`);
    // shellcheck (npm test's dev tools) finds nothing to say about any of them.
    execFileSync('shellcheck', ['-s', 'sh', ...scripts.map(({ path }) => path)], { stdio: 'pipe' });

    const keys = { DXS_API_KEY: faulty.apiKey, DXS_API_KEY_WITHOUT_DELETE: faulty.apiKeyWithoutDelete };
    // One after the other: scripts of one worker's tests share its companies (their ErpIds), and one's
    // first calls mark handled what another awaits in the same inbox.
    await pool(scripts, 1, async ({ title, path }) => {
      const reproduced = await runScript(path, keys);
      assert.equal(reproduced.code, 0, `${title}: against the faulty sandbox:\n${reproduced.output.slice(-3000)}`);
      assert.match(reproduced.output, /^the answer the check judged \(call \d+\):$/m, `${title}: it shows the failing answer`);
      assert.match(reproduced.output, /^reproduced: the call the check judged/m, title);
      const fixed = await runScript(path, { ...keys, DXS_BASE_URL: clean.baseUrl, DXS_API_KEY: clean.apiKey });
      assert.equal(fixed.code, 1, `${title}: against the clean sandbox:\n${fixed.output.slice(-3000)}`);
      assert.match(fixed.output, /^not reproduced: the call the check judged/m, title);
    });
  } finally {
    await Promise.all([faulty.close(), clean.close()]);
    rmSync(directory, { recursive: true, force: true });
  }
});
