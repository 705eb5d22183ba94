// Helpers of the inbound suites: a recipient company of their own, and "company A sends an
// electronic invoice to company B and it arrives in B's inbox".
//
// How an electronic invoice is addressed is left open by the spec: SendDocumentAs.Electronic.RecipientId
// is a string of no stated form, and RecipientInformation carries GLN, OrgNo, VatNo, Name,
// RecipientNo and CountryCode. The default addressing sends both: RecipientId holds one of B's
// PeppolParticipantIdentifiers as the target reported them (the only identifier form the spec
// names), and RecipientInformation holds B's registered identifiers. The routing scenario tries
// each field on its own and records which ones route (FLOW-21).
import { deriveSeed, fixtureFile, fixtureInfo, generateGln, generateOrgNo, markInvoice, mulberry32, vatNumberFor, type CompanyInput, type Fixtures } from '../../fixtures/index.ts';
import { blockOnWait, SetupFailed, pollUntil, type RegisteredCompany } from './companies.ts';
import { activatedCompany } from './companies-more.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { registerRole, test as base } from './fixtures.ts';
import { requirePrerequisites, TransportFailure, unwrap, type Outcome } from './prerequisites.ts';
import { peppolIdentifiersOf } from './network.ts';
import { sendDocument, uploadFile, type Upload } from './outbound.ts';
import type { RunContext } from './run-context.ts';
import type { Check } from '../../lib/checks.ts';
import { observe } from './verdict.ts';

export const INCOMING_PATH = '/documents/incoming';
/** The list type the guide uses (INB-04). */
export const INVOICE_TYPE = 'invoice';

interface InboundWorkerFixtures {
  recipientCompanyOutcome: Outcome<RegisteredCompany>;
}

/** Test-scoped over the worker's outcome, so a broken prerequisite blocks the test at once. */
interface InboundTestFixtures {
  /**
   * Company B of the inbound suites: registered by this run with ReceiveInvoices, and sent to only
   * by these suites, so nothing else lands in or marks its inbox.
   */
  recipientCompany: RegisteredCompany;
}

export const test = base.extend<InboundTestFixtures, InboundWorkerFixtures>({
  recipientCompanyOutcome: [
    async ({ setupApi, headStart }, use) => {
      // Registered with ReceiveInvoices and its services activated (head-start.ts), its identifiers
      // drawn from the run prefix: a target routes by them.
      await use(await registerRole(headStart, setupApi, 'recipientCompany'));
    },
    { scope: 'worker' },
  ],

  recipientCompany: async ({ recipientCompanyOutcome }, use) => use(unwrap(recipientCompanyOutcome)),
});

/**
 * Registers a company with ReceiveInvoices that a target can route to. The seed repeats between
 * runs (always 1 when Playwright is run directly), and a target routes by the identifiers: drawn
 * from the run prefix and `label`, no earlier run's company shares them. Its services are activated
 * too: whether register alone activates the process is a reading (register "activates services";
 * POST /companies/services "activates services on a registered company"), and the company receives
 * under both.
 */
export function registerReceivingCompany(api: ApiClient, context: RunContext, fixtures: Fixtures, label: string): Promise<RegisteredCompany> {
  const input = fixtures.company('FI', { processes: ['ReceiveInvoices', 'SendInvoices'] });
  // The ErpId (unique in the worker) keeps two companies of one label apart.
  const random = mulberry32(deriveSeed(context.seed, `${context.runPrefix}:${label}:${input.ErpId}`));
  const orgNo = generateOrgNo('FI', random);
  return activatedCompany(api, context, { ...input, OrgNo: orgNo, VatNo: vatNumberFor('FI', orgNo), GLN: generateGln(random, 'FI') }, fixtures.searchId());
}

export type Addressing = 'both' | 'RecipientId' | 'RecipientInformation.OrgNo' | 'RecipientInformation.GLN' | 'RecipientInformation.VatNo';

export const SINGLE_ADDRESSINGS: readonly Addressing[] = ['RecipientId', 'RecipientInformation.OrgNo', 'RecipientInformation.GLN', 'RecipientInformation.VatNo'];

/** The entry of the incoming list with the spec's field names. */
export interface IncomingEntry {
  Id: string;
  DocumentType?: string;
  DocumentFormat?: string;
  InfoUrl?: string;
  DownloadUrl?: string;
  SequenceNo?: number;
  CompanyId?: string;
  [field: string]: unknown;
}

export interface Sent {
  /** Text written into the invoice (its cbc:ID) that finds it again in the recipient's inbox. */
  marker: string;
  upload: ApiResponse;
  send: ApiResponse;
  /** The DocumentId from the Location of the send, when there is one. */
  documentId?: string;
  body: Record<string, any>;
}

