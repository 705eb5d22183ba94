import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { call, lastSegment, newSandbox, registeredCompany, upload, waitForStatus, type TestCompany } from './helpers.ts';
import { encodePng } from './png.ts';
import { ssnRegistered } from '../../sandbox/areas/provider-a.ts';

const PATH = '/companies/deliverymethods/b2c/providera';
let app: FastifyInstance;
before(async () => {
  app = await newSandbox();
});
after(async () => {
  await app.close();
});

let orgSerial = 100000;
function registration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  orgSerial++;
  const orgNo = `556${orgSerial}-${String(orgSerial).slice(-4)}`.replace(/^(\d{6})\d*-/, '$1-');
  return {
    LegalName: 'Test AB',
    DisplayName: 'Test',
    OrgNo: orgNo,
    OrgVatNo: `SE${orgNo.replace('-', '')}01`,
    ContactFirstName: 'Anna',
    ContactLastName: 'Svensson',
    ContactPersonEmail: 'anna@example.com',
    GeneralEmail: 'info@example.com',
    ContactPhone: '+46 8 123 456',
    PubAgreement: true,
    TermsAndConditions: true,
    ...overrides,
  };
}

async function registered(): Promise<{ company: TestCompany; body: Record<string, unknown> }> {
  const company = await registeredCompany(app);
  const body = registration();
  const answer = await call(app, 'POST', PATH, { token: company.token, body });
  assert.equal(answer.status, 200, answer.text);
  return { company, body };
}

describe('provider A registration', () => {
  test('register answers 200 with a Location; the record shows Completed, Signed and agreementStart as YYYY-MM-DD HH:mm', async () => {
    const company = await registeredCompany(app);
    const before = await call(app, 'GET', PATH, { token: company.token });
    assert.equal(before.status, 200);
    assert.equal(before.json.status, 'Unknown');
    const answer = await call(app, 'POST', PATH, { token: company.token, body: registration() });
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
    assert.ok(answer.headers.location);
    const record = await call(app, 'GET', PATH, { token: company.token });
    assert.equal(record.json.status, 'Completed');
    assert.equal(record.json.agreementStatus, 'Signed');
    assert.match(record.json.agreementStart, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    assert.equal(record.json.displayName, 'Test');
    assert.equal(record.json.contactPhone, '+46 8 123 456');
  });

  test('every field rule gives 400', async () => {
    const company = await registeredCompany(app);
    const cases: Record<string, unknown>[] = [
      ...['LegalName', 'DisplayName', 'OrgNo', 'ContactFirstName', 'ContactLastName', 'ContactPersonEmail', 'GeneralEmail', 'ContactPhone', 'PubAgreement', 'TermsAndConditions']
        .map((field) => registration({ [field]: undefined })),
      registration({ ContactPersonEmail: 'not-an-email' }),
      registration({ GeneralEmail: 'x@' }),
      registration({ PubAgreement: false }),
      registration({ TermsAndConditions: false }),
      registration({ PubAgreement: 'yes' }),
      registration({ OrgVatNo: 'DK12345678' }),
      registration({ OrgNo: 'abc' }),
      registration({ ContactPhone: 'call me' }),
    ];
    for (const body of cases) {
      const answer = await call(app, 'POST', PATH, { token: company.token, body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(typeof answer.json, 'string');
    }
    assert.equal((await call(app, 'POST', PATH, { token: company.token, body: registration({ OrgVatNo: undefined }) })).status, 200);
  });

  test('only Swedish companies may use provider A', async () => {
    const danish = await registeredCompany(app, { CountryCode: 'DK' });
    assert.equal((await call(app, 'POST', PATH, { token: danish.token, body: registration() })).status, 400);
    assert.equal((await call(app, 'GET', PATH, { token: danish.token })).status, 400);
    assert.equal((await call(app, 'GET', PATH)).status, 401);
  });

  test('409 when another company owns the tenant (same OrgNo); the record shows CompleteConflict', async () => {
    const { body } = await registered();
    const other = await registeredCompany(app);
    const conflict = await call(app, 'POST', PATH, { token: other.token, body: { ...body, OrgNo: (body.OrgNo as string).replace('-', '') } });
    assert.equal(conflict.status, 409);
    assert.equal(typeof conflict.json, 'string');
    assert.equal((await call(app, 'GET', PATH, { token: other.token })).json.status, 'CompleteConflict');
  });

  test('patch changes fields and answers 200 with a Location; invalid values 400; not registered 400', async () => {
    const { company } = await registered();
    const patched = await call(app, 'PATCH', PATH, { token: company.token, body: { displayName: 'New name', contactPhone: '+46 70 000 00 00' } });
    assert.equal(patched.status, 200);
    assert.ok(patched.headers.location);
    const record = await call(app, 'GET', PATH, { token: company.token });
    assert.equal(record.json.displayName, 'New name');
    assert.equal(record.json.contactFirstName, 'Anna');
    assert.equal((await call(app, 'PATCH', PATH, { token: company.token, body: { GeneralEmail: 'bad' } })).status, 400);
    assert.equal((await call(app, 'PATCH', PATH, { token: company.token, body: { DisplayName: '' } })).status, 400);
    const fresh = await registeredCompany(app);
    assert.equal((await call(app, 'PATCH', PATH, { token: fresh.token, body: { DisplayName: 'x' } })).status, 400);
  });
});

describe('provider A icon', () => {
  test('accepts a square 32-bit RGBA PNG of 256 and 512 px with 202 and a Location', async () => {
    const { company } = await registered();
    for (const size of [256, 512]) {
      const answer = await call(app, 'POST', `${PATH}/icon`, { token: company.token, body: { ContentType: 'image/png', Filename: 'icon.png', Data: encodePng(size, size).toString('base64') } });
      assert.equal(answer.status, 202, answer.text);
      const icon = await app.inject({ method: 'GET', url: new URL(answer.headers.location as string).pathname, headers: { ClientToken: company.token } });
      assert.equal(icon.statusCode, 200);
      assert.equal(icon.headers['content-type'], 'image/png');
    }
  });

  test('rejects what breaks a rule with 400', async () => {
    const { company } = await registered();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['too small', { Data: encodePng(255, 255).toString('base64') }],
      ['too big', { Data: encodePng(513, 513).toString('base64') }],
      ['not square', { Data: encodePng(300, 256).toString('base64') }],
      ['no alpha', { Data: encodePng(256, 256, 2).toString('base64') }],
      ['16-bit', { Data: encodePng(256, 256, 6, 16).toString('base64') }],
      ['over 1 MB', { Data: encodePng(512, 512, 6, 8, true).toString('base64') }],
      ['not a PNG', { Data: Buffer.from('GIF89a not a png at all, padded to some length').toString('base64') }],
      ['not base64', { Data: '***' }],
      ['wrong content type', { ContentType: 'image/jpeg' }],
      ['no filename', { Filename: undefined }],
      ['no data', { Data: undefined }],
    ];
    for (const [name, overrides] of cases) {
      const body = { ContentType: 'image/png', Filename: 'icon.png', Data: encodePng(256, 256).toString('base64'), ...overrides };
      assert.equal((await call(app, 'POST', `${PATH}/icon`, { token: company.token, body })).status, 400, name);
    }
  });
});

describe('provider A lookup', () => {
  test('answers the registered subset of the SSNs sent', async () => {
    const { company } = await registered();
    const ssns = ['197001011232', '197001011240', '197001011257', '197001011265', '19700101-1273', 'garbage'];
    const answer = await call(app, 'POST', `${PATH}/lookup`, { token: company.token, body: { Ssns: [...ssns, ssns[0]] } });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json.registeredSsns, ['197001011232', '197001011240']);
    for (const ssn of answer.json.registeredSsns) assert.ok(ssns.includes(ssn));
  });

  test('400 for more than 500000 SSNs, without registration, without Ssns, and for wrong types', async () => {
    const { company } = await registered();
    const many = Array.from({ length: 500_001 }, (_, index) => `19${String(index).padStart(10, '0')}`);
    const tooMany = await call(app, 'POST', `${PATH}/lookup`, { token: company.token, body: { Ssns: many } });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.json, /500000/);
    const exactly = await call(app, 'POST', `${PATH}/lookup`, { token: company.token, body: { Ssns: many.slice(0, 500_000) } });
    assert.equal(exactly.status, 200);
    assert.equal(exactly.json.registeredSsns.length, 250_000);
    assert.equal((await call(app, 'POST', `${PATH}/lookup`, { token: company.token, body: {} })).status, 400);
    assert.equal((await call(app, 'POST', `${PATH}/lookup`, { token: company.token, body: { Ssns: [1, 2] } })).status, 400);
    const unregistered = await registeredCompany(app);
    assert.equal((await call(app, 'POST', `${PATH}/lookup`, { token: unregistered.token, body: { Ssns: ['197001011232'] } })).status, 400);
  });

  test('the registered rule is deterministic', () => {
    const listed = new Set(['197001011231']);
    assert.equal(ssnRegistered('197001011232', new Set()), true);
    assert.equal(ssnRegistered('197001011231', new Set()), false);
    assert.equal(ssnRegistered('197001011231', listed), true);
    assert.equal(ssnRegistered('700101-1232', new Set()), true);
    assert.equal(ssnRegistered('70010112a2', new Set()), false);
  });
});

