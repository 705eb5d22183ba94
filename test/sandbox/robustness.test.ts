import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { startSandbox } from '../../sandbox/index.ts';
import { call, companyInput, newSandbox, registeredCompany, SANDBOX_API_KEY, type TestCompany } from './helpers.ts';

let app: FastifyInstance;
let company: TestCompany;
before(async () => {
  app = await newSandbox();
  company = await registeredCompany(app);
});
after(async () => {
  await app.close();
});

describe('bad input gets a clear 4xx, never a 5xx', () => {
  test('malformed JSON, wrong content types, wrong JSON shapes', async () => {
    const raw = (payload: string, contentType = 'application/json') =>
      call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, payload, headers: { 'content-type': contentType } });
    for (const payload of ['{', '{"ErpId": }', 'null', '"text"', '42', '[]', '{"__proto__": {"x": 1}}']) {
      const answer = await raw(payload);
      assert.ok(answer.status >= 400 && answer.status < 500, `${payload} -> ${answer.status}`);
      assert.equal(typeof answer.json, 'string', payload);
    }
    assert.equal((await raw('<xml/>', 'application/xml')).status, 415);
    assert.equal((await raw('ErpId=1', 'text/plain')).status, 400);
    assert.equal((await raw('', 'application/json')).status, 400);
  });

  test('what the OpenAPI export calls invalid is refused: no network setup body, a null body, an empty sequenceNo, a malformed PeppolParticipantIdentifier', async () => {
    assert.equal((await call(app, 'POST', '/network/setup', { token: company.token })).status, 400);
    assert.equal((await call(app, 'POST', '/documents/outbound/list', { token: company.token, payload: 'null', headers: { 'content-type': 'application/json' } })).status, 400);
    assert.equal((await call(app, 'GET', '/documents/incoming', { token: company.token, query: { sequenceNo: '' } })).status, 400);
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { token: company.token, body: { PartyId: 'p', PeppolParticipantIdentifier: 'AAA' } })).status, 400);
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { token: company.token, body: { PartyId: 'p', PeppolParticipantIdentifier: '' } })).status, 200);
    assert.equal((await call(app, 'POST', '/companies/details', { token: company.token, body: { ...companyInput(), RegistrationId: {} } })).status, 400);
  });

  test('wrong types deep inside bodies', async () => {
    const bodies: Array<[string, string, Record<string, unknown>]> = [
      ['POST', '/companies/register', { ...companyInput(), Processes: 'SendInvoices' }],
      ['POST', '/companies/register', { ...companyInput(), Name: { first: 'x' } }],
      ['POST', '/clienttokens/create', { ErpId: ['a'] }],
      ['POST', '/clienttokens/create', { ErpId: company.erpId, User: 'me' }],
      ['POST', '/clienttokens/create', { ErpId: company.erpId, User: { Roles: 'Admin' } }],
    ];
    for (const [method, path, body] of bodies) {
      const answer = await call(app, method, path, { apiKey: SANDBOX_API_KEY, body });
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
    }
    for (const [path, body] of [
      ['/documents/outbound', { SendDocumentAs: 'PDF', Document: {} }],
      ['/documents/outbound', { SendDocumentAs: { Type: 5 }, Document: [] }],
      ['/documents/handled', { documents: [1, 2] }],
      ['/buyerparties/lookup', { PartyId: 1 }],
      ['/companies/users', { Email: ['a@example.com'] }],
      ['/documents/outbound/list', { Skip: 1.5 }],
    ] as const) {
      const answer = await call(app, 'POST', path, { token: company.token, body });
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
    }
  });

  test('a body nested thousands of levels deep gets 400', async () => {
    for (const payload of ['{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000), '['.repeat(20_000) + ']'.repeat(20_000)]) {
      const answer = await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, payload, headers: { 'content-type': 'application/json' } });
      assert.equal(answer.status, 400);
    }
  });

  test('every route answers odd bodies and ids with a 4xx, never a 5xx', async () => {
    const routes: Array<[string, string]> = [
      ['POST', '/clienttokens/create'], ['POST', '/clienttokens/revoke'], ['POST', '/clienttokens/createsearchtoken'],
      ['POST', '/companies/register'], ['POST', '/companies/details'], ['POST', '/companies/services'], ['POST', '/companies/users'],
      ['POST', '/companies/identifiers'], ['POST', '/companies/delete'], ['POST', '/buyerparties/lookup'], ['POST', '/sellerparties/lookup'],
      ['POST', '/network/setup'], ['POST', '/documents'], ['POST', '/documents/outbound'], ['POST', '/documents/outbound/list'],
      ['POST', '/documents/handled'], ['POST', '/companies/deliverymethods/b2c/providera'], ['PATCH', '/companies/deliverymethods/b2c/providera'],
      ['POST', '/companies/deliverymethods/b2c/providera/icon'], ['POST', '/companies/deliverymethods/b2c/providera/lookup'],
      ['GET', '/companies/details/%00%ff'], ['GET', '/documents/outbound/%2e%2e'], ['GET', '/invoices/outbound/byerpid/%20'],
      ['GET', '/documents/outbound/download/x'], ['GET', '/documents/x'], ['GET', '/documents/x/info'], ['GET', '/documents/x/attachments/-1'],
    ];
    const odd = [null, [], 'x', 1, true, {}, { ErpId: {}, SendDocumentAs: [], Document: 'x', Ssns: {}, Documents: [null], Take: '1', User: [] },
      { PartyId: 'p', PaymentMeans: [null], Operator: 'x', Processes: [1], ValidTo: 12, Data: 5, ContentType: [], PubAgreement: 'true' }];
    for (const [method, path] of routes) {
      for (const body of odd) {
        const payload = JSON.stringify(body);
        const headers = { 'content-type': 'application/json', APIkey: SANDBOX_API_KEY, ClientToken: company.token };
        const answer = await call(app, method, path, method === 'GET' ? { headers } : { headers, payload });
        assert.ok(answer.status < 500, `${method} ${path} ${payload} -> ${answer.status} ${answer.text}`);
      }
    }
  });

  test('an oversized body gets 413 and the server keeps serving', async () => {
    const huge = JSON.stringify({ PartyId: 'x', Name: 'y'.repeat(17 * 1024 * 1024) });
    const answer = await call(app, 'POST', '/buyerparties/lookup', { token: company.token, payload: huge, headers: { 'content-type': 'application/json' } });
    assert.equal(answer.status, 413);
    assert.equal((await call(app, 'GET', '/companies/status', { token: company.token })).status, 200);
  });

  test('a JSON body of megabytes is refused on calls that never need one, but a large SSN lookup is read', async () => {
    const twoMegabytes = JSON.stringify({ PartyId: 'x', Name: 'y'.repeat(2 * 1024 * 1024) });
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { token: company.token, payload: twoMegabytes, headers: { 'content-type': 'application/json' } })).status, 413);
    const ssns = Array.from({ length: 200_000 }, (_, index) => String(190001010000 + index));
    const lookup = await call(app, 'POST', '/companies/deliverymethods/b2c/providera/lookup', { token: company.token, payload: JSON.stringify({ Ssns: ssns }), headers: { 'content-type': 'application/json' } });
    assert.notEqual(lookup.status, 413, 'a 2.6 MB SSN lookup fits its own limit');
    assert.ok(lookup.status < 500, `SSN lookup answered ${lookup.status}`);
  });

  test('unknown routes get 404 with a message; a known path with another method 405 with Allow (RFC 9110)', async () => {
    const answer = await call(app, 'GET', '/no/such/thing', { token: company.token });
    assert.equal(answer.status, 404);
    assert.match(answer.json, /no\/such\/thing/);
    const wrongMethod = await call(app, 'DELETE', '/companies/status', { token: company.token });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.allow, 'GET, HEAD');
    assert.match(wrongMethod.json, /GET/);
    const withParameter = await call(app, 'PUT', '/documents/00000000-0000-4000-8000-000000000000/info', { token: company.token });
    assert.equal(withParameter.status, 405);
    assert.equal(withParameter.headers.allow, 'GET, HEAD');
    assert.equal((await call(app, 'GET', '/companies/deliverymethods/b2c/providera/offboard', { token: company.token })).headers.allow, 'POST');
    // A static path owns its methods even where a parameter route (GET /documents/{id}) would match it.
    const shadowed = await call(app, 'GET', '/documents/handled', { token: company.token });
    assert.equal(shadowed.status, 405);
    assert.equal(shadowed.headers.allow, 'POST');
    const trace = await call(app, 'TRACE', '/documents/outbound', { token: company.token });
    assert.equal(trace.status, 405);
    assert.equal(trace.headers.allow, 'POST');
  });

  test('messages follow Accept-Language (en default, sv)', async () => {
    const english = await call(app, 'GET', '/companies/status', { token: 'nope' });
    const swedish = await call(app, 'GET', '/companies/status', { token: 'nope', headers: { 'Accept-Language': 'sv' } });
    const preferred = await call(app, 'GET', '/companies/status', { token: 'nope', headers: { 'Accept-Language': 'de-DE, sv;q=0.8, en;q=0.5' } });
    assert.equal(english.status, 401);
    assert.equal(swedish.status, 401);
    assert.notEqual(english.json, swedish.json);
    assert.equal(preferred.json, swedish.json);
  });
});

