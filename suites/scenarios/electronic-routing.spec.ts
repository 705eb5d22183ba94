// Company A (registeredCompany) sends an electronic invoice to company B (recipientCompany, with
// ReceiveInvoices), both registered by this run: the invoice arrives in B's inbox, downloads with
// its metadata headers, its info resolves through InfoUrl, and the handled rules of the spec hold:
//   1. without sequenceNo the list holds the documents not yet marked, and they stay until marked;
//   2. with sequenceNo the handled flag is ignored;
//   3. after a marked document is fetched, it no longer appears in the list made without sequenceNo.
import { BACKGROUND_CHAIN_TAG, checks, expectCheck, observe, schemaTypes, tags } from '../support/index.ts';
import {
  awaitDeliveries, deliverInvoice, download, entriesOf, handleLeftovers, listed, listIncoming, listWithSequenceNo, markedLeftTheList, markHandled, pageLeavesOpen, sendInvoice, SINGLE_ADDRESSINGS,
  unmarkedListFor, type Sent,
} from '../support/inbound.ts';
import { test } from '../support/index.ts';
import { followGivenUrl } from '../support/target-urls.ts';
import type { ApiResponse } from '../support/index.ts';
import type { Check } from '../../lib/checks.ts';

const { statusIs, hasHeader, bodyIsEmpty } = checks;

function lists(id: string, yes: boolean): Check {
  return (response) => {
    const ids = entriesOf(response as ApiResponse).map((entry) => entry.Id);
    return {
      check: yes ? 'listsDocument' : 'omitsDocument',
      ok: ids.includes(id) === yes,
      expected: `${yes ? '' : 'no '}document ${id} in Documents`,
      actual: `${ids.length} document(s)${ids.length > 0 ? `: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}` : ''}`,
      severity: 'failure',
    };
  };
}

