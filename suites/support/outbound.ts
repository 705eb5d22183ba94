// Outbound documents for the suites: upload a fixture file, send it with a SendDocumentAs type,
// read the DocumentId from the Location, and poll a document's status until it reaches a target.
// Worker-scoped fixtures the outbound suites share:
//   outboundRecipient  (worker) a registered company that receives invoices: Electronic sends go to it,
//                               so no other suite's inbox gets our documents
//   b2cSender          (worker) a Swedish company with provider A onboarded, for BusinessToConsumer sends
// The shared registeredCompany never gets provider A: other suites send with it and expect no
// business-to-consumer provider to be active.
import type { SendDocumentAsType, SendDocumentInput } from '../../fixtures/bodies.ts';
import { fixtureFile, type FixtureFileName, type Fixtures } from '../../fixtures/index.ts';
import type { Check } from '../../lib/checks.ts';
import { FINAL_STATUSES, isFinalStatus, MAY_BE_LAST_STATUSES } from '../../lib/document-statuses.ts';
import type { ApiClient, ApiResponse, MultipartFile } from './client.ts';
import { blockOnWait, pollUntil, restingMs, SetupFailed, TestTimeRanOut, type RegisteredCompany } from './companies.ts';
import { registerRole, test as base } from './fixtures.ts';
import { broken, recordBroken, requirePrerequisites, settle, unwrap, type Outcome } from './prerequisites.ts';
import { providerACause, providerARefused } from './provider-a.ts';
import type { RunContext } from './run-context.ts';

export { DOCUMENT_STATUSES, FINAL_STATUSES, MAY_BE_LAST_STATUSES } from '../../lib/document-statuses.ts';

export const PROVIDER_A_PATH = '/companies/deliverymethods/b2c/providera';

/** A uuid that no target has handed out (version nibble 4, random-looking, fixed so runs compare). */
export const UNKNOWN_DOCUMENT_ID = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A check of something the test worked out itself (over a poll, or comparing two answers); the
 * response it is recorded against gives the report its context.
 */
export function fact(check: string, ok: boolean, expected: string, actual: string): Check {
  return () => ({ check, ok, expected, actual, severity: 'failure' });
}

