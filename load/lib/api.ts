// One function per endpoint the load flows call. Each request is tagged with its endpoint (the
// spec's method and path, ids as {placeholders}), so thresholds and the report are per endpoint,
// and each response goes through the shared checks. The API key and tokens only travel in
// headers; nothing here logs them.
//
// k6 side only.

import http from 'k6/http';
import { sleep } from 'k6';
import { hasHeader, locationEndsWithUuid, bodyIsEmpty, isJson, notServerError, type ObservedResponse } from '../../lib/checks.ts';
import { readField } from '../../lib/casing.ts';
import { API_KEY_HEADER, CLIENT_TOKEN_HEADER } from '../../lib/defaults.ts';
import { Counter } from 'k6/metrics';
import { GATEWAY_WAITED_METRIC, isGatewayAnswer, MAINTENANCE_STATUS, RATE_LIMITED_STATUS, retryAfterOf, retryAfterSeconds } from '../../lib/gateway.ts';
import { settings } from './settings.ts';
import { ENDPOINTS, SCHEMAS } from './endpoints.ts';
import { endpointChecks, observe, verifyThat, named, vuSecrets, type EndpointChecks } from './observe.ts';
import { contractChecks } from './schema.ts';
import exec from 'k6/execution';
import { companyInput, invoiceXml, providerARegistration, INVOICE_FORMAT, type CompanyInput, type PartyLookupInput } from './data.ts';
import { journalCreated } from './journal.ts';
import { recordExchange } from './history.ts';
import { invoiceMarker, markInvoice } from '../../fixtures/invoice-marker.ts';


export { ENDPOINTS, SCHEMAS };

/**
 * Request params: the endpoint in k6's `name` tag and its status rule, which k6 applies to every
 * response. `name` is the one tag that carries the endpoint (thresholds, report): a second tag
 * with the same value cost about 3 µs of k6 CPU per request, every metric point carrying it.
 */
function params(checks: EndpointChecks, headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  return { headers, tags: { name: checks.endpoint }, responseCallback: checks.responseCallback, ...extra };
}

const API_KEY_HEADERS: Record<string, string> = { [API_KEY_HEADER]: settings.apiKey, 'Content-Type': 'application/json' };

function tokenHeaders(token: string): Record<string, string> {
  return { [CLIENT_TOKEN_HEADER]: token, 'Content-Type': 'application/json' };
}

/** Attempts of a call the gateway answers 429 (or 503 with Retry-After), Retry-After apart: a client that honours it. */
const GATEWAY_ATTEMPTS = 4;

/**
 * Gateway answers waited out and sent again, per endpoint (name tag): the call still reached the
 * target at what the gateway's limit allows, so the share of the gateway's answers (dxs load's
 * --max-gateway-share, cli/commands/load/gateway-share.ts) leaves these out. Added only on the
 * rare path of a wait: nothing per request.
 */
const gatewayWaited = new Counter(GATEWAY_WAITED_METRIC);

/** Sends again, after Retry-After, while the gateway answers; each answer stays in http_reqs under its status. */
function retried<T extends { status: number; headers: Record<string, string> }>(endpoint: string, send: () => T): T {
  let response = send();
  for (let attempt = 1; attempt < GATEWAY_ATTEMPTS; attempt++) {
    const status = response.status;
    if ((status !== RATE_LIMITED_STATUS && status !== MAINTENANCE_STATUS) || !isGatewayAnswer(status, response.headers)) break;
    sleep(retryAfterSeconds(retryAfterOf(response.headers)));
    gatewayWaited.add(1, { name: endpoint });
    response = send();
  }
  return response;
}

/**
 * A call of a document flow, sent again while the gateway answers (retried), with the times of its
 * last attempt: the history records the answer that counted, not the gateway's.
 */
function timed<T extends { status: number; headers: Record<string, string> }>(endpoint: string, send: () => T): { response: T; invoked: number; completed: number } {
  let invoked = 0;
  const response = retried(endpoint, () => {
    invoked = Date.now();
    return send();
  });
  return { response, invoked, completed: Date.now() };
}

/**
 * A company as the document flows act for it: its token makes the calls, its ErpId names it in the
 * history of the exchange (history.ts). SetupCompany is one.
 */
export interface Actor {
  erpId: string;
  token: string;
}

