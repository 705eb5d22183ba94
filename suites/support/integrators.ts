// Another integrator's key as a credential form (issue 58). The APIkey identifies "the ERP system
// server (the integrator)"; whether the run's two keys are two integrators is not shown. It is
// learnt once per run as CMP-DEL-09 learns it: one ErpId registered under both keys (the second
// key's shared company, which every run registers again, shared-company.ts) and the CompanyIds
// their tokens' first uses read compared. Two CompanyIds: the target keeps the two keys'
// registrations apart, and the access matrix judges the second key's calls on the first key's
// companies; one CompanyId: one integrator, and they are observed. The first worker to ask learns
// it, under a lock file of the run; the others read the run finding it leaves.
import { closeSync, openSync, rmSync } from 'node:fs';
import type { ApiClient } from './client.ts';
import { createClientToken, pollUntil, registerCompany, SetupFailed } from './companies.ts';
import { recordRunFinding, runFinding } from './run-findings.ts';
import type { RunContext } from './run-context.ts';
import { INTEGRATORS_FINDING, runFindingLockFile } from '../../report/root-causes.ts';
import { sharedCompany } from './shared-company.ts';
import type { Fixtures } from '../../fixtures/index.ts';

/** What the run knows of its two keys. */
export interface Integrators {
  /** True: two integrators (the cells are judged); false: one (observed); a string: why the cells are not tried. */
  apart: boolean | string;
  /** The ErpId both keys registered (the second key's shared one). */
  erpId?: string;
  /** How it was learnt, for the observations and the skips. */
  reason: string;
}

/** Why the run has no second integrator's key to try, or undefined when it has one. */
export function secondKeyMissing(target: RunContext): string | undefined {
  if (target.apiKeyWithoutDelete === undefined) return 'the run has one API key (--api-key-without-delete gives a second)';
  if (target.apiKeyWithoutDelete === target.apiKey) return 'the second API key is the same as the first';
  return undefined;
}

function fromFinding(): Integrators | undefined {
  const finding = runFinding(INTEGRATORS_FINDING);
  if (finding === undefined) return undefined;
  const apart = finding.facts?.apart;
  return { apart: apart === 'yes' ? true : apart === 'no' ? false : finding.message, erpId: finding.facts?.erpId, reason: finding.message };
}

/** Registers the shared ErpId under both keys and compares the CompanyIds. */
async function learn(api: ApiClient, target: RunContext, fixtures: Fixtures): Promise<Integrators> {
  const theirs = await registerCompany(api, target, sharedCompany(target.apiKeyWithoutDelete as string), 'apiKeyWithoutDelete');
  const erpId = theirs.erpId;
  const register = await api.post('/companies/register', { auth: 'apiKey', json: { ...fixtures.company('SE'), ErpId: erpId } });
  if (register.status !== 202 && register.status !== 200) return { apart: `the first key's registration of the second key's ErpId answered ${register.status}`, erpId, reason: `register answered ${register.status}` };
  // Not registerCompany: CMP-DEL-09 may delete this registration at any moment, which is no broken registration for the run.
  const ours = await pollUntil(target, `company ${erpId} of the first key reaching Status Registered`, async () => {
    const { token } = await createClientToken(api, erpId);
    if (token === undefined) return undefined;
    const status = await api.get('/companies/status', { auth: { clientToken: token } });
    return status.status === 200 && status.data?.Status === 'Registered' ? String(status.data?.CompanyId ?? '') : undefined;
  }).catch((error: Error) => new SetupFailed(error.message));
  if (ours instanceof SetupFailed) return { apart: `the first key's registration of the second key's ErpId did not read Registered: ${ours.message}`, erpId, reason: ours.message };
  return ours === theirs.companyId
    ? { apart: false, erpId, reason: `the target made both keys' registrations of ErpId ${erpId} one company (CompanyId ${ours}): the two keys are one integrator` }
    : { apart: true, erpId, reason: `the target keeps both keys' registrations of ErpId ${erpId} apart (CompanyIds ${ours} and ${theirs.companyId}): the keys are two integrators` };
}

/**
 * The run's answer, learnt by the first worker that asks (a lock file of the run says which);
 * the others wait for its finding, as long as two registrations may take, and learn it themselves if none comes.
 */
export async function integratorsOfRun(api: ApiClient, target: RunContext, fixtures: Fixtures): Promise<Integrators> {
  const missing = secondKeyMissing(target);
  if (missing !== undefined) return { apart: missing, reason: missing };
  const known = fromFinding();
  if (known !== undefined) return known;
  const lock = runFindingLockFile(target, INTEGRATORS_FINDING);
  let mine = false;
  try {
    closeSync(openSync(lock, 'wx', 0o600));
    mine = true;
  } catch {
    // The learning waits for two registrations at most: past that the holder is gone, and this worker learns it itself.
    const deadline = Date.now() + target.asyncTimeoutSeconds * 2000 + 10_000;
    for (let pause = 50; Date.now() < deadline; pause = Math.min(pause * 2, 500)) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      const found = fromFinding();
      if (found !== undefined) return found;
    }
  }
  try {
    const learnt = await learn(api, target, fixtures).catch((error: Error) => ({ apart: `the second key's shared company could not be registered: ${error.message}`, reason: error.message }) as Integrators);
    recordRunFinding({ name: INTEGRATORS_FINDING, message: learnt.reason, facts: { apart: learnt.apart === true ? 'yes' : learnt.apart === false ? 'no' : 'unknown', erpId: learnt.erpId ?? '' } });
    return fromFinding() ?? learnt;
  } finally {
    if (mine) rmSync(lock, { force: true });
  }
}
