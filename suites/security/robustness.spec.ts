// Broken bodies on every JSON endpoint, one test per endpoint: malformed JSON, a body of wrong
// types, or an array where an object belongs, gives no 5xx; malformed JSON refused with a 4xx is
// hardening (SEC-21), since the spec lists no status for it. (Oversized bodies,
// a wrong Content-Type, long headers, deep nesting, unknown paths and methods: malformed-input.spec.ts.)
import { checks, expectCheck, tags, test, type Auth } from '../support/index.ts';

const { isClientError, notServerError } = checks;

interface JsonEndpoint {
  method: 'POST' | 'PATCH';
  path: string;
  /** 'token' means the registered company's client token. */
  auth: 'apiKey' | 'token';
  /** A body whose fields have the wrong JSON types. */
  wrongTypes: Record<string, unknown>;
}

const PROVIDER_A = '/companies/deliverymethods/b2c/providera';
const JSON_ENDPOINTS: JsonEndpoint[] = [
  { method: 'POST', path: '/clienttokens/create', auth: 'apiKey', wrongTypes: { ErpId: 12345, ValidTo: { when: 'tomorrow' }, User: { Roles: 'Admin' } } },
  { method: 'POST', path: '/clienttokens/revoke', auth: 'apiKey', wrongTypes: { ClientToken: ['not', 'a', 'string'] } },
  { method: 'POST', path: '/clienttokens/createsearchtoken', auth: 'apiKey', wrongTypes: { SearchId: { id: 1 }, ValidTo: 42 } },
  { method: 'POST', path: '/companies/register', auth: 'apiKey', wrongTypes: { ErpId: 1, Name: 2, Processes: 'SendInvoices', IsVatRegistered: 'yes' } },
  { method: 'POST', path: '/companies/details', auth: 'token', wrongTypes: { Name: { first: 'x' }, Processes: 'SendInvoices', IsVatRegistered: 'yes' } },
  { method: 'POST', path: '/companies/services', auth: 'token', wrongTypes: { ErpId: [1], CountryCode: 46, OrgNo: { no: 1 } } },
  { method: 'POST', path: '/companies/users', auth: 'token', wrongTypes: { Email: 123, UserName: ['a'], CultureCode: true } },
  { method: 'POST', path: '/companies/identifiers', auth: 'token', wrongTypes: { Type: 7, Value: { v: 1 } } },
  { method: 'POST', path: '/companies/delete', auth: 'apiKey', wrongTypes: { Id: { erpId: 'x' } } },
  { method: 'POST', path: '/buyerparties/lookup', auth: 'token', wrongTypes: { PartyId: 1, Name: { n: 1 } } },
  { method: 'POST', path: '/sellerparties/lookup', auth: 'token', wrongTypes: { PartyId: 1, PaymentMeans: 'iban' } },
  { method: 'POST', path: '/network/setup', auth: 'token', wrongTypes: { Processes: 'ReceiveInvoices', Operator: ['x'] } },
  { method: 'POST', path: '/documents/outbound', auth: 'token', wrongTypes: { SendDocumentAs: 'Electronic', Document: [1, 2] } },
  { method: 'POST', path: '/documents/outbound/list', auth: 'token', wrongTypes: { Take: 'ten', Skip: { n: 1 }, CreatedFrom: 5 } },
  { method: 'POST', path: '/documents/handled', auth: 'token', wrongTypes: { documents: 'one-id' } },
  { method: 'POST', path: PROVIDER_A, auth: 'token', wrongTypes: { LegalName: 1, PubAgreement: 'yes', TermsAndConditions: 'yes' } },
  { method: 'PATCH', path: PROVIDER_A, auth: 'token', wrongTypes: { DisplayName: ['x'], ContactPhone: 46 } },
  { method: 'POST', path: `${PROVIDER_A}/icon`, auth: 'token', wrongTypes: { ContentType: 1, Data: ['AAAA'] } },
  { method: 'POST', path: `${PROVIDER_A}/lookup`, auth: 'token', wrongTypes: { Ssns: '199001011234' } },
];

function authOf(endpoint: JsonEndpoint, token: string): Auth {
  return endpoint.auth === 'apiKey' ? 'apiKey' : { clientToken: token };
}

test.describe('broken bodies on every JSON endpoint', () => {
  for (const endpoint of JSON_ENDPOINTS) {
    const name = `${endpoint.method} ${endpoint.path}`;
    const ids = endpoint.path.startsWith('/clienttokens') ? ['SEC-10', 'SEC-11', 'SEC-21', 'TOK-23', 'TOK-24'] : ['SEC-10', 'SEC-11', 'SEC-21'];

    test(`${name}: malformed JSON, a bare string, an array or wrong types give no server error`, { tag: tags('security', ...ids) }, async ({ api, registeredCompany }) => {
      const auth = authOf(endpoint, registeredCompany.token);
      const malformed = await api.call(endpoint.method, endpoint.path, { auth, rawBody: '{"Name": "unterminated', contentType: 'application/json' });
      await expectCheck(malformed, [notServerError], { requirement: 'SEC-10' });
      await expectCheck(malformed, [isClientError], { requirement: 'SEC-21' });
      const wrongTypes = await api.call(endpoint.method, endpoint.path, { auth, json: endpoint.wrongTypes });
      await expectCheck(wrongTypes, [notServerError], { requirement: 'SEC-11' });
      // A bare string and an array are JSON, but not the object every endpoint takes.
      for (const json of ['dxs-bare-string', [1, 2, 3]]) {
        const notAnObject = await api.call(endpoint.method, endpoint.path, { auth, json });
        await expectCheck(notAnObject, [notServerError], { requirement: 'SEC-10' });
      }
      if (endpoint.path.startsWith('/clienttokens')) {
        await expectCheck(malformed, [notServerError], { requirement: 'TOK-23' });
        await expectCheck(wrongTypes, [notServerError], { requirement: 'TOK-24' });
      }
    });
  }
});
