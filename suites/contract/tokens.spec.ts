// Contract of the token endpoints: POST /clienttokens/create, /clienttokens/revoke, /clienttokens/createsearchtoken.
import { checks, createClientToken, expectCheck, observe, revokeClientToken, schema, tags, test, type ApiResponse } from '../support/index.ts';
import { companiesOfRun, restingMs, TOKEN_OF_ANOTHER_COMPANY } from '../support/companies.ts';
import { runFindings } from '../support/run-findings.ts';
import { fact } from '../support/outbound.ts';

const { statusIs, bodyIsEmpty, isRejected, fieldSatisfies } = checks;
const nonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

test.describe('client tokens', () => {
  test('token creation answers 200 with a ClientToken body', { tag: tags('tokens', 'TOK-01', 'TOK-02', 'TOK-07', 'TOK-18') }, async ({ api, registeredCompany }) => {
    const response = await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: registeredCompany.erpId } });
    await expectCheck(response, [statusIs(200), schema('client-token.response')], { requirement: 'TOK-01' });
    await expectCheck(response, [fieldSatisfies('Token', 'is a non-empty string', nonEmptyString)], { requirement: 'TOK-02' });
    await expectCheck(response, [schema('client-token.response')], { requirement: 'TOK-07' });
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-18' });
  });

  test('a token created without ValidTo is accepted in the ClientToken header', { tag: tags('tokens', 'TOK-03', 'TOK-05') }, async ({ api, registeredCompany }) => {
    const { response, token } = await createClientToken(api, registeredCompany.erpId);
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-05' });
    const status = await api.get('/companies/status', { auth: { clientToken: token ?? '' } });
    await expectCheck(status, [statusIs(200)], { requirement: 'TOK-03' });
  });

  test('a ValidTo in the future is accepted on token creation and answered as an ISO 8601 date-time', { tag: tags('tokens', 'TOK-06', 'TOK-07', 'TOK-16') }, async ({ api, registeredCompany }) => {
    const validTo = new Date(Date.now() + 10 * 60_000).toISOString();
    const response = await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: registeredCompany.erpId, ValidTo: validTo } });
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-06' });
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-16' });
    await expectCheck(response, [schema('client-token.response')], { requirement: 'TOK-07' });
  });

  test('the optional User object is accepted on token creation', { tag: tags('tokens', 'TOK-08') }, async ({ api, registeredCompany, fixtures }) => {
    const user = fixtures.user();
    const response = await api.post('/clienttokens/create', {
      auth: 'apiKey',
      json: { ErpId: registeredCompany.erpId, User: { FullName: 'Dxs Conformance', UserName: user.UserName, Email: user.Email, Roles: [] } },
    });
    await expectCheck(response, [statusIs(200), schema('client-token.response')], { requirement: 'TOK-08' });
  });

  test('token creation without ErpId is rejected', { tag: tags('tokens', 'TOK-04') }, async ({ api }) => {
    const response = await api.post('/clienttokens/create', { auth: 'apiKey', json: {} });
    await expectCheck(response, [isRejected], { requirement: 'TOK-04' });
  });

  test('the guide spelling /clientTokens/create is accepted', { tag: tags('tokens', 'TOK-17') }, async ({ api, registeredCompany }) => {
    const response = await api.post('/clientTokens/create', { auth: 'apiKey', json: { ErpId: registeredCompany.erpId } });
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-17' });
  });

  test('how a token without expiry is represented is recorded', { tag: tags('tokens', 'TOK-29') }, async ({ api, registeredCompany }) => {
    const { response } = await createClientToken(api, registeredCompany.erpId);
    const validTo = response.data?.ValidTo;
    await observe('TOK-29', validTo === undefined ? 'ValidTo is absent' : validTo === null ? 'ValidTo is null' : `ValidTo is ${JSON.stringify(validTo)}`, response);
  });

  test('a token for an ErpId that was never registered is refused, or acts for no company of the run', { tag: tags('tokens', 'TOK-30', 'TOK-33') }, async ({ api, target, fixtures, registeredCompany }) => {
    const { response, token } = await createClientToken(api, fixtures.company('FI').ErpId);
    await observe('TOK-30', `status ${response.status}`, response);
    if (token === undefined) return;
    // A token came: its first use says whom it acts for (the registered company makes sure the key has one it could hand out).
    const status = await api.get('/companies/status', { auth: { clientToken: token } });
    const companiesNow = (): Map<string, string> => new Map([...companiesOfRun().map((company) => [company.companyId, company.erpId] as const), [registeredCompany.companyId, registeredCompany.erpId] as const]);
    const companyId = status.status >= 200 && status.status < 300 ? String(status.data?.CompanyId ?? '') : '';
    let ours = companiesNow();
    // The latest company may be another worker's, whose registration still runs: its CompanyId joins the
    // run's record once it reads Registered, so an unknown one is looked for again, a while (a third of the async timeout).
    for (const until = Date.now() + restingMs(target); companyId !== '' && !ours.has(companyId) && Date.now() < until; ours = companiesNow()) await new Promise((resolve) => setTimeout(resolve, 250));
    await expectCheck(status, [fact('acts for no company of the run', !ours.has(companyId), 'refused, or a company status that names no company this run registered', status.status >= 400 ? `${status.status}` : `${status.status} naming CompanyId ${companyId}${ours.has(companyId) ? `, registered by this run under ErpId ${ours.get(companyId)}` : ''}`)], { requirement: 'TOK-33' });
  });

  test('a client token acts for the company it was created for, never another company of the run', { tag: tags('tokens', 'TOK-32') }, async ({ api, registeredCompany, otherCompany }) => {
    // One after another, A, B, A: a service that answers a token request with the token of another
    // (a cache, a mixed-up store) gives one of them another company.
    let status: ApiResponse | undefined;
    for (const company of [registeredCompany, otherCompany, registeredCompany]) {
      const { response, token } = await createClientToken(api, company.erpId);
      await expectCheck(response, [statusIs(200)], { requirement: 'TOK-32' });
      status = await api.get('/companies/status', { auth: { clientToken: token ?? '' } });
      await expectCheck(status, [statusIs(200), fieldSatisfies('CompanyId', `is ${company.companyId}, the company registered under ErpId ${company.erpId}`, (value) => String(value) === company.companyId)], { requirement: 'TOK-32' });
    }
    // What every registration of the run read on its token's first use (companies.ts), in this worker and the others.
    const mixed = runFindings(TOKEN_OF_ANOTHER_COMPANY);
    await expectCheck(status as ApiResponse, [fact('no token of the run acted for another company', mixed.length === 0, 'each registration\'s token named a CompanyId no other registration of the run read', mixed.map((finding) => finding.message).join('; '))], { requirement: 'TOK-32' });
  });
});

