// dxs fuzz against the embedded sandbox: Schemathesis with every check but the clock's finds nothing wrong with
// the sandbox, judged by the spec export (as every implementation is) and by its own sandbox-exact
// export (its self-check), and every operation gets an answer other than 401/403 and 404 (the
// run's config fails on Schemathesis' missing_auth and missing_test_data warnings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SANDBOX_API_KEY } from '../../lib/defaults.ts';
import { parseJunit, writeFuzzReport } from '../../cli/commands/fuzz/report.ts';
import { privateLinesDropped, slowAnswers, writeFuzzHar } from '../../cli/commands/fuzz/har.ts';
import { SecretRegistry } from '../../lib/redact.ts';
import { FUZZ_CHECKS, HOOK_RELAXATIONS, HOOKS_FILE, REQUEST_TIMEOUT_SECONDS, SLOW_ANSWER_MS, checksArguments, describeRelaxations, disabledChecksOf, fuzzConfigToml, relaxationsOf, requiredStringFields, resourceWaitSeconds } from '../../cli/commands/fuzz/config.ts';
import { buildOpenApi } from '../../schemas/openapi.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { SPEC_QUOTES } from '../../schemas/openapi-spec.ts';
import { SPEC_PATH } from '../../schemas/requirements.ts';
import { CONTRARIAN_VARIANTS } from '../../sandbox/faults.ts';
import { harErrors } from '../runner/har-schema.ts';
import { pool, runDxs } from '../runner/helpers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.dxs-tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.dxs-tmp', 'fuzz-test-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

const hasPython = spawnSync('python3', ['--version']).status === 0;

async function dxs(args: string[], limitMs: number): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await runDxs(args, { timeoutMs: limitMs });
  return { code, output: stdout + stderr };
}

const skipWithoutPython = hasPython ? false : 'no python3 on this machine (dxs fuzz needs Python 3 and Schemathesis)';

/** A bounded fuzz run that must find nothing and reach all 31 operations; returns its output and report directory. */
async function fuzzWithoutFailures(name: string, extra: string[], seed = 1, maxExamples = 5): Promise<{ output: string; reportDir: string }> {
  const reportDir = join(work, name);
  // Few examples keep a run near half a minute on two busy cores; the fixed seed makes it repeatable.
  const { code, output } = await dxs(['fuzz', '--report-dir', reportDir, '--max-examples', String(maxExamples), '--seed', String(seed), '--duration', '240', ...extra], 280_000);
  assert.equal(code, 0, `seed ${seed}: ${output.slice(-6000)}`);
  const summary = parseJunit(readFileSync(join(reportDir, 'fuzz-junit.xml'), 'utf8'));
  assert.equal(summary.failures, 0);
  assert.equal(summary.cases.filter((item) => item.operation !== 'Stateful tests').length, 31);
  assert.doesNotMatch(output, /Missing test data|Authentication failed/);
  assert.match(readFileSync(join(reportDir, 'index.html'), 'utf8'), /0 failure\(s\)/);
  return { output, reportDir };
}

/** Live companies at a sandbox, by its state route (outside the API). */
async function liveCompanies(baseUrl: string): Promise<number> {
  const state = await (await fetch(`${new URL(baseUrl).origin}/_sandbox/state`)).json() as { companies: { live: number } };
  return state.companies.live;
}

