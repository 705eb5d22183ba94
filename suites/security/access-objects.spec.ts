// Object level of the access matrix (issue 40): another company's real ids wherever an id travels
// (path, query and body), and odd ids (an encoded slash and dots, 4 kB, unicode), judged by company
// isolation and no 5xx. The reader is a third company that sent and received nothing, so whatever
// it gets of the others' documents is theirs, under every reading of who may see what.
import { checks, expectCheck, observe, tags, test, type ApiResponse } from '../support/index.ts';
import type { Check } from '../../lib/checks.ts';
import { awaitDeliveries, electronicSendBody, entriesOf, listIncoming, listed, markHandled, markedInvoice, download, pageLeavesOpen, unmarkedListFor, type Delivery, type Sent } from '../support/inbound.ts';
import { lastSegment, pathUnderBase, statusPath, uploadFile, urlsIn } from '../support/outbound.ts';
import { fixtureFile } from '../../fixtures/index.ts';

const { isRejected, notServerError } = checks;

/** Refused, or answered without any of the given values (ids, markers) in its body or headers. */
function reachesNone(values: readonly string[], whose: string): Check {
  return (response) => {
    const answer = response as ApiResponse;
    const text = `${answer.body.toString('latin1')} ${JSON.stringify(answer.headers)}`;
    const found = answer.status >= 200 && answer.status < 300 ? values.filter((value) => value !== '' && text.includes(value)) : [];
    return {
      check: 'reachesNone',
      ok: answer.status < 500 && found.length === 0,
      expected: `a refusal, or an answer that carries none of ${whose}`,
      actual: found.length === 0 ? `status ${answer.status}` : `status ${answer.status} carrying ${found.join(', ')}`,
      severity: 'failure',
    };
  };
}

test("a third company's token reaches none of another company's documents through the ids in a path", { tag: tags('access', 'ACC-12') }, async ({ api, foreign, access, accessInbox }) => {
  const auth = { clientToken: foreign.reader.token };
  const outbound = [foreign.documentId, foreign.marker];
  const reads: Array<[string, readonly string[], string]> = [
    [`/invoices/outbound/${foreign.documentId}`, outbound, "company B's sent document"],
    [`/documents/outbound/${foreign.documentId}`, outbound, "company B's sent document"],
    [`/documents/outbound/download/${foreign.documentId}`, outbound, "company B's sent document"],
    [`/documents/outbound/${access.documentId}`, [access.documentId], "company A's sent document"],
    [`/documents/${encodeURIComponent(accessInbox.documentId)}`, [accessInbox.documentId, foreign.inboundMarker], "company B's inbound document"],
    [`/documents/${encodeURIComponent(accessInbox.documentId)}/info`, [accessInbox.documentId], "company B's inbound document"],
    [`/documents/${encodeURIComponent(foreign.inboundId)}`, [foreign.inboundId, foreign.inboundMarker], "company B's inbound document"],
  ];
  for (const [path, values, whose] of reads) {
    const response = await api.get(path, { auth });
    await expectCheck(response, [reachesNone(values, whose)], { requirement: 'ACC-12', soft: true });
  }
});

test('byerpid of an ErpDocumentId that two companies both used answers each company its own document, and a third company neither', { tag: tags('access', 'ACC-12') }, async ({ api, foreign, access }) => {
  const path = `/invoices/outbound/byerpid/${encodeURIComponent(access.erpDocumentId)}`;
  const own = await api.get(path, { auth: { clientToken: access.company.token } });
  await expectCheck(own, [reachesNone([foreign.documentId, foreign.marker], "company B's document of that ErpDocumentId")], { requirement: 'ACC-12', soft: true });
  const holder = await api.get(path, { auth: { clientToken: foreign.holder.token } });
  await expectCheck(holder, [reachesNone([access.documentId], "company A's document of that ErpDocumentId")], { requirement: 'ACC-12', soft: true });
  const third = await api.get(path, { auth: { clientToken: foreign.reader.token } });
  await expectCheck(third, [reachesNone([access.documentId, foreign.documentId], 'either document of that ErpDocumentId')], { requirement: 'ACC-12', soft: true });
});

