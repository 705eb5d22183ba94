// The one company a run registers under its key without the DeleteRegistration role (issue 23).
// No key can delete it, so each run registering its own would leave one more every run; instead
// every run registers the same one again ("registers or updates" by ErpId), under an ErpId and
// with details derived from the key's sha256 fingerprint, never from the key itself.
import { createHash } from 'node:crypto';
import type { CompanyInput } from '../../fixtures/bodies.ts';
import { createFixtures } from '../../fixtures/generators.ts';

export const SHARED_ERP_ID_PREFIX = 'dxs-shared-';

function fingerprint(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** The stable ErpId of the shared company of a key. */
export function sharedErpId(apiKey: string): string {
  return `${SHARED_ERP_ID_PREFIX}${fingerprint(apiKey)}`;
}

export function isSharedErpId(erpId: string): boolean {
  return erpId.startsWith(SHARED_ERP_ID_PREFIX);
}

/** The register body of the shared company: the same on every run with the same key. */
export function sharedCompany(apiKey: string): CompanyInput {
  const key = fingerprint(apiKey);
  const fixtures = createFixtures({ seed: Number.parseInt(key.slice(0, 8), 16), runPrefix: `dxs-shared-${key.slice(0, 8)}` });
  return { ...fixtures.company('SE'), ErpId: sharedErpId(apiKey) };
}