export interface Delivery extends Sent {
  /** The recipient's list answer in which the document first showed up, and its entry there. */
  list: ApiResponse;
  entry: IncomingEntry;
  /** The download (GET /documents/{id}) that recognised the document by its marker. */
  download: ApiResponse;
}

function shortly(response: ApiResponse): string {
  const answer = response.recorded.response;
  return `${response.recorded.title} answered ${answer?.status ?? 'nothing'}${answer?.body !== undefined ? ` ${JSON.stringify(answer.body).slice(0, 300)}` : ''}`;
}

/** The fixture invoice with its own invoice number, so the copy that arrives can be told apart. */
export function markedInvoice(marker: string): Buffer {
  return Buffer.from(markInvoice(fixtureFile('invoice.xml').bytes.toString('utf8'), marker), 'utf8');
}

/** The identifier put in Electronic.RecipientId: one the target reported for the company, else the fixture's form. */
export function recipientIdOf(company: RegisteredCompany): string {
  const reported = peppolIdentifiersOf(company);
  return reported[0] ?? `0088::${company.input.GLN}`;
}

/** POST /documents/outbound body for an electronic invoice to the recipient, addressed as asked. */
export function electronicSendBody(fixtures: Fixtures, documentUri: string, sender: CompanyInput, recipient: RegisteredCompany, addressing: Addressing, erpDocumentId?: string): Record<string, any> {
  const body = fixtures.sendDocument('Electronic', { documentUri, sender, recipient: recipient.input, erpDocumentId }) as unknown as Record<string, any>;
  body.SendDocumentAs.Electronic = { RecipientId: recipientIdOf(recipient) };
  if (addressing === 'both') return body;
  if (addressing === 'RecipientId') {
    delete body.RecipientInformation;
    return body;
  }
  const field = addressing.split('.')[1];
  delete body.SendDocumentAs.Electronic;
  body.RecipientInformation = { [field]: recipient.input[field as 'OrgNo' | 'GLN' | 'VatNo'], CountryCode: recipient.input.CountryCode };
  return body;
}

/** Uploads the marked invoice bytes as the sender. */
export type InvoiceUpload = (marker: string, bytes: Buffer) => Promise<Upload>;

/** Uploads a marked invoice as the sender and sends it electronically to the recipient. */
export async function sendInvoice(
  api: ApiClient,
  fixtures: Fixtures,
  sender: RegisteredCompany,
  recipient: RegisteredCompany,
  addressing: Addressing = 'both',
  /** How the marked invoice is uploaded; as `<marker>.xml` by default (the access suite gives it a hostile name). */
  upload: InvoiceUpload = (marker, bytes) => uploadFile(api, sender.token, { name: `${marker}.xml`, mimeType: fixtureInfo('invoice.xml').contentType, buffer: bytes }),
): Promise<Sent> {
  // The ErpDocumentId carries the run prefix and a counter: unique in this run and among runs.
  const draft = fixtures.sendDocument('Electronic', { documentUri: 'pending' });
  const marker = draft.Document.ErpDocumentId as string;
  const uploaded = await upload(marker, markedInvoice(marker));
  if (uploaded.reference === undefined) throw new SetupFailed(`cannot upload the invoice: ${shortly(uploaded.response)}`);
  const body = electronicSendBody(fixtures, uploaded.reference, sender.input, recipient, addressing, marker);
  const sent = await sendDocument(api, sender.token, body);
  if (sent.documentId === undefined) throw new SetupFailed(`cannot send the invoice electronically (${addressing}): ${shortly(sent.response)}`);
  return { marker, upload: uploaded.response, send: sent.response, documentId: sent.documentId, body };
}

export function listIncoming(api: ApiClient, token: string, query: Record<string, string | number> = {}): Promise<ApiResponse> {
  return api.get(INCOMING_PATH, { auth: { clientToken: token }, query: { type: INVOICE_TYPE, ...query } });
}

/** The entries of an incoming list answer (normalised names); none when the body has no Documents array. */
export function entriesOf(response: ApiResponse): IncomingEntry[] {
  const documents = response.data?.Documents;
  return Array.isArray(documents) ? documents.filter((entry): entry is IncomingEntry => typeof entry === 'object' && entry !== null && typeof entry.Id === 'string') : [];
}

export function listed(response: ApiResponse, id: string): IncomingEntry | undefined {
  return entriesOf(response).find((entry) => entry.Id === id);
}

