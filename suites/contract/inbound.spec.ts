// Contract of the inbound endpoints: GET /documents/incoming, GET /documents/{id},
// GET /documents/{id}/info and POST /documents/handled. The documents are real deliveries: an
// electronic invoice from registeredCompany (A) to recipientCompany (B), both registered by this run.
// The handled rules 1-3 are checked in suites/scenarios/electronic-routing.spec.ts.
import { randomUUID } from 'node:crypto';
import type { Check } from '../../lib/checks.ts';
import { BACKGROUND_CHAIN_TAG, checks, expectCheck, observe, schema, schemaTypes, tags, type ApiResponse } from '../support/index.ts';
import {
  deliverInvoice, download, entriesOf, INCOMING_PATH, listIncoming, listed, markHandled, pageLeavesOpen, registerReceivingCompany, unmarkedListFor, walkIncoming, wholeAnswer, type IncomingWalk,
} from '../support/inbound.ts';
import { registerCompany } from '../support/companies.ts';
import { asReadBy } from '../support/isolation.ts';
import { test } from '../support/index.ts';
import { followGivenUrl } from '../support/target-urls.ts';

const { statusIs, isRejected, isSuccess, notServerError, bodyIsEmpty, hasHeader, isClientError } = checks;

const bodyNotEmpty: Check = (response) => ({
  check: 'bodyNotEmpty', ok: (response.size ?? 0) > 0, expected: 'a non-empty document', actual: `${response.size ?? 0} bytes`, severity: 'failure',
});

function sameBytesAs(reference: ApiResponse): Check {
  return (response) => {
    const body = (response as ApiResponse).body;
    return { check: 'sameBytes', ok: body !== undefined && Buffer.compare(reference.body, body) === 0, expected: `the ${reference.size} bytes of GET /documents/{id}`, actual: `${response.size ?? 0} bytes`, severity: 'failure' };
  };
}

/**
 * The check that no answer of a walk with sequenceNo (every document of the reader, marked or not,
 * page after page) lists the document; where the walk could not cover all the first answer counted,
 * that is recorded: a leak beyond the pages read is not seen.
 */
async function walkOmits(walk: IncomingWalk, id: string, describe: string): Promise<void> {
  const hit = walk.entries.get(id);
  await expectCheck(hit?.answer ?? (walk.answers[0] as ApiResponse), [checks.fieldSatisfies('Documents', `${describe}, read with sequenceNo from 0 page after page`, () => hit === undefined)], { requirement: 'INB-18' });
}

async function walkCoverage(walk: IncomingWalk, reader: string): Promise<void> {
  if (walk.complete) return;
  await observe('INB-18', `${reader}'s list read with sequenceNo from 0 counts Total ${JSON.stringify(walk.counted)}, and ${walk.answers.length} answer(s) listed ${walk.entries.size} documents: a document beyond them was not seen`, walk.answers[0]);
}

test.describe('incoming list', () => {
  test('the incoming list with type=invoice answers 200 with IncomingDocuments', {
    tag: tags('inbound', 'INB-01', 'INB-02', 'INB-03', 'INB-04', 'INB-15', 'INB-30'),
  }, async ({ api, recipientCompany }) => {
    const response = await listIncoming(api, recipientCompany.token);
    await expectCheck(response, [statusIs(200), schemaTypes('incoming-documents.response')], { requirement: 'INB-01' });
    await expectCheck(response, [statusIs(200)], { requirement: 'INB-04' });
    await expectCheck(response, [statusIs(200)], { requirement: 'INB-15' });
    await expectCheck(response, [checks.fieldSatisfies('Total', 'is an integer', Number.isInteger)], { requirement: 'INB-02' });
    await expectCheck(response, [schemaTypes('incoming-documents.response')], { requirement: 'INB-03' });
    await expectCheck(response, [schema('incoming-documents.response')], { requirement: 'INB-30' });
  });

  test('the list answer for type=order is recorded', { tag: tags('inbound', 'INB-26', 'INB-27') }, async ({ api, recipientCompany }) => {
    const response = await listIncoming(api, recipientCompany.token, { type: 'order' });
    await expectCheck(response, [notServerError], { requirement: 'INB-27' });
    await observe('INB-26', `type=order answered ${response.status}${response.status === 200 ? ` with Total ${JSON.stringify(response.data?.Total)}` : ''}`, response);
  });

  test('a sequenceNo that is no number gives no 5xx', { tag: tags('inbound', 'INB-27') }, async ({ api, recipientCompany }) => {
    const response = await listIncoming(api, recipientCompany.token, { sequenceNo: 'abc' });
    await expectCheck(response, [notServerError], { requirement: 'INB-27' });
  });
});