/** A non-empty body that is the document itself, not a JSON wrapper around it. */
export function isBinaryDocument(response: ApiResponse): Check {
  const contentType = response.headers['content-type'] ?? '(none)';
  const wrapped = response.json !== undefined && typeof response.json === 'object';
  return fact('binary document', response.body.length > 0 && !wrapped, 'a non-empty body that is the document, not JSON', `${response.body.length} bytes of ${contentType}${wrapped ? ' (a JSON object)' : ''}`);
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * The last segment of a Location: the uuid after the last ':' of an upload URN, or the last
 * path segment of a send link (query and trailing slashes dropped).
 */
export function lastSegment(location: string | undefined): string | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  const path = location.trim().split(/[?#]/)[0].replace(/\/+$/, '');
  const segment = path.split(/[/:]/).pop();
  if (segment === undefined || segment === '') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface Upload {
  response: ApiResponse;
  /** The Location of a successful upload: the reference sent later as DocumentUri. */
  reference?: string;
}

/** Uploads a fixture file (or any file) as the multipart part File. */
export async function uploadFile(api: ApiClient, token: string, file: FixtureFileName | MultipartFile): Promise<Upload> {
  const part: MultipartFile = typeof file === 'string' ? { name: file, mimeType: fixtureFile(file).contentType, buffer: fixtureFile(file).bytes } : file;
  return uploadAnswered(await api.post('/documents', { auth: { clientToken: token }, multipart: { File: part } }));
}

/** An upload's answer: the Location of a successful one is its reference. */
export function uploadAnswered(response: ApiResponse): Upload {
  const location = response.headers['location'];
  return { response, reference: response.status >= 200 && response.status < 300 && location ? location : undefined };
}

export interface Sent {
  response: ApiResponse;
  /** The last segment of the Location of a successful send. */
  documentId?: string;
}

export async function sendDocument(api: ApiClient, token: string, body: unknown): Promise<Sent> {
  const response = await api.post('/documents/outbound', { auth: { clientToken: token }, json: body });
  return { response, documentId: response.status >= 200 && response.status < 300 ? lastSegment(response.headers['location']) : undefined };
}

export interface SendOptions {
  file?: FixtureFileName;
  recipient?: RegisteredCompany;
  sender?: RegisteredCompany;
  /** BusinessToConsumer: the person's SSN. */
  ssn?: string;
  /** Changes the body before it is sent (drop a field, add one). */
  edit?: (body: SendDocumentInput) => void;
}

export interface UploadedAndSent extends Sent {
  upload: Upload;
  body: SendDocumentInput;
  erpDocumentId?: string;
}

function shortly(response: ApiResponse): string {
  const answer = response.recorded.response;
  return `${response.recorded.title} answered ${answer?.status ?? 'nothing'}${answer?.body !== undefined ? ` ${JSON.stringify(answer.body).slice(0, 300)}` : ''}`;
}

/** Uploads a file (invoice.xml by default) and sends it with the given type. Throws SetupFailed when the upload fails. */
export async function uploadAndSend(api: ApiClient, fixtures: Fixtures, token: string, type: SendDocumentAsType, options: SendOptions = {}): Promise<UploadedAndSent> {
  const file = options.file ?? 'invoice.xml';
  const upload = await uploadFile(api, token, file);
  if (upload.reference === undefined) throw new SetupFailed(`cannot upload ${file}: ${shortly(upload.response)}`);
  const body = fixtures.sendDocument(type, {
    documentUri: upload.reference,
    documentFormat: fixtureFile(file).documentFormat,
    recipient: options.recipient?.input,
    sender: options.sender?.input,
    ssn: options.ssn,
  });
  options.edit?.(body);
  const sent = await sendDocument(api, token, body);
  return { ...sent, upload, body, erpDocumentId: body.Document.ErpDocumentId };
}

/** Like uploadAndSend, for tests whose subject comes after the send: a refused send throws SetupFailed. */
export async function sentDocument(api: ApiClient, fixtures: Fixtures, token: string, type: SendDocumentAsType, options: SendOptions = {}, done?: UploadedAndSent): Promise<UploadedAndSent & { documentId: string }> {
  const sent = done ?? (await uploadAndSend(api, fixtures, token, type, options));
  if (sent.documentId === undefined) throw new SetupFailed(`cannot send as ${type}: ${shortly(sent.response)}`);
  return sent as UploadedAndSent & { documentId: string };
}

/** The shape of a JSON value (field names and value types, the first item of each array), for observations. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]));
  return value === null ? 'null' : typeof value;
}

/** Every string in a JSON value, with where it sits. */
function stringsIn(value: unknown, path = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsIn(item, `${path}[${index}]`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, inner]) => stringsIn(inner, path === '' ? key : `${path}.${key}`));
  return [];
}

/** The URLs (absolute, or paths) anywhere in a JSON value, with where each sits: the file information's structure is not shown. */
export function urlsIn(value: unknown): Array<[string, string]> {
  return stringsIn(value).filter(([, text]) => /^(https?:\/\/|\/)\S+$/i.test(text));
}

/**
 * The URLs the answer with IncludeFileInfo=true carries and the answer without it does not: the
 * file information. Compared by value, not by field, since a target may write the file
 * information's field as null (or empty) when the query is false.
 */
export function fileInfoUrls(plain: ApiResponse, withInfo: ApiResponse): Array<[string, string]> {
  const without = new Set(urlsIn(plain.data).map(([, url]) => url));
  return urlsIn(withInfo.data).filter(([, url]) => !without.has(url));
}

/**
 * Downloads a sent document with the company's client token, and with the APIkey when the token is
 * refused: which scheme the outbound download takes is not shown (authentication rule 7, OUT-DL-03).
 */
export async function downloadOutbound(api: ApiClient, token: string, path: string): Promise<ApiResponse> {
  const withToken = await api.get(path, { auth: { clientToken: token } });
  if (withToken.status !== 401 && withToken.status !== 403) return withToken;
  return api.get(path, { auth: 'apiKey' });
}

/**
 * An SSN to send a business-to-consumer invoice to: one provider A reports as registered, when the
 * lookup finds one (`registered`). Whether a send to an unregistered person is refused is not shown;
 * the lookup is there to tell, so a target may refuse it: callers record such a refusal
 * (`refusedForUnregisteredSsn`) instead of judging it.
 */
export async function sendableSsn(api: ApiClient, fixtures: Fixtures, token: string): Promise<{ ssn: string; registered: boolean }> {
  const candidates = fixtures.ssns(10);
  const lookup = await api.post(`${PROVIDER_A_PATH}/lookup`, { auth: { clientToken: token }, json: { Ssns: candidates } });
  const registered = lookup.data?.RegisteredSsns;
  return Array.isArray(registered) && typeof registered[0] === 'string' ? { ssn: registered[0], registered: true } : { ssn: candidates[0], registered: false };
}

/** A send to an SSN provider A did not report as registered, refused with a 4xx: a reading the spec leaves open. */
export function refusedForUnregisteredSsn(ssn: { registered: boolean } | undefined, response: ApiResponse): boolean {
  return ssn !== undefined && !ssn.registered && response.status >= 400 && response.status < 500;
}

/**
 * A URL the target handed out (absolute, or a path on its host), as a path under the base URL
 * for the client; undefined when it points elsewhere.
 */
export function pathUnderBase(url: string, baseUrl: string): string | undefined {
  const base = new URL(baseUrl.replace(/\/+$/, ''));
  let resolved: URL;
  try {
    resolved = new URL(url, base);
  } catch {
    return undefined;
  }
  if (resolved.origin !== base.origin || !resolved.pathname.startsWith(`${base.pathname}/`)) return undefined;
  return resolved.pathname.slice(base.pathname.length) + resolved.search;
}

export type StatusPath = 'documents' | 'invoices';

export function statusPath(documentId: string, path: StatusPath = 'documents'): string {
  return `/${path}/outbound/${encodeURIComponent(documentId)}`;
}

export function currentStatusOf(data: any): string | undefined {
  const status = data?.CurrentStatus?.Status;
  return typeof status === 'string' ? status : undefined;
}

export function historyOf(data: any): string[] {
  return Array.isArray(data?.StatusHistory) ? data.StatusHistory.map((entry: any) => String(entry?.Status)) : [];
}

export interface StatusRead {
  status?: string;
  documentType?: string;
  history: string[];
}

export interface StatusPoll {
  /** The last answer (the one that reached the target, or the last one before the timeout). */
  last: ApiResponse;
  /** Every read, in order. */
  reads: StatusRead[];
  /** The distinct CurrentStatus values seen, in order. */
  seen: string[];
  reached: boolean;
  /**
   * Why the poll ended, for the observation of a wait for something the spec does not promise:
   * "reached", or e.g. "the document reached ConversionFailed, a final status" (issue 36).
   */
  ended: string;
}

const isFinal = (data: any): boolean => isFinalStatus(currentStatusOf(data));

/** Whether a document's last reads show it resting in one of MAY_BE_LAST_STATUSES for a third of the async timeout. */
function restsLongEnough(context: RunContext, resting: { status: string; since: number } | undefined): boolean {
  return resting !== undefined && Date.now() - resting.since >= restingMs(context);
}

/**
 * Reads a document's status until `until` holds (by default: a final status), within the run's
 * async timeout. Never throws on the timeout: the caller's checks judge the last answer.
 * A wait for something else (an ErrorInfo, a longer history: nothing the spec promises) also ends
 * once the document can no longer change: in a final status, or resting in one of
 * MAY_BE_LAST_STATUSES for a third of the async timeout; `ended` says so (issue 36).
 * A final status is a shared prerequisite: known broken, the test ends at once as blocked; found
 * broken here, it is recorded for every later test, and this one still judges its last answer.
 */
export async function pollStatus(api: ApiClient, context: RunContext, token: string, documentId: string, until?: (data: any) => boolean, path: StatusPath = 'documents'): Promise<StatusPoll> {
  if (until === undefined) requirePrerequisites('outbound-final');
  const reads: StatusRead[] = [];
  const seen: string[] = [];
  let last: ApiResponse | undefined;
  let reached = false;
  let ended = `the async timeout of ${context.asyncTimeoutSeconds} s ran out`;
  let resting: { status: string; since: number } | undefined;
  try {
    reached = await pollUntil(context, `document ${documentId} reaching the expected status`, async () => {
      last = await api.get(statusPath(documentId, path), { auth: { clientToken: token } });
      const status = currentStatusOf(last.data);
      reads.push({ status, documentType: typeof last.data?.DocumentType === 'string' ? last.data.DocumentType : undefined, history: historyOf(last.data) });
      const described = `${last.status === 200 ? '' : `HTTP ${last.status} `}${status ?? '(no status)'}`;
      if (seen[seen.length - 1] !== described) seen.push(described);
      // A refusal does not get better by waiting.
      if (last.status >= 400 && last.status < 500) {
        ended = `the status read was refused with HTTP ${last.status}`;
        return false;
      }
      if (last.status !== 200) return undefined;
      if ((until ?? isFinal)(last.data)) {
        ended = 'reached';
        return true;
      }
      if (isFinal(last.data)) {
        ended = `the document reached ${status}, a final status`;
        return false;
      }
      const mayRest = status !== undefined && MAY_BE_LAST_STATUSES.includes(status);
      resting = mayRest ? (resting?.status === status ? resting : { status: status as string, since: Date.now() }) : undefined;
      if (!restsLongEnough(context, resting)) return undefined;
      ended = `the document rested in ${status} for a third of the async timeout`;
      // Resting there is where a document may end: for the default wait, settled.
      return until === undefined ? true : false;
    });
  } catch (error) {
    if (!(error instanceof SetupFailed) || last === undefined) throw error;
    // The test's own time ran out first: nothing can be judged of this document.
    if (error instanceof TestTimeRanOut) blockOnWait(error, { prerequisite: 'outbound-final', requirement: 'FLOW-03', message: `statuses seen: ${seen.join(' -> ')}; last answer: ${shortly(last)}` });
  }
  // Only a target still answering 200 without a final status is stuck; a refusal is the test's own
  // finding, and a document that reached Sent or Sold may rest there (MAY_BE_LAST_STATUSES).
  if (until === undefined && !reached && last?.status === 200 && !MAY_BE_LAST_STATUSES.includes(currentStatusOf(last.data) ?? '')) {
    recordBroken({ prerequisite: 'outbound-final', requirement: 'FLOW-03', message: `no outbound document reached a final status (${FINAL_STATUSES.join(', ')}) or ${MAY_BE_LAST_STATUSES.join(' or ')} within ${context.asyncTimeoutSeconds} s; statuses seen: ${seen.join(' -> ')}; last answer: ${shortly(last)}` });
  }
  return { last: last as ApiResponse, reads, seen, reached, ended };
}

/** Onboards provider A for a Swedish company the way the guide does it, and waits for the record to be Completed. */
export async function activateProviderA(api: ApiClient, context: RunContext, fixtures: Fixtures, company: RegisteredCompany): Promise<void> {
  requirePrerequisites('provider-a');
  const auth = { clientToken: company.token };
  const response = await api.post(PROVIDER_A_PATH, { auth, json: fixtures.providerARegistration(company.input) });
  if (response.status !== 200) broken(recordBroken(providerARefused(response)));
  let last = response;
  await pollUntil(context, 'provider A registration reaching status Completed', async () => {
    last = await api.get(PROVIDER_A_PATH, { auth });
    return last.status === 200 && last.data?.Status === 'Completed' ? true : undefined;
  }).catch((error: Error) => {
    if (!(error instanceof SetupFailed)) throw error;
    blockOnWait(error, providerACause(context, last));
  });
}

interface OutboundWorkerFixtures {
  outboundRecipientOutcome: Outcome<RegisteredCompany>;
  b2cSenderOutcome: Outcome<RegisteredCompany>;
}

/** Test-scoped over the worker's outcome, so a broken prerequisite blocks the test at once. */
interface OutboundTestFixtures {
  outboundRecipient: RegisteredCompany;
  b2cSender: RegisteredCompany;
}

export const test = base.extend<OutboundTestFixtures, OutboundWorkerFixtures>({
  outboundRecipientOutcome: [
    async ({ setupApi, headStart }, use) => {
      await use(await registerRole(headStart, setupApi, 'outboundRecipient'));
    },
    { scope: 'worker' },
  ],

  b2cSenderOutcome: [
    async ({ setupApi, target, fixtures, headStart }, use) => {
      const outcome = await settle(async () => {
        // Provider A requires a company registered in Sweden (head-start.ts draws one).
        const company = await headStart.company('b2cSender', setupApi);
        await activateProviderA(setupApi, target, fixtures, company);
        return company;
      });
      await use(outcome);
    },
    { scope: 'worker' },
  ],

  outboundRecipient: async ({ outboundRecipientOutcome }, use) => use(unwrap(outboundRecipientOutcome)),
  b2cSender: async ({ b2cSenderOutcome }, use) => use(unwrap(b2cSenderOutcome)),
});
