// POST /companies/delete beyond companies.spec.ts: the credentials it refuses, the Id it needs,
// broken bodies, which registration the Id names, and its 500 and 501. Calls that name no company
// of this run (a wrong or missing credential, no Id, a broken body) are not destructive; a delete
// request the target may carry out is tagged @destructive.
import { checks, createClientToken, expectCheck, observe, registerCompany, tags, test, TransportFailure, unlessTransport } from '../support/index.ts';
import { TRUNCATED_JSON } from '../support/companies-more.ts';
import { holdDeleteServerErrors } from '../support/companies-delete.ts';
import { pollUntil } from '../support/companies.ts';
import { sharedCompany } from '../support/shared-company.ts';
import type { ApiClient } from '../support/client.ts';
import type { RunContext } from '../support/run-context.ts';
import type { CompanyInput } from '../../fixtures/bodies.ts';

const { statusIs, isClientError, isRejected, notServerError, fieldSatisfies } = checks;
const WRONG_API_KEY = 'dxs-wrong-api-key-delete-0000000000';

/**
 * This run's registration with the shared Id, until it reads Registered: its CompanyId, or why not.
 * Not registerCompany: a run with the same key may delete this registration at any moment, which
 * must not be recorded as a broken registration for the rest of the run.
 */
async function registerOurs(api: ApiClient, target: RunContext, input: CompanyInput): Promise<{ companyId: unknown } | string> {
  const register = await api.post('/companies/register', { auth: 'apiKey', json: input });
  if (register.status !== 202 && register.status !== 200) return `register answered ${register.status}`;
  return pollUntil(target, `company ${input.ErpId} reaching Status Registered`, async () => {
    const { token } = await createClientToken(api, input.ErpId);
    if (token === undefined) return undefined;
    const status = await api.get('/companies/status', { auth: { clientToken: token } });
    return status.status === 200 && status.data?.Status === 'Registered' ? { companyId: status.data?.CompanyId } : undefined;
  }).catch((error: Error) => {
    // A lost call is the deployment's, not a registration that never completes: the test runs again.
    if (error instanceof TransportFailure) throw error;
    return error.message;
  });
}

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
    tag: [...tags('companies', 'CMP-DEL-09', 'CMP-DEL-01'), '@destructive'],
  }, async ({ api, target, fixtures }) => {
    test.skip(target.apiKeyWithoutDelete === undefined, 'no second API key configured (--api-key-without-delete)');
    test.skip(target.apiKeyWithoutDelete === target.apiKey, 'the second API key is the same as the first');
    // Two registrations with one ErpId: the second key's, standing for another integrator, and
    // this run's key's (the one with the DeleteRegistration role). No key can delete the second
    // key's, so every run registers the same one again (shared-company.ts): runs do not add up.
    // Two different companies, so that ours is not refused as the same company registered twice.
    const theirs = await registerCompany(api, target, sharedCompany(target.apiKeyWithoutDelete!), 'apiKeyWithoutDelete');
    const ours = await registerOurs(api, target, { ...fixtures.company('SE'), ErpId: theirs.erpId });
    test.skip(typeof ours === 'string', `this run's registration with the shared Id did not reach Registered: ${typeof ours === 'string' ? ours : ''}`);
    // Whether the two keys stand for two integrators is not shown: a target that makes both
    // registrations one company treats them as one integrator's, and then one delete removes it.
    test.skip(typeof ours !== 'string' && ours.companyId === theirs.companyId, 'the target made the two keys\' registrations of one ErpId one company (one integrator), so no second registration exists to keep');
    const response = await api.post('/companies/delete', { auth: 'apiKey', json: { Id: theirs.erpId } });
    test.skip(await holdDeleteServerErrors(response), `the target answered the delete request ${response.status}, so nothing was deleted to compare with`);
    if (response.status === 200) {
      // The Id is shared by the runs of this key: one running at the same time asked first, so this request is a duplicate.
      await observe('CMP-DEL-01', 'the delete request answered 200 (a duplicate): another run with this API key asked to delete the registration with the shared Id first', response);
    } else {
      await expectCheck(response, [statusIs(202)], { requirement: 'CMP-DEL-01' });
    }
    // Bounded by the async timeout: until our registration no longer hands out tokens, so that the check below comes after the deletion.
    await pollUntil(target, `registration ${theirs.erpId} of this run's key deleted`, async () => ((await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: theirs.erpId } })).status === 200 ? undefined : true)).catch(unlessTransport(false));
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