/**
 * Whether the answer lists every document it counts. IncomingDocuments has a Total beside Documents,
 * and how many documents one answer holds is not shown: a target may answer a first page only. An
 * answer without an integer Total shows no sign of paging and is taken as whole.
 */
export function wholeAnswer(response: ApiResponse): boolean {
  const total = response.data?.Total;
  return !(typeof total === 'number' && Number.isInteger(total) && total > entriesOf(response).length);
}

function sequenceNoOf(entry: IncomingEntry): number | undefined {
  return typeof entry.SequenceNo === 'number' && Number.isInteger(entry.SequenceNo) ? entry.SequenceNo : undefined;
}

/** The lists read with sequenceNo from one start, page after page. */
export interface IncomingWalk {
  answers: ApiResponse[];
  /** Each document listed, with the answer that listed it first. */
  entries: Map<string, { entry: IncomingEntry; answer: ApiResponse }>;
  /** Every document the first answer counted (its Total) was listed by one of the answers. */
  complete: boolean;
  /** The first answer's Total, when an integer. */
  counted?: number;
  highest?: number;
}

/**
 * Reads the incoming list with sequenceNo from `from`, and while an answer does not list all it
 * counts, again past the highest SequenceNo it listed (rule 2: with sequenceNo the handled flag is
 * ignored, so this reaches every document of the company, marked or not). Whether a sequenceNo
 * starts the list at it or after it is not shown (INB-17): a page that lists nothing new is read once
 * more from one higher. Bounded in pages; `complete` says whether the answers covered the Total of
 * the first (a target ordering newest first leaves the older pages beyond the reach of sequenceNo).
 */
export async function walkIncoming(api: ApiClient, token: string, from = 0, maxPages = 25): Promise<IncomingWalk> {
  const walk: IncomingWalk = { answers: [], entries: new Map(), complete: false };
  let cursor = from;
  let bumped = false;
  for (let page = 0; page < maxPages; page++) {
    const answer = await listIncoming(api, token, { sequenceNo: cursor });
    walk.answers.push(answer);
    if (answer.status !== 200) break;
    const total = answer.data?.Total;
    if (page === 0 && typeof total === 'number' && Number.isInteger(total)) walk.counted = total;
    let added = 0;
    for (const entry of entriesOf(answer)) {
      if (!walk.entries.has(entry.Id)) {
        walk.entries.set(entry.Id, { entry, answer });
        added++;
      }
      const number = sequenceNoOf(entry);
      if (number !== undefined) walk.highest = Math.max(walk.highest ?? number, number);
    }
    if (wholeAnswer(answer)) break;
    if (added === 0) {
      if (bumped) break;
      cursor += 1;
      bumped = true;
    } else {
      cursor = Math.max(cursor, walk.highest ?? cursor);
      bumped = false;
    }
  }
  walk.complete = walk.answers.at(-1)?.status === 200 && (walk.counted === undefined || walk.entries.size >= walk.counted);
  return walk;
}

/** The list without sequenceNo as shortUnmarkedList leaves it, and what it marked handled on the way. */
export interface UnmarkedList {
  response: ApiResponse;
  /** Documents marked handled (answered 200) and then fetched: under rules 1 and 3 they have left the list. */
  handled: string[];
}

/**
 * The recipient's list without sequenceNo, made short enough to judge: while the answer does not
 * list all it counts and `enough` does not hold, the listed documents outside `keep` are marked
 * handled and then fetched (rule 3 speaks of "a marked document ... fetched"; the recipients of the
 * inbound suites are this run's own, and what earlier tests left there dxs no longer needs), and the
 * list is read again. A target that answers a first page only then shows a document that is still
 * unmarked; bounded, and it stops when marking changes nothing.
 */
export async function shortUnmarkedList(api: ApiClient, token: string, keep: readonly string[], enough: (response: ApiResponse) => boolean): Promise<UnmarkedList> {
  const list: UnmarkedList = { response: await listIncoming(api, token), handled: [] };
  for (let round = 0; round < 10 && !enough(list.response); round++) {
    const others = entriesOf(list.response).map((entry) => entry.Id).filter((id) => !keep.includes(id));
    if (others.length === 0) break;
    const marked = await markHandled(api, token, others);
    if (marked.status === 200) {
      for (const id of others) await download(api, token, id);
      list.handled.push(...others);
    }
    list.response = await listIncoming(api, token);
    const still = new Set(entriesOf(list.response).map((entry) => entry.Id));
    if (others.every((id) => still.has(id))) break;
  }
  return list;
}

/** The unmarked list read until it shows the document or lists all it counts (see shortUnmarkedList). */
export function unmarkedListFor(api: ApiClient, token: string, id: string): Promise<UnmarkedList> {
  return shortUnmarkedList(api, token, [id], (response) => wholeAnswer(response) || listed(response, id) !== undefined);
}

