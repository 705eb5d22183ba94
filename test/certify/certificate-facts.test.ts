// The certificate's facts without a run: the verdict follows dxs test's exit code (warnings allowed),
// a failing requirement carries the sentence it rests on, and what is not covered says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateFacts, parseDeployment, type CertificateInput } from '../../report/certificate-facts.ts';
import { renderCertificate } from '../../report/certificate.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';
import type { Requirement } from '../../schemas/requirements.ts';
import { redactedCommand } from '../../cli/commands/certify.ts';
import { runDxs } from '../runner/helpers.ts';

const catalog: Requirement[] = [
  { id: 'TOK-01', level: 'MUST', area: 'tokens', endpoints: [], statement: 'A token is created.', test: '', basis: 'spec', quote: 'The  token\n is returned.' },
  { id: 'TOK-02', level: 'SECURITY', area: 'tokens', endpoints: [], statement: 'No secret is echoed.', test: '', basis: 'invariant', invariant: 'no-secret-echoed', rationale: 'an echoed key is a leaked key' },
  { id: 'TOK-03', level: 'GUIDE', area: 'tokens', endpoints: [], statement: 'Tokens expire.', test: '' },
  { id: 'TOK-04', level: 'MUST', area: 'tokens', endpoints: [], statement: 'Revoked tokens are refused.', test: '' },
  { id: 'TOK-05', level: 'MUST', area: 'tokens', endpoints: [], statement: 'Never checked.', test: '' },
  { id: 'INB-01', level: 'MUST', area: 'inbound', endpoints: [], statement: 'Outside the profile.', test: '' },
];

function record(id: string, verdicts: Record<string, TestRecord['verdict']>, extra: Partial<TestRecord> = {}): TestRecord {
  const verdict = Object.values(verdicts).includes('failed') ? 'failed' : Object.values(verdicts).includes('warning') ? 'warning' : Object.values(verdicts)[0];
  return {
    id, title: `test ${id}`, file: 'contract/tokens.spec.ts', titlePath: [`test ${id}`], area: 'tokens', requirements: Object.keys(verdicts), tags: [],
    status: verdict === 'failed' ? 'failed' : verdict === 'skipped' ? 'skipped' : 'passed', verdict, durationMs: 1, annotations: [], checks: [], requirementVerdicts: verdicts, ...extra,
  };
}

function input(tests: TestRecord[]): CertificateInput {
  const summary = summarise(tests);
  const results: Results = {
    format: 'dxs-results/1',
    run: {
      target: 'https://staging.example/v1/api', embedded: false, profile: 'tokens-only', areas: ['tokens'], casing: 'any', destructive: false, version: '0.1.0',
      startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', durationMs: 60_000, status: summary.failed > 0 ? 'failed' : 'passed', shards: [], seed: 42, runPrefix: 'dxs-x',
    },
    summary,
    tests,
    coverage: {},
  };
  return {
    results, catalog, profile: { name: 'tokens-only', description: 'tokens', areas: ['tokens'], destructive: false }, deployment: { name: 'acme dx', version: '2.4.1' },
    keys: [{ role: 'API key (APIkey header)', source: '--api-key' }], spec: { file: 'spec.md', sha256: 'a'.repeat(64) }, catalogFile: { file: 'schemas/requirements.json', sha256: 'b'.repeat(64) }, command: 'dxs certify',
  };
}

test('warnings and observations do not prevent CONFORMS; they are listed, and what was not checked says why', () => {
  const facts = certificateFacts(input([
    record('1', { 'TOK-01': 'passed', 'TOK-02': 'info' }),
    record('2', { 'TOK-03': 'warning' }, { checks: [{ requirement: 'TOK-03', level: 'GUIDE', verdict: 'warning', check: 'hasValidTo', expected: 'a ValidTo', actual: 'none' }] }),
    record('3', { 'TOK-04': 'skipped' }, { skipReason: 'no revocable token configured' }),
  ]));
  assert.equal(facts.verdict, 'CONFORMS');
  assert.deepEqual(facts.warnings.map((entry) => entry.id), ['TOK-03']);
  assert.deepEqual(facts.notCovered.map((entry) => [entry.id, entry.notes]), [['TOK-04', ['no revocable token configured']], ['TOK-05', ["no test of the profile's areas checks it"]]]);
  assert.equal(facts.requirements.passed, 1);
  assert.equal(facts.requirements['not exercised'], 1);
  assert.ok(!facts.notCovered.some((entry) => entry.id === 'INB-01'), 'a requirement outside the profile is not listed');
});

