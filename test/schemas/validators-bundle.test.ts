import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import buildValidators, { validatorsBundleIsCurrent } from '../../scripts/build/10-validators.ts';
import { validate as validateInNode, schemaNames, schemasDigest } from '../../schemas/index.ts';
import { normaliseKeys, renderKeys } from '../../lib/casing.ts';
import { VALID_SAMPLES, MUTATIONS } from './samples.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const directory = join(root, '.dxs-tmp');
mkdirSync(directory, { recursive: true });
const work = mkdtempSync(join(directory, 'bundle-test-'));
const outfile = join(work, 'validators.js');
await buildValidators(outfile);
const bundle = (await import(pathToFileURL(outfile).href)) as {
  validate: (name: string, body: unknown) => { valid: boolean; errors: string[] };
  schemaNames: string[];
  schemasDigest: string;
};

test.after(() => rmSync(work, { recursive: true, force: true }));

test('the bundle imports no bare modules and calls no require', () => {
  const code = readFileSync(outfile, 'utf8');
  assert.doesNotMatch(code, /(^|[^\w$.'"])require\(/m);
  assert.doesNotMatch(code, /\bfrom\s*["'][^./]/);
  assert.doesNotMatch(code, /\bimport\s*\(/);
  assert.doesNotMatch(code, /Dynamic require/);
});

test('a bundle built from the current schemas is recognised as current, a stale one is not', () => {
  assert.equal(bundle.schemasDigest, schemasDigest());
  assert.equal(validatorsBundleIsCurrent(outfile), true);
  const stale = join(work, 'stale.js');
  writeFileSync(stale, readFileSync(outfile, 'utf8').replace(schemasDigest(), '0000000000000000'));
  assert.equal(validatorsBundleIsCurrent(stale), false);
  assert.equal(validatorsBundleIsCurrent(join(work, 'missing.js')), false);
});

test('the bundle knows every schema', () => {
  assert.deepEqual(bundle.schemaNames, schemaNames());
});

test('the bundle gives the same verdicts and messages as the Node validators', () => {
  const cases: Array<[string, unknown]> = [
    ...Object.entries(VALID_SAMPLES).map(([name, body]): [string, unknown] => [name, normaliseKeys(renderKeys(body, 'camel'))]),
    ...MUTATIONS.map((mutation): [string, unknown] => [mutation.schema, mutation.body]),
  ];
  for (const [name, body] of cases) assert.deepEqual(bundle.validate(name, body), validateInNode(name, body), name);
  assert.ok(cases.some(([name, body]) => !bundle.validate(name, body).valid));
});

test('the bundle accepts schema titles as names, as the k6 scripts use them', () => {
  assert.equal(bundle.validate('ClientToken', VALID_SAMPLES['client-token.response']).valid, true);
  assert.equal(bundle.validate('OutboundDocument', {}).valid, false);
  assert.deepEqual(bundle.validate('NoSuchSchema', {}), { valid: false, errors: ['unknown schema NoSuchSchema'] });
});

const k6 = join(root, '.tools', 'bin', 'k6');
test('k6 loads the bundle and validates with it', { skip: existsSync(k6) ? false : 'k6 is not installed (scripts/install-k6.sh)' }, () => {
  const script = join(work, 'probe.js');
  writeFileSync(script, `import { validate } from './validators.js';
export const options = { vus: 1, iterations: 1 };
export default function () {
  const good = validate('client-token.response', { Token: 't', ValidTo: '2026-11-22T10:10:00+0000' });
  const bad = validate('outbound-document.response', { Id: 'x' });
  console.log('DXS-VERDICT ' + JSON.stringify([good.valid, bad.valid, bad.errors.length > 0]));
}
`);
  const run = spawnSync(k6, ['run', '--no-usage-report', '--quiet', '--log-format', 'raw', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.match(`${run.stdout}${run.stderr}`, /DXS-VERDICT \[true,false,true\]/);
});