test("another company's inbound document in the documents of mark handled stays unmarked for its recipient", { tag: tags('access', 'ACC-12') }, async ({ api, foreign }) => {
  const marked = await markHandled(api, foreign.reader.token, [foreign.inboundId]);
  await expectCheck(marked, [notServerError], { requirement: 'ACC-12', soft: true });
  // Rule 3: a marked document leaves the list once fetched; the recipient fetches it, so a mark by another company would show.
  await download(api, foreign.holder.token, foreign.inboundId);
  const list = await unmarkedListFor(api, foreign.holder.token, foreign.inboundId);
  if (await pageLeavesOpen('ACC-12', list, foreign.inboundId)) return;
  await expectCheck(list.response, [checks.fieldSatisfies('Documents', `lists ${foreign.inboundId}, which only another company marked handled`, () => listed(list.response, foreign.inboundId) !== undefined)], { requirement: 'ACC-12' });
});

test("another company's upload as the DocumentUri of a send is refused, or sends none of its bytes; as AttachmentUri of network setup what comes back is recorded", { tag: tags('access', 'ACC-12', 'ACC-14') }, async ({ api, fixtures, foreign }) => {
  const auth = { clientToken: foreign.reader.token };
  const format = fixtureFile('invoice.xml').documentFormat;
  const send = await api.post('/documents/outbound', { auth, json: fixtures.sendDocument('PDF', { documentUri: foreign.uploadReference, documentFormat: format }) });
  await expectCheck(send, [notServerError], { requirement: 'ACC-12', soft: true });
  const location = send.headers['location'];
  if (send.status >= 200 && send.status < 300 && location !== undefined) {
    // Accepted: the document the third company sent must not be company B's file.
    const documentId = location.split('/').filter((segment) => segment !== '').at(-1) ?? '';
    const fetched = await api.get(`/documents/outbound/download/${encodeURIComponent(documentId)}`, { auth });
    await expectCheck(fetched, [reachesNone([foreign.marker], "company B's uploaded file")], { requirement: 'ACC-12', soft: true });
  } else {
    await expectCheck(send, [isRejected], { requirement: 'ACC-12', soft: true });
  }
  // Nothing a network setup sends can be read back: what it answers is recorded (ACC-14).
  const setup = await api.post('/network/setup', { auth, json: fixtures.networkSetupRequest('SE', { attachmentUri: foreign.uploadReference }) });
  await expectCheck(setup, [notServerError], { requirement: 'ACC-12', soft: true });
  await observe('ACC-14', `POST /network/setup with another company's upload as AttachmentUri answered ${setup.status}`, setup);
});

/** Another company's upload in the places of a send other than DocumentUri (ACC-14). */
const FOREIGN_PLACES: Array<[string, (document: Record<string, unknown>, reference: string) => void]> = [
  ['Document.RenderedDocumentUri', (document, reference) => Object.assign(document, { RenderedDocumentUri: reference, RenderedDocumentFormat: 'application/pdf' })],
  ['Document.Attachments', (document, reference) => Object.assign(document, { Attachments: [reference] })],
];