test.describe('revoke', () => {
  test('revoking a client token answers 200 with no body', { tag: tags('tokens', 'TOK-09') }, async ({ api, registeredCompany }) => {
    const { token } = await createClientToken(api, registeredCompany.erpId);
    test.skip(token === undefined, 'no client token could be created');
    const response = await revokeClientToken(api, token as string);
    await expectCheck(response, [statusIs(200), bodyIsEmpty], { requirement: 'TOK-09' });
  });

  test('revoke without ClientToken is rejected', { tag: tags('tokens', 'TOK-10') }, async ({ api }) => {
    // The APIkey header only: a target taking ClientToken refuses it as a credential, one taking
    // APIkey for the missing field; a 4xx either way.
    const response = await api.post('/clienttokens/revoke', { auth: 'apiKey', json: {} });
    await expectCheck(response, [isRejected], { requirement: 'TOK-10' });
  });

  test('revoking an unknown token gives no server error', { tag: tags('tokens', 'TOK-26') }, async ({ api }) => {
    const response = await api.post('/clienttokens/revoke', { auth: 'apiKey', json: { ClientToken: 'dxs-unknown-token-0000' } });
    await expectCheck(response, [checks.notServerError], { requirement: 'TOK-26' });
  });

  test('which credential revoke takes is recorded', { tag: tags('tokens', 'TOK-27') }, async ({ api, registeredCompany }) => {
    const { token } = await createClientToken(api, registeredCompany.erpId);
    const withToken = await api.post('/clienttokens/revoke', { auth: { clientToken: token ?? '' }, json: { ClientToken: token } });
    await observe('TOK-27', `revoke with only the ClientToken header answered ${withToken.status}`, withToken);
  });
});

test.describe('search tokens', () => {
  test('search token creation answers 200 with a ClientToken body', { tag: tags('tokens', 'TOK-07', 'TOK-12', 'TOK-13', 'TOK-14') }, async ({ api, fixtures }) => {
    // A fresh SearchId, never used in a registration, and no ValidTo.
    const response = await api.post('/clienttokens/createsearchtoken', { auth: 'apiKey', json: { SearchId: fixtures.searchId() } });
    await expectCheck(response, [statusIs(200), schema('client-token.response')], { requirement: 'TOK-12' });
    await expectCheck(response, [statusIs(200), fieldSatisfies('Token', 'is a non-empty string', nonEmptyString)], { requirement: 'TOK-13' });
    await expectCheck(response, [statusIs(200)], { requirement: 'TOK-14' });
    await expectCheck(response, [schema('client-token.response')], { requirement: 'TOK-07' });
  });

  test('the same SearchId can be resent for a new token once the old one expired', { tag: tags('tokens', 'TOK-15') }, async ({ api, fixtures }) => {
    const searchId = fixtures.searchId();
    // "To be resent when the token expires": the first token lives two seconds, so the resend
    // comes after its expiry whether or not the target also takes a resend before it.
    const validTo = new Date(Date.now() + 2_000);
    await api.post('/clienttokens/createsearchtoken', { auth: 'apiKey', json: { SearchId: searchId, ValidTo: validTo.toISOString() } });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, validTo.getTime() - Date.now()) + 500));
    const again = await api.post('/clienttokens/createsearchtoken', { auth: 'apiKey', json: { SearchId: searchId } });
    await expectCheck(again, [statusIs(200), schema('client-token.response')], { requirement: 'TOK-15' });
  });
});
