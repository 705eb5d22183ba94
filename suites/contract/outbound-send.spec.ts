// Contract of the send: POST /documents/outbound (JSON), with each SendDocumentAs type.
import type { SendDocumentInput } from '../../fixtures/bodies.ts';
import { fixtureFile } from '../../fixtures/index.ts';
import { checks, expectCheck, observe, tags, type ApiResponse } from '../support/index.ts';
import { currentStatusOf, fact, FINAL_STATUSES, isUuid, pollStatus, refusedForUnregisteredSsn, sendableSsn, sendDocument, UNKNOWN_DOCUMENT_ID, uploadAndSend, uploadFile } from '../support/outbound.ts';
import { test } from '../support/index.ts';

const { statusIs, bodyIsEmpty, isRejected, locationEndsWithUuid, notServerError } = checks;

/** The document reached delivery (Sent or Delivered) — what a refused send must never do. */
const DELIVERED = ['Sent', 'Delivered'];

function documentIdIsUuid(response: ApiResponse, documentId: string | undefined) {
  return fact('DocumentId of the Location', isUuid(documentId), 'the last path segment of Location is a uuid', `Location: ${response.headers['location'] ?? '(none)'}`);
}

test.describe('send', () => {
  test('sending electronically answers 200 with no body and a Location whose last segment is the DocumentId', { tag: tags('outbound', 'OUT-SEND-01', 'OUT-SEND-02', 'OUT-SEND-03', 'OUT-SEND-06', 'OUT-SEND-10', 'OUT-SEND-14', 'OUT-SEND-17', 'OUT-SEND-19') }, async ({ api, fixtures, registeredCompany, outboundRecipient }) => {
    const { response, documentId } = await uploadAndSend(api, fixtures, registeredCompany.token, 'Electronic', { recipient: outboundRecipient, sender: registeredCompany });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-01' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-19' });
    await expectCheck(response, [bodyIsEmpty], { requirement: 'OUT-SEND-02' });
    await expectCheck(response, [locationEndsWithUuid, documentIdIsUuid(response, documentId)], { requirement: 'OUT-SEND-03' });
    // The fixture's body carries Electronic.RecipientId, RecipientInformation (all six strings) and Language and Culture sv-SE (both in culture form, as the spec writes them).
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-10' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-14' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-17' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-06' });
  });

  test('sending as PDF with the Pdf object answers 200', { tag: tags('outbound', 'OUT-SEND-06', 'OUT-SEND-09') }, async ({ api, fixtures, registeredCompany }) => {
    const { response, documentId } = await uploadAndSend(api, fixtures, registeredCompany.token, 'PDF', { sender: registeredCompany });
    await expectCheck(response, [statusIs(200), locationEndsWithUuid, documentIdIsUuid(response, documentId)], { requirement: 'OUT-SEND-09' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-06' });
  });

  test('sending on Paper with RecipientAddress and ReturnAddress answers 200', { tag: tags('outbound', 'OUT-SEND-06', 'OUT-SEND-08') }, async ({ api, fixtures, registeredCompany }) => {
    const { response, documentId } = await uploadAndSend(api, fixtures, registeredCompany.token, 'Paper', {
      sender: registeredCompany,
      // Every string of the address objects, Department and PostBox included.
      edit: (body) => {
        const paper = body.SendDocumentAs.Paper!;
        paper.RecipientAddress = { ...paper.RecipientAddress, Department: 'Ekonomi', PostBox: 'Box 1234' };
        paper.ReturnAddress = { ...paper.ReturnAddress, Department: 'Fakturering', PostBox: 'Box 42' };
      },
    });
    await expectCheck(response, [statusIs(200), locationEndsWithUuid, documentIdIsUuid(response, documentId)], { requirement: 'OUT-SEND-08' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-06' });
  });

  test('sending BusinessToConsumer with an SSN and no Provider answers 200 when only provider A is active', { tag: tags('provider-a', 'OUT-SEND-06', 'OUT-SEND-12', 'OUT-SEND-13') }, async ({ api, fixtures, b2cSender }) => {
    const sendable = await sendableSsn(api, fixtures, b2cSender.token);
    const { response, documentId } = await uploadAndSend(api, fixtures, b2cSender.token, 'BusinessToConsumer', { sender: b2cSender, ssn: sendable.ssn });
    if (refusedForUnregisteredSsn(sendable, response)) {
      await observe('OUT-SEND-12', `no SSN of the lookup is registered with provider A at this target, and a send to an unregistered one answered ${response.status}`, response);
      return;
    }
    await expectCheck(response, [statusIs(200), locationEndsWithUuid, documentIdIsUuid(response, documentId)], { requirement: 'OUT-SEND-12' });
    // The fixture sends no Provider unless asked for one.
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-13' });
    await expectCheck(response, [statusIs(200)], { requirement: 'OUT-SEND-06' });
  });

  test('BusinessToConsumer without an active delivery method is refused or never delivered', { tag: tags('outbound', 'OUT-SEND-11') }, async ({ api, fixtures, registeredCompany, target }) => {
    const { response, documentId } = await uploadAndSend(api, fixtures, registeredCompany.token, 'BusinessToConsumer', { sender: registeredCompany, ssn: fixtures.ssns(1)[0] });
    if (documentId === undefined) {
      await expectCheck(response, [isRejected], { requirement: 'OUT-SEND-11' });
      return;
    }
    // Accepted: then it must not reach delivery (polled until a final status, bounded).
    const poll = await pollStatus(api, target, registeredCompany.token, documentId, (data) => FINAL_STATUSES.includes(currentStatusOf(data) ?? '') || DELIVERED.includes(currentStatusOf(data) ?? ''));
    const reachedDelivery = poll.reads.some((read) => DELIVERED.includes(read.status ?? '') || read.history.some((status) => DELIVERED.includes(status)));
    await expectCheck(poll.last, [fact('never delivered', !reachedDelivery, 'a refusal (4xx), or a document that never reaches Sent or Delivered', `accepted; statuses seen: ${poll.seen.join(' -> ')}`)], { requirement: 'OUT-SEND-11' });
  });

  test('sending without ErpDocumentId answers 200', { tag: tags('outbound', 'OUT-SEND-15') }, async ({ api, fixtures, registeredCompany }) => {
    const { response } = await uploadAndSend(api, fixtures, registeredCompany.token, 'PDF', { edit: (body) => delete body.Document.ErpDocumentId });
    await expectCheck(response, [statusIs(200), locationEndsWithUuid], { requirement: 'OUT-SEND-15' });
  });

  test('a rendered PDF and two attachments, each uploaded separately, are accepted', { tag: tags('outbound', 'OUT-SEND-16', 'OUT-SEND-18') }, async ({ api, fixtures, registeredCompany }) => {
    const token = registeredCompany.token;
    const rendered = await uploadFile(api, token, 'small.pdf');
    const attachments = [await uploadFile(api, token, 'small.pdf'), await uploadFile(api, token, 'order.xml')];
    await expectCheck(rendered.response, [statusIs(202)], { requirement: 'OUT-SEND-16' });
    const withRendition = await uploadAndSend(api, fixtures, token, 'PDF', {
      edit: (body) => Object.assign(body.Document, { RenderedDocumentFormat: 'application/pdf', RenderedDocumentUri: rendered.reference }),
    });
    await expectCheck(withRendition.response, [statusIs(200), locationEndsWithUuid], { requirement: 'OUT-SEND-16' });
    const withAttachments = await uploadAndSend(api, fixtures, token, 'PDF', {
      edit: (body) => {
        body.Document.Attachments = attachments.map((upload) => upload.reference ?? '');
      },
    });
    await expectCheck(withAttachments.response, [statusIs(200), locationEndsWithUuid], { requirement: 'OUT-SEND-18' });
  });
});

test.describe('send refusals', () => {
  const cases: Array<[string, string, (body: SendDocumentInput) => void]> = [
    ['without Document.DocumentFormat', 'OUT-SEND-04', (body) => delete (body.Document as Partial<SendDocumentInput['Document']>).DocumentFormat],
    ['without Document.DocumentUri', 'OUT-SEND-05', (body) => delete (body.Document as Partial<SendDocumentInput['Document']>).DocumentUri],
    ['with SendDocumentAs.Type outside the four values', 'OUT-SEND-07', (body) => ((body.SendDocumentAs as { Type: string }).Type = 'Pigeon')],
  ];
  for (const [what, requirement, edit] of cases) {
    test(`a send ${what} is rejected`, { tag: tags('outbound', requirement, 'OUT-SEND-24') }, async ({ api, fixtures, registeredCompany }) => {
      const { response } = await uploadAndSend(api, fixtures, registeredCompany.token, 'PDF', { edit });
      await expectCheck(response, [notServerError], { requirement: 'OUT-SEND-24' });
      await expectCheck(response, [isRejected], { requirement });
    });
  }

  test('send without credentials is rejected', { tag: tags('outbound', 'OUT-SEND-22') }, async ({ api, fixtures, registeredCompany }) => {
    const upload = await uploadFile(api, registeredCompany.token, 'invoice.xml');
    const response = await api.post('/documents/outbound', { auth: 'none', json: fixtures.sendDocument('PDF', { documentUri: upload.reference ?? 'urn:dxs:none' }) });
    await expectCheck(response, [isRejected], { requirement: 'OUT-SEND-22' });
  });

  test("one company cannot send a document another company uploaded", { tag: tags('outbound', 'OUT-SEND-23') }, async ({ api, fixtures, registeredCompany, otherCompany, target }) => {
    const upload = await uploadFile(api, registeredCompany.token, 'invoice.xml');
    const { response, documentId } = await sendDocument(api, otherCompany.token, fixtures.sendDocument('PDF', { documentUri: upload.reference ?? '' }));
    if (documentId === undefined) {
      await expectCheck(response, [isRejected], { requirement: 'OUT-SEND-23' });
      return;
    }
    const poll = await pollStatus(api, target, otherCompany.token, documentId);
    const delivered = poll.reads.some((read) => read.status === 'Delivered' || read.history.includes('Delivered'));
    await expectCheck(poll.last, [fact('never delivered', !delivered, 'a refusal (4xx), or a document that never gets delivered', `accepted; statuses seen: ${poll.seen.join(' -> ')}`)], { requirement: 'OUT-SEND-23' });
  });

  test('malformed JSON, wrong types and an oversized body on send give no server error', { tag: tags('outbound', 'OUT-SEND-24') }, async ({ api, fixtures, registeredCompany }) => {
    const auth = { clientToken: registeredCompany.token };
    const upload = await uploadFile(api, registeredCompany.token, 'invoice.xml');
    const valid = fixtures.sendDocument('PDF', { documentUri: upload.reference ?? '' });
    const truncated = await api.post('/documents/outbound', { auth, rawBody: JSON.stringify(valid).slice(0, 40), contentType: 'application/json' });
    await expectCheck(truncated, [notServerError], { requirement: 'OUT-SEND-24' });
    const sendAsString = await api.post('/documents/outbound', { auth, json: { ...valid, SendDocumentAs: 'PDF' } });
    await expectCheck(sendAsString, [notServerError], { requirement: 'OUT-SEND-24' });
    const attachmentsAsObject = await api.post('/documents/outbound', { auth, json: { ...valid, Document: { ...valid.Document, Attachments: { first: upload.reference } } } });
    await expectCheck(attachmentsAsObject, [notServerError], { requirement: 'OUT-SEND-24' });
    const oversized = await api.post('/documents/outbound', { auth, json: { ...valid, Padding: 'x'.repeat(5 * 1024 * 1024) } });
    await expectCheck(oversized, [notServerError], { requirement: 'OUT-SEND-24' });
  });
});

test.describe('send observations', () => {
  test('the answer to a DocumentUri that was never uploaded is recorded', { tag: tags('outbound', 'OUT-SEND-20', 'OUT-SEND-24') }, async ({ api, fixtures, registeredCompany, target }) => {
    const body = fixtures.sendDocument('PDF', { documentUri: `urn:dxs:document:${UNKNOWN_DOCUMENT_ID}` });
    const { response, documentId } = await sendDocument(api, registeredCompany.token, body);
    await expectCheck(response, [notServerError], { requirement: 'OUT-SEND-24' });
    if (documentId === undefined) {
      await observe('OUT-SEND-20', `send with a DocumentUri that was never uploaded answered ${response.status}`, response);
      return;
    }
    const poll = await pollStatus(api, target, registeredCompany.token, documentId);
    await observe('OUT-SEND-20', `send with a DocumentUri that was never uploaded answered ${response.status}; statuses seen: ${poll.seen.join(' -> ')}`, poll.last);
  });

  test('what POST /documents/outbound does with a small document posted directly as multipart is recorded', { tag: tags('outbound', 'OUT-SEND-21') }, async ({ api, fixtures, registeredCompany }) => {
    // The variant is not shown, so its form is a guess: the send request as a JSON part beside the
    // file. Whatever the target answers is recorded; only a 5xx, an answer to client input, fails.
    const file = fixtureFile('invoice.xml');
    const body = fixtures.sendDocument('PDF', { documentUri: 'File', documentFormat: file.documentFormat });
    const response = await api.post('/documents/outbound', {
      auth: { clientToken: registeredCompany.token },
      multipart: { Request: JSON.stringify(body), File: { name: 'invoice.xml', mimeType: file.contentType, buffer: file.bytes } },
    });
    await expectCheck(response, [notServerError], { requirement: 'OUT-SEND-21' });
    await observe('OUT-SEND-21', `POST /documents/outbound as multipart (a Request JSON part and a File part) answered ${response.status}`, response);
  });
});
