// The catalog's claims held to a run (issue 40): a requirement that names an endpoint says its tests
// try that endpoint, and a certificate is read that way. Each ID's endpoints are compared with the
// endpoints its tagged tests called in a run; an endpoint no test of the ID called is a claim the
// run did not back. An ID whose tests did not run (skipped, another profile) is not judged.
//
// Pure module: a function of results.json and the catalog, so `dxs schemas claims` and the kill
// table's clean run judge the same way.
import { requirementsOf, type Results, type TestRecord } from './results.ts';

export interface CatalogEntry {
  id: string;
  endpoints: readonly string[];
}

export interface UnbackedClaim {
  requirement: string;
  /** The endpoints the catalog names for the ID that none of its tests called. */
  missing: string[];
  /** What its tests did call. */
  called: string[];
  /** How many tests of the ID ran. */
  tests: number;
}

export interface CatalogClaims {
  /** IDs with named endpoints whose tests ran, every endpoint called. */
  backed: string[];
  unbacked: UnbackedClaim[];
  /** IDs with named endpoints no test of the run tried: not judged (another profile, a skipped test, or no endpoint list in the run's record). */
  untried: string[];
  /** IDs whose endpoints are `*` or none: nothing to hold them to. */
  unnamed: string[];
}

/** A test that ran to its own end; skipped and blocked tests tried nothing they were written for. */
function ran(test: TestRecord): boolean {
  return test.verdict === 'passed' || test.verdict === 'failed' || test.verdict === 'warning' || test.verdict === 'info';
}

export function catalogClaims(results: Pick<Results, 'tests'>, catalog: readonly CatalogEntry[]): CatalogClaims {
  const calledBy = new Map<string, { endpoints: Set<string>; tests: number }>();
  for (const test of results.tests) {
    if (!ran(test) || test.endpoints === undefined) continue;
    // The tags are the test's claim; an ID a check served on the way is not the test's to back.
    for (const requirement of requirementsOf(test.tags)) {
      const entry = calledBy.get(requirement) ?? { endpoints: new Set<string>(), tests: 0 };
      for (const endpoint of test.endpoints) entry.endpoints.add(endpoint);
      entry.tests++;
      calledBy.set(requirement, entry);
    }
  }
  const claims: CatalogClaims = { backed: [], unbacked: [], untried: [], unnamed: [] };
  for (const requirement of catalog) {
    const named = requirement.endpoints.filter((endpoint) => endpoint !== '*');
    if (named.length === 0) {
      claims.unnamed.push(requirement.id);
      continue;
    }
    const called = calledBy.get(requirement.id);
    if (called === undefined) {
      claims.untried.push(requirement.id);
      continue;
    }
    // The catalog writes paths as the spec does; a call's endpoint is the catalog's own template.
    const calledLower = new Set([...called.endpoints].map((endpoint) => endpoint.toLowerCase()));
    const missing = named.filter((endpoint) => !calledLower.has(endpoint.toLowerCase()));
    if (missing.length === 0) claims.backed.push(requirement.id);
    else claims.unbacked.push({ requirement: requirement.id, missing, called: [...called.endpoints].sort(), tests: called.tests });
  }
  return claims;
}

export function describeUnbacked(claim: UnbackedClaim): string {
  return `${claim.requirement} names ${claim.missing.join(', ')}, which none of its ${claim.tests} test${claim.tests === 1 ? '' : 's'} called (they called ${claim.called.join(', ') || 'nothing'})`;
}
