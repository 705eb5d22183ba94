// Authentication and isolation. Where the spec does not say which status a refusal carries, the
// checks assert that the call was rejected (a 4xx), not which code came back; 401 or 403 is SEC-25
// (hardening).
import { checks, createClientToken, expectCheck, observe, revokeClientToken, tags, test, untilTokenRefused, type ApiResponse } from '../support/index.ts';

const { isRejected, statusIs } = checks;
const WRONG_API_KEY = 'dxs-wrong-api-key-0000000000';
const RANDOM_TOKEN = 'dxs-random-client-token-0000000000';

test.describe('missing and wrong credentials', () => {
  test('token creation without an API key is rejected', { tag: tags('security', 'TOK-19', 'SEC-01') }, async ({ api, registeredCompany }) => {
    const response = await api.post('/clienttokens/create', { auth: 'none', json: { ErpId: registeredCompany.erpId } });
    await expectCheck(response, [isRejected], { requirement: 'TOK-19' });
    await expectCheck(response, [isRejected], { requirement: 'SEC-01' });
  });

  test('token creation with a wrong API key is rejected', { tag: tags('security', 'TOK-20') }, async ({ api, registeredCompany }) => {
    const response = await api.post('/clienttokens/create', { auth: { apiKey: WRONG_API_KEY }, json: { ErpId: registeredCompany.erpId } });
    await expectCheck(response, [isRejected], { requirement: 'TOK-20' });
  });

  test('register without an API key, or with a wrong one, is rejected', { tag: tags('security', 'CMP-REG-16', 'CMP-REG-17') }, async ({ api, fixtures }) => {
    const none = await api.post('/companies/register', { auth: 'none', json: fixtures.company('SE') });
    await expectCheck(none, [isRejected], { requirement: 'CMP-REG-16' });
    const wrong = await api.post('/companies/register', { auth: { apiKey: WRONG_API_KEY }, json: fixtures.company('SE') });
    await expectCheck(wrong, [isRejected], { requirement: 'CMP-REG-17' });
  });

  test('company status without a client token, or with a random one, is rejected', { tag: tags('security', 'CMP-STA-09', 'CMP-STA-10', 'SEC-01', 'SEC-02', 'SEC-25') }, async ({ api }) => {
    const none = await api.get('/companies/status', { auth: 'none' });
    await expectCheck(none, [isRejected], { requirement: 'CMP-STA-09' });
    await expectCheck(none, [isRejected], { requirement: 'SEC-01' });
    await expectCheck(none, [statusIs(401, 403)], { requirement: 'SEC-25' });
    const random = await api.get('/companies/status', { auth: { clientToken: RANDOM_TOKEN } });
    await expectCheck(random, [isRejected], { requirement: 'CMP-STA-10' });
    await expectCheck(random, [isRejected], { requirement: 'SEC-02' });
  });

  test('an empty credential header counts as no credential', { tag: tags('security', 'SEC-16') }, async ({ api }) => {
    const response = await api.get('/companies/status', { auth: { clientToken: '' } });
    await expectCheck(response, [isRejected], { requirement: 'SEC-16' });
  });

  test('the API key is not accepted in place of a client token', { tag: tags('security', 'SEC-03', 'CMP-STA-11') }, async ({ api }) => {
    const response = await api.get('/companies/status', { auth: 'apiKey' });
    await expectCheck(response, [isRejected], { requirement: 'CMP-STA-11' });
    await expectCheck(response, [isRejected], { requirement: 'SEC-03' });
  });

  test('a client token is not accepted in place of the API key', { tag: tags('security', 'SEC-04') }, async ({ api, registeredCompany, fixtures }) => {
    const response = await api.post('/companies/register', { auth: { clientToken: registeredCompany.token }, json: fixtures.company('SE') });
    await expectCheck(response, [isRejected], { requirement: 'SEC-04' });
  });
});

/** The ValidTo of a token answer as a time, when it carries one that parses. */
function answeredValidTo(response: ApiResponse): number | undefined {
  const value = response.data?.ValidTo;
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? undefined : time;
}