test.describe('a delivered invoice', () => {
  test('a delivered invoice is listed with its fields, downloads with the metadata headers and its info resolves', {
    tag: tags('inbound', 'INB-03', 'INB-08', 'INB-09', 'INB-10', 'INB-11', 'INB-12', 'INB-13', 'INB-16', 'INB-18', 'INB-30', 'INB-31', BACKGROUND_CHAIN_TAG),
  }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    const delivery = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    const { entry } = delivery;
    await expectCheck(delivery.list, [schemaTypes('incoming-documents.response')], { requirement: 'INB-03' });
    await expectCheck(delivery.list, [schema('incoming-documents.response')], { requirement: 'INB-30' });
    // Whose company an entry's CompanyId names (the recipient's, or the sender's) is not shown: recorded, not judged.
    await observe('INB-16', `the delivered entry's CompanyId is ${JSON.stringify(entry.CompanyId)}; the recipient's CompanyId is ${recipientCompany.companyId}, the sender's ${registeredCompany.companyId}`, delivery.list);
    // The sender's own list (whatever its status) must not hold the recipient's document.
    const senderList = await listIncoming(api, registeredCompany.token);
    await expectCheck(
      senderList,
      [checks.fieldSatisfies('Documents', `do not hold ${entry.Id}, a document of company ${recipientCompany.companyId}`, () => listed(senderList, entry.Id) === undefined)],
      { requirement: 'INB-18' },
    );
    // A first page that counts more than it lists: every document of the sender is read with sequenceNo.
    if (!wholeAnswer(senderList)) {
      const walk = await walkIncoming(api, registeredCompany.token);
      await walkOmits(walk, entry.Id, `do not hold ${entry.Id}, a document of company ${recipientCompany.companyId}`);
      await walkCoverage(walk, 'the sender');
    }
    await observe('INB-16', `with at least one document delivered: Total ${JSON.stringify(delivery.list.data?.Total)} and ${entriesOf(delivery.list).length} listed Documents`, delivery.list);

    const fetched = await download(api, recipientCompany.token, entry.Id);
    await expectCheck(fetched, [statusIs(200), bodyNotEmpty], { requirement: 'INB-08' });
    await expectCheck(fetched, [hasHeader('Content-Disposition'), hasHeader('X-Filename'), hasHeader('X-Document-Format')], { requirement: 'INB-09' });

    const info = await api.get(`/documents/${encodeURIComponent(entry.Id)}/info`, { auth: { clientToken: recipientCompany.token } });
    await expectCheck(info, [isSuccess, schemaTypes('incoming-document-info.response')], { requirement: 'INB-10' });
    await expectCheck(info, [schemaTypes('incoming-document-info.response')], { requirement: 'INB-11' });
    await expectCheck(info, [schema('incoming-document-info.response')], { requirement: 'INB-30' });

    // The URLs the list hands out are followed with the same token, when they lie under the base URL;
    // one that does not is a warning of its own (INB-31), and the check that would follow it is not reached.
    const downloadPath = await followGivenUrl(delivery.list, { where: 'DownloadUrl', url: entry.DownloadUrl }, target.baseUrl, 'INB-31', ['INB-13']);
    if (downloadPath !== undefined) {
      const byUrl = await api.get(downloadPath, { auth: { clientToken: recipientCompany.token } });
      await expectCheck(byUrl, [statusIs(200), sameBytesAs(fetched)], { requirement: 'INB-13' });
    }
    const infoPath = await followGivenUrl(delivery.list, { where: 'InfoUrl', url: entry.InfoUrl }, target.baseUrl, 'INB-31', ['INB-12']);
    if (infoPath !== undefined) {
      const byInfoUrl = await api.get(infoPath, { auth: { clientToken: recipientCompany.token } });
      await expectCheck(byInfoUrl, [isSuccess, checks.fieldSatisfies('Id', `equals ${entry.Id}`, (value) => value === entry.Id)], { requirement: 'INB-12' });
    }
  });

  test('marking a listed document handled answers 200 with no body', { tag: tags('inbound', 'INB-14', BACKGROUND_CHAIN_TAG) }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    const { entry } = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    const response = await markHandled(api, recipientCompany.token, [entry.Id]);
    await expectCheck(response, [statusIs(200), bodyIsEmpty], { requirement: 'INB-14' });
  });

  test('marking an unknown document id handled is recorded', { tag: tags('inbound', 'INB-24', 'INB-25') }, async ({ api, recipientCompany }) => {
    const response = await markHandled(api, recipientCompany.token, [randomUUID()]);
    await expectCheck(response, [notServerError], { requirement: 'INB-24' });
    await observe('INB-25', `marking a random uuid handled answered ${response.status}`, response);
  });
});