describe('casing and variants', () => {
  test('pascal casing answers PascalCase names', async () => {
    const pascal = await newSandbox({ casing: 'pascal' });
    try {
      const registered = await call(pascal, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: companyInput({ ErpId: 'pascal-1' }) });
      assert.equal(registered.status, 202);
      const token = await call(pascal, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { erpId: 'pascal-1' } });
      assert.equal(typeof token.json.Token, 'string');
      const status = await call(pascal, 'GET', '/companies/status', { token: token.json.Token });
      assert.ok('CompanyId' in status.json && 'Details' in status.json);
      assert.ok('PeppolParticipantIdentifiers' in status.json.Details);
      assert.ok('GLN' in status.json.Details);
    } finally {
      await pascal.close();
    }
  });

  test('camel casing (default) answers camelCase names', async () => {
    const status = await call(app, 'GET', '/companies/status', { token: company.token });
    assert.ok('companyId' in status.json && 'details' in status.json && 'gln' in status.json.details);
  });

  test('variants: extra fields, status 200, +0000 offsets, relative Location, gzip', async () => {
    const varied = await newSandbox({ variants: ['extra-fields', 'status-200', 'offset-0000', 'relative-location', 'gzip'] });
    try {
      const other = await registeredCompany(varied);
      const status = await call(varied, 'GET', '/companies/status', { token: other.token });
      assert.ok('sandboxExtension' in status.json);
      const setup = await call(varied, 'POST', '/network/setup', { token: other.token, body: { Name: 'x' } });
      assert.equal(setup.status, 200);
      const token = await call(varied, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: other.erpId, ValidTo: new Date(Date.now() + 60_000).toISOString() } });
      assert.match(token.json.validTo, /\+0000$/);
      const zipped = await call(varied, 'GET', '/companies/status', { token: other.token, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(JSON.parse(gunzipSync(zipped.raw).toString()).companyId, other.companyId);
    } finally {
      await varied.close();
    }
  });

  test('unknown fault or variant names are refused', async () => {
    await assert.rejects(newSandbox({ variants: ['nope'] }), /unknown variant/);
    await assert.rejects(newSandbox({ faults: ['nope'] }), /unknown fault/);
  });
});

describe('listening server', () => {
  test('startSandbox listens on a free port and answers over HTTP', async () => {
    const running = await startSandbox({ port: 0, asyncDelayMs: 1 });
    try {
      assert.match(running.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1\/api$/);
      const response = await fetch(`${running.baseUrl}/clienttokens/create`, {
        method: 'POST',
        headers: { APIkey: running.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ ErpId: 'nobody' }),
      });
      assert.equal(response.status, 400);
      assert.equal(typeof (await response.json()), 'string');
    } finally {
      await running.close();
    }
  });

  test('headers too large for the HTTP parser get 431 with a JSON string, in PascalCase mode too', async () => {
    const running = await startSandbox({ port: 0, asyncDelayMs: 1, casing: 'pascal' });
    try {
      const response = await fetch(`${running.baseUrl}/companies/status`, { headers: { APIkey: running.apiKey, 'X-Padding': 'x'.repeat(64 * 1024) } });
      assert.equal(response.status, 431);
      assert.equal(typeof (await response.json()), 'string');
      const after = await fetch(`${running.baseUrl}/clienttokens/create`, { method: 'POST', headers: { APIkey: running.apiKey, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(after.status, 400, 'the server keeps serving');
    } finally {
      await running.close();
    }
  });
});