test("another company's upload as RenderedDocumentUri or in Attachments is refused, or none of its bytes reach the sender's file information nor the recipient's document, info and attachments", { tag: tags('access', 'ACC-14') }, async ({ api, fixtures, foreign, target }) => {
  const reader = foreign.reader;
  const holder = foreign.holder;
  const bytesOfB = reachesNone([foreign.marker], "company B's uploaded file (its bytes, or its name)");
  // A GET of a URL the target handed out, with the caller's own ClientToken only: the APIkey registered both companies and may read either.
  const follow = async (url: string, token: string, answer: ApiResponse): Promise<void> => {
    const path = pathUnderBase(url, target.baseUrl);
    if (path === undefined) return observe('ACC-14', `${url} points outside the base URL; not followed`, answer);
    await expectCheck(await api.get(path, { auth: { clientToken: token } }), [bytesOfB], { requirement: 'ACC-14', soft: true });
  };
  // B's unmarked entries before the sends: not downloaded again while the deliveries are awaited.
  const known = new Set(entriesOf(await listIncoming(api, holder.token)).map((entry) => entry.Id));
  const accepted: Array<[string, Sent]> = [];
  for (const [field, place] of FOREIGN_PLACES) {
    // The third company's own invoice, marked so that its delivery to B is recognised, sent electronically to B.
    const marker = fixtures.sendDocument('Electronic', { documentUri: 'pending' }).Document.ErpDocumentId as string;
    const own = await uploadFile(api, reader.token, { name: `${marker}.xml`, mimeType: fixtureFile('invoice.xml').contentType, buffer: markedInvoice(marker) });
    if (own.reference === undefined) {
      await observe('ACC-14', `the third company could not upload its own invoice (${own.response.status}); ${field} not tried`, own.response);
      continue;
    }
    const body = electronicSendBody(fixtures, own.reference, reader.input, holder, 'both', marker);
    place(body.Document as Record<string, unknown>, foreign.uploadReference);
    const send = await api.post('/documents/outbound', { auth: { clientToken: reader.token }, json: body });
    await expectCheck(send, [notServerError], { requirement: 'ACC-14', soft: true });
    const documentId = send.status >= 200 && send.status < 300 ? lastSegment(send.headers['location']) : undefined;
    if (documentId === undefined) {
      await expectCheck(send, [isRejected], { requirement: 'ACC-14', soft: true });
      await observe('ACC-14', `POST /documents/outbound with another company's upload as ${field} answered ${send.status}`, send);
      continue;
    }
    // Accepted: the sender's own view of what it sent holds none of B's file, nor does any file it lists.
    const status = await api.get(statusPath(documentId), { auth: { clientToken: reader.token }, query: { IncludeFileInfo: true } });
    await expectCheck(status, [bytesOfB], { requirement: 'ACC-14', soft: true });
    for (const [, url] of urlsIn(status.data)) await follow(url, reader.token, status);
    await expectCheck(await api.get(`/documents/outbound/download/${encodeURIComponent(documentId)}`, { auth: { clientToken: reader.token } }), [bytesOfB], { requirement: 'ACC-14', soft: true });
    accepted.push([field, { marker, upload: own.response, send, documentId, body }]);
  }
  if (accepted.length === 0) return;
  // Delivered electronically to B: what B gets of it holds none of B's file either (bounded by the async timeout).
  const delivered = await awaitDeliveries(api, target, holder, accepted.map(([, sent]) => sent), { all: true, handle: true, known }).catch(() => new Map<Sent, Delivery>());
  for (const [field, sent] of accepted) {
    const delivery = delivered.get(sent);
    if (delivery === undefined) {
      await observe('ACC-14', `the send with another company's upload as ${field} was accepted and did not arrive in the recipient's inbox within ${target.asyncTimeoutSeconds} s: the recipient's side not judged`, sent.send);
      continue;
    }
    await expectCheck(delivery.download, [bytesOfB], { requirement: 'ACC-14', soft: true });
    const info = await api.get(`/documents/${encodeURIComponent(delivery.entry.Id)}/info`, { auth: { clientToken: holder.token } });
    await expectCheck(info, [bytesOfB], { requirement: 'ACC-14', soft: true });
    for (const [, url] of urlsIn(info.data)) await follow(url, holder.token, info);
  }
});

/** Ids no service hands out: an encoded slash with dots, a double-encoded slash, 4 kB, unicode. */
const ODD_IDS = [`${encodeURIComponent('../../companies/status')}`, '%252F..%252F', 'a'.repeat(4096), encodeURIComponent('ÆØÅ-文書-🧾')];