test.describe('inbound security', () => {
  test('another company cannot download, read the info of, or mark a document of the recipient', {
    tag: tags('inbound', 'INB-20', 'INB-21', 'INB-22', BACKGROUND_CHAIN_TAG),
  }, async ({ api, target, fixtures, registeredCompany, recipientCompany, otherCompany }) => {
    const { entry } = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    // A company that is neither party of the document: a service may let the sender read what it
    // sent (the inbound id may be its own DocumentId), which leaks nothing the sender does not own.
    const intruder = { clientToken: otherCompany.token };
    const fetched = await api.get(`/documents/${encodeURIComponent(entry.Id)}`, { auth: intruder });
    await expectCheck(fetched, [isRejected], { requirement: 'INB-20' });
    const info = await api.get(`/documents/${encodeURIComponent(entry.Id)}/info`, { auth: intruder });
    await expectCheck(info, [isRejected], { requirement: 'INB-21' });
    await markHandled(api, otherCompany.token, [entry.Id]);
    // A first page shows it once the documents left by earlier tests are marked (unmarkedListFor).
    const after = await unmarkedListFor(api, recipientCompany.token, entry.Id);
    if (!(await pageLeavesOpen('INB-22', after, entry.Id))) await expectCheck(
      after.response,
      [checks.fieldSatisfies('Documents', `still list ${entry.Id}`, () => listed(after.response, entry.Id) !== undefined)],
      { requirement: 'INB-22' },
    );
  });

  test('a delivered invoice shows in no other company\'s incoming list, download or info: both ways, in a third company\'s, and after it was handled', {
    tag: tags('inbound', 'INB-18', 'INB-20', 'INB-21', BACKGROUND_CHAIN_TAG),
  }, async ({ api, target, fixtures, recipientCompany }) => {
    // Both companies have data before anything is read: each one sends the other an invoice. A third
    // company receives nothing, the list a leak fills most visibly.
    // Side by side (issue 27): nothing is read before both deliveries are done.
    const [peer, third] = await Promise.all([registerReceivingCompany(api, target, fixtures, 'isolation-peer'), registerCompany(api, target, fixtures.company('SE'))]);
    const [toPeer, toRecipient] = await Promise.all([deliverInvoice(api, target, fixtures, recipientCompany, peer), deliverInvoice(api, target, fixtures, peer, recipientCompany)]);
    const held = [{ owner: peer, sender: recipientCompany, entry: toPeer.entry }, { owner: recipientCompany, sender: peer, entry: toRecipient.entry }];
    const readers = [{ name: 'the recipient company', company: recipientCompany }, { name: 'the peer company', company: peer }, { name: 'a third company that received nothing', company: third }];
    const noLeak = async (moment: string) => {
      // Every company reads at once (issue 27): reads change nothing; they are judged afterwards, reader by reader.
      const reads = await Promise.all(readers.map(async (reader) => {
        const intruder = { clientToken: reader.company.token };
        // Only a company that is neither party reads a document: a service may let the sender read what it sent.
        const foreign = held.filter((item) => item.owner !== reader.company && item.sender !== reader.company);
        const [documents, list, walk] = await Promise.all([
          Promise.all(foreign.map(async ({ entry }) => ({
            fetched: await api.get(`/documents/${encodeURIComponent(entry.Id)}`, { auth: intruder }),
            info: await api.get(`/documents/${encodeURIComponent(entry.Id)}/info`, { auth: intruder }),
          }))),
          // Without sequenceNo (unhandled documents) and with it from 0 (every document, handled or
          // not), page after page where an answer lists fewer than it counts.
          listIncoming(api, reader.company.token),
          walkIncoming(api, reader.company.token),
        ]);
        return { documents, list, walk };
      }));
      for (const [index, reader] of readers.entries()) {
        const { documents, list, walk } = reads[index];
        const when = { name: `${reader.name}, ${moment}`, company: reader.company };
        for (const { fetched, info } of documents) {
          await expectCheck(fetched, [asReadBy(isRejected, when)], { requirement: 'INB-20' });
          await expectCheck(info, [asReadBy(isRejected, when)], { requirement: 'INB-21' });
        }
        for (const { owner, entry } of held.filter((item) => item.owner !== reader.company)) {
          const describe = `${moment}, ${reader.name}'s list does not hold ${entry.Id}, a document delivered to company ${owner.companyId}`;
          await expectCheck(list, [checks.fieldSatisfies('Documents', describe, () => listed(list, entry.Id) === undefined)], { requirement: 'INB-18' });
          await walkOmits(walk, entry.Id, describe);
        }
        await walkCoverage(walk, `${reader.name}, ${moment}`);
      }
    };
    await noLeak('after both deliveries');
    // Each recipient fetches its document and marks it handled: what a target does with a document
    // once read or handled must not carry it into another company's list either.
    for (const { owner, entry } of held) {
      await download(api, owner.token, entry.Id);
      await markHandled(api, owner.token, [entry.Id]);
    }
    await noLeak('once fetched and marked handled');
  });

  test('unknown document ids on download and info give no 5xx, and a 4xx', { tag: tags('inbound', 'INB-23', 'INB-29') }, async ({ api, recipientCompany }) => {
    const id = randomUUID();
    for (const response of [await download(api, recipientCompany.token, id), await api.get(`/documents/${id}/info`, { auth: { clientToken: recipientCompany.token } })]) {
      await expectCheck(response, [notServerError], { requirement: 'INB-23' });
      await expectCheck(response, [isClientError], { requirement: 'INB-29' });
    }
  });

  test('the incoming list, download and handled without credentials are refused; the info call\'s answer is recorded', { tag: tags('inbound', 'INB-19', 'INB-28') }, async ({ api }) => {
    const id = randomUUID();
    await expectCheck(await api.get(INCOMING_PATH, { auth: 'none', query: { type: 'invoice' } }), [isRejected], { requirement: 'INB-19' });
    await expectCheck(await api.get(`/documents/${id}`, { auth: 'none' }), [isRejected], { requirement: 'INB-28' });
    await expectCheck(await api.post('/documents/handled', { auth: 'none', json: { documents: [id] } }), [isRejected], { requirement: 'INB-28' });
    // Rule 4 does not name GET /documents/{id}/info among the ClientToken calls: recorded.
    const info = await api.get(`/documents/${id}/info`, { auth: 'none' });
    await observe('INB-28', `not judged: GET /documents/{id}/info of an unknown id without credentials answered ${info.status}`, info);
  });

  test('malformed JSON and wrong types on handled give no 5xx', { tag: tags('inbound', 'INB-24') }, async ({ api, recipientCompany }) => {
    const auth = { clientToken: recipientCompany.token };
    for (const rawBody of ['{"documents": [', JSON.stringify({ documents: randomUUID() }), JSON.stringify({ documents: [42, { id: 'x' }] }), JSON.stringify([randomUUID()])]) {
      const response = await api.post('/documents/handled', { auth, rawBody, contentType: 'application/json' });
      await expectCheck(response, [notServerError], { requirement: 'INB-24' });
    }
  });
});
