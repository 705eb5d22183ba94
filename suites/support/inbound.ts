// Helpers of the inbound suites: a recipient company of their own, and "company A sends an
// electronic invoice to company B and it arrives in B's inbox".
//
// How an electronic invoice is addressed is left open by the spec: SendDocumentAs.Electronic.RecipientId
// is a string of no stated form, and RecipientInformation carries GLN, OrgNo, VatNo, Name,
// RecipientNo and CountryCode. The default addressing sends both: RecipientId holds one of B's
// PeppolParticipantIdentifiers as the target reported them (the only identifier form the spec
// names), and RecipientInformation holds B's registered identifiers. The routing scenario tries
// each field on its own and records which ones route (FLOW-21).
import { deriveSeed, fixtureFile, fixtureInfo, generateGln, generateOrgNo, mulberry32, vatNumberFor, type CompanyInput, type Fixtures } from '../../fixtures/index.ts';
import { SetupFailed, pollUntil, type RegisteredCompany } from './companies.ts';
import { activatedCompany } from './companies-more.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { registerRole, test as base } from './fixtures.ts';
import { broken, recordBroken, requirePrerequisites, settle, unwrap, type Outcome } from './prerequisites.ts';
import { peppolIdentifiersOf } from './network.ts';
import { sendDocument, uploadFile } from './outbound.ts';
import type { RunContext } from './run-context.ts';

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
    async ({ setupApi, target, fixtures, headStart }, use) => {
      // Registered with ReceiveInvoices and its services activated: whether register alone
      // activates the process is a reading (register "activates services"; POST /companies/services
      // "activates services on a registered company"), and the recipient is active under both.
      // Its identifiers are drawn from the run prefix (head-start.ts): a target routes by them.
      await use(await settle(() => activatedCompany(setupApi, target, headStart.input('recipientCompany'), fixtures.searchId(), headStart.take('recipientCompany'))));
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
  const text = fixtureFile('invoice.xml').bytes.toString('utf8');
  const marked = text.replace(/<cbc:ID>[^<]*<\/cbc:ID>/, `<cbc:ID>${marker}</cbc:ID>`);
  if (marked === text) throw new Error('invoice.xml has no cbc:ID to mark');
  return Buffer.from(marked, 'utf8');
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

/** Uploads a marked invoice as the sender and sends it electronically to the recipient. */
export async function sendInvoice(
  api: ApiClient,
  fixtures: Fixtures,
  sender: RegisteredCompany,
  recipient: RegisteredCompany,
  addressing: Addressing = 'both',
): Promise<Sent> {
  // The ErpDocumentId carries the run prefix and a counter: unique in this run and among runs.
  const draft = fixtures.sendDocument('Electronic', { documentUri: 'pending' });
  const marker = draft.Document.ErpDocumentId as string;
  const uploaded = await uploadFile(api, sender.token, { name: `${marker}.xml`, mimeType: fixtureInfo('invoice.xml').contentType, buffer: markedInvoice(marker) });
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

export function download(api: ApiClient, token: string, id: string): Promise<ApiResponse> {
  return api.get(`/documents/${encodeURIComponent(id)}`, { auth: { clientToken: token } });
}

export function markHandled(api: ApiClient, token: string, ids: string[]): Promise<ApiResponse> {
  // The spec writes the field in lower case: documents.
  return api.post('/documents/handled', { auth: { clientToken: token }, json: { documents: ids } });
}

/**
 * Waits (bounded by the async timeout) until one of the sent invoices is in the recipient's
 * unhandled list, recognised by downloading each new entry and finding its marker. Returns the
 * deliveries found by the time the wait ends; `all` waits for every one, otherwise the first will do.
 */
export async function awaitDeliveries(api: ApiClient, context: RunContext, recipient: RegisteredCompany, sent: Sent[], options: { all?: boolean; known?: Set<string> } = {}): Promise<Map<Sent, Delivery>> {
  const found = new Map<Sent, Delivery>();
  // Entries already downloaded that carry none of the markers: no need to fetch them again.
  const seen = new Set<string>(options.known ?? []);
  const wanted = () => (options.all ? found.size === sent.length : found.size > 0);
  await pollUntil(context, `the invoice${sent.length > 1 ? 's' : ''} ${sent.map((item) => item.marker).join(', ')} arriving in the inbox of company ${recipient.companyId}`, async () => {
    const list = await listIncoming(api, recipient.token);
    for (const entry of entriesOf(list)) {
      if (seen.has(entry.Id)) continue;
      const fetched = await download(api, recipient.token, entry.Id);
      if (fetched.status !== 200) continue;
      seen.add(entry.Id);
      const text = fetched.body.toString('utf8');
      const match = sent.find((item) => !found.has(item) && text.includes(item.marker));
      if (match !== undefined) found.set(match, { ...match, list, entry, download: fetched });
    }
    return wanted() ? true : undefined;
    // Once no invoice arrives for any test, another wait would only repeat that finding.
  }, ['inbox-delivery']).catch((error: Error) => {
    if (found.size === 0 || options.all !== true) throw error;
  });
  return found;
}

/**
 * Sends one electronic invoice from A to B and waits until it is in B's inbox: a shared
 * prerequisite of the inbound tests. Known broken, the test ends at once as blocked; found broken
 * here (nothing arrived within the async timeout), it is recorded and this test is blocked too.
 */
export async function deliverInvoice(api: ApiClient, context: RunContext, fixtures: Fixtures, sender: RegisteredCompany, recipient: RegisteredCompany): Promise<Delivery> {
  requirePrerequisites('inbox-delivery');
  // What the inbox holds before the send is not downloaded while waiting.
  const before = new Set(entriesOf(await listIncoming(api, recipient.token)).map((entry) => entry.Id));
  const sent = await sendInvoice(api, fixtures, sender, recipient);
  const found = await awaitDeliveries(api, context, recipient, [sent], { known: before }).catch(async (error: Error) => {
    if (!(error instanceof SetupFailed)) throw error;
    const list = await listIncoming(api, recipient.token);
    return broken(recordBroken({ prerequisite: 'inbox-delivery', requirement: 'FLOW-04', message: `an electronic invoice sent to a company registered with ReceiveInvoices never arrived in its inbox within ${context.asyncTimeoutSeconds} s: ${shortly(sent.send)} with Location ${sent.send.headers['location'] ?? '(none)'}; ${shortly(list)}` }));
  });
  return found.get(sent) as Delivery;
}

/**
 * Lists with sequenceNo until the entry shows up. Which documents a sequenceNo selects is not shown
 * (INB-17): one below the entry's own SequenceNo covers both "after" and "from" readings, 0 a target
 * that counts from 1; the last answer is returned when none lists it.
 */
export async function listWithSequenceNo(api: ApiClient, token: string, entry: IncomingEntry): Promise<{ response: ApiResponse; sequenceNo: number; found: boolean }> {
  const own = typeof entry.SequenceNo === 'number' ? entry.SequenceNo : 1;
  const candidates = [...new Set([Math.max(own - 1, 0), 0])];
  let last: { response: ApiResponse; sequenceNo: number; found: boolean } | undefined;
  for (const sequenceNo of candidates) {
    const response = await listIncoming(api, token, { sequenceNo });
    last = { response, sequenceNo, found: listed(response, entry.Id) !== undefined };
    if (last.found) return last;
  }
  return last as { response: ApiResponse; sequenceNo: number; found: boolean };
}