/**
 * Rules 1 and 3 on what shortUnmarkedList marked: none of the documents it marked handled and then
 * fetched is still listed without sequenceNo. Where a first page leaves one document open, the
 * documents on it are judged instead.
 */
export function markedLeftTheList(list: UnmarkedList): Check {
  return (response) => {
    const stuck = entriesOf(response as ApiResponse).map((entry) => entry.Id).filter((id) => list.handled.includes(id));
    return {
      check: 'markedLeftTheList',
      ok: stuck.length === 0,
      expected: `none of the ${list.handled.length} document(s) dxs marked handled (answered 200) and then fetched is listed`,
      actual: stuck.length === 0 ? 'none listed' : `still listed: ${stuck.slice(0, 5).join(', ')}${stuck.length > 5 ? ', ...' : ''}`,
      severity: 'failure',
    };
  };
}

/**
 * Whether the answer of the unmarked list (read with unmarkedListFor) leaves open if it holds the
 * document: it is not on the page, and the answer counts more than it lists even after the other
 * listed documents were marked handled. The list without sequenceNo has no later page to read, so
 * neither presence nor absence is concluded: that is recorded (info), and a presence check is not
 * made on the page alone.
 */
export async function pageLeavesOpen(requirement: string, { response }: UnmarkedList, id: string): Promise<boolean> {
  if (wholeAnswer(response) || listed(response, id) !== undefined) return false;
  await observe(requirement, `the list without sequenceNo counts Total ${JSON.stringify(response.data?.Total)} but lists ${entriesOf(response).length}, also after the other listed documents were marked handled: document ${id} is not on this page and may be on one not shown, so whether the list holds it is not concluded`, response);
  return true;
}

/**
 * Marks handled every document of the recipient's unmarked list: what earlier tests left there. A new
 * delivery then shows on the first page, whatever its size and order.
 */
export async function handleLeftovers(api: ApiClient, token: string): Promise<ApiResponse> {
  return (await shortUnmarkedList(api, token, [], (response) => entriesOf(response).length === 0)).response;
}

export function download(api: ApiClient, token: string, id: string): Promise<ApiResponse> {
  return api.get(`/documents/${encodeURIComponent(id)}`, { auth: { clientToken: token } });
}

export function markHandled(api: ApiClient, token: string, ids: string[]): Promise<ApiResponse> {
  // The spec writes the field in lower case: documents.
  return api.post('/documents/handled', { auth: { clientToken: token }, json: { documents: ids } });
}

/** Per recipient, the highest SequenceNo dxs has read: a new delivery is looked for past it. */
const sequenceCursors = new Map<string, number>();

/**
 * Waits (bounded by the async timeout) until one of the sent invoices is in the recipient's
 * inbox, recognised by downloading each new entry and finding its marker. Returns the deliveries
 * found by the time the wait ends; `all` waits for every one, otherwise the first will do. The
 * unmarked list comes first; when it lists fewer documents than it counts (a first page), the list
 * is read with sequenceNo too, past the highest SequenceNo read for this recipient before: rule 2
 * ignores the handled flag there, and a new document numbers past the ones before it. `handle` marks
 * each delivery handled once found, so a first page moves on to the next ones.
 */
export async function awaitDeliveries(api: ApiClient, context: RunContext, recipient: RegisteredCompany, sent: Sent[], options: { all?: boolean; known?: Set<string>; handle?: boolean } = {}): Promise<Map<Sent, Delivery>> {
  const found = new Map<Sent, Delivery>();
  // Entries already downloaded that carry none of the markers: no need to fetch them again.
  const seen = new Set<string>(options.known ?? []);
  const wanted = () => (options.all ? found.size === sent.length : found.size > 0);
  await pollUntil(context, `the invoice${sent.length > 1 ? 's' : ''} ${sent.map((item) => item.marker).join(', ')} arriving in the inbox of company ${recipient.companyId}`, async () => {
    const list = await listIncoming(api, recipient.token);
    const candidates = entriesOf(list).map((entry) => ({ entry, answer: list }));
    if (!wholeAnswer(list)) {
      const walk = await walkIncoming(api, recipient.token, sequenceCursors.get(recipient.companyId) ?? 0);
      candidates.push(...walk.entries.values());
      if (walk.highest !== undefined) sequenceCursors.set(recipient.companyId, Math.max(walk.highest, sequenceCursors.get(recipient.companyId) ?? 0));
    }
    const handled: string[] = [];
    for (const { entry, answer } of candidates) {
      if (seen.has(entry.Id)) continue;
      const fetched = await download(api, recipient.token, entry.Id);
      if (fetched.status !== 200) continue;
      seen.add(entry.Id);
      const text = fetched.body.toString('utf8');
      const match = sent.find((item) => !found.has(item) && text.includes(item.marker));
      if (match === undefined) continue;
      found.set(match, { ...match, list: answer, entry, download: fetched });
      handled.push(entry.Id);
    }
    if (options.handle === true && handled.length > 0) await markHandled(api, recipient.token, handled);
    return wanted() ? true : undefined;
    // Once no invoice arrives for any test, another wait would only repeat that finding.
  }, ['inbox-delivery']).catch((error: Error) => {
    if (found.size === 0 || options.all !== true || error instanceof TransportFailure) throw error;
  });
  return found;
}

