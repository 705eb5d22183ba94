// The workers validate with the standalone build of the schemas (issue 42): installed only when it
// was built from the schemas as they are now, and answering what ajv answers. A file of its own:
// once installed, validate() of this process answers from the bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import buildValidators from '../../scripts/build/10-validators.ts';
import { schemaNames, schemasDigest, usePrecompiledValidators, validate } from '../../schemas/index.ts';
import { MUTATIONS, VALID_SAMPLES } from './samples.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.dxs-tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.dxs-tmp', 'precompiled-test-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

function cases(): Array<[string, unknown]> {
  const bodies: Array<[string, unknown]> = Object.entries(VALID_SAMPLES);
  for (const mutation of MUTATIONS) bodies.push([mutation.schema, mutation.body]);
  for (const name of schemaNames()) bodies.push([name, {}], [name, null], [name, 'text']);
  bodies.push(['no-such-schema', {}]);
  return bodies;
}

test('a missing or stale build is not installed; a current one is, and answers as ajv does', async () => {
  const outfile = join(work, 'validators.js');
  await buildValidators(outfile);
  const stale = join(work, 'stale.js');
  writeFileSync(stale, readFileSync(outfile, 'utf8').replace(schemasDigest(), '0000000000000000'));
  const broken = join(work, 'broken.js');
  writeFileSync(broken, 'export const schemasDigest = ;');

  const byAjv = cases().map(([name, body]) => validate(name, body));
  assert.equal(await usePrecompiledValidators(join(work, 'missing.js')), false);
  assert.equal(await usePrecompiledValidators(stale), false);
  assert.equal(await usePrecompiledValidators(broken), false);
  assert.equal(await usePrecompiledValidators(outfile), true);
  const byBundle = cases().map(([name, body]) => validate(name, body));
  assert.deepEqual(byBundle, byAjv);
  assert.ok(byAjv.some((result) => result.valid) && byAjv.some((result) => !result.valid && result.errors.length > 0));
});
