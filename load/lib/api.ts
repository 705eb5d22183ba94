// One function per endpoint the load flows call. Each request is tagged with its endpoint (the
// spec's method and path, ids as {placeholders}), so thresholds and the report are per endpoint,
// and each response goes through the shared checks. The API key and tokens only travel in
// headers; nothing here logs them.
//
// k6 side only.

import http from 'k6/http';
import { sleep } from 'k6';
import { statusIs, hasHeader, locationEndsWithUuid, bodyIsEmpty, isJson, notServerError, type ObservedResponse } from '../../lib/checks.ts';
import { readField } from '../../lib/casing.ts';
import { API_KEY_HEADER, CLIENT_TOKEN_HEADER } from '../../lib/defaults.ts';
import { settings } from './settings.ts';
import { observe, verify, verifySet, verifyThat, named, checkSet, vuSecrets, type CheckSet, type NamedCheck } from './observe.ts';
import { sampledSchemaCheck, schemaCheck, schemaSampled } from './schema.ts';
import exec from 'k6/execution';
import { companyInput, invoiceXml, providerARegistration, INVOICE_FORMAT, type CompanyInput, type PartyLookupInput } from './data.ts';

/** Schema names of the bundled validators, per response body. */
export const SCHEMAS = {
  clientToken: 'ClientToken',
  companyStatus: 'CompanyStatusResponse',
  buyerLookup: 'BuyerPartyLookupResponse',
  sellerLookup: 'SellerPartyLookupResponse',
  outboundDocument: 'OutboundDocument',
  incomingDocuments: 'IncomingDocuments',
  providerALookup: 'ProviderALookupResponse',
} as const;

export const ENDPOINTS = {
  createToken: 'POST /clienttokens/create',
  register: 'POST /companies/register',
  status: 'GET /companies/status',
  buyerLookup: 'POST /buyerparties/lookup',
  sellerLookup: 'POST /sellerparties/lookup',
  upload: 'POST /documents',
  send: 'POST /documents/outbound',
  outboundStatus: 'GET /documents/outbound/{DocumentId}',
  incoming: 'GET /documents/incoming',
  download: 'GET /documents/{id}',
  handled: 'POST /documents/handled',
  providerARegister: 'POST /companies/deliverymethods/b2c/providera',
  providerALookup: 'POST /companies/deliverymethods/b2c/providera/lookup',
} as const;

function params(endpoint: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  return { headers, tags: { endpoint, name: endpoint }, ...extra };
}

const API_KEY_HEADERS: Record<string, string> = { [API_KEY_HEADER]: settings.apiKey, 'Content-Type': 'application/json' };
// The same parameters for every token request: made once, not per request.
const CREATE_TOKEN_PARAMS = params('POST /clienttokens/create', API_KEY_HEADERS);

function tokenHeaders(token: string): Record<string, string> {
  return { [CLIENT_TOKEN_HEADER]: token, 'Content-Type': 'application/json' };
}

function answers(endpoint: string, ...statuses: number[]): NamedCheck {
  const only = statuses.length === 1 ? statuses[0] : undefined;
  const passes = only !== undefined ? (response: ObservedResponse) => response.status === only : (response: ObservedResponse) => statuses.includes(response.status);
  return named(`${endpoint} answers ${statuses.join(' or ')}`, statusIs(...statuses), passes);
}

/**
 * An endpoint's checks, prepared once: the ones every answer gets and, with the validators
 * bundle, the same plus the schema check for the sampled answers (see schema.ts).
 */
function endpointChecks(endpoint: string, always: NamedCheck[], schema?: { name: string; label: string }): () => CheckSet {
  const plain = checkSet(endpoint, always);
  const schemaNamed = schema === undefined ? undefined : schemaCheck(schema.name, schema.label);
  if (schemaNamed === undefined) return () => plain;
  const sampled = checkSet(endpoint, [...always, schemaNamed]);
  return () => (schemaSampled(endpoint) ? sampled : plain);
}