test('a failure or a block means DOES NOT CONFORM, each requirement with the sentence it rests on', () => {
  const facts = certificateFacts(input([
    record('1', { 'TOK-01': 'failed' }, { failure: 'POST /clienttokens/create: no response from the target: connection reset by the target (ECONNRESET) after 0.4 s' }),
    record('2', { 'TOK-02': 'failed' }, { checks: [{ requirement: 'TOK-02', level: 'SECURITY', verdict: 'failed', check: 'noSecretEchoed', expected: 'no key in the body', actual: 'the key' }] }),
    record('3', { 'TOK-04': 'blocked' }, { status: 'skipped', verdict: 'blocked', failure: 'blocked: a company reaching Registered is broken' }),
  ]));
  assert.equal(facts.verdict, 'DOES NOT CONFORM');
  const byId = Object.fromEntries(facts.failing.map((entry) => [entry.id, entry]));
  assert.deepEqual(Object.keys(byId), ['TOK-01', 'TOK-02', 'TOK-04']);
  assert.equal(byId['TOK-01'].basis, 'The token is returned.');
  assert.equal(byId['TOK-01'].basisKind, 'spec');
  assert.match(byId['TOK-01'].notes[0], /ECONNRESET/);
  assert.equal(byId['TOK-02'].basisKind, 'invariant');
  assert.equal(byId['TOK-02'].basis, 'an echoed key is a leaked key');
  assert.equal(byId['TOK-04'].basisKind, 'statement');
  const html = renderCertificate(facts);
  assert.match(html, /DOES NOT CONFORM to profile tokens-only/);
  assert.match(html, /Spec: “The token is returned\.”/);
  assert.match(html, /acme dx<\/b> version <b>2\.4\.1/);
});

test('a deployment is a name and a version; the command keeps no key', () => {
  assert.deepEqual(parseDeployment('sandbox 0.1'), { name: 'sandbox', version: '0.1' });
  assert.deepEqual(parseDeployment('  acme dx  2.4.1 '), { name: 'acme dx', version: '2.4.1' });
  assert.equal(parseDeployment('sandbox'), undefined);
  assert.equal(
    redactedCommand(['certify', '--api-key', 'k-1', '--api-key-without-delete=k-2', '--deployment', 'acme dx 2', '--profile', 'inbox']),
    "dxs certify --api-key [REDACTED] --api-key-without-delete=[REDACTED] --deployment 'acme dx 2' --profile inbox",
  );
  // No path of the machine: inside the folder it ran in, relative; outside it, the last part only.
  assert.equal(
    redactedCommand(['certify', '--report-dir', join(process.cwd(), 'packages', 'acme'), `--sign-key=${join(tmpdir(), 'keys', 'signing.pem')}`, '--profile', 'inbox']),
    "dxs certify --report-dir packages/acme '--sign-key=…/signing.pem' --profile inbox",
  );
});

test('without the spec dxs certify issues no certificate: it exits 2 before the run, naming the spec by its name only', async () => {
  const result = await runDxs(['certify', '--profile', 'inbox', '--deployment', 'acme 1', '--report-dir', join(tmpdir(), `dxs-no-spec-${process.pid}`)], { env: { DXS_SPEC: '/nonexistent/spec/document-exchange-api.md' }, timeoutMs: 60_000 });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /the spec document-exchange-api\.md cannot be read \(DXS_SPEC\)/);
});