describe('provider A offboarding', () => {
  test('offboard answers 200 with a Location and stops all provider A B2C invoices', async () => {
    const slow = await newSandbox({ asyncDelayMs: 200 });
    try {
      const company = await registeredCompany(slow);
      assert.equal((await call(slow, 'POST', PATH, { token: company.token, body: registration() })).status, 200);
      const uri = await upload(slow, company.token, '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>');
      const sent = await call(slow, 'POST', '/documents/outbound', {
        token: company.token,
        body: { SendDocumentAs: { Type: 'BusinessToConsumer', BusinessToConsumer: { SSN: '197001011232' } }, Document: { DocumentFormat: 'UBL', DocumentUri: uri } },
      });
      assert.equal(sent.status, 200, sent.text);
      const id = lastSegment(sent.headers.location as string);
      const offboard = await call(slow, 'POST', `${PATH}/offboard`, { token: company.token });
      assert.equal(offboard.status, 200);
      assert.ok(offboard.headers.location);
      const stopped = await waitForStatus(slow, company.token, id, ['Stopped']);
      assert.equal(stopped.currentStatus.status, 'Stopped');
      assert.equal((await call(slow, 'GET', PATH, { token: company.token })).json.status, 'Unknown');
      assert.equal((await call(slow, 'POST', `${PATH}/offboard`, { token: company.token })).status, 400);
      // Without an active B2C method, a B2C send is refused.
      const refused = await call(slow, 'POST', '/documents/outbound', {
        token: company.token,
        body: { SendDocumentAs: { Type: 'BusinessToConsumer', BusinessToConsumer: { SSN: '197001011232' } }, Document: { DocumentFormat: 'UBL', DocumentUri: uri } },
      });
      assert.equal(refused.status, 400);
    } finally {
      await slow.close();
    }
  });
});