function url(path: string): string {
  return `${settings.baseUrl}${path}`;
}

/** A token request body; ValidTo `validForMinutes` from now, or none. */
function tokenBody(erpId: string, validForMinutes: number | undefined, now = Date.now()): string {
  if (validForMinutes === undefined) return JSON.stringify({ ErpId: erpId });
  return JSON.stringify({ ErpId: erpId, ValidTo: new Date(now + validForMinutes * 60_000).toISOString() });
}

/** The Token of a token answer: read straight in the two casings the API uses, else in any casing. */
function tokenOf(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const body = json as Record<string, unknown>;
  return body.Token ?? body.token ?? readField(body, 'Token');
}

const CREATE_TOKEN_URL = url('/clienttokens/create');
const HOLDS_TOKEN_CHECK = named(
  'token body holds a Token [TOK-02]',
  (response) => {
    const ok = typeof readField(response.json, 'Token') === 'string';
    return { check: 'holdsToken', ok, expected: 'a JSON body with a Token string', actual: ok ? 'a Token' : isJson(response).actual, severity: 'failure' };
  },
  (response) => typeof tokenOf(response.json) === 'string',
);
const TOKEN_CHECKS = endpointChecks(ENDPOINTS.createToken, [200], [HOLDS_TOKEN_CHECK], contractChecks(SCHEMAS.clientToken, 'token'));
// The same parameters for every token request: made once, not per request.
const CREATE_TOKEN_PARAMS = params(TOKEN_CHECKS, API_KEY_HEADERS);
const CREATE_TOKEN_PARAMS_UNREAD = params(TOKEN_CHECKS, API_KEY_HEADERS, { responseType: 'none' });

/**
 * POST /clienttokens/create for the same few companies in turn, as the client-tokens flow makes
 * tokens without using them. The bodies are made once a minute, and an answer is only kept and
 * read when it falls in the check sample (k6 judges every status).
 */
export function clientTokenMaker(erpIds: readonly string[], validForMinutes: number): () => void {
  let bodies: string[] = [];
  let until = 0;
  let next = 0;
  return () => {
    const now = Date.now();
    // A ValidTo is good enough to the minute: formatting one per request showed in the throughput.
    if (now >= until) {
      bodies = erpIds.map((erpId) => tokenBody(erpId, validForMinutes, now));
      until = now + 60_000;
    }
    const body = bodies[next++ % bodies.length];
    if (TOKEN_CHECKS.due()) TOKEN_CHECKS.record(http.post(CREATE_TOKEN_URL, body, CREATE_TOKEN_PARAMS));
    else http.post(CREATE_TOKEN_URL, body, CREATE_TOKEN_PARAMS_UNREAD);
  };
}

/**
 * POST /clienttokens/create: the token, or undefined when the call failed. Tokens kept for later
 * calls are `remembered`, so a logged failure never shows them.
 */
export function clientToken(erpId: string, validForMinutes?: number, remember = false): string | undefined {
  const observed = observe(retried(TOKEN_CHECKS.endpoint, () => http.post(CREATE_TOKEN_URL, tokenBody(erpId, validForMinutes), CREATE_TOKEN_PARAMS)));
  TOKEN_CHECKS.verify(observed);
  const token = tokenOf(observed.json);
  if (typeof token !== 'string' || token === '') return undefined;
  if (remember) vuSecrets.add(token);
  return token;
}

const REGISTER_CHECKS = endpointChecks(ENDPOINTS.register, [202], [named('register answer has no body, or {} [CMP-REG-02]', bodyIsEmpty)]);
const REGISTER_PARAMS = params(REGISTER_CHECKS, API_KEY_HEADERS);

/** POST /companies/register: true when accepted (202, empty body or {}). */
export function registerCompany(company: CompanyInput): boolean {
  const response = retried(REGISTER_CHECKS.endpoint, () => http.post(url('/companies/register'), JSON.stringify(company), REGISTER_PARAMS));
  // Journaled on any 2xx, before the checks judge the answer: an accepted registration exists whatever its body.
  if (response.status >= 200 && response.status < 300) journalCreated('company', { ErpId: company.ErpId, OrgNo: company.OrgNo, CountryCode: company.CountryCode, Name: company.Name });
  return REGISTER_CHECKS.verify(response);
}

