// A failing certificate stays one readable A4 page (issue 59): with every requirement of the full
// profile failed or blocked, it used to be three pages shrunk to an eighth. Printed by Chromium as
// dxs certify prints it, the PDF is one page whose smallest text is still about 7 pt or more, with
// the verdict, the subject, the root causes first, the counts by area, the first failures by
// requirement ID and a pointer to the report for the rest. And without a base URL, the subject is
// dxs's own reference sandbox, not a deployment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateFacts, type CertificateInput } from '../../report/certificate-facts.ts';
import { certificateRenderings, renderCertificate } from '../../report/certificate.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';
import { loadRequirements } from '../../schemas/requirements.ts';
import { printPdf } from '../../cli/commands/certify-pdf.ts';
import { loadProfiles } from '../../cli/commands/test.ts';

/** DejaVu Sans, the certificate's font: ascent plus descent per em, as poppler sizes a word's box. */
const BOX_PER_EM = 0.928 + 0.236;
const READABLE_PT = 7;

function everythingFails(embedded: boolean): CertificateInput {
  const catalog = loadRequirements();
  const profile = loadProfiles().full;
  const inProfile = catalog.filter((requirement) => profile.areas.includes(requirement.area));
  const tests: TestRecord[] = inProfile.map((requirement, index) => {
    const blocked = index % 3 === 0;
    return {
      id: `t${index}`, title: `a test of ${requirement.id} with a title as long as the suites' titles are, naming what it checks and how`, file: `contract/${requirement.area}.spec.ts`,
      titlePath: [`test ${index}`], area: requirement.area, requirements: [requirement.id], tags: [], status: blocked ? 'skipped' : 'failed', verdict: blocked ? 'blocked' : 'failed', durationMs: 1,
      annotations: blocked ? [{ type: 'blocked', description: '[registration] CMP-STA-06: GET /companies/status answered 401 to the token the run made; the company never reached Registered within 30 s' }] : [],
      checks: blocked ? [] : [{ requirement: requirement.id, level: requirement.level, verdict: 'failed', check: 'statusIs', expected: 'status 200 with a body that matches the schema of the answer', actual: `status 401 with {"error":"unauthorized","message":"the API key is not valid for this company or this operation (${'x'.repeat(80)})"}` }],
      requirementVerdicts: { [requirement.id]: blocked ? 'blocked' : 'failed' },
    };
  });
  const summary = summarise(tests);
  const results: Results = {
    format: 'dxs-results/1',
    run: {
      target: embedded ? 'http://127.0.0.1:4010/v1/api' : 'https://staging.example/v1/api', embedded, profile: 'full', areas: profile.areas, casing: 'any', destructive: false, version: '0.1.0',
      startedAt: '2026-12-07T00:00:00.000Z', finishedAt: '2026-12-07T00:01:00.000Z', durationMs: 60_000, status: 'failed', shards: [], seed: 7, runPrefix: 'dxs-page',
    },
    summary,
    tests,
    coverage: {},
    rootCauses: [
      { prerequisite: 'registration', requirement: 'CMP-STA-06', message: 'GET /companies/status answered 401 to the token the run made; the company never reached Registered within 30 s', tests: tests.filter((entry) => entry.verdict === 'blocked').map((entry) => entry.title) },
      { prerequisite: 'client-token', requirement: 'TOK-01', message: 'POST /clienttokens/create answered 403 with no Token', tests: ['one', 'two'] },
    ],
  };
  return {
    results, catalog, profile: { name: 'full', description: profile.description, areas: profile.areas, destructive: false },
    deployment: embedded ? undefined : { name: 'acme-dx', version: '2.4.1' },
    keys: [{ role: 'API key (APIkey header)', source: '--api-key' }, { role: 'API key without DeleteRegistration', source: 'DXS_API_KEY_WITHOUT_DELETE' }],
    spec: { file: 'document-exchange-api.md', sha256: 'a'.repeat(64) }, catalogFile: { file: 'schemas/requirements.json', sha256: 'b'.repeat(64) },
    command: 'dxs certify --base-url https://staging.example/v1/api --api-key [REDACTED] --profile full --deployment "acme-dx 2.4.1"',
  };
}

test('a certificate where every requirement of the full profile fails is one A4 page, its smallest text about 7 pt or more, the root cause and the first failures first', async () => {
  const facts = certificateFacts(everythingFails(false));
  assert.ok(facts.failing.length > 200, `${facts.failing.length} failing`);
  const directory = mkdtempSync(join(tmpdir(), 'dxs-certificate-page-'));
  try {
    const html = join(directory, 'certificate.html');
    const pdf = join(directory, 'certificate.pdf');
    const printed = await printPdf(html, pdf, certificateRenderings(facts));
    assert.equal(printed.scale, 1, 'printed unscaled');
    assert.match(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }), /^Pages:\s+1$/m);
    // Every word's box, in points: the smallest is the smallest text a reader has to read.
    const boxes = [...execFileSync('pdftotext', ['-bbox', pdf, '-'], { encoding: 'utf8' }).matchAll(/<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">/g)];
    assert.ok(boxes.length > 300, `${boxes.length} words`);
    const smallest = Math.min(...boxes.map((box) => (Number(box[2]) - Number(box[1])) / BOX_PER_EM));
    assert.ok(smallest >= READABLE_PT, `the smallest text is ${smallest.toFixed(2)} pt`);

    // Headings are set in capitals.
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').toLowerCase();
    const at = (needle: string) => {
      const index = text.indexOf(needle.toLowerCase());
      assert.ok(index >= 0, `the page says ${needle}`);
      return index;
    };
    const order = [at('DOES NOT CONFORM to profile full'), at('acme-dx'), at('Root causes'), at('CMP-STA-06'), at('Requirements by area'), at('Failing requirements'), at(facts.failing[0].id), at('report/index.html')];
    assert.deepEqual([...order].sort((a, b) => a - b), order, 'verdict, subject, root causes, counts by area, the first failures, the pointer to the report: in that order');
    for (const area of facts.areas) at(area.area);
    // The chosen rendering is what certificate.html holds.
    assert.match(readFileSync(html, 'utf8'), /id="for-the-rest"/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('without a deployment the subject is dxs\'s own reference sandbox: facts, top of the page, no deployment row', () => {
  const facts = certificateFacts(everythingFails(true));
  assert.equal(facts.deployment, undefined);
  assert.equal(facts.subject.kind, 'reference sandbox');
  assert.match(facts.subject.text, /^dxs's own reference sandbox .*not a deployment$/);
  const html = renderCertificate(facts);
  const verdict = /<div class="verdict[^"]*" id="verdict">[\s\S]*?<\/div>/.exec(html)?.[0] ?? '';
  assert.match(verdict, /dxs&#39;s own reference sandbox|dxs's own reference sandbox/);
  assert.doesNotMatch(html, /<th>Deployment<\/th>/);
  assert.match(html, /<th>Subject<\/th>/);
});
