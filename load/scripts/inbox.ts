// Flow: the exchange of electronic invoices (issue 35). One sender, two receivers and a third
// company that receives nothing. Each iteration the sender sends one invoice, marked with its
// ErpDocumentId, to one receiver in turn; that receiver lists its unhandled documents (GET
// /documents/incoming), downloads the entries this VU has not downloaded yet (GET /documents/{id}:
// the marker tells which send each inbound Id is), marks them handled (POST /documents/handled) and
// downloads one of them again after the mark (rule 3 speaks of a marked document that is fetched).
// Now and then the receiver lists with sequenceNo past the highest SequenceNo this VU saw (rule 2;
// a paged answer is read on), and the third company lists its own inbox, which must stay empty.
// dxs's final read waits for the last deliveries once k6 has ended. Every call goes into the history of the exchange
// (load/lib/history.ts), which is judged when the run ends: each invoice arrives, once, to its
// recipient alone. A single answer proves little of that, so the flow asserts nothing of the lists.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, downloadIncoming, listIncoming, markHandled, pollUntil, readForeignInbound, setupCompany, uploadAndSend, type Actor, type IncomingEntry, type IncomingList } from '../lib/api.ts';
import { erpIdFor } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.incoming, ENDPOINTS.download, ENDPOINTS.handled, ENDPOINTS.info];
export const options = buildOptions([...endpoints, ENDPOINTS.upload, ENDPOINTS.send, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

export interface Receiver extends Actor {
  companyId: string;
}

export interface InboxData {
  sender: Actor;
  /** Two, so that a document shown to the receiver it was not sent to can be seen. */
  receivers: Receiver[];
  /** Registered to receive, sent nothing: its inbox stays empty. */
  third: Actor;
}

function actorOf(erpId: string, processes: string[]): Receiver {
  const company = setupCompany(erpId, processes);
  return { erpId: company.erpId, token: company.token, companyId: company.companyId };
}

export function setupInbox(): InboxData {
  const prefix = settings.runPrefix;
  const { erpId, token } = actorOf(`${prefix}-inbox-sender`, ['SendInvoices']);
  const receivers = [actorOf(`${prefix}-inbox-receiver`, ['ReceiveInvoices']), actorOf(`${prefix}-inbox-receiver-2`, ['ReceiveInvoices'])];
  const third = actorOf(`${prefix}-inbox-third`, ['ReceiveInvoices']);
  return { sender: { erpId, token }, receivers, third: { erpId: third.erpId, token: third.token } };
}

/** Downloads per iteration, so that an inbox that fills faster than it is read costs no more. */
const DOWNLOADS_PER_ITERATION = 3;
/** Pages of one list with sequenceNo, each past the highest SequenceNo of the one before. */
const SEQUENCE_PAGES = 5;
/** How far below the highest SequenceNo seen a list with sequenceNo starts. */
const LOOK_BACK = 3;
/** Ids remembered per company: a long run forgets the oldest (they are long handled). */
const REMEMBERED_IDS = 5000;

// Per VU: what it downloaded (inbound Id → marker, per company), where its next list with
// sequenceNo starts (per receiver), and what it left unmarked on purpose.
const downloadedBy = new Map<string, Map<string, string | undefined>>();
const cursors = new Map<string, number>();
const leftUnmarked = new Set<string>();

/** A document left unmarked, by the receiver that downloaded it: another company's list may show it too. */
function unmarkedKey(receiver: Actor, id: string): string {
  return `${receiver.erpId} ${id}`;
}

function downloadedOf(actor: Actor): Map<string, string | undefined> {
  let downloaded = downloadedBy.get(actor.erpId);
  if (downloaded === undefined) downloadedBy.set(actor.erpId, (downloaded = new Map()));
  return downloaded;
}

function vuOffset(): number {
  try {
    return exec.vu.idInTest;
  } catch {
    return 0;
  }
}

/** Notes the highest SequenceNo of the answer as the receiver's cursor; the highest, or undefined. */
function noteSequenceNos(receiver: Actor, list: IncomingList): number | undefined {
  let highest: number | undefined;
  for (const entry of list.entries) if (entry.SequenceNo !== undefined && (highest === undefined || entry.SequenceNo > highest)) highest = entry.SequenceNo;
  if (highest !== undefined && highest > (cursors.get(receiver.erpId) ?? 0)) cursors.set(receiver.erpId, highest);
  return highest;
}

/**
 * Downloads up to `budget` listed entries this VU has not downloaded for the company, from an
 * offset per VU so that VUs seldom take the same one; the ids that came (2xx).
 */
function downloadNew(actor: Actor, entries: readonly IncomingEntry[], budget: number): string[] {
  const downloaded = downloadedOf(actor);
  const fresh = entries.filter((entry) => !downloaded.has(entry.Id));
  const came: string[] = [];
  const start = fresh.length === 0 ? 0 : vuOffset() % fresh.length;
  for (let index = 0; index < fresh.length && came.length < budget; index++) {
    const id = fresh[(start + index) % fresh.length].Id;
    // An answer that lists one id twice.
    if (downloaded.has(id)) continue;
    const result = downloadIncoming(actor, id);
    // Remembered whatever the answer: an id refused once is not asked again each iteration.
    if (downloaded.size >= REMEMBERED_IDS) downloaded.delete(downloaded.keys().next().value as string);
    downloaded.set(id, result.marker);
    if (result.status >= 200 && result.status < 300) came.push(id);
  }
  return came;
}

/**
 * Lists with sequenceNo from `lookBack` below the highest SequenceNo this VU saw of the receiver,
 * reading on while an answer lists fewer documents than its Total; bounded. Looking back shows
 * documents this VU has marked since: rule 2 says the handled flag is ignored there.
 */
function listFromCursor(receiver: Actor, budget: number, lookBack: number): string[] {
  let from = Math.max(0, (cursors.get(receiver.erpId) ?? 0) - lookBack);
  const came: string[] = [];
  for (let page = 0; page < SEQUENCE_PAGES; page++) {
    const list = listIncoming(receiver, from);
    const highest = noteSequenceNos(receiver, list);
    came.push(...downloadNew(receiver, list.entries, budget - came.length));
    if (list.total === undefined || list.total <= list.entries.length || highest === undefined || highest <= from) break;
    from = highest;
  }
  return came;
}

export function inbox(data: InboxData): void {
  const iteration = exec.scenario.iterationInTest;
  const receiver = data.receivers[iteration % data.receivers.length];
  uploadAndSend(data.sender, { Type: 'Electronic', Electronic: { RecipientId: receiver.companyId } }, erpIdFor('inbound', iteration), receiver.erpId);
  const downloaded = downloadedOf(receiver);
  let list: IncomingList = { status: 0, entries: [] };
  // Delivery runs in the background; bounded: 10 lists, 0.1 s apart, until one shows something new to
  // this VU. What comes later is found by a later iteration or the drain.
  pollUntil(10, 0.1, () => {
    list = listIncoming(receiver);
    noteSequenceNos(receiver, list);
    return list.entries.some((entry) => !downloaded.has(entry.Id));
  });
  // What this VU left unmarked stayed in the list (rule 1): it is marked now.
  const stayed = [...new Set(list.entries.filter((entry) => leftUnmarked.has(unmarkedKey(receiver, entry.Id))).map((entry) => entry.Id))];
  const came = downloadNew(receiver, list.entries, DOWNLOADS_PER_ITERATION);
  // Every fourth iteration leaves one document unmarked, to be seen again until it is marked.
  const kept = iteration % 4 === 3 ? came.pop() : undefined;
  const marking = [...stayed, ...came];
  if (marking.length > 0 && markHandled(receiver, marking)) {
    for (const id of stayed) leftUnmarked.delete(unmarkedKey(receiver, id));
    // Rule 3: once a marked document is fetched, it no longer appears in the list without sequenceNo.
    downloadIncoming(receiver, marking[0]);
  }
  if (kept !== undefined) {
    // Another VU may have marked it since: forget the oldest rather than grow.
    if (leftUnmarked.size >= 100) leftUnmarked.delete(leftUnmarked.values().next().value as string);
    leftUnmarked.add(unmarkedKey(receiver, kept));
  }
  if (iteration % 5 === 2) listFromCursor(receiver, DOWNLOADS_PER_ITERATION, LOOK_BACK);
  // The third company looks at its inbox, with and without sequenceNo: whatever it sees was delivered to
  // another. It also asks for a document this VU downloaded as the receiver, which must be refused.
  if (iteration % 10 === 7) {
    downloadNew(data.third, listIncoming(data.third, iteration % 20 === 7 ? undefined : 0).entries, 2);
    const known = lastDownloaded(receiver);
    if (known !== undefined) readForeignInbound(data.third, known);
  }
}

/** The id this VU downloaded last as the receiver, when it came with a marker of the run. */
function lastDownloaded(receiver: Actor): string | undefined {
  let last: string | undefined;
  for (const [id, marker] of downloadedOf(receiver)) if (marker !== undefined) last = id;
  return last;
}

/**
 * The end of the exchange (teardown): the third company looks once more, and asks for a document
 * of each receiver's inbox (teardown runs in a VU of its own, which downloaded nothing). Waiting for the last deliveries is dxs's final read, once k6 has ended
 * (cli/commands/load/final-read.ts): it waits for each invoice not yet seen until it comes or its
 * async timeout runs out, and reads every inbox whole, so that a lost invoice is proven lost.
 */
export function drainInbox(data: InboxData): void {
  listIncoming(data.third);
  listIncoming(data.third, 0);
  for (const receiver of data.receivers) {
    const known = listIncoming(receiver, 0).entries.at(-1)?.Id;
    if (known !== undefined) readForeignInbound(data.third, known);
  }
}

export const setup = setupInbox;
export const teardown = drainInbox;
export default inbox;
