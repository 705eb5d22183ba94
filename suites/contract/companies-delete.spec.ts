// POST /companies/delete beyond companies.spec.ts: the credentials it refuses, the Id it needs,
// broken bodies, which registration the Id names, and its 500 and 501. Calls that name no company
// of this run (a wrong or missing credential, no Id, a broken body) are not destructive; a delete
// request the target may carry out is tagged @destructive.
import { checks, createClientToken, expectCheck, observe, registerCompany, tags, test } from '../support/index.ts';
import { TRUNCATED_JSON } from '../support/companies-more.ts';
import { describeAfterDeletion, holdDeleteServerErrors, untilDeletionSeen } from '../support/companies-delete.ts';

const { statusIs, isClientError, isRejected, notServerError, fieldSatisfies } = checks;
const WRONG_API_KEY = 'dxs-wrong-api-key-delete-0000000000';

test.describe('delete: credentials', () => {
  test('a delete request with an invalid API key answers 401', { tag: tags('companies', 'CMP-DEL-04') }, async ({ api, fixtures }) => {
    const response = await api.post('/companies/delete', { auth: { apiKey: WRONG_API_KEY }, json: { Id: fixtures.company('SE').ErpId } });
    await expectCheck(response, [statusIs(401)], { requirement: 'CMP-DEL-04' });
  });

  test('a delete request without the APIkey header answers 401', { tag: tags('companies', 'CMP-DEL-10') }, async ({ api, fixtures }) => {
    const response = await api.post('/companies/delete', { auth: 'none', json: { Id: fixtures.company('SE').ErpId } });
    await expectCheck(response, [statusIs(401)], { requirement: 'CMP-DEL-10' });
  });

  test("a company's ClientToken alone does not delete it", { tag: tags('companies', 'CMP-DEL-11') }, async ({ api, target, fixtures }) => {
    // A company of its own: a target that wrongly takes the token deletes this one, not a shared one.
    const company = await registerCompany(api, target, fixtures.company('SE'));
    const response = await api.post('/companies/delete', { auth: { clientToken: company.token }, json: { Id: company.erpId } });
    await expectCheck(response, [isRejected], { requirement: 'CMP-DEL-11' });
  });
});

test.describe('delete: bodies', () => {
  test('a delete request without Id is rejected', { tag: tags('companies', 'CMP-DEL-07') }, async ({ api }) => {
    const disabled: number[] = [];
    // Absent and null only: whether an empty string counts as an Id is not said.
    for (const body of [{}, { Id: null }]) {
      const response = await api.post('/companies/delete', { auth: 'apiKey', json: body });
      if (await holdDeleteServerErrors(response)) {
        disabled.push(response.status);
        continue;
      }
      await expectCheck(response, [isRejected], { requirement: 'CMP-DEL-07' });
    }
    test.skip(disabled.length === 2, `every delete request without Id was answered ${disabled.join(', ')} (deletes disabled or not persisted), so the Id rule could not be seen`);
  });

  test('malformed JSON and wrong types on delete give no server error', { tag: tags('companies', 'CMP-DEL-12', 'SEC-21') }, async ({ api }) => {
    const malformed = await api.post('/companies/delete', { auth: 'apiKey', rawBody: TRUNCATED_JSON, contentType: 'application/json' });
    await expectCheck(malformed, [notServerError], { requirement: 'CMP-DEL-12' });
    if (!(malformed.status === 501 && (await holdDeleteServerErrors(malformed)))) await expectCheck(malformed, [isClientError], { requirement: 'SEC-21' });
    // Values no registration can carry as its Id, so nothing is deleted if one slips through.
    for (const json of [{ Id: { ErpId: 'dxs-not-a-string' } }, { Id: ['dxs-not-a-string'] }, ['dxs-not-an-object']]) {
      const response = await api.post('/companies/delete', { auth: 'apiKey', json });
      // A target with deletes disabled answers every parsed request 501, which the spec gives it.
      if (response.status === 501 && (await holdDeleteServerErrors(response))) continue;
      await expectCheck(response, [notServerError], { requirement: 'CMP-DEL-12' });
    }
  });
});

test.describe('delete: what it deletes', () => {
  test("a delete request does not remove another API key's registration with the same Id", {
    tag: [...tags('companies', 'CMP-DEL-09', 'CMP-DEL-01', 'CMP-DEL-13'), '@destructive'],
  }, async ({ api, target, fixtures }) => {
    test.skip(target.apiKeyWithoutDelete === undefined, 'no second API key configured (--api-key-without-delete)');
    test.skip(target.apiKeyWithoutDelete === target.apiKey, 'the second API key is the same as the first');
    // Two registrations with one ErpId: this run's key (the one with the DeleteRegistration role)
    // and the second key, standing for another integrator. Two different companies, so that the
    // second registration is not refused as the same company registered twice.
    const ours = await registerCompany(api, target, fixtures.company('SE'));
    const theirs = await registerCompany(api, target, { ...fixtures.company('SE'), ErpId: ours.erpId }, 'apiKeyWithoutDelete');
    // Whether the two keys stand for two integrators is not shown: a target that makes both
    // registrations one company treats them as one integrator's, and then one delete removes it.
    test.skip(theirs.companyId === ours.companyId, 'the target made the two keys\' registrations of one ErpId one company (one integrator), so no second registration exists to keep');
    const response = await api.post('/companies/delete', { auth: 'apiKey', json: { Id: ours.erpId } });
    test.skip(await holdDeleteServerErrors(response), `the target answered the delete request ${response.status}, so nothing was deleted to compare with`);
    await expectCheck(response, [statusIs(202)], { requirement: 'CMP-DEL-01' });
    const deleted = await untilDeletionSeen(api, target, ours);
    await observe('CMP-DEL-13', deleted.seen ? `after deletion, ${describeAfterDeletion(deleted)}` : `within the async timeout (${target.asyncTimeoutSeconds} s) the deleted company still answered as Registered, so the check below may have come before the deletion ran`, deleted.status);
    const { response: created, token } = await createClientToken(api, theirs.erpId, {}, 'apiKeyWithoutDelete');
    await expectCheck(created, [statusIs(200)], { requirement: 'CMP-DEL-09' });
    const status = await api.get('/companies/status', { auth: { clientToken: token ?? '' } });
    await expectCheck(
      status,
      [statusIs(200), fieldSatisfies('Status', 'is Registered', (value) => value === 'Registered'), fieldSatisfies('CompanyId', `is the other key's ${theirs.companyId}`, (value) => value === theirs.companyId)],
      { requirement: 'CMP-DEL-09' },
    );
  });

  test('a 500 (not persisted) or 501 (deletes disabled) answer carries a JSON string', { tag: [...tags('companies', 'CMP-DEL-05', 'CMP-DEL-06'), '@destructive'] }, async ({ api, fixtures }) => {
    // An Id never registered: the request is real, but names nothing. Neither answer can be
    // provoked from outside; when the target gives one it is judged, otherwise what it gave is recorded.
    const response = await api.post('/companies/delete', { auth: 'apiKey', json: { Id: fixtures.company('SE').ErpId } });
    if (await holdDeleteServerErrors(response)) return;
    const seen = `a delete request for an Id never registered answered ${response.status}, not 500 or 501`;
    await observe('CMP-DEL-05', `${seen}: "could not be persisted" cannot be provoked from outside`, response);
    await observe('CMP-DEL-06', `${seen}: deletes are enabled on this target, so the 501 answer was not seen`, response);
  });
});