const STATUS_CHECKS = endpointChecks(ENDPOINTS.status, [200], [], contractChecks(SCHEMAS.companyStatus, 'company status'));

/** GET /companies/status: the registration Status, or undefined. */
export function companyStatus(token: string): { status?: string; companyId?: string } {
  const observed = observe(retried(STATUS_CHECKS.endpoint, () => http.get(url('/companies/status'), params(STATUS_CHECKS, tokenHeaders(token)))));
  STATUS_CHECKS.verify(observed);
  const status = readField(observed.json, 'Status');
  const companyId = readField(observed.json, 'CompanyId');
  return { status: typeof status === 'string' ? status : undefined, companyId: typeof companyId === 'string' ? companyId : undefined };
}

/** Polls a condition a bounded number of times; true when it held. */
export function pollUntil(attempts: number, intervalSeconds: number, done: () => boolean): boolean {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (done()) return true;
    sleep(intervalSeconds);
  }
  return false;
}

/**
 * Polls every intervalSeconds until the condition holds or the run's --async-timeout has passed:
 * background work of the target is awaited as long as dxs test awaits it, and bounded by time, not
 * by a count of attempts (an attempt that meets the gateway waits its Retry-After too).
 */
export function pollWithinAsyncTimeout(intervalSeconds: number, done: () => boolean): boolean {
  const deadline = Date.now() + settings.asyncTimeout * 1000;
  for (;;) {
    if (done()) return true;
    if (Date.now() + intervalSeconds * 1000 > deadline) return false;
    sleep(intervalSeconds);
  }
}

// Whether a token can be had while the registration runs is not shown (the contrarian variant
// token-after-registered refuses it): until the company is Registered a 4xx is retried, not counted.
const PENDING_TOKEN_PARAMS = params(TOKEN_CHECKS, API_KEY_HEADERS, { responseCallback: http.expectedStatuses(200, { min: 400, max: 499 }) });

/** A client token of a company whose registration may still run, or undefined; no check is recorded. */
function tokenWhileRegistering(erpId: string): string | undefined {
  const token = tokenOf(observe(retried(TOKEN_CHECKS.endpoint, () => http.post(CREATE_TOKEN_URL, tokenBody(erpId, undefined), PENDING_TOKEN_PARAMS))).json);
  if (typeof token !== 'string' || token === '') return undefined;
  vuSecrets.add(token);
  return token;
}

/** Registers a company, gets it a token and waits until it is Registered. */
export function registerAndWait(company: CompanyInput, intervalSeconds = 0.25): { token?: string; companyId?: string; registered: boolean } {
  if (!registerCompany(company)) return { registered: false };
  let token: string | undefined;
  let companyId: string | undefined;
  let registered = pollWithinAsyncTimeout(intervalSeconds, () => {
    token ??= tokenWhileRegistering(company.ErpId);
    if (token === undefined) return false;
    const current = companyStatus(token);
    companyId = current.companyId;
    return current.status === 'Registered';
  });
  // No token while polling: one more request, judged by the token checks, says why.
  if (token === undefined) {
    token = clientToken(company.ErpId, undefined, true);
    registered = false;
  }
  if (token === undefined) return { registered: false };
  verifyThat('company reaches status Registered', ENDPOINTS.status, registered);
  return { token, companyId, registered };
}

const BUYER_LOOKUP_CHECKS = endpointChecks(ENDPOINTS.buyerLookup, [200], [], contractChecks(SCHEMAS.buyerLookup, 'buyer lookup'));
const SELLER_LOOKUP_CHECKS = endpointChecks(ENDPOINTS.sellerLookup, [200], [], contractChecks(SCHEMAS.sellerLookup, 'seller lookup'));

export function buyerLookup(token: string, criteria: PartyLookupInput): boolean {
  return BUYER_LOOKUP_CHECKS.verify(http.post(url('/buyerparties/lookup'), JSON.stringify(criteria), params(BUYER_LOOKUP_CHECKS, tokenHeaders(token))));
}

export function sellerLookup(token: string, criteria: PartyLookupInput): boolean {
  return SELLER_LOOKUP_CHECKS.verify(http.post(url('/sellerparties/lookup'), JSON.stringify(criteria), params(SELLER_LOOKUP_CHECKS, tokenHeaders(token))));
}

