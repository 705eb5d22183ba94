// One probe per contrarian variant: a call whose answer, from a sandbox started with the variant
// alone, differs from the default sandbox's (variants.test.ts runs them).
// Every assert.ok carries its message: without one, node reads and parses the call site's source to
// write it, which stalls under the tsx loader.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { RunningSandbox } from '../../sandbox/index.ts';
import { readAnswer } from '../runner/helpers.ts';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export class Client {
  readonly sandbox: RunningSandbox;

  constructor(sandbox: RunningSandbox) {
    this.sandbox = sandbox;
  }

  async call(method: string, path: string, options: { apiKey?: boolean; token?: string; json?: unknown; raw?: string; contentType?: string; headers?: Record<string, string>; form?: FormData } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey) headers.APIkey = this.sandbox.apiKey;
    if (options.token !== undefined) headers.ClientToken = options.token;
    let body: string | FormData | undefined = options.form;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    if (options.raw !== undefined) {
      body = options.raw;
      if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    }
    return readAnswer(await fetch(`${this.sandbox.baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(10_000) }));
  }

  companyInput(countryCode = 'SE', extra: Record<string, unknown> = {}) {
    const digits = String(Math.floor(Math.random() * 1e10)).padStart(10, '0');
    return { ErpId: `variant-${randomUUID()}`, ErpProduct: 'dxs variant probe', Name: 'Probe AB', Email: 'probe@example.com', CountryCode: countryCode, OrgNo: `${digits.slice(0, 6)}-${digits.slice(6)}`, ...extra };
  }

  /** Registers a company and waits (bounded) until a token works and the status is Registered. */
  async registered(countryCode = 'SE', extra: Record<string, unknown> = {}) {
    const input = this.companyInput(countryCode, extra);
    assert.ok([200, 202].includes((await this.call('POST', '/companies/register', { apiKey: true, json: input })).status), 'register accepted');
    for (let attempt = 0; attempt < 200; attempt++) {
      const created = await this.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId } });
      const token = created.json?.token as string | undefined;
      if (token !== undefined) {
        const status = await this.call('GET', '/companies/status', { token });
        if (status.json?.status === 'Registered') return { input, token, companyId: status.json.companyId as string };
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the company never became Registered');
  }

  async upload(token: string, content = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>', type = 'application/xml'): Promise<string> {
    const form = new FormData();
    form.append('File', new Blob([content], { type }), 'invoice.xml');
    const answer = await this.call('POST', '/documents', { token, form });
    assert.equal(answer.status, 202);
    return answer.headers.get('location') as string;
  }

  /** Sends an invoice as Electronic to a recipient CompanyId; the answer of the send. */
  async send(token: string, recipientId: string, content?: string): Promise<Answer> {
    const documentUri = await this.upload(token, content);
    return this.call('POST', '/documents/outbound', { token, json: { SendDocumentAs: { Type: 'Electronic', Electronic: { RecipientId: recipientId } }, Document: { DocumentFormat: 'application/xml', DocumentUri: documentUri } } });
  }

  /** The status answer of a sent document that could not be converted, once it carries its Error. */
  async failedConversion(): Promise<Answer> {
    const { token, companyId } = await this.registered();
    const id = (await this.send(token, companyId, 'neither XML nor PDF')).headers.get('location')?.split('/').pop();
    return this.until(async () => {
      const answer = await this.call('GET', `/documents/outbound/${id}`, { token });
      return answer.json?.error ? answer : undefined;
    });
  }

  async until<T>(attempt: () => Promise<T | undefined>): Promise<T> {
    for (let tries = 0; tries < 300; tries++) {
      const value = await attempt();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('never reached');
  }

  /** Two documents sent from one company to another's inbox, once both are listed. */
  async inbox() {
    const sender = await this.registered();
    const recipient = await this.registered();
    const first = await this.send(sender.token, recipient.companyId);
    const second = await this.send(sender.token, recipient.companyId);
    const ids = [first, second].map((answer) => (answer.headers.get('location') as string).split('/').pop() as string);
    const list = await this.until(async () => {
      const answer = await this.call('GET', '/documents/incoming?type=invoice', { token: recipient.token });
      return answer.json?.documents?.length === 2 ? answer : undefined;
    });
    return { sender, recipient, documentIds: ids, list };
  }

  async providerA(company: { input: { OrgNo: string }; token: string }) {
    const registration = {
      LegalName: 'Probe AB', DisplayName: 'Probe', OrgNo: company.input.OrgNo, ContactFirstName: 'Ada', ContactLastName: 'Lind',
      ContactPersonEmail: 'ada@example.com', GeneralEmail: 'info@example.com', ContactPhone: '+46 8 123 456', PubAgreement: true, TermsAndConditions: true,
    };
    assert.equal((await this.call('POST', '/companies/deliverymethods/b2c/providera', { token: company.token, json: registration })).status, 200);
  }
}

export type Probe = (client: Client) => Promise<void>;

/** A bound on one probe against the default sandbox, not an assertion on time. */
export const PROBE_BOUND_MS = 20_000;

const PROVIDER_A = '/companies/deliverymethods/b2c/providera';

/** For each variant: a call whose answer differs from the default sandbox's. */
export const PROBES: Record<string, { probe: Probe; asyncDelayMs?: number }> = {
  'offset-colon': { probe: async (client) => {
    const { input } = await client.registered();
    const answer = await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId, ValidTo: '2099-01-01T10:00:00Z' } });
    assert.match(answer.json.validTo, /\+00:00$/);
  } },
  'time-seconds': { probe: async (client) => {
    const { input } = await client.registered();
    const answer = await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId, ValidTo: '2099-01-01T10:00:00.123Z' } });
    assert.equal(answer.json.validTo, '2099-01-01T10:00:00Z');
  } },
  'listed-error-object': { probe: async (client) => assert.equal(typeof (await client.call('POST', '/companies/delete', { headers: { APIkey: 'dxs-probe-wrong-key' }, json: { Id: 'dxs-probe' } })).json?.message, 'string') },
  'error-object': { probe: async (client) => assert.equal(typeof (await client.call('GET', '/companies/status')).json.message, 'string') },
  'error-problem-json': { probe: async (client) => assert.match((await client.call('GET', '/companies/status')).headers.get('content-type') ?? '', /problem\+json/) },
  'error-plain-text': { probe: async (client) => assert.match((await client.call('GET', '/companies/status')).headers.get('content-type') ?? '', /text\/plain/) },
  'method-404': { probe: async (client) => assert.equal((await client.call('DELETE', '/companies/status')).status, 404) },
  'bodies-unlimited': { probe: async (client) => assert.equal((await client.call('POST', '/clienttokens/revoke', { apiKey: true, json: { ClientToken: 'x'.repeat(2 * 1024 * 1024) } })).status, 404) },
  'content-type-lenient': { probe: async (client) => {
    const { input } = await client.registered();
    assert.equal((await client.call('POST', '/clienttokens/create', { apiKey: true, raw: JSON.stringify({ ErpId: input.ErpId }), contentType: 'text/plain' })).status, 200);
  } },
  'names-exact': { probe: async (client) => {
    const { input } = await client.registered();
    assert.equal((await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ERPID: input.ErpId } })).status, 400);
    assert.equal((await client.call('POST', '/clienttokens/create', { apiKey: true, json: { erpId: input.ErpId } })).status, 200);
  } },
  'extra-headers': { probe: async (client) => assert.ok((await client.call('GET', '/companies/status')).headers.get('x-request-id'), 'an X-Request-Id header') },
  'moreinfouri-omitted': { probe: async (client) => {
    const failed = await client.failedConversion();
    assert.ok(!('moreInfoUri' in failed.json.error), 'no moreInfoUri');
  } },
  'conversion-error-no-errorinfo': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    const id = (await client.send(token, companyId, 'neither XML nor PDF')).headers.get('location')?.split('/').pop();
    const failed = await client.until(async () => {
      const answer = await client.call('GET', `/documents/outbound/${id}`, { token });
      return answer.json?.currentStatus?.status === 'ConversionFailed' ? answer : undefined;
    });
    assert.equal(failed.json.error ?? null, null, 'no ErrorInfo');
  } },
  'messages-english': { probe: async (client) => assert.match((await client.call('GET', '/companies/status', { headers: { 'Accept-Language': 'sv-SE' } })).text, /header is missing/) },
  'token-unknown-erpid-404': { probe: async (client) => assert.equal((await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: 'nobody' } })).status, 404) },
  'token-after-registered': { asyncDelayMs: 2000, probe: async (client) => {
    const input = client.companyInput();
    await client.call('POST', '/companies/register', { apiKey: true, json: input });
    assert.equal((await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId } })).status, 400);
  } },
  'token-unknown-erpid-401': { probe: async (client) => assert.equal((await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: 'nobody' } })).status, 401) },
  'statuses-no-conversion': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    const id = (await client.send(token, companyId)).headers.get('location')?.split('/').pop();
    const delivered = await client.until(async () => {
      const answer = await client.call('GET', `/documents/outbound/${id}`, { token });
      return answer.json?.currentStatus?.status === 'Delivered' ? answer : undefined;
    });
    assert.deepEqual(delivered.json.statusHistory.map((entry: { status: string }) => entry.status), ['Pending', 'PendingInPlatform', 'Sent', 'Delivered']);
  } },
  'token-validto-omitted': { probe: async (client) => {
    const { input } = await client.registered();
    assert.ok(!('validTo' in (await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId } })).json), 'no validTo');
  } },
  'revoke-apikey-only': { probe: async (client) => {
    const { token } = await client.registered();
    assert.equal((await client.call('POST', '/clienttokens/revoke', { token, json: { ClientToken: token } })).status, 401);
  } },
  'search-token-apikey-only': { probe: async (client) => {
    const { token } = await client.registered();
    assert.equal((await client.call('POST', '/clienttokens/createsearchtoken', { token, json: { SearchId: 'probe' } })).status, 401);
  } },
  'revoke-unknown-200': { probe: async (client) => assert.equal((await client.call('POST', '/clienttokens/revoke', { apiKey: true, json: { ClientToken: 'nope' } })).status, 200) },
  'registration-processing': { asyncDelayMs: 300, probe: async (client) => {
    const input = client.companyInput();
    await client.call('POST', '/companies/register', { apiKey: true, json: input });
    const { json } = await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId } });
    assert.equal((await client.call('GET', '/companies/status', { token: json.token })).json.status, 'Processing');
  } },
  'registered-at-once': { asyncDelayMs: 2000, probe: async (client) => {
    const input = client.companyInput();
    await client.call('POST', '/companies/register', { apiKey: true, json: input });
    const { json } = await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId } });
    assert.equal((await client.call('GET', '/companies/status', { token: json.token })).json.status, 'Registered');
  } },
  'activated-when-registered': { probe: async (client) => {
    const { input, companyId } = await client.registered();
    const { ErpId: _erpId, ...details } = input;
    assert.equal((await client.call('POST', '/companies/details', { apiKey: true, json: { ...details, RegistrationId: companyId } })).status, 400);
  } },
  'register-no-body': { probe: async (client) => assert.equal((await client.call('POST', '/companies/register', { apiKey: true, json: client.companyInput() })).text, '') },
  'reregister-pending': { asyncDelayMs: 300, probe: async (client) => {
    const { input, token } = await client.registered();
    await client.call('POST', '/companies/register', { apiKey: true, json: { ...input, Name: 'Renamed AB' } });
    assert.equal((await client.call('GET', '/companies/status', { token })).json.status, 'Pending');
  } },
  'services-apikey-only': { probe: async (client) => {
    const { input, token, companyId } = await client.registered();
    const body = { RegistrationId: companyId, SearchId: 'probe', ErpId: input.ErpId, CountryCode: input.CountryCode, OrgNo: input.OrgNo };
    assert.equal((await client.call('POST', '/companies/services', { token, json: body })).status, 401);
  } },
  'foreign-403': { probe: async (client) => {
    const one = await client.registered();
    const other = await client.registered();
    assert.equal((await client.call('GET', `/companies/details/${one.companyId}`, { token: other.token })).status, 403);
  } },
  'identifier-200': { probe: async (client) => {
    const { token } = await client.registered();
    assert.equal((await client.call('POST', '/companies/identifiers', { token, json: { Type: 'GLN', Value: '7300009012345' } })).status, 200);
  } },
  'user-no-body': { probe: async (client) => {
    const { token } = await client.registered();
    const answer = await client.call('POST', '/companies/users', { token, json: { Email: `${randomUUID()}@example.com` } });
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
  } },
  'capability-unlisted': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    assert.equal((await client.call('GET', `/companies/details/${companyId}`, { token })).json.sendsElectronicInvoiceCapability, 'NotSendingElectronicInvoices');
  } },
  'seller-lookup-token-only': { probe: async (client) => assert.equal((await client.call('POST', '/sellerparties/lookup', { apiKey: true, json: { PartyId: 'probe' } })).status, 401) },
  'setup-attachment-unchecked': { probe: async (client) => {
    const { token } = await client.registered();
    assert.equal((await client.call('POST', '/network/setup', { token, json: { Name: 'Probe', AttachmentUri: 'urn:nothing' } })).status, 202);
  } },
  'setup-search-token': { probe: async (client) => {
    const search = await client.call('POST', '/clienttokens/createsearchtoken', { apiKey: true, json: { SearchId: 'probe' } });
    const token = String(search.json.Token ?? search.json.token);
    assert.equal((await client.call('POST', '/network/setup', { token, json: { Name: 'Probe' } })).status, 202, 'network setup taken with a search token');
  } },
  'upload-urn-uuid': { probe: async (client) => assert.match(await client.upload((await client.registered()).token), /^urn:uuid:/) },
  'send-location-invoices': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    assert.match((await client.send(token, companyId)).headers.get('location') ?? '', /\/invoices\/outbound\//);
  } },
  'outbound-list-array': { probe: async (client) => {
    const { token } = await client.registered();
    assert.ok(Array.isArray((await client.call('POST', '/documents/outbound/list', { token, json: {} })).json), 'a bare array');
  } },
  'outbound-list-paged': { probe: async (client) => {
    const { token } = await client.registered();
    assert.ok(Array.isArray((await client.call('POST', '/documents/outbound/list', { token, json: {} })).json.items), 'an items array');
  } },
  'outbound-list-newest-first': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    await client.send(token, companyId);
    const last = (await client.send(token, companyId)).headers.get('location')?.split('/').pop();
    assert.equal((await client.call('POST', '/documents/outbound/list', { token, json: {} })).json.documents[0].id, last);
  } },
  'outbound-list-take-10': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    for (let index = 0; index < 11; index++) await client.send(token, companyId);
    assert.equal((await client.call('POST', '/documents/outbound/list', { token, json: {} })).json.documents.length, 10);
  } },
  'outbound-list-token-only': { probe: async (client) => assert.equal((await client.call('POST', '/documents/outbound/list', { apiKey: true, json: {} })).status, 401) },
  'outbound-download-token-only': { probe: async (client) => assert.equal((await client.call('GET', `/documents/outbound/download/${randomUUID()}`, { apiKey: true })).status, 401) },
  'file-info-list': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    const id = (await client.send(token, companyId)).headers.get('location')?.split('/').pop();
    assert.ok(Array.isArray((await client.call('GET', `/documents/outbound/${id}?IncludeFileInfo=true`, { token })).json.files), 'a files array');
  } },
  'outbound-malformed-id-404': { probe: async (client) => assert.equal((await client.call('GET', '/documents/outbound/not-a-uuid', { token: (await client.registered()).token })).status, 404) },
  'error-status-code': { probe: async (client) => {
    const failed = await client.failedConversion();
    assert.equal(failed.json.error.status, 'CONVERSION_FAILED');
  } },
  'downloads-octet-stream': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    const id = (await client.send(token, companyId)).headers.get('location')?.split('/').pop();
    assert.equal((await client.call('GET', `/documents/outbound/download/${id}`, { token })).headers.get('content-type'), 'application/octet-stream');
  } },
  'inbound-newest-first': { probe: async (client) => {
    const { list } = await client.inbox();
    assert.deepEqual(list.json.documents.map((document: { sequenceNo: number }) => document.sequenceNo), [2, 1]);
  } },
  'inbound-sequenceno-inclusive': { probe: async (client) => {
    const { recipient } = await client.inbox();
    assert.equal((await client.call('GET', '/documents/incoming?type=invoice&sequenceNo=1', { token: recipient.token })).json.documents.length, 2);
  } },
  'inbound-type-required': { probe: async (client) => assert.equal((await client.call('GET', '/documents/incoming', { token: (await client.registered()).token })).status, 400) },
  'inbound-type-unknown-empty': { probe: async (client) => assert.equal((await client.call('GET', '/documents/incoming?type=zzz', { token: (await client.registered()).token })).status, 200) },
  'inbound-malformed-id-400': { probe: async (client) => assert.equal((await client.call('GET', '/documents/not-a-uuid', { token: (await client.registered()).token })).status, 400) },
  'inbound-id-is-document-id': { probe: async (client) => {
    const { list, documentIds } = await client.inbox();
    assert.deepEqual(list.json.documents.map((document: { id: string }) => document.id), documentIds);
  } },
  'inbound-urls-relative': { probe: async (client) => assert.match((await client.inbox()).list.json.documents[0].infoUrl, /^\/v1\/api\//) },
  'inbound-page-2': { probe: async (client) => {
    const { sender, recipient } = await client.inbox();
    await client.send(sender.token, recipient.companyId);
    const list = await client.until(async () => {
      const answer = await client.call('GET', '/documents/incoming?type=invoice', { token: recipient.token });
      return answer.json?.total === 3 ? answer : undefined;
    });
    assert.equal(list.json.documents.length, 2);
  } },
  'handled-unknown-ignored': { probe: async (client) => {
    const { token } = await client.registered();
    assert.equal((await client.call('POST', '/documents/handled', { token, json: { documents: [randomUUID()] } })).status, 200);
  } },
  'providera-patch-all-required': { probe: async (client) => {
    const company = await client.registered();
    await client.providerA(company);
    assert.equal((await client.call('PATCH', PROVIDER_A, { token: company.token, json: { DisplayName: 'Other' } })).status, 400);
  } },
  'providera-not-swedish-403': { probe: async (client) => assert.equal((await client.call('GET', PROVIDER_A, { token: (await client.registered('DK')).token })).status, 403) },
  'providera-unknown-nulls': { probe: async (client) => assert.ok('displayName' in (await client.call('GET', PROVIDER_A, { token: (await client.registered()).token })).json, 'a displayName field') },
  'providera-ssns-sorted': { probe: async (client) => {
    const company = await client.registered();
    await client.providerA(company);
    const answer = await client.call('POST', `${PROVIDER_A}/lookup`, { token: company.token, json: { Ssns: ['199001011238', '198001011234'] } });
    assert.deepEqual(answer.json.registeredSsns, ['198001011234', '199001011238']);
  } },
  // The company of `registered` sets no AltName and no Processes.
  'unset-absent': { probe: async (client) => assert.ok(!('altName' in (await client.call('GET', '/companies/status', { token: (await client.registered()).token })).json.details), 'no altName') },
  'unset-null': { probe: async (client) => assert.equal((await client.call('GET', '/companies/status', { token: (await client.registered()).token })).json.details.processes, null) },
  'unset-empty': { probe: async (client) => assert.equal((await client.call('GET', '/companies/status', { token: (await client.registered()).token })).json.details.altName, '') },
  'final-sent-for-pdf-paper': { probe: async (client) => {
    const { token } = await client.registered();
    const documentUri = await client.upload(token);
    const sent = await client.call('POST', '/documents/outbound', { token, json: { SendDocumentAs: { Type: 'PDF', Pdf: { RecipientEmail: 'buyer@example.com' } }, Document: { DocumentFormat: 'application/xml', DocumentUri: documentUri } } });
    const id = sent.headers.get('location')?.split('/').pop();
    const status = async () => (await client.call('GET', `/documents/outbound/${id}`, { token })).json?.currentStatus?.status;
    await client.until(async () => ((await status()) === 'Sent' ? true : undefined));
    // Ten more steps of the engine: the default sandbox has delivered it by then.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await status(), 'Sent');
  } },
  'revoke-token-only': { probe: async (client) => {
    const { token } = await client.registered();
    assert.equal((await client.call('POST', '/clienttokens/revoke', { apiKey: true, json: { ClientToken: token } })).status, 401);
  } },
  'search-token-open': { probe: async (client) => assert.equal((await client.call('POST', '/clienttokens/createsearchtoken', { json: { SearchId: 'probe' } })).status, 200) },
  'services-token-only': { probe: async (client) => {
    const { input, companyId } = await client.registered();
    const body = { RegistrationId: companyId, SearchId: 'probe', ErpId: input.ErpId, CountryCode: input.CountryCode, OrgNo: input.OrgNo };
    assert.equal((await client.call('POST', '/companies/services', { apiKey: true, json: body })).status, 401);
  } },
  'seller-lookup-apikey-only': { probe: async (client) => assert.equal((await client.call('POST', '/sellerparties/lookup', { token: (await client.registered()).token, json: { PartyId: 'probe' } })).status, 401) },
  'outbound-list-apikey-only': { probe: async (client) => assert.equal((await client.call('POST', '/documents/outbound/list', { token: (await client.registered()).token, json: {} })).status, 401) },
  'outbound-download-apikey-only': { probe: async (client) => assert.equal((await client.call('GET', `/documents/outbound/download/${randomUUID()}`, { token: (await client.registered()).token })).status, 401) },
  'providera-completed-later': { asyncDelayMs: 500, probe: async (client) => {
    const company = await client.registered();
    await client.providerA(company);
    assert.equal((await client.call('GET', PROVIDER_A, { token: company.token })).json.status, 'Unknown');
  } },
  'outbound-list-max-take-5': { probe: async (client) => {
    const { token, companyId } = await client.registered();
    for (let index = 0; index < 6; index++) await client.send(token, companyId);
    assert.equal((await client.call('POST', '/documents/outbound/list', { token, json: { Take: 100 } })).json.documents.length, 5);
  } },
  'lookup-parties-5': { probe: async (client) => {
    const answer = await client.call('POST', '/buyerparties/lookup', { token: (await client.registered()).token, json: { PartyId: 'probe' } });
    assert.equal(answer.json.parties.length, 5);
  } },
};