/**
 * Sends one electronic invoice from A to B and waits until it is in B's inbox: a shared
 * prerequisite of the inbound tests. Known broken, the test ends at once as blocked; found broken
 * here (nothing arrived within the async timeout), it is recorded and this test is blocked too.
 */
export async function deliverInvoice(api: ApiClient, context: RunContext, fixtures: Fixtures, sender: RegisteredCompany, recipient: RegisteredCompany, upload?: InvoiceUpload): Promise<Delivery> {
  return (await deliver(api, context, fixtures, sender, recipient, [upload]))[0];
}

/**
 * `count` invoices from sender to recipient, sent one after the other and awaited together: one
 * wait for the background work of all, where deliverInvoice after deliverInvoice waits for each.
 */
export async function deliverInvoices(api: ApiClient, context: RunContext, fixtures: Fixtures, sender: RegisteredCompany, recipient: RegisteredCompany, count: number): Promise<Delivery[]> {
  return deliver(api, context, fixtures, sender, recipient, Array.from({ length: count }, () => undefined));
}

async function deliver(api: ApiClient, context: RunContext, fixtures: Fixtures, sender: RegisteredCompany, recipient: RegisteredCompany, uploads: Array<InvoiceUpload | undefined>): Promise<Delivery[]> {
  requirePrerequisites('inbox-delivery');
  // What earlier tests left unmarked is marked handled, so the delivery shows on a first page too;
  // what the inbox still holds before the send is not downloaded while waiting.
  const before = new Set(entriesOf(await handleLeftovers(api, recipient.token)).map((entry) => entry.Id));
  const sent: Sent[] = [];
  // One after the other: the invoices draw their data from the worker's seeded stream in a fixed order.
  for (const upload of uploads) sent.push(await sendInvoice(api, fixtures, sender, recipient, 'both', upload));
  let failure: unknown;
  const found = await awaitDeliveries(api, context, recipient, sent, { known: before, all: true }).catch((error: Error) => {
    if (!(error instanceof SetupFailed)) throw error;
    failure = error;
    return new Map<Sent, Delivery>();
  });
  const missing = sent.find((item) => !found.has(item));
  if (missing !== undefined) {
    const list = await listIncoming(api, recipient.token);
    blockOnWait(failure, { prerequisite: 'inbox-delivery', requirement: 'FLOW-04', message: `an electronic invoice sent to a company registered with ReceiveInvoices never arrived in its inbox within ${context.asyncTimeoutSeconds} s: ${shortly(missing.send)} with Location ${missing.send.headers['location'] ?? '(none)'}; ${shortly(list)}` });
  }
  return sent.map((item) => found.get(item) as Delivery);
}

/**
 * Lists with sequenceNo until the entry shows up. Which documents a sequenceNo selects is not shown
 * (INB-17): one below the entry's own SequenceNo covers both "after" and "from" readings, 0 a target
 * that counts from 1; from each, an answer that lists fewer than it counts is read on (walkIncoming).
 * The answer that lists the entry is returned, else the last one.
 */
export async function listWithSequenceNo(api: ApiClient, token: string, entry: IncomingEntry): Promise<{ response: ApiResponse; sequenceNo: number; found: boolean }> {
  const own = typeof entry.SequenceNo === 'number' ? entry.SequenceNo : 1;
  const candidates = [...new Set([Math.max(own - 1, 0), 0])];
  let last: { response: ApiResponse; sequenceNo: number; found: boolean } | undefined;
  for (const sequenceNo of candidates) {
    const walk = await walkIncoming(api, token, sequenceNo);
    const hit = walk.entries.get(entry.Id);
    last = { response: hit?.answer ?? (walk.answers.at(-1) as ApiResponse), sequenceNo, found: hit !== undefined };
    if (last.found) return last;
  }
  return last as { response: ApiResponse; sequenceNo: number; found: boolean };
}
