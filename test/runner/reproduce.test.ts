// Reproduce with curl (issue 43): the script a failed test leaves in reproduce/, run with curl
// against the same faulty sandbox, answers the failing call with the status the report recorded;
// against the clean sandbox it does not. One fault of each area the brief names: a token, a
// registration, a send, the inbox. Each dxs run is narrowed to the catching test (--grep).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import type { Results } from '../../report/results.ts';
import { pool, runDxs, startRecordingProxy } from './helpers.ts';
import { harErrors } from './har-schema.ts';

const CASES = [
  { fault: 'token-erpid-optional', grep: '@TOK-04', requirement: 'TOK-04' },
  { fault: 'register-orgno-optional', grep: 'register without OrgNo', requirement: 'CMP-REG-08' },
  // These two use the worker's registered company: its register and token calls come from the set-up.
  { fault: 'send-type-unchecked', grep: '@OUT-SEND-07', requirement: 'OUT-SEND-07', setup: true },
  { fault: 'inbound-read-any-company', grep: 'another company cannot download', requirement: 'INB-20', setup: true },
];
/** Bounds, not assertions. */
const RUN_TIMEOUT_MS = 180_000;
const SCRIPT_TIMEOUT_MS = 90_000;

interface ScriptRun {
  code: number;
  output: string;
}

function runScript(path: string, env: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile('sh', [path], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: SCRIPT_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** The failing call's number in the script, and the status the script printed for it. */
function failingCall(script: string, output: string): { number: string; answered?: string; recorded?: string } {
  const number = /^# (\d+)\. .*\(the call the check judged/m.exec(script)?.[1];
  assert.ok(number !== undefined, 'the script marks the call the check judged');
  const line = new RegExp(`^${number}\\. .*: (\\S+) \\(the run got (\\S+)\\)$`, 'm').exec(output);
  return { number, answered: line?.[1], recorded: line?.[2] };
}

test('a failed test\'s reproduce script gives the recorded status against the faulty sandbox, and not against the clean one', async () => {
  const clean = await startSandbox({ port: 0, host: '127.0.0.1' });
  const directories: string[] = [];
  try {
    await pool(CASES, 2, async ({ fault, grep, requirement, setup }) => {
      const directory = mkdtempSync(join(tmpdir(), `dxs-reproduce-${fault}-`));
      directories.push(directory);
      const sandbox: RunningSandbox = await startSandbox({ port: 0, host: '127.0.0.1', faults: [fault] });
      // The proxy sees every token the target hands out, to look for each one in the script.
      const proxy = await startRecordingProxy(sandbox.baseUrl);
      try {
        const result = await runDxs(['test', '--base-url', proxy.baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete, '--grep', grep, '--workers', '1', '--report-dir', directory], { timeoutMs: RUN_TIMEOUT_MS });
        assert.equal(result.code, 1, `${fault}: ${result.stderr}`);
        const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
        const failed = results.tests.find((entry) => entry.verdict === 'failed' && entry.requirementVerdicts[requirement] === 'failed');
        assert.ok(failed?.reproduce?.script !== undefined, `${fault}: the failed test names its script`);
        const scriptPath = join(directory, failed.reproduce.script);
        const script = readFileSync(scriptPath, 'utf8');
        // The console, junit.xml and index.html carry the failing call's curl line.
        assert.ok(failed.reproduce.call?.startsWith('curl '), `${fault}: the failing call's curl line`);
        assert.ok(result.stderr.includes(failed.reproduce.call ?? '(none)'), `${fault}: the console prints the curl line`);
        assert.ok(readFileSync(join(directory, 'junit.xml'), 'utf8').includes('Reproduce with curl'), `${fault}: junit.xml carries it`);
        assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /data-copy="curl-/);

        const tokens = new Set<string>();
        for (const body of proxy.bodies) for (const match of body.matchAll(/"token"\s*:\s*"([^"]+)"/gi)) tokens.add(match[1]);
        // traffic.har (issue 43 too): HAR 1.2, every call of the run's tests, each naming its test.
        const harText = readFileSync(join(directory, 'traffic.har'), 'utf8');
        const har = JSON.parse(harText);
        assert.deepEqual(harErrors(har), [], `${fault}: traffic.har is HAR 1.2`);
        const named = har.log.entries.filter((entry: { _dxs: { testId: string; requirements: string[] } }) => entry._dxs.testId === failed.id && entry._dxs.requirements.includes(requirement));
        assert.equal(named.length, failed.exchanges?.length, `${fault}: every call of the failed test is in traffic.har, with its test and requirement IDs`);
        if (setup === true) assert.ok(har.log.entries.some((entry: { _dxs: { test: string } }) => entry._dxs.test.startsWith('(worker set-up')), `${fault}: the worker fixtures' calls are in traffic.har`);
        for (const file of [...readdirSync(join(directory, 'reproduce')).map((name) => join('reproduce', name)), 'traffic.har']) {
          const text = readFileSync(join(directory, file), 'latin1');
          for (const secret of [sandbox.apiKey, sandbox.apiKeyWithoutDelete, ...tokens]) assert.ok(!text.includes(secret), `${fault}: ${file} holds a secret (${secret.slice(0, 4)}...)`);
        }

        const again = await runScript(scriptPath, { DXS_API_KEY: sandbox.apiKey, DXS_API_KEY_WITHOUT_DELETE: sandbox.apiKeyWithoutDelete });
        const faulty = failingCall(script, again.output);
        assert.equal(again.code, 0, `${fault}: against the faulty sandbox every call answers as recorded:\n${again.output}`);
        assert.equal(faulty.answered, faulty.recorded, `${fault}: the failing call answers as recorded`);
        const recordedStatus = failed.exchanges?.find((exchange) => exchange.response !== undefined && String(exchange.response.status) === faulty.recorded);
        assert.ok(recordedStatus !== undefined, `${fault}: the status the script expects is one the report recorded`);

        const cleanRun = await runScript(scriptPath, { DXS_BASE_URL: clean.baseUrl, DXS_API_KEY: clean.apiKey, DXS_API_KEY_WITHOUT_DELETE: clean.apiKeyWithoutDelete });
        const fixed = failingCall(script, cleanRun.output);
        assert.equal(cleanRun.code, 1, `${fault}: against the clean sandbox the script reports a difference:\n${cleanRun.output}`);
        assert.notEqual(fixed.answered, fixed.recorded, `${fault}: against the clean sandbox the failing call answers otherwise:\n${cleanRun.output}`);
      } finally {
        await proxy.close();
        await sandbox.close();
      }
    });
  } finally {
    await clean.close();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  }
});
