// The access matrix's data (schemas/access-matrix.ts): every operation of the spec is a row, every
// cell has a basis in the catalog, and each ACC-* entry claims exactly the endpoints its cells judge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCESS_OPERATIONS, cellExpectation, CREDENTIAL_FORMS, endpointsOf, NO_SERVER_ERROR_REQUIREMENT, requirementsOf } from '../../schemas/access-matrix.ts';
import { loadRequirements, requirementById } from '../../schemas/requirements.ts';

test('the rows are the 31 operations of the spec, each once, each an endpoint the catalog knows', () => {
  const endpoints = ACCESS_OPERATIONS.map((operation) => operation.endpoint);
  assert.equal(new Set(endpoints).size, 31);
  const known = new Set(loadRequirements().flatMap((requirement) => requirement.endpoints));
  assert.deepEqual(endpoints.filter((endpoint) => !known.has(endpoint)), []);
  assert.deepEqual([...known].filter((endpoint) => endpoint !== '*' && !endpoints.includes(endpoint)), [], 'no operation of the catalog is left out of the matrix');
});

test('every cell tried has a basis: a catalog ID resting on a spec quote, an invariant or an observation, whose level fits the expectation', () => {
  for (const operation of ACCESS_OPERATIONS) {
    for (const form of CREDENTIAL_FORMS) {
      const expectation = cellExpectation(operation, form);
      if (expectation === undefined) continue;
      const requirement = requirementById(expectation.requirement);
      const where = `${operation.endpoint} × ${form}`;
      assert.ok(requirement !== undefined, `${where}: ${expectation.requirement} is in the catalog`);
      assert.ok(requirement.basis !== undefined, `${where}: ${requirement.id} has a basis`);
      if (expectation.expect === 'observe') assert.equal(requirement.basis, 'observe', `${where}: an observed cell rests on an observation`);
      else assert.ok(requirement.basis === 'spec' || requirement.basis === 'invariant', `${where}: a judged cell rests on the spec or an invariant (${requirement.basis})`);
    }
  }
  assert.equal(requirementById(NO_SERVER_ERROR_REQUIREMENT)?.invariant, 'no-server-error');
});

test('the rules of the Authentication section hold in the cells', () => {
  const row = (endpoint: string) => ACCESS_OPERATIONS.find((operation) => operation.endpoint === endpoint)!;
  // Rule 2: a ClientToken where the APIkey is named is refused.
  assert.equal(cellExpectation(row('POST /clienttokens/create'), 'client-token-alone')?.expect, 'refused');
  // Rule 3: the key without DeleteRegistration gets 401 on delete, and is tried nowhere else.
  assert.equal(cellExpectation(row('POST /companies/delete'), 'key-without-delete')?.expect, '401');
  assert.equal(ACCESS_OPERATIONS.filter((operation) => cellExpectation(operation, 'key-without-delete') !== undefined).length, 1);
  // Rule 4: the API key alone is refused on a ClientToken call; a search token on a call that acts for a company.
  assert.equal(cellExpectation(row('POST /documents'), 'api-key-alone')?.requirement, 'ACC-03');
  assert.equal(cellExpectation(row('POST /documents/outbound'), 'search-token')?.requirement, 'ACC-07');
  // Nothing ties network setup, nor the upload its AttachmentUri needs, to a registered company (issue 58): observed.
  assert.equal(cellExpectation(row('POST /network/setup'), 'search-token')?.expect, 'observe');
  assert.equal(cellExpectation(row('POST /documents'), 'search-token')?.expect, 'observe');
  // A credential one character off was never issued: judged as the random token and the wrong key are (ACC-02).
  assert.equal(cellExpectation(row('GET /companies/status'), 'near-miss-token')?.requirement, 'ACC-02');
  assert.equal(cellExpectation(row('POST /clienttokens/create'), 'near-miss-key')?.requirement, 'ACC-02');
  assert.equal(cellExpectation(row('POST /documents/outbound/list'), 'near-miss-token')?.requirement, 'ACC-11');
  // Where a search is what the call does, and where rule 7 leaves the scheme open, the answer is observed.
  assert.equal(cellExpectation(row('POST /buyerparties/lookup'), 'search-token')?.expect, 'observe');
  assert.equal(cellExpectation(row('POST /companies/services'), 'api-key-alone')?.expect, 'observe');
  assert.equal(cellExpectation(row('POST /clienttokens/revoke'), 'none')?.expect, 'observe');
  // Rule 7 calls that act for a company still need some credential.
  assert.equal(cellExpectation(row('GET /documents/outbound/download/{DocumentId}'), 'none')?.requirement, 'ACC-11');
});

test("each ACC entry's endpoints are exactly the operations whose cells judge it", () => {
  const entries = loadRequirements().filter((requirement) => requirement.id.startsWith('ACC-'));
  const ofTheMatrix = new Set(ACCESS_OPERATIONS.flatMap(requirementsOf));
  assert.ok(ofTheMatrix.size >= 10);
  // The object-level entries (ACC-12 and on) are judged by suites/security/access-objects.spec.ts, not by the matrix's cells.
  for (const entry of entries.filter((item) => ofTheMatrix.has(item.id))) assert.deepEqual([...entry.endpoints].sort(), endpointsOf(entry.id).sort(), entry.id);
  for (const operation of ACCESS_OPERATIONS) for (const id of requirementsOf(operation)) assert.ok(entries.some((entry) => entry.id === id), `${operation.endpoint}: ${id}`);
});