test('dxs fuzz against a sandbox with the spec export: 0 failures, every operation reached beyond 401/404, secrets redacted, no company left behind', { skip: skipWithoutPython, timeout: 300_000 }, async () => {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  let before: number;
  let after: number;
  let output: string;
  let reportDir: string;
  try {
    before = await liveCompanies(sandbox.baseUrl);
    ({ output, reportDir } = await fuzzWithoutFailures('report', ['--base-url', sandbox.baseUrl, '--api-key', sandbox.apiKey]));
    after = await liveCompanies(sandbox.baseUrl);
  } finally {
    await sandbox.close();
  }
  // Schemathesis registers companies of its own (hooks.py journals them): with a delete key, the run leaves none.
  assert.equal(after, before, output.slice(-3000));
  assert.match(output, /Schemathesis registered [1-9]\d* compan/);
  assert.match(output, /Left at the target: nothing/);
  assert.match(readFileSync(join(reportDir, 'fuzz.html'), 'utf8'), /id="created"[\s\S]*Left at the target: nothing/);
  assert.match(readFileSync(join(reportDir, 'fuzz.html'), 'utf8'), /Seed 1\. To repeat this run: <code>dxs fuzz .*--seed 1<\/code>/);
  assert.match(readFileSync(join(reportDir, 'fuzz-setup', 'created.jsonl'), 'utf8'), /"by": "schemathesis", "kind": "company"/);
  assert.match(output, /\(spec export in camelCase\)/);
  const checks = checksOfCommand(output);
  for (const off of ['negative_data_rejection', 'unsupported_method', 'allow_header_conformance', 'max_response_time']) assert.ok(!checks.includes(off), `${off} in ${checks}`);
  assert.ok(checks.includes('not_a_server_error'), checks.join(','));
  // Schemathesis's own request timeout is the same 10 s: it would make the slow answers errors again.
  assert.ok(REQUEST_TIMEOUT_SECONDS > SLOW_ANSWER_MS / 1000);
  assert.match(output, new RegExp(`--request-timeout ${REQUEST_TIMEOUT_SECONDS} `));
  const index = readFileSync(join(reportDir, 'index.html'), 'utf8');
  assert.match(index, /createClientToken: positive_data_acceptance also accepts 4XX, because .*spec: &quot;A client token is obtained/);
  assert.match(readFileSync(join(reportDir, 'openapi.json'), 'utf8'), /x-dxs-spec/);
  for (const file of ['fuzz-junit.xml', 'fuzz-output.txt', 'index.html', 'openapi.json', 'fuzz-setup/created.json', 'traffic.har']) {
    assert.doesNotMatch(readFileSync(join(reportDir, file), 'utf8'), new RegExp(SANDBOX_API_KEY), file);
  }
  // Every path printed leads to a file (issue 60): none in the private folder deleted at the end, the HAR's kept copy instead.
  assert.doesNotMatch(output, /dxs-fuzz-/);
  assert.doesNotMatch(readFileSync(join(reportDir, 'fuzz-output.txt'), 'utf8'), /dxs-fuzz-/);
  assert.ok(output.includes(`keys and tokens redacted: ${join(reportDir, 'traffic.har')}\n`), output.slice(-3000));
  // traffic.har (issue 43): Schemathesis's calls as HAR 1.2, each naming its operation, and no token it was handed.
  const har = JSON.parse(readFileSync(join(reportDir, 'traffic.har'), 'utf8'));
  assert.deepEqual(harErrors(har), []);
  assert.ok(har.log.entries.length > 30 && har.log.entries.every((entry: { _dxs?: { endpoint?: string } }) => entry._dxs?.endpoint !== undefined));
  const tokens = har.log.entries.flatMap((entry: { request: { url: string }; response: { content: { text?: string } } }) => (entry.request.url.endsWith('/clienttokens/create') ? [...(entry.response.content.text ?? '').matchAll(/"token"\s*:\s*"([^"]+)"/gi)].map((match) => match[1]) : []));
  assert.ok(tokens.length > 0 && tokens.every((token: string) => token === '[REDACTED]'), `the tokens in traffic.har are redacted: ${tokens.slice(0, 3).join(', ')}`);
  // The setup's two companies and those of Schemathesis are journaled apart from any dxs test journal, and deleted at the end.
  const journal = JSON.parse(readFileSync(join(reportDir, 'fuzz-setup', 'created.json'), 'utf8')) as { companies: Array<{ deleteRequested?: boolean }> };
  assert.ok(journal.companies.length > 2, JSON.stringify(journal.companies));
  assert.ok(journal.companies.every((company) => company.deleteRequested === true), JSON.stringify(journal.companies));
  assert.match(output, /cleanup: every company the run registered is deleted/);
});

/** Five fixed seeds, two runs at once, few examples: each must find nothing (issue 29: a CI job must not fail one run in two). */
const SEEDS = [1, 2, 3, 4, 5];

async function fiveSeeds(name: string, extra: string[]): Promise<string[]> {
  const failures: string[] = [];
  const outputs = await pool(SEEDS, 2, async (seed) => {
    try {
      return (await fuzzWithoutFailures(`${name}-seed-${seed}`, extra, seed, 3)).output;
    } catch (error) {
      failures.push(`seed ${seed}: ${(error as Error).message.slice(0, 4000)}`);
      return '';
    }
  });
  assert.deepEqual(failures, []);
  return outputs;
}

/** The checks of the Schemathesis command the run printed. */
function checksOfCommand(output: string): string[] {
  return /--checks (\S+)/.exec(output)?.[1].split(',') ?? [];
}

test('dxs fuzz against the embedded sandbox with 5 fixed seeds: 0 failures with each', { skip: skipWithoutPython, timeout: 600_000 }, async () => {
  await fiveSeeds('seeds', []);
});

test('dxs fuzz --sandbox-exact: the sandbox passes its own export with the sandbox rules relaxed', { skip: skipWithoutPython, timeout: 300_000 }, async () => {
  const { output, reportDir } = await fuzzWithoutFailures('sandbox-exact', ['--sandbox-exact']);
  assert.match(output, /\(sandbox-exact export in camelCase\)/);
  const checks = checksOfCommand(output);
  for (const on of ['negative_data_rejection', 'unsupported_method', 'allow_header_conformance']) assert.ok(checks.includes(on), `${on} not in ${checks}`);
  assert.ok(!checks.includes('max_response_time'), checks.join(','));
  assert.match(readFileSync(join(reportDir, 'index.html'), 'utf8'), /createClientToken: positive_data_acceptance also accepts 400, because the ErpId must be registered/);
});

test('dxs fuzz against the contrarian sandbox with the spec export and 5 fixed seeds: 0 failures with each (another defensible choice wherever the spec is silent)', { skip: skipWithoutPython, timeout: 600_000 }, async () => {
  const outputs = await fiveSeeds('contrarian', ['--sandbox-variant', 'contrarian']);
  assert.match(outputs[0], /\(spec export in PascalCase\)/);
});

test('a fuzz run that finds a server error fails, and prints its seed and the command that repeats it', { skip: skipWithoutPython, timeout: 300_000 }, async () => {
  const reportDir = join(work, 'fault');
  const { code, output } = await dxs(['fuzz', '--report-dir', reportDir, '--max-examples', '1', '--seed', '7', '--duration', '240', '--sandbox-fault', 'malformed-json-500'], 280_000);
  assert.equal(code, 1, output.slice(-4000));
  assert.match(output, /failure\(s\) in \d+ operation\(s\), seed 7;/);
  assert.match(output, /to repeat this run \(the same seed, the same examples\): dxs fuzz .*--sandbox-fault malformed-json-500 .*--seed 7/);
  assert.doesNotMatch(output, new RegExp(SANDBOX_API_KEY));
});

test('dxs fuzz with the contrarian variants left out of the group (one per point they take): 0 failures', { skip: skipWithoutPython, timeout: 300_000 }, async () => {
  // The variants marked alone make another choice on a point a member of the group takes; one per point runs together.
  const perPoint = new Map<string, string>();
  for (const [name, variant] of Object.entries(CONTRARIAN_VARIANTS)) if (variant.alone !== undefined && !perPoint.has(variant.alone)) perPoint.set(variant.alone, name);
  assert.ok(perPoint.size >= 3, [...perPoint.values()].join(', '));
  await fuzzWithoutFailures('contrarian-alone', ['--sandbox-variant', ...perPoint.values()]);
});

test('--sandbox-exact with --base-url exits 2: another implementation is judged by the spec export', { timeout: 60_000 }, async () => {
  const { code, output } = await dxs(['fuzz', '--sandbox-exact', '--base-url', 'http://127.0.0.1:9/v1/api', '--report-dir', join(work, 'exact-remote')], 50_000);
  assert.equal(code, 2, output);
  assert.match(output, /always uses the spec export/);
});

test('without Schemathesis dxs fuzz exits 2 and says what to install', { timeout: 60_000 }, async () => {
  const { code, output } = await dxs(['fuzz', '--schemathesis', join(work, 'no-such-schemathesis'), '--report-dir', join(work, 'missing')], 50_000);
  assert.equal(code, 2, output);
  assert.match(output, hasPython ? /Schemathesis is not installed at .*no-such-schemathesis: run dxs setup --tool schemathesis \(in a clone scripts\/setup\.sh/ : /needs Python 3/);
  assert.equal(existsSync(join(work, 'missing', 'fuzz-junit.xml')), false);
});

test('the fuzz configuration names the rule behind every relaxed check, quoting the spec for the spec export, and keeps credentials out of the command line', () => {
  const spec = readFileSync(SPEC_PATH, 'utf8').replace(/\s+/g, ' ');
  for (const relaxation of [...relaxationsOf('spec'), ...disabledChecksOf('spec'), ...HOOK_RELAXATIONS]) {
    assert.ok((relaxation.quotes ?? []).length > 0, JSON.stringify(relaxation));
    for (const quote of relaxation.quotes ?? []) assert.ok(spec.includes(SPEC_QUOTES[quote].replace(/\s+/g, ' ')), quote);
  }
  for (const line of describeRelaxations('sandbox-exact')) assert.match(line, /because .{20,}/);
  const toml = fuzzConfigToml({ apiKey: 'key-1', clientToken: 'token-1', scratchClientToken: 'token-2' });
  assert.match(toml, /include-operation-id = "deleteCompany"\ncheck/);
  assert.match(toml, /checks\.not_a_server_error\.expected-statuses = \["2xx", "3xx", "4xx", "501"\]/);
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

test('no check judges an answer by the clock: max_response_time is left out of every export, and answers slower than its limit are warnings of the report', () => {
  const help = spawnSync(join(root, '.tools', 'venv', 'bin', 'schemathesis'), ['run', '--help'], { encoding: 'utf8' });
  for (const exportKind of ['spec', 'sandbox-exact'] as const) {
    const [flag, list] = checksArguments(exportKind);
    assert.equal(flag, '--checks');
    const checks = list.split(',');
    assert.ok(!checks.includes('max_response_time') && !checks.includes('all'), list);
    for (const disabled of disabledChecksOf(exportKind)) assert.ok(!checks.includes(disabled.check), disabled.check);
    assert.ok(describeRelaxations(exportKind).some((line) => line.startsWith('every operation: max_response_time is off, because the spec gives no response time')));
  }
  // Every check Schemathesis can run (its --exclude-checks choices) is in FUZZ_CHECKS: none dropped by the explicit list.
  if (help.status === 0) {
    const choices = /--exclude-checks[\s\S]*?\[possible values: ([^\]]*)\]/.exec(help.stdout)?.[1].split(',').map((name) => name.trim()).filter((name) => name !== 'all');
    assert.deepEqual([...(choices ?? [])].sort(), [...FUZZ_CHECKS].sort());
  }
  const reportDir = join(work, 'slow');
  mkdirSync(reportDir, { recursive: true });
  const raw = join(reportDir, 'schemathesis.har');
  writeFileSync(raw, JSON.stringify({ log: { entries: [
    { time: 120, request: { method: 'GET', url: 'http://127.0.0.1:1/v1/api/companies/status' } },
    { time: SLOW_ANSWER_MS + 2345, request: { method: 'POST', url: 'http://127.0.0.1:1/v1/api/documents/send' } },
    { time: SLOW_ANSWER_MS + 500, request: { method: 'GET', url: 'http://127.0.0.1:1/v1/api/documents/outbound/d-1' } },
  ] } }));
  const slow = slowAnswers(writeFuzzHar(raw, join(reportDir, 'traffic.har'), 'http://127.0.0.1:1/v1/api', '0', new SecretRegistry()), SLOW_ANSWER_MS);
  assert.equal(slow.length, 2);
  assert.match(slow[0], /^POST \/documents\/send answered in 12\.3 s, over 10 s/);
  assert.match(slow[1], /^GET \/documents\/outbound\/{DocumentId} answered in 10\.5 s/);
  const junitFile = join(reportDir, 'fuzz-junit.xml');
  writeFileSync(junitFile, '<testsuites><testsuite><testcase name="POST /documents/send" time="12" /></testsuite></testsuites>');
  const summary = writeFuzzReport(reportDir, { junitFile, outputFile: join(reportDir, 'none.txt'), target: 'http://127.0.0.1:1/v1/api', relaxations: ['r1'], started: new Date(), slowAnswers: slow });
  assert.equal(summary.failures, 0);
  const page = readFileSync(join(reportDir, 'fuzz.html'), 'utf8');
  assert.match(page, /<h2>Warnings<\/h2><ul><li>POST \/documents\/send answered in 12\.3 s/);
  assert.deepEqual(slowAnswers(writeFuzzHar(join(reportDir, 'no-such.har'), join(reportDir, 'none.har'), 'http://127.0.0.1:1/v1/api', '0', new SecretRegistry()), SLOW_ANSWER_MS), []);
});

test('every required string field of every request body is one the hooks accept a refusal of "" for, e.g. the Id of POST /companies/delete', () => {
  const fields = requiredStringFields(buildOpenApi({ casing: 'camel' }));
  assert.deepEqual(fields.deleteCompany, [['id']]);
  assert.deepEqual(fields.createClientToken, [['erpId']]);
  assert.ok(fields.sendDocument.some((path) => path.join('.') === 'document.documentUri'));
  assert.deepEqual(requiredStringFields(buildOpenApi({ casing: 'pascal' })).deleteCompany, [['Id']]);
});

test('a call that missed a just-created resource is repeated for three times the background work the setup saw, at least 2 s, at most the async timeout', () => {
  assert.equal(resourceWaitSeconds(1000, 30), 3);
  assert.equal(resourceWaitSeconds(50, 30), 2, 'a quick sandbox still gets 2 s');
  assert.equal(resourceWaitSeconds(20_000, 30), 30, 'never more than --async-timeout');
});

const venvPython = join(root, '.tools', 'venv', 'bin', 'python');

test('the hooks drop only the failures that are none: 501 for an unlisted method, "" refused in a required field, a created resource that appears within the async timeout', { skip: existsSync(venvPython) ? false : 'no .tools/venv (scripts/setup.sh)', timeout: 60_000 }, () => {
  const config = join(work, 'hooks.json');
  // resourceWait, as dxs fuzz writes it (resourceWaitSeconds), bounds the ST302 repeat; asyncTimeout only caps it.
  writeFileSync(config, JSON.stringify({ asyncTimeout: 30, resourceWait: 3, listedMethods: { '/companies/delete': ['post'] }, emptyAsMissing: { deleteCompany: [['id']] } }));
  const script = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("hooks", sys.argv[1])
hooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hooks)
class O:
    def __init__(self, **kw): self.__dict__.update(kw)
def case(body=None):
    return O(operation=O(path="/companies/delete", definition=O(raw={"operationId": "deleteCompany"})), body=body)
def response(status, method):
    return O(status_code=status, request=O(method=method))
keep = lambda code, c, r: hooks.filter_failure(None, O(code=code), c, r)
# A resource that appears after two misses, and one that never does, behind a local server.
import http.server, threading, requests
hits = {"/late": 0}
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        hits[self.path] = hits.get(self.path, 0) + 1
        self.send_response(200 if self.path == "/late" and hits[self.path] > 2 else 404)
        self.end_headers()
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
def missing(path):
    prepared = requests.Request("GET", f"http://127.0.0.1:{server.server_port}{path}").prepare()
    return O(status_code=404, request=prepared)
late = keep("ST302", case(), missing("/late"))
never = keep("ST302", case(), missing("/never"))
server.shutdown()
print(json.dumps([
  late,
  never,
  keep("ST101", case(), response(501, "TRACE")),
  keep("ST101", case(), response(501, "POST")),
  keep("ST101", case(), response(500, "TRACE")),
  keep("ST202", case({"id": ""}), response(400, "POST")),
  keep("ST202", case({"id": "x"}), response(400, "POST")),
  keep("ST202", case({"id": ""}), response(500, "POST")),
]))
`;
  const run = spawnSync(venvPython, ['-c', script, HOOKS_FILE], { encoding: 'utf8', env: { ...process.env, DXS_FUZZ_HOOKS_CONFIG: config } });
  assert.equal(run.status, 0, run.stderr);
  // true: the failure stands.
  assert.deepEqual(JSON.parse(run.stdout.trim().split('\n').pop() ?? ''), [false, true, false, true, true, false, true, true]);
});

test("Schemathesis's lines that name the run's private folder are dropped, whole, however its output is cut", () => {
  const folder = '/tmp/dxs-fuzz-AbC123';
  const output = `Reports:\n  - JUnit: /work/reports/fuzz-1/fuzz-junit.xml\n  - HAR: ${folder}/traffic.har\n\nSeed: 1\nno line break at the end`;
  for (const cut of [1, 7, 40, 64, output.length]) {
    const lines = privateLinesDropped(folder);
    let shown = '';
    for (let at = 0; at < output.length; at += cut) shown += lines.take(output.slice(at, at + cut));
    shown += lines.end();
    assert.equal(shown, 'Reports:\n  - JUnit: /work/reports/fuzz-1/fuzz-junit.xml\n\nSeed: 1\nno line break at the end', `cut every ${cut}`);
  }
});