const UPLOAD_CHECKS = endpointChecks(ENDPOINTS.upload, [202], [named('upload Location ends in the document uuid [OUT-UPL-03]', locationEndsWithUuid)]);

/** POST /documents: the DocumentUri (the Location URN), or undefined. */
export function uploadDocument(token: string, content: string, filename: string, contentType: string): string | undefined {
  const body = { File: http.file(content, filename, contentType) };
  const observed = observe(retried(UPLOAD_CHECKS.endpoint, () => http.post(url('/documents'), body, params(UPLOAD_CHECKS, { [CLIENT_TOKEN_HEADER]: token }))));
  if (observed.status >= 200 && observed.status < 300) journalCreated('upload', { Location: observed.headers['location'] });
  return UPLOAD_CHECKS.verify(observed) ? observed.headers['location'] : undefined;
}

const SEND_CHECKS = endpointChecks(ENDPOINTS.send, [200], [named('send Location ends in the DocumentId [OUT-SEND-03]', locationEndsWithUuid)]);

interface SendRequest {
  SendDocumentAs?: { Type?: string; [field: string]: unknown };
  Document?: { ErpDocumentId?: string; [field: string]: unknown };
}

/** The last segment of a Location: the id it names. */
function lastSegment(location: string | undefined): string | undefined {
  return location?.replace(/\/+$/, '').split('/').pop();
}

/**
 * POST /documents/outbound: the DocumentId (last segment of Location), or undefined. Recorded in
 * the history of the exchange with the recipient's ErpId, when the flow sends to a company of its own.
 */
export function sendDocument(sender: Actor, request: SendRequest, recipientErpId?: string): string | undefined {
  const { response, invoked, completed } = timed(SEND_CHECKS.endpoint, () => http.post(url('/documents/outbound'), JSON.stringify(request), params(SEND_CHECKS, tokenHeaders(sender.token))));
  const observed = observe(response);
  const accepted = observed.status >= 200 && observed.status < 300;
  const erpDocumentId = request.Document?.ErpDocumentId;
  if (accepted) journalCreated('document', { Location: observed.headers['location'], ErpDocumentId: erpDocumentId });
  recordExchange({
    op: 'send', actor: sender.erpId, invoked, completed, status: observed.status, recipient: recipientErpId, deliveryType: request.SendDocumentAs?.Type,
    documentId: accepted ? lastSegment(observed.headers['location']) : undefined, erpDocumentId,
  });
  if (!SEND_CHECKS.verify(observed)) return undefined;
  return lastSegment(observed.headers['location']);
}

const OUTBOUND_STATUS_CHECKS = endpointChecks(ENDPOINTS.outboundStatus, [200], [], contractChecks(SCHEMAS.outboundDocument, 'outbound document'));

/** GET /documents/outbound/{DocumentId}: the current status, or undefined. */
export function outboundStatus(sender: Actor, documentId: string): string | undefined {
  const { response, invoked, completed } = timed(OUTBOUND_STATUS_CHECKS.endpoint, () => http.get(url(`/documents/outbound/${documentId}`), params(OUTBOUND_STATUS_CHECKS, tokenHeaders(sender.token))));
  const observed = observe(response);
  OUTBOUND_STATUS_CHECKS.verify(observed);
  const status = readField(readField(observed.json, 'CurrentStatus'), 'Status');
  const documentStatus = typeof status === 'string' ? status : undefined;
  recordExchange({ op: 'status', actor: sender.erpId, invoked, completed, status: observed.status, documentId, documentStatus });
  return documentStatus;
}

/** An entry of the incoming list: its SequenceNo and CompanyId when the answer gave them as the spec types them. */
export interface IncomingEntry {
  Id: string;
  SequenceNo?: number;
  CompanyId?: string;
}

export interface IncomingList {
  status: number;
  /** Total of the answer, when it had a number there. */
  total?: number;
  entries: IncomingEntry[];
}

const INCOMING_CHECKS = endpointChecks(ENDPOINTS.incoming, [200], [], contractChecks(SCHEMAS.incomingDocuments, 'incoming documents'));

function entryOf(item: unknown): IncomingEntry {
  const sequenceNo = readField(item, 'SequenceNo');
  const companyId = readField(item, 'CompanyId');
  return { Id: String(readField(item, 'Id')), SequenceNo: typeof sequenceNo === 'number' ? sequenceNo : undefined, CompanyId: typeof companyId === 'string' ? companyId : undefined };
}

