import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { call, companyInput, lastSegment, multipart, newSandbox, registeredCompany, upload, waitForStatus, SANDBOX_API_KEY, type TestCompany } from './helpers.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/files/${name}`, import.meta.url));
const INVOICE = fixture('invoice.xml');
const ORDER = fixture('order.xml');
const UNCONVERTIBLE = fixture('unconvertible.xml');
const PDF = fixture('small.pdf');

let app: FastifyInstance;
let sender: TestCompany;
let receiver: TestCompany;
before(async () => {
  app = await newSandbox();
  sender = await registeredCompany(app);
  receiver = await registeredCompany(app, { GLN: '7399999999999' });
});
after(async () => {
  await app.close();
});

async function send(token: string, sendDocumentAs: Record<string, unknown>, document: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return call(app, 'POST', '/documents/outbound', { token, body: { SendDocumentAs: sendDocumentAs, Document: document, ...extra } });
}

describe('upload', () => {
  test('answers 202 with no body and a URN Location that ends in a uuid', async () => {
    const body = multipart([{ name: 'File', filename: 'invoice.xml', contentType: 'application/xml', content: INVOICE }]);
    const answer = await call(app, 'POST', '/documents', { token: sender.token, payload: body.payload, headers: body.headers });
    assert.equal(answer.status, 202);
    assert.equal(answer.text, '');
    assert.match(answer.headers.location as string, /^urn:dxs:document:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test('rejects a body without a File part, a JSON body, and no token', async () => {
    const noFile = multipart([{ name: 'Other', filename: 'x.xml', content: 'x' }]);
    assert.equal((await call(app, 'POST', '/documents', { token: sender.token, payload: noFile.payload, headers: noFile.headers })).status, 400);
    assert.equal((await call(app, 'POST', '/documents', { token: sender.token, body: { File: 'x' } })).status, 415);
    const body = multipart([{ name: 'File', filename: 'x.xml', content: 'x' }]);
    assert.equal((await call(app, 'POST', '/documents', { payload: body.payload, headers: body.headers })).status, 401);
  });

  test('a file over the limit gets 413', async () => {
    const body = multipart([{ name: 'File', filename: 'big.bin', content: Buffer.alloc(20 * 1024 * 1024 + 10) }]);
    assert.equal((await call(app, 'POST', '/documents', { token: sender.token, payload: body.payload, headers: body.headers })).status, 413);
  });
});

describe('send and status', () => {
  test('a PDF send goes from Pending to Delivered; DocumentType turns from Document into Invoice', async () => {
    const uri = await upload(app, sender.token, INVOICE);
    const erpDocumentId = `inv-${Date.now()}`;
    const sent = await send(sender.token, { Type: 'PDF', Pdf: { RecipientEmail: 'buyer@example.com' } }, { DocumentFormat: 'UBL', DocumentUri: uri, ErpDocumentId: erpDocumentId });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.text, '');
    const documentId = lastSegment(sent.headers.location as string);
    const first = await call(app, 'GET', `/invoices/outbound/${documentId}`, { token: sender.token });
    assert.equal(first.status, 200);
    assert.equal(first.json.id, documentId);
    assert.equal(first.json.statusHistory[0].status, 'Pending');
    const delivered = await waitForStatus(app, sender.token, documentId, ['Delivered']);
    assert.deepEqual(delivered.statusHistory.map((entry: { status: string }) => entry.status), ['Pending', 'PendingInPlatform', 'Converting', 'ConversionComplete', 'Sent', 'Delivered']);
    assert.equal(delivered.documentType, 'Invoice');
    assert.equal(delivered.erpDocumentId, erpDocumentId);
    for (const entry of delivered.statusHistory) assert.ok(!Number.isNaN(Date.parse(entry.time)));
    const byErpId = await call(app, 'GET', `/invoices/outbound/byerpid/${erpDocumentId}`, { token: sender.token, query: { IncludeFileInfo: 'true' } });
    assert.equal(byErpId.status, 200);
    assert.equal(byErpId.json.id, documentId);
    const downloadUrl = new URL(byErpId.json.fileInfo.files[0].downloadUrl);
    const downloaded = await app.inject({ method: 'GET', url: downloadUrl.pathname, headers: { ClientToken: sender.token } });
    assert.equal(downloaded.statusCode, 200);
    assert.deepEqual(downloaded.rawPayload, INVOICE);
    assert.equal((await call(app, 'GET', '/invoices/outbound/byerpid/unknown-id', { token: sender.token })).status, 404);
  });

  test('an order gets DocumentType Order; an unconvertible document ends in ConversionFailed with a localised ErrorInfo', async () => {
    const order = await send(sender.token, { Type: 'Paper', Paper: { RecipientAddress: { Name: 'Buyer', City: 'Lund' } } }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, ORDER) });
    assert.equal(order.status, 200);
    assert.equal((await waitForStatus(app, sender.token, lastSegment(order.headers.location as string), ['Delivered'])).documentType, 'Order');
    const failed = await send(sender.token, { Type: 'PDF', Pdf: { RecipientEmail: 'buyer@example.com' } }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, UNCONVERTIBLE) });
    const id = lastSegment(failed.headers.location as string);
    const document = await waitForStatus(app, sender.token, id, ['ConversionFailed']);
    assert.equal(document.error.status, 'ConversionFailed');
    assert.match(document.error.message, /NotADocument/);
    assert.ok('moreInfoUri' in document.error);
    const swedish = await call(app, 'GET', `/documents/outbound/${id}`, { token: sender.token, headers: { 'Accept-Language': 'sv-SE,sv;q=0.9' } });
    assert.match(swedish.json.error.message, /kunde inte konverteras/);
    const broken = await send(sender.token, { Type: 'PDF', Pdf: { RecipientEmail: 'b@example.com' } }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, '<Invoice><a></Invoice>') });
    assert.equal((await waitForStatus(app, sender.token, lastSegment(broken.headers.location as string), ['ConversionFailed'])).documentType, 'Document');
  });

  test('send validates SendDocumentAs, Document and the upload reference', async () => {
    const uri = await upload(app, sender.token, PDF, 'invoice.pdf', 'application/pdf');
    const document = { DocumentFormat: 'PDF', DocumentUri: uri };
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ Type: 'Fax' }, document],
      [{}, document],
      [{ Type: 'PDF' }, document],
      [{ Type: 'PDF', Pdf: { RecipientEmail: 'nope' } }, document],
      [{ Type: 'Paper' }, document],
      [{ Type: 'Electronic' }, document],
      [{ Type: 'Electronic', Electronic: { RecipientId: 7 } }, document],
      [{ Type: 'BusinessToConsumer', BusinessToConsumer: { SSN: '197001011234' } }, document],
      [{ Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, { DocumentUri: uri }],
      [{ Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, { DocumentFormat: 'PDF' }],
      [{ Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, { DocumentFormat: 'PDF', DocumentUri: 'urn:dxs:document:00000000-0000-4000-8000-000000000000' }],
      [{ Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, { ...document, Attachments: ['nope'] }],
    ];
    for (const [sendAs, doc] of cases) {
      const answer = await send(sender.token, sendAs, doc);
      assert.equal(answer.status, 400, JSON.stringify([sendAs, doc]));
      assert.equal(typeof answer.json, 'string');
    }
    // Another company's upload cannot be sent.
    const other = await send(receiver.token, { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, document);
    assert.equal(other.status, 400);
    assert.equal((await send(sender.token, { type: 'pdf', pdf: { recipientEmail: 'a@example.com' } }, { documentFormat: 'PDF', documentUri: uri })).status, 200);
  });

  test('status by id: 400 for a non-uuid, 404 for unknown, another company\'s document, and no token', async () => {
    assert.equal((await call(app, 'GET', '/documents/outbound/not-a-uuid', { token: sender.token })).status, 400);
    assert.equal((await call(app, 'GET', '/documents/outbound/00000000-0000-4000-8000-000000000000', { token: sender.token })).status, 404);
    const sent = await send(sender.token, { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, INVOICE) });
    const id = lastSegment(sent.headers.location as string);
    assert.equal((await call(app, 'GET', `/documents/outbound/${id}`, { token: receiver.token })).status, 404);
    assert.equal((await call(app, 'GET', `/documents/outbound/download/${id}`, { token: receiver.token })).status, 404);
    assert.equal((await call(app, 'GET', `/documents/outbound/${id}`)).status, 401);
    assert.equal((await call(app, 'GET', `/documents/outbound/${id}`, { token: sender.token, query: { IncludeFileInfo: 'maybe' } })).status, 400);
  });

  test('the outbound list pages in creation order and filters by dates', async () => {
    const company = await registeredCompany(app);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const sent = await send(company.token, { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, company.token, INVOICE) });
      ids.push(lastSegment(sent.headers.location as string));
    }
    const page = await call(app, 'POST', '/documents/outbound/list', { token: company.token, body: { Take: 2, Skip: 1 } });
    assert.equal(page.status, 200);
    assert.equal(page.json.total, 3);
    assert.deepEqual(page.json.documents.map((document: { id: string }) => document.id), ids.slice(1));
    const none = await call(app, 'POST', '/documents/outbound/list', { token: company.token, body: { CreatedFrom: new Date(Date.now() + 60_000).toISOString() } });
    assert.equal(none.json.total, 0);
    for (const body of [{ Take: -1 }, { Take: 'ten' }, { CreatedTo: 'yesterday' }]) {
      assert.equal((await call(app, 'POST', '/documents/outbound/list', { token: company.token, body })).status, 400);
    }
  });
});

