import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { loadRequirements, requirementById, catalogProblems, failureSeverity, filterRequirements, quotesNotInSpec, REQUIREMENT_AREAS, SPEC_PATH, type Requirement } from '../../schemas/requirements.ts';

const sample: Requirement = { id: 'TOK-01', level: 'MUST', area: 'tokens', endpoints: ['POST /clienttokens/create'], statement: 's', test: 't' };

test('the catalog has no malformed or duplicated id, unknown level or area, or empty field', () => {
  assert.deepEqual(catalogProblems(loadRequirements()), []);
});

test('the catalog is large and covers every level and area', () => {
  const requirements = loadRequirements();
  assert.ok(requirements.length > 150, `only ${requirements.length} entries`);
  for (const level of ['MUST', 'GUIDE', 'SECURITY', 'OBSERVE']) assert.ok(filterRequirements({ level }).length > 0, level);
  for (const area of REQUIREMENT_AREAS) assert.ok(filterRequirements({ area }).length > 0, area);
});

test('the checker catches malformed and duplicated ids', () => {
  assert.match(catalogProblems([{ ...sample, id: 'TOK-1' }]).join(), /malformed id/);
  assert.match(catalogProblems([{ ...sample, id: 'tok-01' }]).join(), /malformed id/);
  assert.match(catalogProblems([sample, { ...sample }]).join(), /duplicate id TOK-01/);
});

test('the checker catches unknown levels and areas, wrong prefixes and empty fields', () => {
  assert.match(catalogProblems([{ ...sample, level: 'SHOULD' }]).join(), /unknown level/);
  assert.match(catalogProblems([{ ...sample, area: 'misc' }]).join(), /unknown area/);
  assert.match(catalogProblems([{ ...sample, area: 'inbound' }]).join(), /prefix does not belong/);
  assert.match(catalogProblems([{ ...sample, statement: ' ' }]).join(), /empty statement/);
  assert.match(catalogProblems([{ ...sample, test: '' }]).join(), /empty test/);
  assert.match(catalogProblems([{ ...sample, endpoints: [] }]).join(), /no endpoints/);
  assert.match(catalogProblems([{ ...sample, endpoints: ['clienttokens'] }]).join(), /malformed endpoint/);
});

test('entries are found by id', () => {
  assert.equal(requirementById('CMP-USR-05')?.area, 'companies');
  assert.equal(requirementById('NOPE-99'), undefined);
});

test('every row of the Errors table has an entry naming its status', () => {
  const rows: Array<[string, string]> = [
    ['POST /companies/users', '400'], ['POST /companies/users', '401'], ['POST /companies/users', '409'], ['POST /companies/users', '500'],
    ['POST /companies/identifiers', '400'], ['POST /companies/identifiers', '500'],
    ['POST /companies/delete', '401'], ['POST /companies/delete', '500'], ['POST /companies/delete', '501'],
    ['POST /network/setup', '400'],
    ['POST /companies/deliverymethods/b2c/providera', '409'], ['POST /companies/deliverymethods/b2c/providera', '400'],
    ['POST /companies/deliverymethods/b2c/providera/lookup', '400'],
  ];
  for (const [endpoint, status] of rows) {
    const found = loadRequirements().some((requirement) => requirement.endpoints.includes(endpoint) && `${requirement.statement} ${requirement.test}`.includes(status));
    assert.ok(found, `${endpoint} ${status}`);
  }
});

test('every requirement has a basis: a spec quote, an invariant, hardening or an observation', () => {
  assert.deepEqual(loadRequirements().filter((requirement) => requirement.basis === undefined).map((requirement) => requirement.id), []);
});

test('every spec quote of the catalog occurs in the spec, whitespace aside', () => {
  assert.ok(existsSync(SPEC_PATH), `the spec is at ${SPEC_PATH} (the project's spec/, or DXS_SPEC)`);
  const missing = quotesNotInSpec(loadRequirements(), readFileSync(SPEC_PATH, 'utf8'));
  assert.deepEqual(missing.map((requirement) => `${requirement.id}: "${requirement.quote}"`), []);
});

test('the checker catches a basis without its ground, and a quote the spec does not hold', () => {
  assert.match(catalogProblems([{ ...sample, basis: 'spec' }]).join(), /without a quote/);
  assert.match(catalogProblems([{ ...sample, basis: 'invariant', rationale: 'r' }]).join(), /no known invariant/);
  assert.match(catalogProblems([{ ...sample, basis: 'invariant', invariant: 'no-server-error' }]).join(), /without a rationale/);
  assert.match(catalogProblems([{ ...sample, basis: 'law' as never }]).join(), /unknown basis/);
  assert.match(catalogProblems([{ ...sample, level: 'OBSERVE', basis: 'hardening' }]).join(), /rests on basis observe/);
  assert.match(catalogProblems([{ ...sample, level: 'MUST', basis: 'observe' }]).join(), /goes with level OBSERVE/);
  const spec = 'Response 202 with an empty body\n  or `{}`.';
  assert.deepEqual(quotesNotInSpec([{ ...sample, basis: 'spec', quote: 'with an empty body or `{}`' }], spec), []);
  assert.equal(quotesNotInSpec([{ ...sample, basis: 'spec', quote: 'with an empty body and `{}`' }], spec).length, 1);
});

test('a failure counts by basis: hardening warns unless strict, observe informs', () => {
  assert.equal(failureSeverity({ level: 'MUST', basis: 'spec' }, false), 'failure');
  assert.equal(failureSeverity({ level: 'SECURITY', basis: 'invariant' }, false), 'failure');
  assert.equal(failureSeverity({ level: 'MUST', basis: 'hardening' }, false), 'warning');
  assert.equal(failureSeverity({ level: 'MUST', basis: 'hardening' }, true), 'failure');
  assert.equal(failureSeverity({ level: 'OBSERVE', basis: 'observe' }, true), 'info');
  assert.equal(failureSeverity({ level: 'GUIDE', basis: 'spec' }, false), 'warning');
});
