// dxs fuzz against the embedded sandbox: Schemathesis with --checks all finds nothing wrong with
// the sandbox and its export, and every operation gets an answer other than 401/403 and 404
// (the run's config fails on Schemathesis' missing_auth and missing_test_data warnings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SANDBOX_API_KEY } from '../../lib/defaults.ts';
import { parseJunit, writeFuzzReport } from '../../cli/commands/fuzz/report.ts';
import { describeRelaxations, fuzzConfigToml } from '../../cli/commands/fuzz/config.ts';
import { runDxs } from '../runner/helpers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.dxs-tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.dxs-tmp', 'fuzz-test-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

const hasPython = spawnSync('python3', ['--version']).status === 0;

async function dxs(args: string[], limitMs: number): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await runDxs(args, { timeoutMs: limitMs });
  return { code, output: stdout + stderr };
}

test('dxs fuzz against the embedded sandbox: 0 failures, every operation reached beyond 401/404, secrets redacted', { skip: hasPython ? false : 'no python3 on this machine (dxs fuzz needs Python 3 and Schemathesis)', timeout: 300_000 }, async () => {
  const reportDir = join(work, 'report');
  // Few examples keep the run near half a minute on two busy cores; the fixed seed makes it repeatable.
  const { code, output } = await dxs(['fuzz', '--report-dir', reportDir, '--max-examples', '5', '--seed', '1', '--duration', '240'], 280_000);
  assert.equal(code, 0, output.slice(-4000));
  const junit = readFileSync(join(reportDir, 'fuzz-junit.xml'), 'utf8');
  const summary = parseJunit(junit);
  assert.equal(summary.failures, 0);
  assert.equal(summary.cases.filter((item) => item.operation !== 'Stateful tests').length, 31);
  assert.doesNotMatch(output, /Missing test data|Authentication failed/);
  const index = readFileSync(join(reportDir, 'index.html'), 'utf8');
  assert.match(index, /0 failure\(s\)/);
  assert.match(index, /createClientToken: positive_data_acceptance also accepts 400/);
  for (const file of ['fuzz-junit.xml', 'fuzz-output.txt', 'index.html', 'openapi.json', 'fuzz-setup/created.json']) {
    assert.doesNotMatch(readFileSync(join(reportDir, file), 'utf8'), new RegExp(SANDBOX_API_KEY), file);
  }
  // The setup's two companies are journaled apart from any dxs test journal, and deleted at the end.
  const journal = JSON.parse(readFileSync(join(reportDir, 'fuzz-setup', 'created.json'), 'utf8')) as { companies: Array<{ deleteRequested?: boolean }> };
  assert.equal(journal.companies.length, 2);
  assert.ok(journal.companies.every((company) => company.deleteRequested === true), JSON.stringify(journal.companies));
  assert.match(output, /cleanup: every company the run registered is deleted \(2 now/);
});

test('without Schemathesis dxs fuzz exits 2 and says what to install', { timeout: 60_000 }, async () => {
  const { code, output } = await dxs(['fuzz', '--schemathesis', join(work, 'no-such-schemathesis'), '--report-dir', join(work, 'missing')], 50_000);
  assert.equal(code, 2, output);
  assert.match(output, hasPython ? /Schemathesis is not installed at .*no-such-schemathesis: run scripts\/setup\.sh/ : /needs Python 3/);
  assert.equal(existsSync(join(work, 'missing', 'fuzz-junit.xml')), false);
});

test('the fuzz configuration names the rule behind every relaxed check and keeps credentials out of the command line', () => {
  const toml = fuzzConfigToml({ apiKey: 'key-1', clientToken: 'token-1', scratchClientToken: 'token-2' });
  assert.match(toml, /\[headers\]\nAPIkey = "key-1"\nClientToken = "token-1"/);
  assert.match(toml, /fail-on = \["missing_auth", "missing_test_data"\]/);
  assert.match(toml, /include-operation-id = "setCompanyDetails"\nheaders = \{ APIkey = "key-1", ClientToken = "token-2" \}/);
  for (const line of describeRelaxations()) assert.match(line, /because .{20,}/);
  // One [[operations]] entry per operation: Schemathesis applies the first that matches.
  const ids = [...toml.matchAll(/include-operation-id = "(\w+)"/g)].map((match) => match[1]);
  assert.deepEqual(ids, [...new Set(ids)]);
});

test('beside a dxs test report, index.html gets a fuzz section with the failures; run again, the section is replaced', () => {
  const reportDir = join(work, 'beside');
  mkdirSync(reportDir, { recursive: true });
  writeFileSync(join(reportDir, 'results.json'), '{}');
  writeFileSync(join(reportDir, 'index.html'), '<html><body><h1>dxs test</h1></body></html>');
  const junitFile = join(reportDir, 'fuzz-junit.xml');
  writeFileSync(junitFile, '<testsuites><testsuite><testcase name="GET /companies/status" time="1"><failure type="failure" message="ST108">body &lt;x&gt;</failure></testcase><testcase name="POST /documents" time="1" /></testsuite></testsuites>');
  const input = { junitFile, outputFile: join(reportDir, 'none.txt'), target: 'http://127.0.0.1:1/v1/api', relaxations: ['r1'], started: new Date() };
  assert.deepEqual(writeFuzzReport(reportDir, input), { operations: 2, failures: 1, cases: [{ operation: 'GET /companies/status', failures: [{ code: 'ST108', text: 'body <x>' }] }, { operation: 'POST /documents', failures: [] }] });
  writeFuzzReport(reportDir, input);
  const index = readFileSync(join(reportDir, 'index.html'), 'utf8');
  assert.match(index, /<h1>dxs test<\/h1>/);
  assert.equal(index.match(/<section id="fuzz">/g)?.length, 1);
  assert.match(index, /GET \/companies\/status: ST108/);
  assert.match(readFileSync(join(reportDir, 'fuzz.html'), 'utf8'), /body &lt;x&gt;/);
});