describe('electronic routing and the inbox', () => {
  test('an Electronic send to another sandbox company arrives in its inbox; handled and sequenceNo rules', async () => {
    const inbox = await registeredCompany(app, { GLN: `73${String(Date.now()).slice(-11)}` });
    const before = await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'invoice' } });
    assert.equal(before.status, 200);
    assert.equal(before.json.total, 0);
    const first = await send(sender.token, { Type: 'Electronic', Electronic: { RecipientId: inbox.input.GLN } }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, INVOICE, 'first.xml') });
    const second = await send(sender.token, { Type: 'Electronic' }, { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, INVOICE, 'second.xml') }, { RecipientInformation: { OrgNo: inbox.input.OrgNo } });
    await waitForStatus(app, sender.token, lastSegment(first.headers.location as string), ['Delivered']);
    await waitForStatus(app, sender.token, lastSegment(second.headers.location as string), ['Delivered']);
    const listed = await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'invoice' } });
    assert.equal(listed.json.total, 2);
    const [one, two] = listed.json.documents;
    assert.equal(one.documentType, 'Invoice');
    assert.equal(one.companyId, inbox.companyId);
    assert.ok(two.sequenceNo > one.sequenceNo);

    const downloaded = await call(app, 'GET', `/documents/${one.id}`, { token: inbox.token });
    assert.equal(downloaded.status, 200);
    assert.deepEqual(downloaded.raw, INVOICE);
    assert.match(downloaded.headers['content-disposition'] as string, /first\.xml/);
    assert.equal(downloaded.headers['x-filename'], 'first.xml');
    assert.equal(downloaded.headers['x-document-format'], 'UBL');
    const info = await call(app, 'GET', `/documents/${one.id}/info`, { token: inbox.token });
    assert.equal(info.status, 200);
    assert.equal(info.json.id, one.id);
    assert.equal(new URL(info.json.documentUrl).pathname, new URL(one.downloadUrl).pathname);
    assert.deepEqual(info.json.attachments, []);

    assert.equal((await call(app, 'POST', '/documents/handled', { token: inbox.token, body: { documents: [one.id] } })).status, 200);
    const unhandled = await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'invoice' } });
    assert.deepEqual(unhandled.json.documents.map((document: { id: string }) => document.id), [two.id]);
    // With sequenceNo the handled flag is ignored and only later documents are listed.
    const fromZero = await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'invoice', sequenceNo: '0' } });
    assert.deepEqual(fromZero.json.documents.map((document: { id: string }) => document.id), [one.id, two.id]);
    const afterOne = await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'invoice', sequenceNo: String(one.sequenceNo) } });
    assert.deepEqual(afterOne.json.documents.map((document: { id: string }) => document.id), [two.id]);
    assert.equal((await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'order' } })).json.total, 0);

    // Cross-company isolation: the sender cannot read, download or mark the receiver's documents.
    assert.equal((await call(app, 'GET', `/documents/${two.id}`, { token: sender.token })).status, 404);
    assert.equal((await call(app, 'GET', `/documents/${two.id}/info`, { token: sender.token })).status, 404);
    assert.equal((await call(app, 'POST', '/documents/handled', { token: sender.token, body: { documents: [two.id] } })).status, 404);
    assert.equal((await call(app, 'GET', '/documents/incoming', { token: sender.token, query: { sequenceNo: '0' } })).json.documents.some((document: { id: string }) => document.id === two.id), false);
  });

  test('inbox input errors are 4xx', async () => {
    assert.equal((await call(app, 'GET', '/documents/incoming', { token: receiver.token, query: { type: 'fax' } })).status, 400);
    assert.equal((await call(app, 'GET', '/documents/incoming', { token: receiver.token, query: { sequenceNo: '-1' } })).status, 400);
    assert.equal((await call(app, 'GET', '/documents/incoming')).status, 401);
    assert.equal((await call(app, 'POST', '/documents/handled', { token: receiver.token, body: {} })).status, 400);
    assert.equal((await call(app, 'POST', '/documents/handled', { token: receiver.token, body: { documents: 'x' } })).status, 400);
    assert.equal((await call(app, 'GET', '/documents/00000000-0000-4000-8000-000000000000', { token: receiver.token })).status, 404);
  });
});

