// POST /companies/delete for the delete contract and scenario: the shape the spec gives its 500
// and 501, and when a deletion can be seen to have completed (what a deleted company looks like
// is not shown, CMP-DEL-13, so "completed" means: it no longer answers as a Registered company).
import { bodyIsJsonString } from '../../lib/checks.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { pollUntilSettled, type ApiKeyAuth, type RegisteredCompany } from './companies.ts';
import type { RunContext } from './run-context.ts';
import { expectCheck } from './verdict.ts';

/**
 * The spec's 500 (not persisted, CMP-DEL-05) and 501 (deletes disabled, CMP-DEL-06) carry a JSON
 * string. Neither can be provoked from outside: when one comes back, it is held to that; returns
 * whether one did.
 */
export async function holdDeleteServerErrors(response: ApiResponse): Promise<boolean> {
  if (response.status === 501) await expectCheck(response, [bodyIsJsonString], { requirement: 'CMP-DEL-06' });
  else if (response.status === 500) await expectCheck(response, [bodyIsJsonString], { requirement: 'CMP-DEL-05' });
  else return false;
  return true;
}

export interface DeletionSeen {
  /** Whether, within the async timeout, the company stopped answering as a Registered company. */
  seen: boolean;
  /** Why the wait ended: "reached", or the answer that stopped changing (issue 36). */
  ended: string;
  /** The last GET /companies/status with the company's token taken before the delete. */
  status: ApiResponse;
  /** The last POST /clienttokens/create for its ErpId. */
  token: ApiResponse;
}

/**
 * Polls (bounded by the async timeout) until the company no longer answers as Registered. What a
 * deleted company looks like is not shown (CMP-DEL-13): a company status that stays the same ends
 * the wait too (pollUntilSettled), and `ended` says so.
 */
export async function untilDeletionSeen(api: ApiClient, target: RunContext, company: RegisteredCompany, apiKey: ApiKeyAuth = 'apiKey'): Promise<DeletionSeen> {
  let token: ApiResponse | undefined;
  const poll = await pollUntilSettled(target, `company ${company.erpId} no longer answering as Registered after the delete request`, async () => {
    const status = await api.get('/companies/status', { auth: { clientToken: company.token } });
    token = await api.post('/clienttokens/create', { auth: apiKey, json: { ErpId: company.erpId } });
    return status;
  }, (status) => !(status.status === 200 && status.data?.Status === 'Registered' && token?.status === 200));
  return { seen: poll.reached, ended: poll.ended, status: poll.last, token: token as ApiResponse };
}

/** What a company answers after its deletion, for an observation: never judged (CMP-DEL-13). */
export function describeAfterDeletion(after: DeletionSeen): string {
  const status = after.status.status === 200 ? `200 with Status ${JSON.stringify(after.status.data?.Status)}` : String(after.status.status);
  return `GET /companies/status with the token taken before the delete answered ${status}; a new client token for its ErpId answered ${after.token.status}`;
}
