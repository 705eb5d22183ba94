// dxs client-check (issue 30): the reference client passes; copies of it that each break one rule
// are caught by the requirement they break; clients correct under another reading pass; nothing
// secret reaches a report file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pool, reportTexts, ROOT, runDxs } from '../runner/helpers.ts';
import type { ClientResults } from '../../grading/results.ts';
import { SANDBOX_API_KEY } from '../../lib/defaults.ts';
import { harErrors } from '../runner/har-schema.ts';

const REFERENCE_CLIENT = [process.execPath, '--import', 'tsx', join(ROOT, 'examples/reference-client/client.ts')];
const scratch = mkdtempSync(join(tmpdir(), 'dxs-client-check-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
async function clientCheck(options: string[], command: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; stdout: string; results: ClientResults; reportDir: string }> {
  const reportDir = join(scratch, `run-${++runs}`);
  const result = await runDxs(['client-check', '--report-dir', reportDir, ...options, '--', ...command], { env, timeoutMs: 180_000 });
  let results: ClientResults;
  try {
    results = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as ClientResults;
  } catch {
    throw new Error(`no results.json (exit ${result.code}):\n${result.stderr}`);
  }
  return { ...result, results, reportDir };
}

function verdictOf(results: ClientResults, id: string): string {
  return results.tests.find((test) => test.id === id)?.verdict ?? 'not exercised';
}

function failedIds(results: ClientResults): string[] {
  return results.tests.filter((test) => test.verdict === 'failed').map((test) => test.id);
}

test('the reference client passes dxs client-check with 0 failed, and the report says what it did not try', async () => {
  const { code, results, stderr } = await clientCheck([], REFERENCE_CLIENT);
  assert.deepEqual(failedIds(results), [], stderr);
  assert.equal(code, 0, stderr);
  assert.equal(results.summary.warning, 0, stderr);
  assert.equal(results.format, 'dxs-results/1');
  // Every main flow of the issue was tried; what was not is named.
  for (const flow of ['register a company', 'create a client token', 'look up trading partners', 'upload a document', 'send a document', 'follow an outbound status', 'list the inbox', 'mark documents handled', 'add a user', 'request deletion']) {
    assert.ok(results.client.flows.tried.includes(flow), flow);
  }
  assert.deepEqual(results.client.flows.notTried, []);
  // Only what a provocation exercises is left, and the report says so.
  assert.deepEqual(results.client.notExercised, ['CLI-PACE-01', 'CLI-PACE-03', 'CLI-PACE-04']);
  const html = readFileSync(join(scratch, `run-${runs}`, 'index.html'), 'utf8');
  assert.match(html, /--provoke rate-limit answers some/);
  // Every flow tried: the banner certifies them all, and what only a provocation exercises stays outside it.
  assert.match(html, /<strong>PASSED: no client requirement failed<\/strong>/);
  assert.match(html, /Certified: the 22 of 22 flows/);
  assert.match(html, /class="uncertified"><strong>Not certified<\/strong>: 3 requirements not exercised/);
  // Quotes as sentences: a table row names its table, field and columns; a cell names its field.
  assert.match(html, /ClientToken, field Token \(string\): The token value, sent later in header ClientToken\./);
  assert.match(html, /Outbound documents, field Document\.DocumentUri \(string\): “Required\. Reference returned by the upload\.”/);
  assert.doesNotMatch(html, /spec: “\|/);
  // traffic.har (issue 43): every call of traffic.json, as HAR 1.2, naming what judged it.
  const har = JSON.parse(readFileSync(join(scratch, `run-${runs}`, 'traffic.har'), 'utf8'));
  assert.deepEqual(harErrors(har), []);
  assert.equal(har.log.entries.length, JSON.parse(readFileSync(join(scratch, `run-${runs}`, 'traffic.json'), 'utf8')).calls.length);
  assert.ok(har.log.entries.some((entry: { _dxs: { checked?: string[] } }) => entry._dxs.checked?.includes('CLI-AUTH-01')), 'an entry names the requirement judged on it');
});

const PARTIAL_CLIENT = [process.execPath, join(ROOT, 'test/client-check/partial-client.mjs')];

test('a client of two flows passes in part: the banner certifies those two, the rest is never green, and --require-flows fails it', async () => {
  const partial = await clientCheck([], PARTIAL_CLIENT, { PARTIAL_CLIENT_MODE: 'register-delete' });
  assert.equal(partial.code, 0, partial.stderr);
  assert.deepEqual(partial.results.client.flows.tried, ['register a company', 'request deletion']);
  const html = readFileSync(join(partial.reportDir, 'index.html'), 'utf8');
  assert.match(html, /<strong>PASSED IN PART: no client requirement failed/);
  assert.match(html, /Certified: the 2 of 22 flows the client tried \(register a company, request deletion\)/);
  const uncertified = /<div class="uncertified">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';
  assert.match(uncertified, /20 flows not tried/);
  // Not exercised is never a green badge, and each says what would exercise it.
  const row = (id: string): string => new RegExp(`<tr id="req-${id}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';
  assert.match(row('CLI-REF-01'), /badge not-exercised/);
  assert.match(row('CLI-REF-01'), /exercised by POST \/documents\/outbound or POST \/documents \(flows: send a document, upload a document\)/);
  assert.match(row('CLI-AUTH-07'), /badge nothing-observed/);
  assert.doesNotMatch(row('CLI-AUTH-07'), /not exercised/);

  const required = await clientCheck(['--require-flows', 'register,send'], PARTIAL_CLIENT, { PARTIAL_CLIENT_MODE: 'register-delete' });
  assert.equal(required.code, 1, required.stderr);
  assert.deepEqual(required.results.client.flows.missing, ['send a document']);
  assert.equal(required.results.run.status, 'failed');
  assert.match(required.stderr, /required flows not tried: send a document/);
  assert.match(readFileSync(join(required.reportDir, 'index.html'), 'utf8'), /<strong>FAILED: required flow not tried: send a document<\/strong>/);
  const all = await clientCheck(['--require-flows', 'all'], PARTIAL_CLIENT, { PARTIAL_CLIENT_MODE: 'register-delete' });
  assert.equal(all.code, 1);
  assert.equal(all.results.client.flows.missing.length, 20);
  const unknown = await runDxs(['client-check', '--require-flows', 'teleport', '--', 'true']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown flow teleport/);
});

test('the page of a run whose client stopped says why: the refused call and the requirement it names, the last lines redacted, links to client.log and traffic.json', async () => {
  const { code, results, reportDir } = await clientCheck([], PARTIAL_CLIENT, { PARTIAL_CLIENT_MODE: 'refused-then-exit' });
  // The refused ValidTo breaks CLI-BODY-01: a failure (exit 1), and the page still says why the client stopped.
  assert.equal(code, 1);
  assert.equal(results.tests.find((test) => test.id === 'CLI-BODY-01')?.verdict, 'failed');
  const refused = results.client.calls.find((call) => call.endpoint === 'POST /clienttokens/create');
  assert.equal(refused?.refusal?.requirement, 'CLI-BODY-01');
  assert.equal(refused?.refusal?.judged, true);
  const html = readFileSync(join(reportDir, 'index.html'), 'utf8');
  const why = /<div class="card why" id="why">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';
  assert.match(why, /the client exited with code 1/);
  assert.match(why, /refused under <a href="#req-CLI-BODY-01">CLI-BODY-01<\/a>/);
  assert.match(why, /The field ValidTo is not a valid date-time\./);
  assert.match(why, /giving up/);
  assert.match(why, /href="client\.log"/);
  assert.match(why, /href="traffic\.json"/);
  // The key the client printed is redacted on the page.
  assert.match(why, /token create with key \S+ refused/);
  for (const [file, text] of reportTexts(reportDir)) assert.ok(!text.includes(SANDBOX_API_KEY), `${file} holds the key`);
  assert.ok(readFileSync(join(reportDir, 'client.log'), 'utf8').includes('giving up'));
});

/** Each mutation of the reference client breaks one rule; the requirement it breaks catches it. */
const KILL_TABLE: Array<{ mutation: string; id: string; verdict: 'failed' | 'warning'; provoke?: string }> = [
  { mutation: 'wrong-header', id: 'CLI-AUTH-05', verdict: 'failed' },
  { mutation: 'missing-field', id: 'CLI-BODY-08', verdict: 'failed' },
  { mutation: 'bad-value', id: 'CLI-BODY-09', verdict: 'failed' },
  { mutation: 'unknown-reference', id: 'CLI-REF-01', verdict: 'failed' },
  // A recommendation of the spec ("Tokens of 10 minutes are recommended"): a warning.
  { mutation: 'token-every-call', id: 'CLI-TOK-02', verdict: 'warning' },
  // Rate limits are not shown: honouring Retry-After is hardening, a warning.
  { mutation: 'ignore-retry-after', id: 'CLI-PACE-01', verdict: 'warning', provoke: 'rate-limit' },
  { mutation: 'delete-with-token', id: 'CLI-AUTH-03', verdict: 'failed' },
  // Beyond the list: lookup's PartyId, the SearchId resent, the upload's part File, ValidTo (a recommendation: a warning).
  { mutation: 'no-partyid', id: 'CLI-BODY-12', verdict: 'failed' },
  { mutation: 'new-search-id', id: 'CLI-TOK-05', verdict: 'failed' },
  { mutation: 'upload-part-name', id: 'CLI-CNV-03', verdict: 'failed' },
  { mutation: 'no-validto', id: 'CLI-TOK-03', verdict: 'warning' },
];

test('the kill table for clients: each mutation of the reference client is caught by the requirement it breaks', async () => {
  const only = process.env.DXS_CLIENT_KILL_TABLE?.split(',');
  const rows = KILL_TABLE.filter((row) => only === undefined || only.includes(row.mutation));
  const outcomes = await pool(rows, 2, async (row) => {
    const { code, results, stderr } = await clientCheck(row.provoke === undefined ? [] : ['--provoke', row.provoke], REFERENCE_CLIENT, { REFERENCE_CLIENT_MUTATION: row.mutation });
    return { row, code, results, stderr };
  });
  for (const { row, code, results, stderr } of outcomes) {
    assert.equal(verdictOf(results, row.id), row.verdict, `${row.mutation}: ${row.id}\n${stderr}`);
    // The mutation breaks that rule and no spec rule besides.
    assert.deepEqual(failedIds(results).filter((id) => id !== row.id), [], `${row.mutation}: other failures`);
    assert.equal(code, row.verdict === 'failed' ? 1 : 0, `${row.mutation}: exit code\n${stderr}`);
  }
});

test('clients correct under another defensible reading pass: camelCase bodies, the other credential on the rule-7 calls', async () => {
  const readings: Array<Record<string, string>> = [{ REFERENCE_CLIENT_CASING: 'camel' }, { REFERENCE_CLIENT_OPEN_CREDENTIAL: 'apikey' }, { REFERENCE_CLIENT_OPEN_CREDENTIAL: 'clienttoken' }];
  const outcomes = await pool(readings, 2, async (env) => ({ env, ...(await clientCheck([], REFERENCE_CLIENT, env)) }));
  for (const { env, code, results, stderr } of outcomes) {
    assert.deepEqual(failedIds(results), [], `${JSON.stringify(env)}\n${stderr}`);
    assert.equal(results.summary.warning, 0, JSON.stringify(env));
    assert.equal(code, 0, JSON.stringify(env));
  }
  const camel = outcomes[0].results.tests.find((test) => test.id === 'CLI-CNV-04');
  assert.match(JSON.stringify(camel?.checks), /camelCase [1-9]/);
});

test('with every provocation on, the reference client copes: each named in the report, no failure, no warning', async () => {
  const { code, results, stderr } = await clientCheck(['--provoke', 'rate-limit,token-expiry,server-error,slow-background'], REFERENCE_CLIENT);
  assert.deepEqual(failedIds(results), [], stderr);
  assert.equal(results.summary.warning, 0, stderr);
  assert.equal(code, 0, stderr);
  const names = results.client.provocations.map((provocation) => provocation.name);
  assert.deepEqual(names.sort(), ['rate-limit', 'server-error', 'slow-background', 'token-expiry']);
  for (const provocation of results.client.provocations) assert.ok(provocation.name === 'slow-background' || provocation.calls.length > 0, `${provocation.name} never triggered`);
  // With background work slowed, the client waits for Registered before it activates services, and polls at a pace.
  assert.equal(verdictOf(results, 'CLI-FLOW-02'), 'passed');
  assert.equal(verdictOf(results, 'CLI-PACE-03'), 'passed');
  assert.equal(verdictOf(results, 'CLI-PACE-01'), 'passed');
  assert.equal(verdictOf(results, 'CLI-PACE-04'), 'passed');
  assert.equal(verdictOf(results, 'CLI-TOK-04'), 'passed');
});

test('no key or token reaches a report file, even from a client that leaks them', async () => {
  const secretsFile = join(scratch, 'leaked.txt');
  const { results } = await clientCheck([], [process.execPath, join(ROOT, 'test/client-check/leaky-client.mjs')], { DXS_TEST_SECRETS_FILE: secretsFile });
  const leaked = readFileSync(secretsFile, 'utf8').split('\n').filter((line) => line.length >= 6);
  assert.equal(leaked.length, 2);
  assert.equal(verdictOf(results, 'CLI-AUTH-09'), 'warning');
  // A client of few flows: the report names those it did not try.
  assert.ok(results.client.flows.notTried.includes('send a document'));
  assert.match(readFileSync(join(scratch, `run-${runs}`, 'index.html'), 'utf8'), /Flows: \d+ tried, \d+ not tried/);
  const texts = reportTexts(join(scratch, `run-${runs}`));
  assert.ok(texts.size >= 4, [...texts.keys()].join(', '));
  for (const [file, text] of texts) for (const secret of leaked) assert.ok(!text.includes(secret), `${file} holds a secret`);
});

test('exit 2 for a command that cannot run or does not succeed, and for bad options', async () => {
  const missing = await clientCheck([], ['/nonexistent/erp-client']);
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.results.run.message ?? '', /could not start/);
  const failing = await clientCheck([], [process.execPath, '-e', 'process.exit(3)']);
  assert.equal(failing.code, 2);
  assert.match(failing.results.run.message ?? '', /exited with code 3/);
  const timedOut = await clientCheck(['--timeout', '1'], [process.execPath, '-e', 'setTimeout(() => {}, 60000)']);
  assert.equal(timedOut.code, 2);
  assert.match(timedOut.results.run.message ?? '', /--timeout/);
  for (const args of [['client-check'], ['client-check', '--provoke', 'earthquake', '--', 'true'], ['client-check', '--serve', '--', 'true'], ['client-check', '--idle', '3', '--', 'true']]) {
    const usage = await runDxs(args);
    assert.equal(usage.code, 2, `${args.join(' ')}: ${usage.stderr}`);
  }
});

test('--serve grades a client elsewhere after --idle seconds without a call', async () => {
  const reportDir = join(scratch, 'serve');
  let called = false;
  const result = await runDxs(['client-check', '--serve', '--idle', '1', '--report-dir', reportDir], {
    timeoutMs: 60_000,
    onOutput: (stdout) => {
      const url = /DXS_CLIENT_BASE_URL=(\S+)/.exec(stdout)?.[1];
      const key = /DXS_CLIENT_API_KEY=(\S+)/.exec(stdout)?.[1];
      if (url === undefined || key === undefined || called) return;
      called = true;
      void fetch(`${url}/companies/register`, { method: 'POST', headers: { 'Content-Type': 'application/json', APIkey: key }, body: JSON.stringify({ ErpId: 'served-1', ErpProduct: 'p 1', Name: 'Served AB', Email: 'a@example.com', CountryCode: 'SE', OrgNo: '5566778899' }) });
    },
  });
  assert.equal(result.code, 0, result.stderr);
  const results = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as ClientResults;
  assert.equal(results.client.calls.length, 1);
  assert.equal(verdictOf(results, 'CLI-AUTH-02'), 'passed');
  // The registration was never followed with the status call: a warning (the spec's guide), not a failure.
  assert.equal(verdictOf(results, 'CLI-FLOW-01'), 'warning');
});

test('--certify makes the signed package of dxs certify for the client, and dxs certify verify accepts it', async () => {
  const keys = join(scratch, 'keys');
  assert.equal((await runDxs(['keys', 'generate', '--out', keys])).code, 0);
  const packageDir = join(scratch, 'package');
  const run = await runDxs(['client-check', '--certify', '--deployment', 'reference-client 1.0', '--sign-key', join(keys, 'dxs-signing-key.pem'), '--report-dir', packageDir, '--', ...REFERENCE_CLIENT], { timeoutMs: 180_000 });
  assert.equal(run.code, 0, run.stderr);
  for (const file of ['certificate.html', 'certificate.pdf', 'certificate.json', 'manifest.json', 'report/index.html', 'report/results.json', 'report/junit.xml']) assert.ok(reportTexts(packageDir).has(join(packageDir, file)), file);
  const facts = JSON.parse(readFileSync(join(packageDir, 'certificate.json'), 'utf8')) as { verdict: string; profile: { name: string }; notCovered: Array<{ id: string; notes: string[] }> };
  assert.equal(facts.verdict, 'CONFORMS');
  assert.equal(facts.profile.name, 'client');
  assert.match(facts.notCovered.find((requirement) => requirement.id === 'CLI-PACE-01')?.notes[0] ?? '', /--provoke rate-limit/);
  const verified = await runDxs(['certify', 'verify', `${packageDir}.zip`, '--public-key', join(keys, 'dxs-signing-key.pub.pem')]);
  assert.equal(verified.code, 0, verified.stderr);
  const usage = await runDxs(['client-check', '--certify', '--', 'true']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--deployment/);
});