describe('network', () => {
  test('buyer and seller lookup: PartyId required, capability fields per party type, exact hit by identifier', async () => {
    const company = await registeredCompany(app, { Processes: ['ReceiveInvoices', 'SendOrders'] });
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { token: sender.token, body: { Name: 'x' } })).status, 400);
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { body: { PartyId: '1' } })).status, 401);
    const buyer = await call(app, 'POST', '/buyerparties/lookup', { token: sender.token, body: { PartyId: '1', OrgNo: company.input.OrgNo } });
    assert.equal(buyer.status, 200);
    assert.equal(buyer.json.potentialMatches, 1);
    assert.equal(buyer.json.exactHit, true);
    const party = buyer.json.parties[0];
    assert.equal(party.companyId, company.companyId);
    assert.equal(party.connected, true);
    assert.equal(party.receiveElectronicInvoiceCapability, 'ReceivesElectronicInvoices');
    assert.equal(party.sendsElectronicOrderCapability, 'SendsElectronicOrders');
    assert.equal('sendsElectronicInvoiceCapability' in party, false);
    const seller = await call(app, 'POST', '/sellerparties/lookup', { token: sender.token, body: { PartyId: '1', Name: 'nordic', PaymentMeans: [{ Iban: 'SE00' }] } });
    assert.equal(seller.status, 200);
    assert.ok(seller.json.potentialMatches > 1);
    assert.equal(seller.json.exactHit, false);
    assert.ok('sendsElectronicInvoiceCapability' in seller.json.parties[0]);
    assert.ok('receiveElectronicOrderCapability' in seller.json.parties[0]);
    assert.equal((await call(app, 'POST', '/sellerparties/lookup', { token: sender.token, body: { PartyId: '1', PaymentMeans: 'x' } })).status, 400);
  });

  test('search tokens serve lookups', async () => {
    const created = await call(app, 'POST', '/clienttokens/createsearchtoken', { apiKey: SANDBOX_API_KEY, body: { SearchId: 'install-1' } });
    assert.equal((await call(app, 'POST', '/buyerparties/lookup', { token: created.json.token, body: { PartyId: 'p1', CountryCode: 'SE' } })).status, 200);
  });

  test('network setup: 202 with RequestId; 400 on an invalid feedback e-mail; empty feedback is fine', async () => {
    const ok = await call(app, 'POST', '/network/setup', { token: sender.token, body: { Name: 'New AB', OrgNo: '5560000000', Processes: ['ReceiveInvoices'], NetworkSetupFeedbackEmail: 'f@example.com', Operator: { Name: 'Op' } } });
    assert.equal(ok.status, 202);
    assert.match(ok.json.requestId, /^[0-9a-f-]{36}$/);
    assert.equal((await call(app, 'POST', '/network/setup', { token: sender.token, body: { Name: 'New AB', NetworkSetupFeedbackEmail: '' } })).status, 202);
    assert.equal((await call(app, 'POST', '/network/setup', { token: sender.token, body: { Name: 'New AB', NetworkSetupFeedbackEmail: 'not-an-email' } })).status, 400);
    assert.equal((await call(app, 'POST', '/network/setup', { token: sender.token, body: { Processes: ['Fax'] } })).status, 400);
    assert.equal((await call(app, 'POST', '/network/setup', { body: {} })).status, 401);
  });
});

describe('engine', () => {
  test('close cancels pending background work', async () => {
    const slow = await newSandbox({ asyncDelayMs: 60_000 });
    const company = await call(slow, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: companyInput() });
    assert.equal(company.status, 202);
    await slow.close();
  });
});