function url(path: string): string {
  return `${settings.baseUrl}${path}`;
}

// Formatting a date per request shows in the throughput; a ValidTo is good enough to the minute.
let validToCache = { minutes: 0, until: 0, text: '' };

function validTo(minutes: number): string {
  const now = Date.now();
  if (validToCache.minutes !== minutes || now >= validToCache.until) {
    validToCache = { minutes, until: now + 60_000, text: new Date(now + minutes * 60_000).toISOString() };
  }
  return validToCache.text;
}

// A body answered with the same ErpId and ValidTo is serialised once (until the ValidTo moves on).
const tokenBodies = new Map<string, { validTo: string; text: string }>();

function tokenBody(erpId: string, validForMinutes: number | undefined): string {
  if (validForMinutes === undefined) return JSON.stringify({ ErpId: erpId });
  const until = validTo(validForMinutes);
  const cached = tokenBodies.get(erpId);
  if (cached !== undefined && cached.validTo === until) return cached.text;
  const text = JSON.stringify({ ErpId: erpId, ValidTo: until });
  if (tokenBodies.size < 1000 || cached !== undefined) tokenBodies.set(erpId, { validTo: until, text });
  return text;
}

/** The Token of a token answer: read straight in the two casings the API uses, else in any casing. */
function tokenOf(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const body = json as Record<string, unknown>;
  return body.Token ?? body.token ?? readField(body, 'Token');
}

const CREATE_TOKEN_URL = url('/clienttokens/create');
const HOLDS_TOKEN_CHECK = named(
  'token body holds a Token',
  (response) => {
    const ok = typeof readField(response.json, 'Token') === 'string';
    return { check: 'holdsToken', ok, expected: 'a JSON body with a Token string', actual: ok ? 'a Token' : isJson(response).actual, severity: 'failure' };
  },
  (response) => typeof tokenOf(response.json) === 'string',
);
const TOKEN_CHECKS = endpointChecks(ENDPOINTS.createToken, [answers(ENDPOINTS.createToken, 200), HOLDS_TOKEN_CHECK], { name: SCHEMAS.clientToken, label: 'token' });

/**
 * POST /clienttokens/create: the token, or undefined when the call failed its checks. Tokens
 * kept for later calls are `remembered`, so a logged failure never shows them.
 */
export function createClientToken(erpId: string, validForMinutes?: number, remember = false): string | undefined {
  const observed = observe(http.post(CREATE_TOKEN_URL, tokenBody(erpId, validForMinutes), CREATE_TOKEN_PARAMS));
  verifySet(observed, TOKEN_CHECKS());
  const token = tokenOf(observed.json);
  if (typeof token !== 'string' || token === '') return undefined;
  if (remember) vuSecrets.add(token);
  return token;
}

const REGISTER_PARAMS = params(ENDPOINTS.register, API_KEY_HEADERS);
const REGISTER_CHECKS = endpointChecks(ENDPOINTS.register, [answers(ENDPOINTS.register, 202), named('register answer has no body, or {}', bodyIsEmpty)]);

/** POST /companies/register: true when accepted (202, empty body or {}). */
export function registerCompany(company: CompanyInput): boolean {
  const observed = observe(http.post(url('/companies/register'), JSON.stringify(company), REGISTER_PARAMS));
  return verifySet(observed, REGISTER_CHECKS());
}

const STATUS_CHECKS = endpointChecks(ENDPOINTS.status, [answers(ENDPOINTS.status, 200)], { name: SCHEMAS.companyStatus, label: 'company status' });

