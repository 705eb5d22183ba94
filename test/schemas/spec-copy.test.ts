// The project carries its own copy of the spec (spec/), so that a clone or an installed package
// reads the quotes and the digest from inside itself. Where the shared folder the spec comes from
// sits beside the repository, the copy must be its very text: a change of the spec shows here as a
// failing test, not as quotes drifting from a spec no one reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { SPEC_PATH } from '../../schemas/requirements.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const OWN = new URL('../../spec/document-exchange-api.md', import.meta.url).pathname;
const SHARED = new URL('../../../shared/spec/document-exchange-api.md', import.meta.url).pathname;

test('the commands read the spec from the project itself', { skip: process.env.DXS_SPEC !== undefined ? 'DXS_SPEC points the commands at another spec' : false }, () => {
  assert.equal(SPEC_PATH, OWN);
  assert.ok(SPEC_PATH.startsWith(ROOT), 'inside the project');
  assert.ok(existsSync(SPEC_PATH));
});

test("the project's spec is the shared spec's very text", { skip: existsSync(SHARED) ? false : 'no ../shared/spec beside the repository to compare with (a clone or a package carries only its own copy)' }, () => {
  const own = readFileSync(OWN, 'utf8');
  const shared = readFileSync(SHARED, 'utf8');
  assert.ok(own === shared, `spec/${basename(OWN)} differs from ../shared/spec/${basename(SHARED)}: copy it again (cp ../shared/spec/${basename(SHARED)} spec/) and check the catalog's quotes (npm test -- requirements)`);
});
