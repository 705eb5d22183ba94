// The faults of issue 35 that only a load run's history shows (sandbox/faults.ts): each does what it
// says, deterministically, so that dxs load's kill rows rest on a known deviation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { call, lastSegment, newSandbox, registeredCompany, upload, waitForStatus, type TestCompany } from './helpers.ts';

const INVOICE = readFileSync(new URL('../../fixtures/files/invoice.xml', import.meta.url));

interface Exchange {
  app: FastifyInstance;
  receiver: TestCompany;
}

/** A sandbox with the fault, and `count` invoices sent electronically from one company to another, all Delivered. */
async function exchange(fault: string, count: number): Promise<Exchange> {
  const app = await newSandbox({ faults: [fault] });
  const sender = await registeredCompany(app);
  const receiver = await registeredCompany(app, { GLN: '7399999999999' });
  for (let index = 0; index < count; index++) {
    const uri = await upload(app, sender.token, INVOICE, `invoice-${index}.xml`);
    const sent = await call(app, 'POST', '/documents/outbound', { token: sender.token, body: { SendDocumentAs: { Type: 'Electronic', Electronic: { RecipientId: receiver.companyId } }, Document: { DocumentFormat: 'UBL', DocumentUri: uri } } });
    assert.equal(sent.status, 200, sent.text);
    // One at a time: the faults count deliveries in the order they happen.
    await waitForStatus(app, sender.token, lastSegment(sent.headers.location as string), ['Delivered']);
  }
  return { app, receiver };
}

async function list(context: Exchange, sequenceNo?: number): Promise<Array<{ id: string; sequenceNo: number }>> {
  const query: Record<string, string> = { type: 'invoice' };
  if (sequenceNo !== undefined) query.sequenceNo = String(sequenceNo);
  const answer = await call(context.app, 'GET', '/documents/incoming', { token: context.receiver.token, query });
  assert.equal(answer.status, 200, answer.text);
  return answer.json.documents;
}

test('inbound-list-lossy: of ten deliveries one never shows, with or without sequenceNo', async () => {
  const context = await exchange('inbound-list-lossy', 10);
  try {
    assert.equal((await list(context)).length, 9);
    assert.equal((await list(context, 0)).length, 9);
  } finally {
    await context.app.close();
  }
});

test('inbound-list-lossy-total: of ten deliveries one never shows, with or without sequenceNo, while Total still counts it', async () => {
  const context = await exchange('inbound-list-lossy-total', 10);
  try {
    for (const sequenceNo of [undefined, 0]) {
      const query: Record<string, string> = { type: 'invoice', ...(sequenceNo === undefined ? {} : { sequenceNo: String(sequenceNo) }) };
      const answer = await call(context.app, 'GET', '/documents/incoming', { token: context.receiver.token, query });
      assert.equal(answer.json.documents.length, 9);
      assert.equal(answer.json.total, 10);
    }
  } finally {
    await context.app.close();
  }
});

test('inbound-delivered-twice: ten sends arrive as eleven documents', async () => {
  const context = await exchange('inbound-delivered-twice', 10);
  try {
    assert.equal(new Set((await list(context)).map((entry) => entry.id)).size, 11);
  } finally {
    await context.app.close();
  }
});

test('inbound-list-duplicate: an answer shows its first document twice', async () => {
  const context = await exchange('inbound-list-duplicate', 2);
  try {
    const ids = (await list(context)).map((entry) => entry.id);
    assert.equal(ids.length, 3);
    assert.equal(ids[2], ids[0]);
  } finally {
    await context.app.close();
  }
});

test('inbound-sequenceno-repeated: the second document delivered takes the SequenceNo of the first', async () => {
  const context = await exchange('inbound-sequenceno-repeated', 2);
  try {
    const [first, second] = await list(context);
    assert.notEqual(first.id, second.id);
    assert.equal(first.sequenceNo, second.sequenceNo);
  } finally {
    await context.app.close();
  }
});

test('handled-comes-back: marked, then downloaded, a document shows again in every other list without sequenceNo', async () => {
  const context = await exchange('handled-comes-back', 1);
  try {
    const [entry] = await list(context);
    assert.equal((await call(context.app, 'POST', '/documents/handled', { token: context.receiver.token, body: { documents: [entry.id] } })).status, 200);
    // Marked but not fetched since: gone from both lists that follow.
    assert.deepEqual([(await list(context)).length, (await list(context)).length], [0, 0]);
    assert.equal((await call(context.app, 'GET', `/documents/${entry.id}`, { token: context.receiver.token })).status, 200);
    const shown = [(await list(context)).length, (await list(context)).length];
    assert.deepEqual(shown.sort(), [0, 1]);
  } finally {
    await context.app.close();
  }
});