/**
 * GET /documents/incoming?type=invoice: without sequenceNo the unhandled documents, with it the
 * documents past it (rule 2). Every answer goes into the history with the entries it showed.
 */
export function listIncoming(receiver: Actor, sequenceNo?: number): IncomingList {
  const query = sequenceNo === undefined ? '' : `&sequenceNo=${sequenceNo}`;
  const { response, invoked, completed } = timed(INCOMING_CHECKS.endpoint, () => http.get(url(`/documents/incoming?type=invoice${query}`), params(INCOMING_CHECKS, tokenHeaders(receiver.token))));
  const observed = observe(response);
  INCOMING_CHECKS.verify(observed);
  const documents = readField(observed.json, 'Documents');
  const total = readField(observed.json, 'Total');
  const entries = Array.isArray(documents) ? documents.map(entryOf) : [];
  const ok = observed.status >= 200 && observed.status < 300;
  recordExchange({
    op: 'list', actor: receiver.erpId, invoked, completed, status: observed.status, sequenceNo,
    total: typeof total === 'number' ? total : undefined,
    ...(ok ? { ids: entries.map((entry) => entry.Id), sequenceNos: entries.map((entry) => entry.SequenceNo ?? null), companyIds: entries.map((entry) => entry.CompanyId ?? null) } : {}),
  });
  return { status: observed.status, total: typeof total === 'number' ? total : undefined, entries };
}

const DOWNLOAD_CHECKS = endpointChecks(ENDPOINTS.download, [200], [
  named('download carries X-Document-Format [INB-09]', hasHeader('X-Document-Format')),
  named('download is not empty', (response) => ({ ...notServerError(response), ok: (response.size ?? 0) > 0 })),
]);

/** A run's markers are its ErpDocumentIds, which all start with the run prefix (data.ts erpIdFor). */
const MARKER_PREFIX = `${settings.runPrefix}-`;

/**
 * GET /documents/{id}: whether the document came with its metadata headers, and the marker it
 * carries (the ErpDocumentId its sender wrote into it), which the history records with the id.
 */
export function downloadIncoming(receiver: Actor, id: string): { ok: boolean; status: number; marker?: string } {
  const { observed, marker } = recordedDownload(receiver, id, params(DOWNLOAD_CHECKS, { [CLIENT_TOKEN_HEADER]: receiver.token }));
  return { ok: DOWNLOAD_CHECKS.verify(observed), status: observed.status, marker };
}

/** GET /documents/{id}, recorded in the history with the marker the document carried. */
function recordedDownload(reader: Actor, id: string, requestParams: object): { observed: ObservedResponse; marker?: string } {
  const { response, invoked, completed } = timed(ENDPOINTS.download, () => http.get(url(`/documents/${encodeURIComponent(id)}`), requestParams));
  const observed = observe(response);
  const marker = observed.status >= 200 && observed.status < 300 ? invoiceMarker(observed.text, MARKER_PREFIX) : undefined;
  recordExchange({ op: 'fetch', actor: reader.erpId, invoked, completed, status: observed.status, id, marker });
  return { observed, marker };
}

// Another company's inbound document: any 4xx refuses it (INB-20, INB-21); k6 counts every other answer failed.
const REFUSED = http.expectedStatuses({ min: 400, max: 499 });
const isRefused = (status: number) => status >= 400 && status < 500;

/**
 * GET /documents/{id} and /documents/{id}/info of a document delivered to another company: both
 * must be refused. Each answer goes into the history, a download with the marker it carried.
 */
export function readForeignInbound(reader: Actor, id: string): boolean {
  const downloaded = recordedDownload(reader, id, { headers: { [CLIENT_TOKEN_HEADER]: reader.token }, tags: { name: ENDPOINTS.download }, responseCallback: REFUSED }).observed;
  const info = timed(ENDPOINTS.info, () => http.get(url(`/documents/${encodeURIComponent(id)}/info`), { headers: tokenHeaders(reader.token), tags: { name: ENDPOINTS.info }, responseCallback: REFUSED }));
  recordExchange({ op: 'info', actor: reader.erpId, invoked: info.invoked, completed: info.completed, status: info.response.status, id });
  const downloadRefused = verifyThat("another company's inbound document is not downloaded [INB-20]", ENDPOINTS.download, isRefused(downloaded.status));
  return verifyThat("another company's inbound document info is not read [INB-21]", ENDPOINTS.info, isRefused(info.response.status)) && downloadRefused;
}

