// Odd input on every JSON endpoint: wrong types, oversized bodies, a wrong Content-Type, unknown
// paths and methods, a very long header and very deep nesting. Nothing is a 5xx (invariant); a
// refusal with a 4xx, where the spec names none, is hardening (SEC-22, SEC-23).
// POST /companies/delete has its own bodies in companies-delete.spec.ts (no body here names a company to delete).
import { checks, expectCheck, registerCompany, tags, test, type ApiClient, type ApiResponse, type Auth, type RegisteredCompany } from '../support/index.ts';
import type { Fixtures } from '../../fixtures/index.ts';
import { firstActivation, oversizedString, wrongTypeOf } from '../support/companies-more.ts';
import { PROVIDER_A_PATH } from '../support/outbound.ts';

const { isClientError, notServerError } = checks;

interface JsonEndpoint {
  method: 'POST' | 'PATCH';
  path: string;
  auth: Auth;
  body: Record<string, unknown>;
  /** Bodies of megabytes are what the endpoint is for (500000 SSNs): not oversized there. */
  takesLargeBodies?: boolean;
}

const UNKNOWN_DOCUMENT = 'urn:dxs:document:6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

/** Every JSON endpoint with a valid body, for a company of the test's own (bodies that slip through may change it). */
function jsonEndpoints(fixtures: Fixtures, company: RegisteredCompany): JsonEndpoint[] {
  const token = { clientToken: company.token };
  return [
    { method: 'POST', path: '/clienttokens/create', auth: 'apiKey', body: { ErpId: company.erpId, ValidTo: new Date(Date.now() + 600_000).toISOString() } },
    { method: 'POST', path: '/clienttokens/revoke', auth: 'apiKey', body: { ClientToken: 'dxs-unknown-token-0000' } },
    { method: 'POST', path: '/clienttokens/createsearchtoken', auth: 'apiKey', body: { SearchId: fixtures.searchId() } },
    { method: 'POST', path: '/companies/register', auth: 'apiKey', body: { ...fixtures.company('SE') } },
    { method: 'POST', path: '/companies/details', auth: token, body: { ...fixtures.companyDetails(company.input) } },
    { method: 'POST', path: '/companies/services', auth: token, body: firstActivation(company, fixtures.searchId()) },
    { method: 'POST', path: '/companies/users', auth: token, body: { ...fixtures.user() } },
    { method: 'POST', path: '/companies/identifiers', auth: token, body: { ...fixtures.identifier() } },
    { method: 'POST', path: '/buyerparties/lookup', auth: token, body: { ...fixtures.buyerLookup() } },
    { method: 'POST', path: '/sellerparties/lookup', auth: token, body: { ...fixtures.sellerLookup(undefined, true) } },
    { method: 'POST', path: '/network/setup', auth: token, body: { ...fixtures.networkSetupRequest('SE') } },
    { method: 'POST', path: '/documents/outbound', auth: token, body: { ...fixtures.sendDocument('PDF', { documentUri: UNKNOWN_DOCUMENT, documentFormat: 'UBL' }) } },
    { method: 'POST', path: '/documents/outbound/list', auth: token, body: { Take: 10, Skip: 0, CreatedFrom: '2020-01-01T00:00:00Z' } },
    { method: 'POST', path: '/documents/handled', auth: token, body: { documents: ['6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f'] } },
    { method: 'POST', path: PROVIDER_A_PATH, auth: token, body: { ...fixtures.providerARegistration(company.input) } },
    { method: 'PATCH', path: PROVIDER_A_PATH, auth: token, body: { ...fixtures.providerAUpdate(company.input) } },
    { method: 'POST', path: `${PROVIDER_A_PATH}/icon`, auth: token, body: { ContentType: 'image/png', Filename: 'dxs.png', Data: 'iVBORw0KGgo=' } },
    { method: 'POST', path: `${PROVIDER_A_PATH}/lookup`, auth: token, body: { Ssns: fixtures.ssns(2) }, takesLargeBodies: true },
  ];
}

/** Runs the calls a few at a time: the sandbox answers in milliseconds, a staging server is not flooded. */
async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(run));
}

function send(api: ApiClient, endpoint: JsonEndpoint, options: { json?: unknown; rawBody?: string; contentType?: string }): Promise<ApiResponse> {
  return api.call(endpoint.method, endpoint.path, { auth: endpoint.auth, ...options });
}