test.describe('revoked and expired tokens', () => {
  test('a revoked client token is rejected', { tag: tags('security', 'TOK-11', 'SEC-05') }, async ({ api, registeredCompany, target }) => {
    const { token } = await createClientToken(api, registeredCompany.erpId);
    test.skip(token === undefined, 'no client token could be created');
    const before = await api.get('/companies/status', { auth: { clientToken: token as string } });
    await expectCheck(before, [statusIs(200)], { requirement: 'TOK-03' });
    const revoke = await revokeClientToken(api, token as string);
    await expectCheck(revoke, [statusIs(200)], { requirement: 'TOK-09' });
    // A revocation may take a moment to reach every node: the token has the async timeout to stop working.
    const after = await untilTokenRefused(api, target, token as string, 'revoked');
    await expectCheck(after, [isRejected], { requirement: 'TOK-11' });
    await expectCheck(after, [isRejected], { requirement: 'SEC-05' });
  });

  test('an expired client token is rejected', { tag: tags('security', 'TOK-21', 'SEC-06') }, async ({ api, registeredCompany, target }) => {
    // A token that lives two seconds, then is used after it expired: bounded by the async timeout.
    const validTo = new Date(Date.now() + 2_000);
    const { response, token } = await createClientToken(api, registeredCompany.erpId, { ValidTo: validTo.toISOString() });
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-06' });
    test.skip(token === undefined, 'no client token with a ValidTo could be created');
    // A target may give a token a minimum lifetime and say so in the ValidTo it answers: the token
    // is judged against the expiry the target answered, when that is later than the one asked for.
    const expiry = Math.max(validTo.getTime(), answeredValidTo(response) ?? 0);
    test.skip(expiry - Date.now() > target.asyncTimeoutSeconds * 1000, `the target answered a ValidTo of ${new Date(expiry).toISOString()}, beyond the async timeout of ${target.asyncTimeoutSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now()) + 500));
    // Clocks differ between hosts; the token has the async timeout to stop working.
    const last = await untilTokenRefused(api, target, token as string, 'expired');
    await expectCheck(last, [isRejected], { requirement: 'TOK-21' });
    await expectCheck(last, [isRejected], { requirement: 'SEC-06' });
  });

  test('a ValidTo in the past never yields a usable token', { tag: tags('security', 'TOK-22') }, async ({ api, registeredCompany }) => {
    const { response, token } = await createClientToken(api, registeredCompany.erpId, { ValidTo: new Date(Date.now() - 60 * 60_000).toISOString() });
    if (token === undefined) {
      await expectCheck(response, [isRejected], { requirement: 'TOK-22' });
      return;
    }
    // A target that replaced the past ValidTo by a later one and answered it has issued a token
    // valid until then, openly: recorded, not judged.
    const answered = answeredValidTo(response);
    if (answered !== undefined && answered > Date.now()) {
      await observe('TOK-22', `a ValidTo an hour ago was answered with a token valid until ${new Date(answered).toISOString()}`, response);
      return;
    }
    const status = await api.get('/companies/status', { auth: { clientToken: token } });
    await expectCheck(status, [isRejected], { requirement: 'TOK-22' });
  });
});

test.describe('one company cannot see another', () => {
  // Company details are not private in the spec: the path names any CompanyId, lookups hand out other
  // companies' CompanyIds, and the details carry what a trading partner needs (capabilities,
  // InvoiceChecks). The company-isolation invariant covers documents, the inbox and provider A, so
  // what a target answers here is recorded, not judged.
  test("what one company's token gets for another company's details is recorded", { tag: tags('security', 'CMP-DET-19') }, async ({ api, registeredCompany, otherCompany }) => {
    const response = await api.get(`/companies/details/${encodeURIComponent(otherCompany.companyId)}`, { auth: { clientToken: registeredCompany.token } });
    const companyId = response.data?.CompanyId;
    const answered = response.status >= 400 ? 'refused' : companyId === otherCompany.companyId ? "the other company's details" : companyId === registeredCompany.companyId ? "the caller's own details" : `CompanyId ${JSON.stringify(companyId)}`;
    await observe('CMP-DET-19', `GET /companies/details/{another company's CompanyId} with a company's own token answered ${response.status}: ${answered}`, response);
  });

  test("a company's status call answers with its own company only", { tag: tags('security', 'SEC-09') }, async ({ api, registeredCompany, otherCompany }) => {
    const response = await api.get('/companies/status', { auth: { clientToken: registeredCompany.token } });
    await expectCheck(
      response,
      [checks.fieldSatisfies('CompanyId', `is ${registeredCompany.companyId}, not the other company's ${otherCompany.companyId}`, (value) => value === registeredCompany.companyId)],
      { requirement: 'SEC-09' },
    );
  });
});