const HANDLED_CHECKS = endpointChecks(ENDPOINTS.handled, [200], []);

/** POST /documents/handled. */
export function markHandled(receiver: Actor, ids: string[]): boolean {
  const { response, invoked, completed } = timed(HANDLED_CHECKS.endpoint, () => http.post(url('/documents/handled'), JSON.stringify({ documents: ids }), params(HANDLED_CHECKS, tokenHeaders(receiver.token))));
  recordExchange({ op: 'handled', actor: receiver.erpId, invoked, completed, status: response.status, ids });
  return HANDLED_CHECKS.verify(response);
}

const PROVIDER_A_REGISTER_CHECKS = endpointChecks(ENDPOINTS.providerARegister, [200], []);

export function registerProviderA(token: string, company: CompanyInput): boolean {
  const body = JSON.stringify(providerARegistration(company));
  const response = retried(PROVIDER_A_REGISTER_CHECKS.endpoint, () => http.post(url('/companies/deliverymethods/b2c/providera'), body, params(PROVIDER_A_REGISTER_CHECKS, tokenHeaders(token))));
  if (response.status >= 200 && response.status < 300) journalCreated('provider-a', { ErpId: company.ErpId, OrgNo: company.OrgNo });
  return PROVIDER_A_REGISTER_CHECKS.verify(response);
}

const PROVIDER_A_LOOKUP_CHECKS = endpointChecks(ENDPOINTS.providerALookup, [200], [], contractChecks(SCHEMAS.providerALookup, 'provider A lookup'));

/** POST .../providera/lookup: the number of registered SSNs, or undefined. */
export function providerALookup(token: string, ssnList: string[]): number | undefined {
  const observed = observe(http.post(url('/companies/deliverymethods/b2c/providera/lookup'), JSON.stringify({ Ssns: ssnList }), params(PROVIDER_A_LOOKUP_CHECKS, tokenHeaders(token))));
  const registered = readField(observed.json, 'RegisteredSsns');
  PROVIDER_A_LOOKUP_CHECKS.verify(observed, [
    named('lookup answer is a subset of the SSNs sent', (response) => {
      const list = readField(response.json, 'RegisteredSsns');
      const sent = new Set(ssnList);
      const ok = Array.isArray(list) && list.length <= ssnList.length && list.every((item) => sent.has(item as string));
      return { check: 'subset', ok, expected: 'registeredSsns within the Ssns sent', actual: Array.isArray(list) ? `${list.length} numbers` : 'no list', severity: 'failure' };
    }),
  ]);
  return Array.isArray(registered) ? registered.length : undefined;
}

export interface SetupCompany {
  erpId: string;
  companyId: string;
  /** Created without expiry: setup data outlives any 10-minute token. */
  token: string;
  company: CompanyInput;
}

/** For setup(): a registered company with a token, or the test stops with the reason. */
export function setupCompany(erpId: string, processes: string[], swedish = false): SetupCompany {
  const company = companyInput(erpId, processes, swedish);
  const result = registerAndWait(company);
  if (!result.registered || result.token === undefined || result.companyId === undefined) {
    exec.test.abort(`setup: company ${erpId} did not reach status Registered`);
  }
  return { erpId, companyId: result.companyId as string, token: result.token as string, company };
}

/**
 * Uploads the fixture invoice, marked with its ErpDocumentId (its first cbc:ID), and sends it; the
 * DocumentId, or undefined. The marker is how the recipient tells which send a document it lists is.
 */
export function uploadAndSend(sender: Actor, sendDocumentAs: { Type: string; [field: string]: unknown }, erpDocumentId: string, recipientErpId?: string): string | undefined {
  const documentUri = uploadDocument(sender.token, markInvoice(invoiceXml, erpDocumentId), 'invoice.xml', 'application/xml');
  if (documentUri === undefined) return undefined;
  return sendDocument(sender, {
    SendDocumentAs: sendDocumentAs,
    Document: { DocumentFormat: INVOICE_FORMAT, DocumentUri: documentUri, ErpDocumentId: erpDocumentId },
  }, recipientErpId);
}
