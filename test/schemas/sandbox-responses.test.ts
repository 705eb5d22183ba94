// The schemas against the sandbox's real answers, over HTTP, in both casings: each answer must
// match its schema once normalised and be written strictly in the sandbox's casing; a mutated copy
// of each real answer must be rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import { validate, validateRaw } from '../../schemas/index.ts';
import { normaliseKeys, readField, type Casing } from '../../lib/casing.ts';
import { FILES_DIRECTORY } from '../../fixtures/files.ts';
import { readAnswer } from '../runner/helpers.ts';

const INVOICE = readFileSync(`${FILES_DIRECTORY}invoice.xml`);

interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

async function call(sandbox: RunningSandbox, method: string, path: string, auth: { apiKey?: string; token?: string }, body?: unknown | FormData): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (auth.apiKey !== undefined) headers.APIkey = auth.apiKey;
  if (auth.token !== undefined) headers.ClientToken = auth.token;
  let payload: string | FormData | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  return readAnswer(await fetch(`${sandbox.baseUrl}${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(10_000) }));
}

/** Bounded poll. */
async function until<T>(probe: () => Promise<T | undefined>, attempts = 300): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not reached after ${attempts} attempts`);
}

function orgNo(): string {
  return `55${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
}

function assertMatches(schemaName: string, answer: Answer, casing: Casing): void {
  const result = validateRaw(schemaName, answer.json, { casing });
  assert.deepEqual(result, { valid: true, errors: [] }, `${schemaName}: ${answer.text.slice(0, 500)}`);
}

/** A copy of a real answer with one top-level field removed or replaced must fail its schema. */
function assertMutationRejected(schemaName: string, answer: Answer, field: string, replacement?: unknown): void {
  const body = structuredClone(normaliseKeys(answer.json)) as Record<string, unknown>;
  assert.ok(field in body, `${field} in ${schemaName}`);
  if (replacement === undefined) delete body[field];
  else body[field] = replacement;
  assert.equal(validate(schemaName, body).valid, false, `${schemaName} with ${field} ${replacement === undefined ? 'removed' : `= ${JSON.stringify(replacement)}`}`);
}

for (const casing of ['camel', 'pascal'] as const) {
  test(`the sandbox's real answers match the schemas (${casing}Case)`, async (t) => {
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', casing, asyncDelayMs: 1 });
    t.after(() => sandbox.close());
    const apiKey = sandbox.apiKey;

    const register = async (overrides: Record<string, unknown> = {}) => {
      const input = { ErpId: `erp-${randomUUID()}`, ErpProduct: 'dxs 1.0', Name: 'Schema Test AB', Email: 'schema@example.com', CountryCode: 'SE', OrgNo: orgNo(),
        GLN: '7300009013378', Processes: ['SendInvoices', 'ReceiveInvoices'], ...overrides };
      assert.equal((await call(sandbox, 'POST', '/companies/register', { apiKey }, input)).status, 202);
      const created = await call(sandbox, 'POST', '/clienttokens/create', { apiKey }, { ErpId: input.ErpId, ValidTo: new Date(Date.now() + 600_000).toISOString() });
      assert.equal(created.status, 200);
      assertMatches('client-token.response', created, casing);
      assertMutationRejected('client-token.response', created, 'Token');
      const token = readField(created.json, 'Token') as string;
      const status = await until(async () => {
        const answer = await call(sandbox, 'GET', '/companies/status', { token });
        return readField(answer.json, 'Status') === 'Registered' ? answer : undefined;
      });
      return { input, token, status };
    };

    const sender = await register();
    assertMatches('company-status.response', sender.status, casing);
    assertMutationRejected('company-status.response', sender.status, 'Status');
    assertMutationRejected('company-status.response', sender.status, 'Details', 'not an object');
    const companyId = readField(sender.status.json, 'CompanyId') as string;

    const details = await call(sandbox, 'GET', `/companies/details/${companyId}`, { token: sender.token });
    assert.equal(details.status, 200);
    assertMatches('company-details.response', details, casing);
    assertMutationRejected('company-details.response', details, 'CompanyId');
    assertMutationRejected('company-details.response', details, 'HasInvoiceChecks', 'yes');

    const search = await call(sandbox, 'POST', '/clienttokens/createsearchtoken', { apiKey }, { SearchId: `search-${randomUUID()}` });
    assert.equal(search.status, 200);
    assertMatches('client-token.response', search, casing);

    const receiver = await register({ GLN: '7300009013385', OrgNo: orgNo() });
    for (const side of ['buyer', 'seller'] as const) {
      const lookup = await call(sandbox, 'POST', `/${side}parties/lookup`, { token: sender.token }, { PartyId: 'p', OrgNo: (receiver.input as { OrgNo: string }).OrgNo });
      assert.equal(lookup.status, 200);
      assertMatches(`lookup-${side}.response`, lookup, casing);
      assertMutationRejected(`lookup-${side}.response`, lookup, 'ExactHit', 'true');
      assertMutationRejected(`lookup-${side}.response`, lookup, 'PotentialMatches');
    }

    const setup = await call(sandbox, 'POST', '/network/setup', { token: sender.token }, { Name: 'New AB', CountryCode: 'SE', OrgNo: orgNo(), Processes: ['ReceiveInvoices'] });
    assert.ok([200, 202].includes(setup.status), setup.text);
    assertMatches('network-setup.response', setup, casing);
    assertMutationRejected('network-setup.response', setup, 'RequestId');

    const form = new FormData();
    form.append('File', new Blob([INVOICE], { type: 'application/xml' }), 'invoice.xml');
    const uploaded = await call(sandbox, 'POST', '/documents', { token: sender.token }, form);
    assert.equal(uploaded.status, 202, uploaded.text);
    const sent = await call(sandbox, 'POST', '/documents/outbound', { token: sender.token }, {
      SendDocumentAs: { Type: 'Electronic', Electronic: { RecipientId: '7300009013385' } },
      Document: { DocumentFormat: 'UBL', DocumentUri: uploaded.headers.get('location'), ErpDocumentId: `inv-${randomUUID()}` },
    });
    assert.equal(sent.status, 200, sent.text);
    const documentId = (sent.headers.get('location') ?? '').split('/').filter(Boolean).pop();
    const delivered = await until(async () => {
      const answer = await call(sandbox, 'GET', `/documents/outbound/${documentId}`, { token: sender.token });
      assertMatches('outbound-document.response', answer, casing);
      const current = readField(answer.json, 'CurrentStatus');
      return readField(current, 'Status') === 'Delivered' ? answer : undefined;
    });
    assertMutationRejected('outbound-document.response', delivered, 'CurrentStatus', { Status: 'Lost', Time: '2026-01-01T00:00:00Z' });
    assertMutationRejected('outbound-document.response', delivered, 'StatusHistory');

    const inbox = await until(async () => {
      const answer = await call(sandbox, 'GET', '/documents/incoming?type=invoice', { token: receiver.token });
      return (readField(answer.json, 'Total') as number) > 0 ? answer : undefined;
    });
    assertMatches('incoming-documents.response', inbox, casing);
    assertMutationRejected('incoming-documents.response', inbox, 'Documents', 'none');
    const incomingId = readField((readField(inbox.json, 'Documents') as unknown[])[0], 'Id') as string;
    const info = await call(sandbox, 'GET', `/documents/${incomingId}/info`, { token: receiver.token });
    assert.equal(info.status, 200, info.text);
    assertMatches('incoming-document-info.response', info, casing);

    const before = await call(sandbox, 'GET', '/companies/deliverymethods/b2c/providera', { token: sender.token });
    assert.equal(before.status, 200, before.text);
    assertMatches('provider-a-record.response', before, casing);
    const registration = await call(sandbox, 'POST', '/companies/deliverymethods/b2c/providera', { token: sender.token }, {
      LegalName: 'Schema Test AB', DisplayName: 'Schema', OrgNo: (sender.input as { OrgNo: string }).OrgNo, ContactFirstName: 'Anna', ContactLastName: 'Svensson',
      ContactPersonEmail: 'anna@example.com', GeneralEmail: 'info@example.com', ContactPhone: '+46701234567', PubAgreement: true, TermsAndConditions: true,
    });
    assert.equal(registration.status, 200, registration.text);
    const record = await until(async () => {
      const answer = await call(sandbox, 'GET', '/companies/deliverymethods/b2c/providera', { token: sender.token });
      return readField(answer.json, 'Status') === 'Completed' ? answer : undefined;
    });
    assertMatches('provider-a-record.response', record, casing);
    assertMutationRejected('provider-a-record.response', record, 'Status', 'Pending');
    const ssns = await call(sandbox, 'POST', '/companies/deliverymethods/b2c/providera/lookup', { token: sender.token }, { Ssns: ['198112289874', '198112289882'] });
    assert.equal(ssns.status, 200, ssns.text);
    assertMatches('provider-a-lookup.response', ssns, casing);
    assertMutationRejected('provider-a-lookup.response', ssns, 'RegisteredSsns', '198112289874');

    const badUser = await call(sandbox, 'POST', '/companies/users', { token: sender.token }, { Email: 'user@example.com', UserName: 'abc' });
    assert.equal(badUser.status, 400);
    assert.deepEqual(validate('error.response', badUser.json), { valid: true, errors: [] }, badUser.text);
  });
}
