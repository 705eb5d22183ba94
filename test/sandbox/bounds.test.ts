import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, lastSegment, newSandbox, registeredCompany, upload, waitFor, waitForStatus, SANDBOX_API_KEY } from './helpers.ts';

function configFile(config: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dxs-sandbox-')), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const INVOICE = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>';

describe('memory bounds', () => {
  test('the oldest uploads lose their bytes past the storage cap; their download answers 410 and sending them 400', async () => {
    const app = await newSandbox({ configFile: configFile({ storageCapBytes: 1000 }) });
    try {
      const company = await registeredCompany(app);
      const first = await upload(app, company.token, INVOICE.padEnd(600, ' '));
      const sent = await call(app, 'POST', '/documents/outbound', { token: company.token, body: { SendDocumentAs: { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, Document: { DocumentFormat: 'UBL', DocumentUri: first } } });
      assert.equal(sent.status, 200);
      await upload(app, company.token, INVOICE.padEnd(600, ' '));
      const id = lastSegment(sent.headers.location as string);
      const gone = await call(app, 'GET', `/documents/outbound/download/${id}`, { token: company.token });
      assert.equal(gone.status, 410);
      assert.equal(typeof gone.json, 'string');
      const again = await call(app, 'POST', '/documents/outbound', { token: company.token, body: { SendDocumentAs: { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, Document: { DocumentFormat: 'UBL', DocumentUri: first } } });
      assert.equal(again.status, 400);
      // The document itself still progresses: its content was classified when it was sent.
      assert.equal((await waitForStatus(app, company.token, id, ['Delivered'])).documentType, 'Invoice');
    } finally {
      await app.close();
    }
  });

  test('tokens past maxTokens are forgotten oldest first', async () => {
    const app = await newSandbox({ configFile: configFile({ maxTokens: 3 }) });
    try {
      const company = await registeredCompany(app);
      const tokens: string[] = [];
      for (let index = 0; index < 3; index++) {
        tokens.push((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId } })).json.token);
      }
      assert.equal((await call(app, 'GET', '/companies/status', { token: company.token })).status, 401);
      assert.equal((await call(app, 'GET', '/companies/status', { token: tokens[2] })).status, 200);
    } finally {
      await app.close();
    }
  });

  test('companies past maxCompanies are forgotten oldest first, and so are users', async () => {
    const app = await newSandbox({ configFile: configFile({ maxCompanies: 2 }) });
    try {
      const first = await registeredCompany(app);
      await registeredCompany(app);
      await registeredCompany(app);
      assert.equal((await call(app, 'GET', '/companies/status', { token: first.token })).status, 401);
      assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: first.erpId } })).status, 400);
    } finally {
      await app.close();
    }
  });

  test('a bad config file is refused with a clear message', async () => {
    await assert.rejects(newSandbox({ configFile: configFile({ nope: 1 }) }), /unknown key "nope"/);
    await assert.rejects(newSandbox({ configFile: configFile({ deletesEnabled: 'no' }) }), /deletesEnabled/);
    await assert.rejects(newSandbox({ configFile: '/no/such/file.json' }), /cannot read config file/);
  });
});

describe('variants and faults that change the background work', () => {
  test('skip-statuses goes from Pending straight to Sent and Delivered', async () => {
    const app = await newSandbox({ variants: ['skip-statuses'] });
    try {
      const company = await registeredCompany(app);
      const sent = await call(app, 'POST', '/documents/outbound', { token: company.token, body: { SendDocumentAs: { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, Document: { DocumentFormat: 'UBL', DocumentUri: await upload(app, company.token, INVOICE) } } });
      const document = await waitForStatus(app, company.token, lastSegment(sent.headers.location as string), ['Delivered']);
      assert.deepEqual(document.statusHistory.map((entry: { status: string }) => entry.status), ['Pending', 'Sent', 'Delivered']);
      assert.equal(document.documentType, 'Invoice');
    } finally {
      await app.close();
    }
  });

  test('the revoked-token-accepted and never-registered faults are switched by name', async () => {
    const app = await newSandbox({ faults: ['revoked-token-accepted', 'never-registered'] });
    try {
      const input = { ErpId: 'fault-1', ErpProduct: 'x', Name: 'x', Email: 'a@example.com', CountryCode: 'SE', OrgNo: '5566778899' };
      assert.equal((await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: input })).status, 202);
      const token = (await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: 'fault-1' } })).json.token;
      await call(app, 'POST', '/clienttokens/revoke', { apiKey: SANDBOX_API_KEY, body: { ClientToken: token } });
      const status = await waitFor(async () => {
        const answer = await call(app, 'GET', '/companies/status', { token });
        return answer.status === 200 ? answer.json : undefined;
      });
      assert.equal(status.status, 'Pending');
    } finally {
      await app.close();
    }
  });
});
