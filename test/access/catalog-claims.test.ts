// The catalog's claims held to a run (issue 40): an endpoint an ID names that none of its tests
// called is reported, an ID whose tests did not run is not judged, and `dxs schemas claims` exits
// 1 on the first and 0 on a run that backs every claim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogClaims, describeUnbacked } from '../../report/catalog-claims.ts';
import type { TestRecord } from '../../report/results.ts';
import { runDxs } from '../runner/helpers.ts';
import { loadRequirements } from '../../schemas/requirements.ts';

function record(tags: string[], endpoints: string[], verdict: TestRecord['verdict'] = 'passed'): TestRecord {
  return { id: tags.join(), title: tags.join(), file: 'x.spec.ts', titlePath: [], area: 'tokens', requirements: [], tags, status: verdict === 'skipped' ? 'skipped' : 'passed', verdict, durationMs: 1, annotations: [], checks: [], requirementVerdicts: {}, endpoints };
}

const CATALOG = [
  { id: 'TOK-07', endpoints: ['POST /clienttokens/create', 'POST /clienttokens/createsearchtoken'] },
  { id: 'TOK-01', endpoints: ['POST /clienttokens/create'] },
  { id: 'SEC-05', endpoints: ['*'] },
  { id: 'INB-08', endpoints: ['GET /documents/{id}'] },
];

test('an endpoint an ID names that none of its tests called is not backed; a skipped test backs nothing', () => {
  const claims = catalogClaims({ tests: [
    record(['@TOK-07', '@TOK-01'], ['POST /clienttokens/create']),
    // A skipped test tried nothing, whatever its record holds.
    record(['@TOK-07'], ['POST /clienttokens/createsearchtoken'], 'skipped'),
    record(['@INB-08'], ['GET /documents/{id}'], 'skipped'),
  ] }, CATALOG);
  assert.deepEqual(claims.backed, ['TOK-01']);
  assert.deepEqual(claims.unbacked.map((claim) => [claim.requirement, claim.missing]), [['TOK-07', ['POST /clienttokens/createsearchtoken']]]);
  assert.deepEqual(claims.untried, ['INB-08']);
  assert.deepEqual(claims.unnamed, ['SEC-05']);
  assert.match(describeUnbacked(claims.unbacked[0]), /TOK-07 names POST \/clienttokens\/createsearchtoken, which none of its 1 test called \(they called POST \/clienttokens\/create\)/);
});

test('the calls of several tests of an ID back it together, whatever the case of the path', () => {
  const claims = catalogClaims({ tests: [record(['@TOK-07'], ['POST /clienttokens/create']), record(['@TOK-07'], ['POST /clientTokens/createsearchtoken'])] }, CATALOG);
  assert.ok(claims.backed.includes('TOK-07'));
});

test('dxs schemas claims exits 1 on a run that does not back a claim and 0 on one that does', async () => {
  const work = mkdtempSync(join(tmpdir(), 'dxs-claims-'));
  try {
    const catalog = loadRequirements().find((requirement) => requirement.id === 'TOK-07');
    assert.ok(catalog !== undefined && catalog.endpoints.length === 2, 'TOK-07 names both token calls');
    const write = (tests: TestRecord[]) => writeFileSync(join(work, 'results.json'), JSON.stringify({ format: 'dxs-results/1', tests }));
    write([record(['@TOK-07'], ['POST /clienttokens/create'])]);
    const unbacked = await runDxs(['schemas', 'claims', work]);
    assert.equal(unbacked.code, 1, unbacked.stdout + unbacked.stderr);
    assert.match(unbacked.stdout, /not backed: TOK-07 names POST \/clienttokens\/createsearchtoken/);
    write([record(['@TOK-07'], [...catalog.endpoints])]);
    const backed = await runDxs(['schemas', 'claims', work]);
    assert.equal(backed.code, 0, backed.stdout + backed.stderr);
    assert.match(backed.stdout, /1 requirement\(s\) backed by their tests' calls, 0 not backed/);
    const old = await runDxs(['schemas', 'claims', join(work, 'none')]);
    assert.equal(old.code, 2);
    assert.match(old.stderr, /no results.json/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
