import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { CLIENT_AREAS, clientCatalogProblems, loadClientRequirements, type ClientRequirement } from '../../schemas/client-requirements.ts';
import { quotesNotInSpec, SPEC_PATH, type Requirement } from '../../schemas/requirements.ts';

const sample: ClientRequirement = { id: 'CLI-AUTH-01', level: 'MUST', area: 'client-auth', endpoints: ['POST /clienttokens/create'], statement: 's', test: 't', basis: 'hardening' };

test('the client catalog has no malformed or duplicated id, unknown level, area or basis, or empty field', () => {
  assert.deepEqual(clientCatalogProblems(loadClientRequirements()), []);
});

test('the client catalog covers every area and the rules the issue names', () => {
  const requirements = loadClientRequirements();
  for (const area of CLIENT_AREAS) assert.ok(requirements.some((requirement) => requirement.area === area), area);
  const text = JSON.stringify(requirements);
  for (const phrase of ['header APIkey', 'ClientToken', 'DeleteRegistration', 'PartyId', 'DocumentUri', 'SearchId', 'ValidTo', 'Retry-After', 'part File', 'Processes', 'CultureCode', 'SendDocumentAs.Type']) {
    assert.ok(text.includes(phrase), phrase);
  }
  // Rule 7 leaves the scheme open: what the client sends there is an observation, never a failure.
  assert.equal(requirements.find((requirement) => requirement.id === 'CLI-AUTH-07')?.basis, 'observe');
});

test('every spec quote of the client catalog occurs in the spec, whitespace aside', () => {
  assert.ok(existsSync(SPEC_PATH), `the spec is at ${SPEC_PATH}`);
  const missing = quotesNotInSpec(loadClientRequirements() as unknown as Requirement[], readFileSync(SPEC_PATH, 'utf8'));
  assert.deepEqual(missing.map((requirement) => `${requirement.id}: "${requirement.quote}"`), []);
});

test('the client catalog checker catches what it should', () => {
  assert.match(clientCatalogProblems([{ ...sample, id: 'TOK-01' }]).join(), /malformed id/);
  assert.match(clientCatalogProblems([sample, { ...sample }]).join(), /duplicate id/);
  assert.match(clientCatalogProblems([{ ...sample, area: 'client-pace' }]).join(), /prefix does not belong/);
  assert.match(clientCatalogProblems([{ ...sample, basis: 'spec' }]).join(), /without a quote/);
  assert.match(clientCatalogProblems([{ ...sample, basis: 'invariant' }]).join(), /basis must be/);
  assert.match(clientCatalogProblems([{ ...sample, basis: 'observe' }]).join(), /basis observe/);
  assert.match(clientCatalogProblems([{ ...sample, endpoints: [] }]).join(), /no endpoints/);
});
