import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { call, companyInput, newSandbox, registeredCompany, waitFor, SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from './helpers.ts';

let app: FastifyInstance;
before(async () => {
  app = await newSandbox();
});
after(async () => {
  await app.close();
});

describe('tokens', () => {
  test('creates a client token for a registered ErpId, with and without ValidTo', async () => {
    const company = await registeredCompany(app);
    const validTo = new Date(Date.now() + 600_000).toISOString();
    const created = await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { erpId: company.erpId, validTo } });
    assert.equal(created.status, 200);
    assert.equal(typeof created.json.token, 'string');
    assert.equal(Date.parse(created.json.validTo), Date.parse(validTo));
    const noExpiry = await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId } });
    assert.equal(noExpiry.json.validTo, null);
    assert.notEqual(noExpiry.json.token, created.json.token);
  });

  test('rejects an unknown ErpId, another API key\'s company, missing credentials and bad ValidTo', async () => {
    const company = await registeredCompany(app);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: 'nope' } })).status, 400);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY_WITHOUT_DELETE, body: { ErpId: company.erpId } })).status, 400);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { body: { ErpId: company.erpId } })).status, 401);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: 'wrong', body: { ErpId: company.erpId } })).status, 401);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId, ValidTo: 'tomorrow' } })).status, 400);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: {} })).status, 400);
  });

  test('an expired token and a revoked token are rejected with 401', async () => {
    const company = await registeredCompany(app);
    const expired = await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId, ValidTo: '2000-01-01T00:00:00+0000' } });
    assert.equal(expired.status, 200);
    assert.equal((await call(app, 'GET', '/companies/status', { token: expired.json.token })).status, 401);
    const revoked = await call(app, 'POST', '/clienttokens/revoke', { apiKey: SANDBOX_API_KEY, body: { ClientToken: company.token } });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.text, '');
    const rejected = await call(app, 'GET', '/companies/status', { token: company.token });
    assert.equal(rejected.status, 401);
    assert.equal(typeof rejected.json, 'string');
    assert.equal((await call(app, 'GET', '/companies/status', { token: 'not-a-token' })).status, 401);
    assert.equal((await call(app, 'GET', '/companies/status')).status, 401);
    assert.equal((await call(app, 'POST', '/clienttokens/revoke', { apiKey: SANDBOX_API_KEY, body: { ClientToken: 'unknown' } })).status, 404);
    assert.equal((await call(app, 'POST', '/clienttokens/revoke', { apiKey: SANDBOX_API_KEY, body: {} })).status, 400);
  });

  test('creates a search token that serves lookups but not company calls', async () => {
    const created = await call(app, 'POST', '/clientTokens/createSearchToken', { apiKey: SANDBOX_API_KEY, body: { SearchId: 'install-1' } });
    assert.equal(created.status, 200);
    const token = created.json.token as string;
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { token, body: { PartyId: 'p1', Name: 'Nordic' } })).status, 200);
    assert.equal((await call(app, 'GET', '/companies/status', { token })).status, 401);
    assert.equal((await call(app, 'POST', '/clienttokens/createsearchtoken', { apiKey: SANDBOX_API_KEY, body: {} })).status, 400);
  });
});

