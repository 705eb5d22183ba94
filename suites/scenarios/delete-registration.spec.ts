// Deleting a registration as an integrator does it: register, request the deletion with the API
// key holding the DeleteRegistration role, resend the request (a retry after a lost answer), and
// follow the company until the deletion has run. What a deleted company answers, and what a resend
// after the deletion ran answers, is not shown.
import { checks, expectCheck, observe, registerCompany, tags, test } from '../support/index.ts';
import { describeAfterDeletion, holdDeleteServerErrors, untilDeletionSeen } from '../support/companies-delete.ts';

const { statusIs } = checks;

test('a delete request is persisted once and its resend is acknowledged as a duplicate', {
  tag: [...tags('flows', 'FLOW-11', 'CMP-DEL-01', 'CMP-DEL-02', 'CMP-DEL-13'), '@destructive'],
}, async ({ api, target, fixtures }) => {
  const company = await registerCompany(api, target, fixtures.company('NO'));
  const first = await api.post('/companies/delete', { auth: 'apiKey', json: { Id: company.erpId } });
  test.skip(await holdDeleteServerErrors(first), `the target answered the delete request ${first.status}, so there is no persisted request to resend`);
  await expectCheck(first, [statusIs(202)], { requirement: 'FLOW-11' });
  const resent = await api.post('/companies/delete', { auth: 'apiKey', json: { Id: company.erpId } });
  await expectCheck(resent, [statusIs(200)], { requirement: 'FLOW-11' });
  const deleted = await untilDeletionSeen(api, target, company);
  await observe('CMP-DEL-13', deleted.seen ? `after deletion, ${describeAfterDeletion(deleted)}` : `the company still answered as Registered when the wait ended (${deleted.ended}): ${describeAfterDeletion(deleted)}`, deleted.status);
  // Once the deletion has run, whether a resend is a "duplicate request" (200), a new one (202) or an
  // Id that names nothing any more (a 4xx) is not said: recorded.
  const afterwards = await api.post('/companies/delete', { auth: 'apiKey', json: { Id: company.erpId } });
  await observe('CMP-DEL-13', `a resend after the deletion had run answered ${afterwards.status}`, afterwards);
});