test.describe('bodies', () => {
  let company: RegisteredCompany;
  test.beforeEach(async ({ api, target, fixtures }) => {
    company = await registerCompany(api, target, fixtures.company('SE'));
  });

  test('each field of every JSON endpoint replaced by a value of another type gives no server error', { tag: tags('security', 'SEC-11') }, async ({ api, fixtures }) => {
    const calls = jsonEndpoints(fixtures, company).flatMap((endpoint) => Object.keys(endpoint.body).map((field) => ({ endpoint, field })));
    await inBatches(calls, 6, async ({ endpoint, field }) => {
      const response = await send(api, endpoint, { json: { ...endpoint.body, [field]: wrongTypeOf(endpoint.body[field]) } });
      await expectCheck(response, [notServerError], { requirement: 'SEC-11' });
    });
  });

  test('a body of 5 MB on every JSON endpoint gives no server error (and is refused with a 4xx: hardening)', { tag: tags('security', 'SEC-12', 'SEC-22') }, async ({ api, fixtures }) => {
    const huge = oversizedString();
    const endpoints = jsonEndpoints(fixtures, company).filter((endpoint) => !endpoint.takesLargeBodies);
    await inBatches(endpoints, 2, async (endpoint) => {
      // The first string field of the valid body carries the megabytes: a field the spec names, not an extra one.
      const field = Object.keys(endpoint.body).find((key) => typeof endpoint.body[key] === 'string') ?? 'Padding';
      const response = await send(api, endpoint, { json: { ...endpoint.body, [field]: huge } });
      // "Upload size limits: not shown": accepting is allowed, only a 5xx is a defect.
      await expectCheck(response, [notServerError], { requirement: 'SEC-12' });
      await expectCheck(response, [isClientError], { requirement: 'SEC-22' });
    });
  });

  test('valid JSON sent as text/plain gives no server error', { tag: tags('security', 'SEC-13') }, async ({ api, fixtures }) => {
    await inBatches(jsonEndpoints(fixtures, company), 6, async (endpoint) => {
      const response = await send(api, endpoint, { rawBody: JSON.stringify(endpoint.body), contentType: 'text/plain' });
      await expectCheck(response, [notServerError], { requirement: 'SEC-13' });
    });
  });
});

test('an unknown path under the base URL gives no server error (and a 4xx: hardening)', { tag: tags('security', 'SEC-14', 'SEC-23') }, async ({ api, registeredCompany }) => {
  for (const auth of ['none', { clientToken: registeredCompany.token }, 'apiKey'] as Auth[]) {
    const response = await api.get('/no-such-thing', { auth });
    await expectCheck(response, [notServerError], { requirement: 'SEC-14' });
    await expectCheck(response, [isClientError], { requirement: 'SEC-23' });
  }
  const nested = await api.post('/companies/no-such-thing', { auth: { clientToken: registeredCompany.token }, json: {} });
  await expectCheck(nested, [notServerError], { requirement: 'SEC-14' });
  await expectCheck(nested, [isClientError], { requirement: 'SEC-23' });
});

test('a wrong method on a known path gives no server error (and a 4xx: hardening)', { tag: tags('security', 'SEC-15', 'SEC-23') }, async ({ api, registeredCompany }) => {
  const token = { clientToken: registeredCompany.token };
  const calls: Array<[string, string, Auth]> = [
    ['DELETE', '/companies/status', token],
    ['PUT', '/companies/register', 'apiKey'],
    ['GET', '/clienttokens/create', 'apiKey'],
    ['DELETE', '/documents/outbound/list', token],
  ];
  for (const [method, path, auth] of calls) {
    const response = await api.call(method, path, { auth });
    await expectCheck(response, [notServerError], { requirement: 'SEC-15' });
    await expectCheck(response, [isClientError], { requirement: 'SEC-23' });
  }
});

test('a 64 kB ClientToken header and JSON nested 10000 deep give no server error', { tag: tags('security', 'SEC-18') }, async ({ api, registeredCompany }) => {
  const longToken = await api.get('/companies/status', { auth: { clientToken: 'x'.repeat(64 * 1024) } });
  await expectCheck(longToken, [notServerError], { requirement: 'SEC-18' });
  const depth = 10_000;
  const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const register = await api.post('/companies/register', { auth: 'apiKey', rawBody: deep, contentType: 'application/json' });
  await expectCheck(register, [notServerError], { requirement: 'SEC-18' });
  const users = await api.post('/companies/users', { auth: { clientToken: registeredCompany.token }, rawBody: `{"Email":${'['.repeat(depth)}${']'.repeat(depth)}}`, contentType: 'application/json' });
  await expectCheck(users, [notServerError], { requirement: 'SEC-18' });
});