/** GET /companies/status: the registration Status, or undefined. */
export function companyStatus(token: string): { status?: string; companyId?: string } {
  const endpoint = ENDPOINTS.status;
  const observed = observe(http.get(url('/companies/status'), params(endpoint, tokenHeaders(token))));
  verifySet(observed, STATUS_CHECKS());
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

/** Registers a company, gets it a token and waits until it is Registered. */
export function registerAndWait(company: CompanyInput, attempts = 40, intervalSeconds = 0.25): { token?: string; companyId?: string; registered: boolean } {
  if (!registerCompany(company)) return { registered: false };
  const token = createClientToken(company.ErpId, undefined, true);
  if (token === undefined) return { registered: false };
  let companyId: string | undefined;
  const registered = pollUntil(attempts, intervalSeconds, () => {
    const current = companyStatus(token);
    companyId = current.companyId;
    return current.status === 'Registered';
  });
  verifyThat('company reaches status Registered', ENDPOINTS.status, registered);
  return { token, companyId, registered };
}

const BUYER_LOOKUP_CHECKS = endpointChecks(ENDPOINTS.buyerLookup, [answers(ENDPOINTS.buyerLookup, 200)], { name: SCHEMAS.buyerLookup, label: 'buyer lookup' });
const SELLER_LOOKUP_CHECKS = endpointChecks(ENDPOINTS.sellerLookup, [answers(ENDPOINTS.sellerLookup, 200)], { name: SCHEMAS.sellerLookup, label: 'seller lookup' });

export function buyerLookup(token: string, criteria: PartyLookupInput): boolean {
  const endpoint = ENDPOINTS.buyerLookup;
  const observed = observe(http.post(url('/buyerparties/lookup'), JSON.stringify(criteria), params(endpoint, tokenHeaders(token))));
  return verifySet(observed, BUYER_LOOKUP_CHECKS());
}

export function sellerLookup(token: string, criteria: PartyLookupInput): boolean {
  const endpoint = ENDPOINTS.sellerLookup;
  const observed = observe(http.post(url('/sellerparties/lookup'), JSON.stringify(criteria), params(endpoint, tokenHeaders(token))));
  return verifySet(observed, SELLER_LOOKUP_CHECKS());
}

/** POST /documents: the DocumentUri (the Location URN), or undefined. */
export function uploadDocument(token: string, content: string, filename: string, contentType: string): string | undefined {
  const endpoint = ENDPOINTS.upload;
  const body = { File: http.file(content, filename, contentType) };
  const observed = observe(http.post(url('/documents'), body, params(endpoint, { [CLIENT_TOKEN_HEADER]: token })));
  const ok = verify(observed, endpoint, [answers(endpoint, 202), named('upload Location ends in the document uuid', locationEndsWithUuid)]);
  return ok ? observed.headers['location'] : undefined;
}

/** POST /documents/outbound: the DocumentId (last segment of Location), or undefined. */
export function sendDocument(token: string, request: object): string | undefined {
  const endpoint = ENDPOINTS.send;
  const observed = observe(http.post(url('/documents/outbound'), JSON.stringify(request), params(endpoint, tokenHeaders(token))));
  const ok = verify(observed, endpoint, [answers(endpoint, 200), named('send Location ends in the DocumentId', locationEndsWithUuid)]);
  if (!ok) return undefined;
  return observed.headers['location'].replace(/\/+$/, '').split('/').pop();
}

const OUTBOUND_STATUS_CHECKS = endpointChecks(ENDPOINTS.outboundStatus, [answers(ENDPOINTS.outboundStatus, 200)], { name: SCHEMAS.outboundDocument, label: 'outbound document' });

/** GET /documents/outbound/{DocumentId}: the current status, or undefined. */
export function outboundStatus(token: string, documentId: string): string | undefined {
  const endpoint = ENDPOINTS.outboundStatus;
  const observed = observe(http.get(url(`/documents/outbound/${documentId}`), params(endpoint, tokenHeaders(token))));
  verifySet(observed, OUTBOUND_STATUS_CHECKS());
  const status = readField(readField(observed.json, 'CurrentStatus'), 'Status');
  return typeof status === 'string' ? status : undefined;
}

export interface IncomingEntry {
  Id: string;
}

const INCOMING_CHECKS = endpointChecks(ENDPOINTS.incoming, [answers(ENDPOINTS.incoming, 200)], { name: SCHEMAS.incomingDocuments, label: 'incoming documents' });

/** GET /documents/incoming?type=invoice: the unhandled documents. */
export function listIncoming(token: string): IncomingEntry[] {
  const endpoint = ENDPOINTS.incoming;
  const observed = observe(http.get(url('/documents/incoming?type=invoice'), params(endpoint, tokenHeaders(token))));
  verifySet(observed, INCOMING_CHECKS());
  const documents = readField(observed.json, 'Documents');
  if (!Array.isArray(documents)) return [];
  return documents.map((item) => ({ Id: String(readField(item, 'Id')) }));
}

/** GET /documents/{id}: true when the binary document came with its metadata headers. */
export function downloadIncoming(token: string, id: string): boolean {
  const endpoint = ENDPOINTS.download;
  const observed = observe(
    http.get(url(`/documents/${encodeURIComponent(id)}`), params(endpoint, { [CLIENT_TOKEN_HEADER]: token }, { responseType: 'binary' })),
  );
  return verify(observed, endpoint, [
    answers(endpoint, 200),
    named('download carries X-Document-Format', hasHeader('X-Document-Format')),
    named('download is not empty', (response) => ({ ...notServerError(response), ok: (response.size ?? 0) > 0 })),
  ]);
}

/** POST /documents/handled. */
export function markHandled(token: string, ids: string[]): boolean {
  const endpoint = ENDPOINTS.handled;
  const observed = observe(http.post(url('/documents/handled'), JSON.stringify({ documents: ids }), params(endpoint, tokenHeaders(token))));
  return verify(observed, endpoint, [answers(endpoint, 200)]);
}

export function registerProviderA(token: string, company: CompanyInput): boolean {
  const endpoint = ENDPOINTS.providerARegister;
  const body = JSON.stringify(providerARegistration(company));
  const observed = observe(http.post(url('/companies/deliverymethods/b2c/providera'), body, params(endpoint, tokenHeaders(token))));
  return verify(observed, endpoint, [answers(endpoint, 200)]);
}

/** POST .../providera/lookup: the number of registered SSNs, or undefined. */
export function providerALookup(token: string, ssnList: string[]): number | undefined {
  const endpoint = ENDPOINTS.providerALookup;
  const observed = observe(
    http.post(url('/companies/deliverymethods/b2c/providera/lookup'), JSON.stringify({ Ssns: ssnList }), params(endpoint, tokenHeaders(token))),
  );
  const registered = readField(observed.json, 'RegisteredSsns');
  verify(observed, endpoint, [
    answers(endpoint, 200),
    named('lookup answer is a subset of the SSNs sent', (response) => {
      const list = readField(response.json, 'RegisteredSsns');
      const sent = new Set(ssnList);
      const ok = Array.isArray(list) && list.length <= ssnList.length && list.every((item) => sent.has(item as string));
      return { check: 'subset', ok, expected: 'registeredSsns within the Ssns sent', actual: Array.isArray(list) ? `${list.length} numbers` : 'no list', severity: 'failure' };
    }),
    ...sampledSchemaCheck(endpoint, SCHEMAS.providerALookup, 'provider A lookup'),
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

/** Uploads the fixture invoice and sends it; the DocumentId, or undefined. */
export function uploadAndSend(token: string, sendDocumentAs: object, erpDocumentId: string): string | undefined {
  const documentUri = uploadDocument(token, invoiceXml, 'invoice.xml', 'application/xml');
  if (documentUri === undefined) return undefined;
  return sendDocument(token, {
    SendDocumentAs: sendDocumentAs,
    Document: { DocumentFormat: INVOICE_FORMAT, DocumentUri: documentUri, ErpDocumentId: erpDocumentId },
  });
}
