// Credentials in error answers, and refusals under repeated bad attempts.
import { checks, createClientToken, expectCheck, revokeClientToken, tags, test, type ApiResponse } from '../support/index.ts';
import { echoesNone } from '../support/companies-more.ts';

const { isClientError } = checks;
const WRONG_API_KEY = 'dxs-wrong-api-key-echo-0000000000';
const RANDOM_TOKEN = 'dxs-random-client-token-echo-0000000000';

test('error answers never echo the API key or the client token', { tag: tags('security', 'SEC-08', 'SEC-24') }, async ({ api, target, registeredCompany, otherCompany }) => {
  const { token: revoked } = await createClientToken(api, registeredCompany.erpId);
  test.skip(revoked === undefined, 'no client token could be created');
  await revokeClientToken(api, revoked as string);
  const token = { clientToken: registeredCompany.token };
  const answers: ApiResponse[] = [
    await api.post('/companies/register', { auth: 'apiKey', json: {} }),
    await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: `${target.runPrefix}-never-registered` } }),
    await api.post('/clienttokens/revoke', { auth: 'apiKey', json: { ClientToken: `${RANDOM_TOKEN}-unknown` } }),
    await api.post('/companies/users', { auth: token, json: { Email: 'not-an-address' } }),
    await api.get(`/companies/details/${encodeURIComponent(otherCompany.companyId)}`, { auth: token }),
    await api.get('/documents/outbound/not-a-uuid', { auth: token }),
    await api.get('/companies/status', { auth: { clientToken: revoked as string } }),
    await api.get('/companies/status', { auth: { clientToken: RANDOM_TOKEN } }),
    await api.post('/companies/register', { auth: { apiKey: WRONG_API_KEY }, json: {} }),
  ];
  const secrets = [target.apiKey, target.apiKeyWithoutDelete, registeredCompany.token].filter((value): value is string => value !== undefined);
  // Values the target refused are no credentials: echoing them is poor practice (one may be a
  // mistyped real key), not a leak of a secret.
  const rejected = [revoked as string, RANDOM_TOKEN, WRONG_API_KEY];
  // Some of these calls may legitimately succeed (revoking an unknown token, a token for an ErpId
  // never registered: not shown); whatever the answer, it must not carry a credential.
  for (const response of answers) {
    await expectCheck(response, [echoesNone(secrets, 'an API key or a valid client token')], { requirement: 'SEC-08' });
    await expectCheck(response, [echoesNone(rejected, 'a rejected credential value')], { requirement: 'SEC-24' });
  }
});

test('50 attempts with missing or wrong credentials are each refused with a 4xx', { tag: tags('security', 'SEC-20') }, async ({ api, registeredCompany }) => {
  const attempts = Array.from({ length: 50 }, (_, index) => index);
  // Ten at a time: repeated, not a flood.
  for (let start = 0; start < attempts.length; start += 10) {
    await Promise.all(
      attempts.slice(start, start + 10).map(async (index) => {
        const response =
          index % 3 === 0
            ? await api.post('/clienttokens/create', { auth: { apiKey: `${WRONG_API_KEY}-${index}` }, json: { ErpId: registeredCompany.erpId } })
            : index % 3 === 1
              ? await api.get('/companies/status', { auth: { clientToken: `${RANDOM_TOKEN}-${index}` } })
              : await api.get('/companies/status', { auth: 'none' });
        await expectCheck(response, [isClientError], { requirement: 'SEC-20' });
      }),
    );
  }
});