test('odd ids wherever an id travels get no 5xx', { tag: tags('access', 'ACC-13') }, async ({ api, fixtures, foreign }) => {
  const auth = { clientToken: foreign.reader.token };
  for (const id of ODD_IDS) {
    const paths = [`/invoices/outbound/${id}`, `/documents/outbound/${id}`, `/invoices/outbound/byerpid/${id}`, `/documents/outbound/download/${id}`, `/documents/${id}`, `/documents/${id}/info`, `/companies/details/${id}`];
    for (const path of paths) await expectCheck(await api.get(path, { auth }), [notServerError], { requirement: 'ACC-13', soft: true });
    const raw = decodeURIComponent(id.replace(/%25/g, '%'));
    await expectCheck(await api.post('/documents/outbound', { auth, json: { SendDocumentAs: { Type: 'PDF' }, Document: { DocumentFormat: 'pdf', DocumentUri: raw } } }), [notServerError], { requirement: 'ACC-13', soft: true });
    await expectCheck(await api.post('/documents/handled', { auth, json: { documents: [raw] } }), [notServerError], { requirement: 'ACC-13', soft: true });
    // Every other place a send carries an id: the recipient, the rendered document, the attachments, the integrator's own id.
    const electronic = { SendDocumentAs: { Type: 'Electronic', Electronic: { RecipientId: raw } }, Document: { DocumentFormat: 'pdf', DocumentUri: raw, RenderedDocumentUri: raw, Attachments: [raw], ErpDocumentId: raw } };
    await expectCheck(await api.post('/documents/outbound', { auth, json: electronic }), [notServerError], { requirement: 'ACC-13', soft: true });
    await expectCheck(await api.post('/network/setup', { auth, json: fixtures.networkSetupRequest('SE', { attachmentUri: raw }) }), [notServerError], { requirement: 'ACC-13', soft: true });
  }
});

test('fields the spec does not list, sent to register and to set details, change no other company and are refused or ignored', { tag: tags('access', 'ACC-12', 'ACC-20') }, async ({ api, fixtures, foreign }) => {
  const holder = foreign.holder;
  const reader = foreign.reader;
  const marker = `${fixtures.runPrefix}-unlisted-${fixtures.searchId().slice(-6)}`;
  // Company B's own details, as B reads them, before and after: no call of another company may change them.
  const holderDetails = async () => api.get(`/companies/details/${encodeURIComponent(holder.companyId)}`, { auth: { clientToken: holder.token } });
  const before = await holderDetails();
  const unlisted = { CompanyId: holder.companyId, Status: 'Deleted', RegistrationId: holder.companyId };
  const details = await api.post('/companies/details', { auth: { clientToken: reader.token }, json: { ...fixtures.companyDetails(reader.input), ...unlisted, Name: marker } });
  await expectCheck(details, [notServerError], { requirement: 'ACC-12', soft: true });
  const registered = await api.post('/companies/register', { auth: 'apiKey', json: { ...fixtures.company('SE'), ...unlisted, Name: marker } });
  await expectCheck(registered, [notServerError], { requirement: 'ACC-12', soft: true });
  const after = await holderDetails();
  const name = (response: ApiResponse) => (response.status >= 200 && response.status < 300 ? String(response.data?.Name ?? '') : undefined);
  await expectCheck(after, [checks.fieldSatisfies('Name', `is still company B's own (${name(before) ?? 'as before'}), not the Name another company sent with B's CompanyId`, () => name(after) === name(before))], { requirement: 'ACC-12', soft: true });
  // The reader still acts as itself, and did not take the Status it sent: refused or ignored is the careful answer.
  const status = await api.get('/companies/status', { auth: { clientToken: reader.token } });
  await expectCheck(status, [checks.fieldSatisfies('CompanyId', "is the reader's own, not the CompanyId it sent", (value) => value === undefined || value === reader.companyId)], { requirement: 'ACC-12', soft: true });
  await expectCheck(status, [checks.fieldSatisfies('Status', 'is not the Status the body of set details named (Deleted)', (value) => value !== 'Deleted')], { requirement: 'ACC-20', soft: true });
  await observe('ACC-20', `set details with CompanyId, Status and RegistrationId of another company answered ${details.status}; register with them answered ${registered.status}`, details);
});