test.describe('electronic routing into the recipient\'s inbox', () => {
  test('an electronic invoice from A reaches B\'s inbox, downloads, resolves its info, and once handled leaves the unmarked list but stays listed with sequenceNo', {
    tag: tags('flows', 'FLOW-04', 'FLOW-05', 'FLOW-20', 'INB-09', 'INB-10', 'INB-12', 'INB-31', BACKGROUND_CHAIN_TAG),
  }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    const token = recipientCompany.token;
    const delivery = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    const { entry } = delivery;
    await expectCheck(delivery.list, [statusIs(200), schemaTypes('incoming-documents.response'), lists(entry.Id, true)], { requirement: 'FLOW-04' });

    const fetched = await download(api, token, entry.Id);
    await expectCheck(fetched, [statusIs(200), hasHeader('Content-Disposition'), hasHeader('X-Filename'), hasHeader('X-Document-Format')], { requirement: 'INB-09' });

    const infoPath = await followGivenUrl(delivery.list, { where: 'InfoUrl', url: entry.InfoUrl }, target.baseUrl, 'INB-31', ['INB-12']);
    const info = await api.get(infoPath ?? `/documents/${encodeURIComponent(entry.Id)}/info`, { auth: { clientToken: token } });
    await expectCheck(info, [checks.isSuccess, schemaTypes('incoming-document-info.response')], { requirement: 'INB-10' });
    if (infoPath !== undefined) await expectCheck(info, [checks.fieldSatisfies('Id', `equals ${entry.Id}`, (value) => value === entry.Id)], { requirement: 'INB-12' });

    const handled = await markHandled(api, token, [entry.Id]);
    await expectCheck(handled, [statusIs(200), bodyIsEmpty], { requirement: 'FLOW-05' });
    // Fetched after it was marked too, so rule 3 holds whichever order of "marked" and "fetched" it means.
    await download(api, token, entry.Id);
    const unmarked = await unmarkedListFor(api, token, entry.Id);
    await expectCheck(unmarked.response, [statusIs(200), lists(entry.Id, false), markedLeftTheList(unmarked)], { requirement: 'FLOW-05' });
    await pageLeavesOpen('FLOW-05', unmarked, entry.Id);
    const tracked = await listWithSequenceNo(api, token, entry);
    await expectCheck(tracked.response, [statusIs(200), lists(entry.Id, true)], { requirement: 'FLOW-20' });
  });

  test('rule 1: without sequenceNo an unmarked document stays listed, also after it was downloaded', { tag: tags('inbound', 'INB-05', BACKGROUND_CHAIN_TAG) }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    const token = recipientCompany.token;
    // The delivery itself downloaded the document once to recognise it.
    const { entry } = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    // A first page shows it once the documents left by earlier tests are marked (unmarkedListFor).
    const first = await unmarkedListFor(api, token, entry.Id);
    if (!(await pageLeavesOpen('INB-05', first, entry.Id))) await expectCheck(first.response, [statusIs(200), lists(entry.Id, true)], { requirement: 'INB-05' });
    await download(api, token, entry.Id);
    const second = await unmarkedListFor(api, token, entry.Id);
    if (!(await pageLeavesOpen('INB-05', second, entry.Id))) await expectCheck(second.response, [statusIs(200), lists(entry.Id, true)], { requirement: 'INB-05' });
    await markHandled(api, token, [entry.Id]);
  });

  test('rule 2: with sequenceNo a document marked handled is still listed', { tag: tags('inbound', 'INB-06', 'FLOW-20', 'INB-17', BACKGROUND_CHAIN_TAG) }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    const token = recipientCompany.token;
    const { entry } = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    const handled = await markHandled(api, token, [entry.Id]);
    await expectCheck(handled, [statusIs(200)], { requirement: 'INB-06' });
    const tracked = await listWithSequenceNo(api, token, entry);
    await expectCheck(tracked.response, [statusIs(200), lists(entry.Id, true)], { requirement: 'INB-06' });
    await expectCheck(tracked.response, [lists(entry.Id, true)], { requirement: 'FLOW-20' });
    // Which documents a given sequenceNo selects is not shown: the document's own number is recorded.
    const own = await listIncoming(api, token, { sequenceNo: entry.SequenceNo ?? 0 });
    const numbers = entriesOf(own).map((item) => item.SequenceNo);
    await observe(
      'INB-17',
      `sequenceNo=${entry.SequenceNo} (the document's own) answered ${own.status} with SequenceNos [${numbers.slice(0, 10).join(', ')}${numbers.length > 10 ? ', ...' : ''}]: the document itself ${listed(own, entry.Id) ? 'included' : 'excluded'}; found with sequenceNo=${tracked.sequenceNo}`,
      own,
    );
  });

  test('rule 3: after a marked document is fetched it no longer appears in the list without sequenceNo', { tag: tags('inbound', 'INB-07', BACKGROUND_CHAIN_TAG) }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    const token = recipientCompany.token;
    const { entry } = await deliverInvoice(api, target, fixtures, registeredCompany, recipientCompany);
    const handled = await markHandled(api, token, [entry.Id]);
    await expectCheck(handled, [statusIs(200)], { requirement: 'INB-07' });
    await download(api, token, entry.Id);
    const after = await unmarkedListFor(api, token, entry.Id);
    await expectCheck(after.response, [statusIs(200), lists(entry.Id, false), markedLeftTheList(after)], { requirement: 'INB-07' });
    await pageLeavesOpen('INB-07', after, entry.Id);
  });

  test('which addressing fields route an electronic invoice is recorded', { tag: tags('flows', 'FLOW-21', 'FLOW-04', BACKGROUND_CHAIN_TAG) }, async ({ api, target, fixtures, registeredCompany, recipientCompany }) => {
    // What earlier tests left unmarked is marked handled, so the deliveries show on a first page too.
    const known = new Set(entriesOf(await handleLeftovers(api, recipientCompany.token)).map((entry) => entry.Id));
    const sent: Array<[string, Sent]> = [];
    const refused: string[] = [];
    // Which field routes is not shown: the invoice addressed with every field is the one FLOW-04 judges.
    for (const addressing of ['both', ...SINGLE_ADDRESSINGS] as const) {
      try {
        sent.push([addressing, await sendInvoice(api, fixtures, registeredCompany, recipientCompany, addressing)]);
      } catch (error) {
        refused.push(`${addressing} (${(error as Error).message.slice(0, 120)})`);
      }
    }
    // Each one is marked handled once found: a first page then moves on to the next.
    const arrived = await awaitDeliveries(api, target, recipientCompany, sent.map(([, item]) => item), { all: true, known, handle: true }).catch(() => new Map());
    const routed = sent.filter(([, item]) => arrived.has(item)).map(([addressing]) => addressing);
    const lost = sent.filter(([, item]) => !arrived.has(item)).map(([addressing]) => addressing);
    await observe('FLOW-21', `routed to the recipient: ${routed.join(', ') || 'none'}; sent but not arrived within the async timeout: ${lost.join(', ') || 'none'}; refused at send: ${refused.join('; ') || 'none'}`);
    // The invoice addressed with every field (or, failing its send, one addressed by a single field) must arrive.
    const first = [...arrived.values()][0];
    await expectCheck(first?.list ?? (await listIncoming(api, recipientCompany.token)), [checks.fieldSatisfies('Documents', 'hold the invoice addressed with every field, or one addressed by a single field', () => routed.length > 0)], { requirement: 'FLOW-04' });
    const ids = [...arrived.values()].map((delivery) => delivery.entry.Id);
    if (ids.length > 0) await markHandled(api, recipientCompany.token, ids);
  });
});