describe('companies', () => {
  test('register answers 202 and the status reaches Registered; the same ErpId updates the same company', async () => {
    const company = await registeredCompany(app, { City: 'Uppsala' });
    const update = await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: { ...company.input, City: 'Lund' } });
    assert.equal(update.status, 202);
    assert.ok(update.text === '' || update.text === '{}');
    const status = await call(app, 'GET', '/companies/status', { token: company.token });
    assert.equal(status.status, 200);
    assert.equal(status.json.companyId, company.companyId);
    assert.equal(status.json.status, 'Registered');
    assert.equal(status.json.details.city, 'Lund');
    assert.deepEqual(status.json.details.processes, ['SendInvoices', 'ReceiveInvoices']);
    assert.ok(status.json.details.peppolParticipantIdentifiers[0].includes('::'));
  });

  test('register rejects missing fields, bad e-mail, unknown processes and wrong types', async () => {
    for (const body of [
      companyInput({ Name: undefined }),
      companyInput({ Email: 'not-an-email' }),
      companyInput({ Processes: ['SendFaxes'] }),
      companyInput({ IsVatRegistered: 'yes' }),
      companyInput({ OrgNo: 12345 }),
      [1, 2, 3],
    ]) {
      const answer = await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(typeof answer.json, 'string');
    }
    assert.equal((await call(app, 'POST', '/companies/register', { body: companyInput() })).status, 401);
  });

  test('field names are matched regardless of case', async () => {
    const input = companyInput();
    const lower = Object.fromEntries(Object.entries(input).map(([key, value]) => [key.toLowerCase(), value]));
    assert.equal((await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: lower })).status, 202);
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ERPID: input.ErpId } })).status, 200);
  });

  test('details: RegistrationId before activation, client token after; get by CompanyId', async () => {
    const company = await registeredCompany(app);
    const details = { ErpProduct: 'ERP 2', Name: 'Renamed AB', Email: 'new@example.com', CountryCode: 'SE', GLN: '7300000000001' };
    assert.equal((await call(app, 'POST', '/companies/details', { apiKey: SANDBOX_API_KEY, body: { ...details, RegistrationId: company.companyId } })).status, 200);
    assert.equal((await call(app, 'POST', '/companies/details', { apiKey: SANDBOX_API_KEY, body: details })).status, 400);
    assert.equal((await call(app, 'POST', '/companies/details', { apiKey: SANDBOX_API_KEY, body: { ...details, RegistrationId: 'unknown' } })).status, 400);
    const activated = await call(app, 'POST', '/companies/services', {
      token: company.token,
      body: { RegistrationId: company.companyId, SearchId: 'search-1', ErpId: company.erpId, CountryCode: 'SE', OrgNo: company.input.OrgNo },
    });
    assert.equal(activated.status, 202);
    await waitFor(async () => {
      const answer = await call(app, 'POST', '/companies/details', { apiKey: SANDBOX_API_KEY, body: { ...details, RegistrationId: company.companyId } });
      return answer.status === 400 ? true : undefined;
    });
    assert.equal((await call(app, 'POST', '/companies/details', { token: company.token, body: { ...details, City: 'Kiruna' } })).status, 200);
    const got = await call(app, 'GET', `/companies/details/${company.companyId}`, { token: company.token });
    assert.equal(got.status, 200);
    assert.equal(got.json.name, 'Renamed AB');
    assert.equal(got.json.city, 'Kiruna');
    assert.equal(got.json.gln, '7300000000001');
    assert.equal(got.json.receiveElectronicInvoiceCapability, 'ReceivesElectronicInvoices');
    assert.equal(typeof got.json.hasInvoiceChecks, 'boolean');
    assert.equal((await call(app, 'GET', '/companies/details/00000000-0000-0000-0000-000000000000', { token: company.token })).status, 404);
    assert.equal((await call(app, 'POST', '/companies/details', { token: company.token, body: { Name: 'x' } })).status, 400);
  });

  test('services: ErpId, CountryCode, OrgNo, RegistrationId and SearchId rules', async () => {
    const company = await registeredCompany(app);
    const valid = { RegistrationId: company.companyId, SearchId: 's', ErpId: company.erpId, CountryCode: 'SE', OrgNo: company.input.OrgNo };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ ...valid, ErpId: undefined }, 400],
      [{ ...valid, CountryCode: 'DK' }, 400],
      [{ ...valid, OrgNo: '0000000000' }, 400],
      [{ ...valid, RegistrationId: undefined }, 400],
      [{ ...valid, SearchId: undefined }, 400],
      [{ ...valid, RegistrationId: 'wrong' }, 400],
      [valid, 202],
    ];
    for (const [body, expected] of cases) {
      assert.equal((await call(app, 'POST', '/companies/services', { apiKey: SANDBOX_API_KEY, body })).status, expected, JSON.stringify(body));
    }
    assert.equal((await call(app, 'POST', '/companies/services', { body: valid })).status, 401);
  });

  test('users: rules for UserName, Email and CultureCode; 401 without privilege; 409 on conflicts', async () => {
    const company = await registeredCompany(app);
    const unique = `user${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const added = await call(app, 'POST', '/companies/users', { token: company.token, body: { Email: 'u@example.com', UserName: unique, CultureCode: 'sv-SE' } });
    assert.equal(added.status, 200);
    assert.equal((await call(app, 'POST', '/companies/users', { token: company.token, body: { Email: 'u@example.com', UserName: unique } })).status, 409);
    assert.equal((await call(app, 'POST', '/companies/users', { token: company.token, body: { Email: 'l@example.com', UserName: 'lockeduser' } })).status, 409);
    assert.equal((await call(app, 'POST', '/companies/users', { token: company.token, body: { Email: 'l@example.com', UserName: 'unapproveduser' } })).status, 409);
    for (const body of [{ UserName: 'abcdef' }, { Email: 'bad', UserName: 'abcdef' }, { Email: 'u@example.com', UserName: 'ab1' }, { Email: 'u@example.com', UserName: 'abc de' }, { Email: 'u@example.com', CultureCode: 'xx-XX' }]) {
      assert.equal((await call(app, 'POST', '/companies/users', { token: company.token, body })).status, 400, JSON.stringify(body));
    }
    const limited = await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId, User: { UserName: 'clerk1', Roles: ['Clerk'] } } });
    assert.equal((await call(app, 'POST', '/companies/users', { token: limited.json.token, body: { Email: 'v@example.com' } })).status, 401);
    const admin = await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId, User: { UserName: 'boss1', Roles: ['Admin'] } } });
    assert.equal((await call(app, 'POST', '/companies/users', { token: admin.json.token, body: { Email: `${unique}@example.com` } })).status, 200);
  });

  test('identifiers: 201 new, 200 existing, 400 names the expected types', async () => {
    const company = await registeredCompany(app);
    assert.equal((await call(app, 'POST', '/companies/identifiers', { token: company.token, body: { Type: 'GLN', Value: '7312345678901' } })).status, 201);
    assert.equal((await call(app, 'POST', '/companies/identifiers', { token: company.token, body: { type: 'gln', value: '7312345678901' } })).status, 200);
    const unsupported = await call(app, 'POST', '/companies/identifiers', { token: company.token, body: { Type: 'Fax', Value: '1' } });
    assert.equal(unsupported.status, 400);
    assert.match(unsupported.json, /GLN, OrgNo, VatNo/);
    assert.equal((await call(app, 'POST', '/companies/identifiers', { token: company.token, body: { Type: null, Value: '1' } })).status, 400);
  });

  test('delete: 202 persisted, 200 duplicate, 401 without role or key, and the company goes away', async () => {
    const company = await registeredCompany(app);
    assert.equal((await call(app, 'POST', '/companies/delete', { apiKey: SANDBOX_API_KEY_WITHOUT_DELETE, body: { Id: company.erpId } })).status, 401);
    assert.equal((await call(app, 'POST', '/companies/delete', { apiKey: 'wrong', body: { Id: company.erpId } })).status, 401);
    assert.equal((await call(app, 'POST', '/companies/delete', { apiKey: SANDBOX_API_KEY, body: {} })).status, 400);
    assert.equal((await call(app, 'POST', '/companies/delete', { apiKey: SANDBOX_API_KEY, body: { Id: company.erpId } })).status, 202);
    assert.equal((await call(app, 'POST', '/companies/delete', { apiKey: SANDBOX_API_KEY, body: { Id: company.erpId } })).status, 200);
    await waitFor(async () => ((await call(app, 'GET', '/companies/status', { token: company.token })).status === 401 ? true : undefined));
  });

  test('delete answers 501 and identifiers 400 when the configuration disables them; identifier types come from it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'dxs-sandbox-'));
    const file = join(directory, 'config.json');
    writeFileSync(file, JSON.stringify({ deletesEnabled: false, identifierTypes: ['0007', 'GLN'] }));
    const configured = await newSandbox({ configFile: file });
    try {
      assert.equal((await call(configured, 'POST', '/companies/delete', { apiKey: SANDBOX_API_KEY, body: { Id: 'x' } })).status, 501);
      const company = await registeredCompany(configured);
      const answer = await call(configured, 'POST', '/companies/identifiers', { token: company.token, body: { Type: 'VatNo', Value: '1' } });
      assert.equal(answer.status, 400);
      assert.match(answer.json, /0007, GLN/);
      assert.equal((await call(configured, 'POST', '/companies/identifiers', { token: company.token, body: { Type: '0007', Value: '1' } })).status, 201);
    } finally {
      await configured.close();
    }
  });
});
