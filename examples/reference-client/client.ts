// A small ERP-like client of the Document Exchange Service API: the reference that passes
// `dxs client-check` with 0 failed. It registers a selling and a buying company, follows the
// registration, looks up partners, adds a user, uploads and sends an invoice from one to the
// other, follows the send to Delivered, handles the buyer's inbox and requests deletion.
//
// It reads DXS_CLIENT_BASE_URL (ending in /v1/api) and DXS_CLIENT_API_KEY (a key holding
// DeleteRegistration), as dxs client-check hands them over. Plain Node 20 (fetch, FormData), no
// dependency, so an integrator can read it as a worked example of the spec's client rules:
// - each call carries the credential the spec names (APIkey for token creation, register and
//   delete; ClientToken for the company calls);
// - a client token of 10 minutes is reused until it nears its ValidTo or is refused;
// - the SearchId is one per installation, resent for every search token;
// - sends name the reference the upload returned, status calls the DocumentId the send returned;
// - a 429 is retried after its Retry-After, a 5xx after a pause; polls leave time between them.
//
// REFERENCE_CLIENT_MUTATION breaks one rule on purpose (npm test's kill table for clients);
// REFERENCE_CLIENT_CASING=camel and REFERENCE_CLIENT_OPEN_CREDENTIAL=apikey|clienttoken are other
// defensible readings of the spec that must pass too.
import { randomUUID } from 'node:crypto';

const BASE_URL = (process.env.DXS_CLIENT_BASE_URL ?? '').replace(/\/+$/, '');
const API_KEY = process.env.DXS_CLIENT_API_KEY ?? '';
const MUTATION = process.env.REFERENCE_CLIENT_MUTATION ?? '';
const CAMEL = process.env.REFERENCE_CLIENT_CASING === 'camel';
/** The credential of the calls whose scheme the spec does not show (rule 7): default, apikey or clienttoken. */
const OPEN_CREDENTIAL = process.env.REFERENCE_CLIENT_OPEN_CREDENTIAL ?? 'default';

const TOKEN_MINUTES = 10;
/** A token is renewed this long before its ValidTo, so no call goes out with one about to expire. */
const TOKEN_MARGIN_MS = 30_000;
const POLL_INTERVAL_MS = 250;
const POLL_LIMIT_MS = 90_000;
const MAX_ATTEMPTS = 5;

if (!/\/v1\/api$/.test(BASE_URL) || API_KEY === '') {
  console.error('reference client: set DXS_CLIENT_BASE_URL (ending in /v1/api) and DXS_CLIENT_API_KEY');
  process.exit(2);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => console.log(`[reference client] ${message}`);

/** The body in the casing this client sends: PascalCase as the reference lists, or camelCase as some guide examples. */
function cased(value: unknown): unknown {
  if (!CAMEL) return value;
  if (Array.isArray(value)) return value.map(cased);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (head) => head.toLowerCase()), cased(inner)]));
}

/** A field of an answer, in whichever casing the service answers. */
function field(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const key = Object.keys(value).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (value as Record<string, unknown>)[key];
}

type Credential = { apiKey: true } | { erpId: string } | { token: string } | { none: true };

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

class ApiError extends Error {
  readonly answer: Answer;

  constructor(answer: Answer, what: string) {
    super(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    this.answer = answer;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens: one per company, reused for 10 minutes (the spec's recommendation), renewed near its
// ValidTo or when the service refuses it.

const tokens = new Map<string, { token: string; validTo: number }>();

async function createToken(erpId: string): Promise<string> {
  const validTo = new Date(Date.now() + TOKEN_MINUTES * 60_000).toISOString();
  const answer = await call('POST', '/clienttokens/create', { apiKey: true }, { body: MUTATION === 'no-validto' ? { ErpId: erpId } : { ErpId: erpId, ValidTo: validTo } });
  const token = field(answer.body, 'Token');
  if (answer.status !== 200 || typeof token !== 'string') throw new ApiError(answer, `token for ${erpId}`);
  const answered = field(answer.body, 'ValidTo');
  const parsed = typeof answered === 'string' ? Date.parse(answered.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : Number.NaN;
  tokens.set(erpId, { token, validTo: Number.isFinite(parsed) ? parsed : Date.parse(validTo) });
  return token;
}

async function tokenFor(erpId: string): Promise<string> {
  const cached = tokens.get(erpId);
  if (MUTATION !== 'token-every-call' && cached !== undefined && cached.validTo - TOKEN_MARGIN_MS > Date.now()) return cached.token;
  return createToken(erpId);
}

// ---------------------------------------------------------------------------------------------
// One call: the credential in its header, 429 retried after Retry-After, 5xx after a pause, a
// refused token replaced once.

async function call(method: string, path: string, credential: Credential, options: { body?: unknown; form?: FormData; accept404?: boolean } = {}): Promise<Answer> {
  let refreshed = false;
  for (let attempt = 1; ; attempt++) {
    const headers: Record<string, string> = {};
    if ('apiKey' in credential) headers.APIkey = API_KEY;
    let companyToken: string | undefined;
    if ('erpId' in credential) companyToken = await tokenFor(credential.erpId);
    if ('token' in credential) companyToken = credential.token;
    if (companyToken !== undefined) headers.ClientToken = companyToken;
    let body: string | FormData | undefined;
    if (options.form !== undefined) body = options.form;
    else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(cased(options.body));
    }
    const response = await fetch(`${BASE_URL}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // A binary download or a plain-text answer stays text.
    }
    const answer: Answer = { status: response.status, headers: response.headers, body: parsed };
    if (response.status === 429 && attempt < MAX_ATTEMPTS) {
      const seconds = Number(response.headers.get('retry-after') ?? '1');
      const wait = MUTATION === 'ignore-retry-after' ? 0 : (Number.isFinite(seconds) ? seconds : 1) * 1000;
      log(`${method} ${path}: 429, retrying after ${wait} ms`);
      await sleep(wait);
      continue;
    }
    if (response.status >= 500 && attempt < MAX_ATTEMPTS) {
      log(`${method} ${path}: ${response.status}, retrying after a pause`);
      await sleep(500 * attempt);
      continue;
    }
    if (response.status === 401 && 'erpId' in credential && !refreshed) {
      log(`${method} ${path}: the token was refused, creating a new one`);
      tokens.delete(credential.erpId);
      refreshed = true;
      continue;
    }
    return answer;
  }
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (Date.now() > until) throw new Error(`${what}: not reached within ${POLL_LIMIT_MS / 1000} s`);
    await sleep(POLL_INTERVAL_MS);
  }
}

/** A call this client may make with either credential, since the spec does not show which (rule 7). */
function openCredential(erpId: string, preferred: 'apikey' | 'clienttoken'): Credential {
  const choice = OPEN_CREDENTIAL === 'default' ? preferred : OPEN_CREDENTIAL;
  return choice === 'apikey' ? { apiKey: true } : { erpId };
}

// ---------------------------------------------------------------------------------------------
// The flows.

const run = randomUUID().slice(0, 8);
const seller = { ErpId: `ref-seller-${run}`, OrgNo: `55${run.replace(/\D/g, '').padEnd(8, '1').slice(0, 8)}`, Name: 'Reference Seller AB' };
const buyer = { ErpId: `ref-buyer-${run}`, OrgNo: `66${run.replace(/\D/g, '').padEnd(8, '2').slice(0, 8)}`, Name: 'Reference Buyer AB' };
/** One SearchId per installation, resent whenever a search token is needed. */
const SEARCH_ID = `ref-installation-${run}`;

async function register(company: typeof seller, processes: string[]): Promise<string> {
  const answer = await call('POST', '/companies/register', { apiKey: true }, {
    body: { ErpId: company.ErpId, ErpProduct: 'dxs reference client 1.0', Name: company.Name, Email: `ap@${company.ErpId}.example.com`, CountryCode: 'SE', OrgNo: company.OrgNo, Processes: processes },
  });
  if (answer.status !== 202 && answer.status !== 200) throw new ApiError(answer, `register ${company.ErpId}`);
  // Registration runs in the background: followed with the status call until Registered.
  return poll(`registration of ${company.ErpId}`, async () => {
    const status = await call('GET', '/companies/status', { erpId: company.ErpId });
    if (status.status !== 200) throw new ApiError(status, 'company status');
    return field(status.body, 'Status') === 'Registered' ? String(field(status.body, 'CompanyId')) : undefined;
  });
}

async function main(): Promise<void> {
  const sellerId = await register(seller, ['SendInvoices']);
  await register(buyer, ['ReceiveInvoices']);
  log(`registered ${seller.ErpId} and ${buyer.ErpId}`);

  // Details and services of the seller, before its first activation: named by its RegistrationId (rule 5). Where a
  // client gets the RegistrationId is not shown; the sandbox's is the CompanyId its status call answers.
  const detailsSet = await call('POST', '/companies/details', { apiKey: true }, {
    body: { RegistrationId: sellerId, ErpProduct: 'dxs reference client 1.0', Name: seller.Name, Email: `ap@${seller.ErpId}.example.com`, CountryCode: 'SE', City: 'Stockholm', Processes: ['SendInvoices'] },
  });
  log(`set details: ${detailsSet.status}`);
  const services = await call('POST', '/companies/services', openCredential(seller.ErpId, 'apikey'), {
    body: { RegistrationId: sellerId, SearchId: SEARCH_ID, ErpId: seller.ErpId, CountryCode: 'SE', OrgNo: seller.OrgNo },
  });
  log(`activate services: ${services.status}`);

  const details = await call('GET', `/companies/details/${encodeURIComponent(sellerId)}`, { erpId: seller.ErpId });
  if (details.status !== 200) throw new ApiError(details, 'company details');
  if (MUTATION === 'wrong-header') await call('GET', `/companies/details/${encodeURIComponent(sellerId)}`, { apiKey: true });

  const lookup = await call('POST', '/buyerparties/lookup', { erpId: seller.ErpId }, { body: { PartyId: `party-${run}`, Name: buyer.Name, OrgNo: buyer.OrgNo, CountryCode: 'SE' } });
  log(`buyer lookup: ${lookup.status}, ${String(field(lookup.body, 'PotentialMatches'))} potential matches`);
  // A search token per lookup round, each with the installation's SearchId.
  for (let round = 1; round <= 3; round++) {
    const searchId = MUTATION === 'new-search-id' ? `ref-search-${randomUUID()}` : SEARCH_ID;
    const searchAnswer = await call('POST', '/clienttokens/createsearchtoken', openCredential(seller.ErpId, 'apikey'), { body: { SearchId: searchId, ValidTo: new Date(Date.now() + TOKEN_MINUTES * 60_000).toISOString() } });
    const searchToken = field(searchAnswer.body, 'Token');
    if (typeof searchToken !== 'string') continue;
    const partyId = MUTATION === 'no-partyid' ? undefined : `party-${run}-${round}`;
    const sellers = await call('POST', '/sellerparties/lookup', OPEN_CREDENTIAL === 'apikey' ? { apiKey: true } : { token: searchToken }, { body: { PartyId: partyId, Name: seller.Name, CountryCode: 'SE' } });
    log(`seller lookup: ${sellers.status}`);
  }

  const user = await call('POST', '/companies/users', { erpId: seller.ErpId }, { body: { Email: `clerk.${run}@example.com`, UserName: `clerk${run.replace(/\W/g, '')}`, CultureCode: 'sv-SE' } });
  log(`add user: ${user.status}`);
  if (MUTATION === 'missing-field') await call('POST', '/companies/users', { erpId: seller.ErpId }, { body: { UserName: `other${run.replace(/\W/g, '')}` } });
  if (MUTATION === 'bad-value') await call('POST', '/companies/users', { erpId: seller.ErpId }, { body: { Email: `third.${run}@example.com`, CultureCode: 'en-US' } });

  const identifier = await call('POST', '/companies/identifiers', { erpId: seller.ErpId }, { body: { Type: 'GLN', Value: `73500${run.replace(/\D/g, '').padEnd(8, '3').slice(0, 8)}` } });
  log(`add identifier: ${identifier.status}`);
  const providerA = await call('POST', '/companies/deliverymethods/b2c/providera', { erpId: seller.ErpId }, {
    body: {
      LegalName: seller.Name, DisplayName: 'Reference Seller', OrgNo: seller.OrgNo, ContactFirstName: 'Ada', ContactLastName: 'Lind', ContactPersonEmail: `ada.${run}@example.com`,
      GeneralEmail: `info.${run}@example.com`, ContactPhone: '+46700000000', PubAgreement: true, TermsAndConditions: true,
    },
  });
  const record = await call('GET', '/companies/deliverymethods/b2c/providera', { erpId: seller.ErpId });
  log(`provider A: registration ${providerA.status}, record status ${String(field(record.body, 'status'))}`);
  const providerAUpdate = await call('PATCH', '/companies/deliverymethods/b2c/providera', { erpId: seller.ErpId }, { body: { DisplayName: 'Reference Seller Kundservice', ContactPhone: '+46700000001' } });
  const registeredSsns = await call('POST', '/companies/deliverymethods/b2c/providera/lookup', { erpId: seller.ErpId }, { body: { Ssns: ['197609198481', '194001202714'] } });
  log(`provider A: update ${providerAUpdate.status}, SSN lookup ${registeredSsns.status}`);

  // A network setup request for a partner not yet in the network, with the supplier's letter uploaded first.
  const letter = new FormData();
  letter.append('File', new Blob(['%PDF-1.4\n% letter from the supplier\n%%EOF\n'], { type: 'application/pdf' }), `letter-${run}.pdf`);
  const letterUpload = await call('POST', '/documents', { erpId: seller.ErpId }, { form: letter });
  const letterReference = letterUpload.headers.get('location');
  if (letterReference !== null) {
    const setup = await call('POST', '/network/setup', { erpId: seller.ErpId }, {
      body: { Name: 'Partner Without Network AB', CountryCode: 'SE', OrgNo: '5599887766', Email: `partner.${run}@example.com`, AttachmentUri: letterReference, Processes: ['ReceiveInvoices'], NetworkSetupFeedbackEmail: `setup.${run}@example.com` },
    });
    log(`network setup: ${setup.status}`);
  }

  // Upload, then send with the reference the upload returned.
  const invoice = `<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>REF-${run}</ID></Invoice>`;
  const form = new FormData();
  form.append('File', new Blob([invoice], { type: 'application/xml' }), `invoice-${run}.xml`);
  if (MUTATION === 'upload-part-name') {
    const misnamed = new FormData();
    misnamed.append('Document', new Blob([invoice], { type: 'application/xml' }), `invoice-${run}.xml`);
    await call('POST', '/documents', { erpId: seller.ErpId }, { form: misnamed });
  }
  const upload = await call('POST', '/documents', { erpId: seller.ErpId }, { form });
  const reference = upload.headers.get('location');
  if (upload.status !== 202 || reference === null) throw new ApiError(upload, 'upload');
  // The main document and each attachment are uploaded separately.
  const appendix = new FormData();
  appendix.append('File', new Blob(['%PDF-1.4\n% delivery note\n%%EOF\n'], { type: 'application/pdf' }), `delivery-note-${run}.pdf`);
  const attachment = (await call('POST', '/documents', { erpId: seller.ErpId }, { form: appendix })).headers.get('location');
  const send = (documentUri: string) => call('POST', '/documents/outbound', { erpId: seller.ErpId }, {
    body: {
      SendDocumentAs: { Type: 'Electronic', Electronic: { RecipientId: `0007:${buyer.OrgNo}` } },
      RecipientInformation: { OrgNo: buyer.OrgNo, Name: buyer.Name, CountryCode: 'SE' },
      Document: { DocumentFormat: 'application/xml', DocumentUri: documentUri, ErpDocumentId: `INV-${run}`, ...(attachment !== null ? { Attachments: [attachment] } : {}) },
    },
  });
  if (MUTATION === 'unknown-reference') await send(`urn:dxs:document:${randomUUID()}`);
  const sent = await send(reference);
  const location = sent.headers.get('location');
  if (sent.status !== 200 || location === null) throw new ApiError(sent, 'send');
  const documentId = location.split('?')[0].replace(/\/+$/, '').split('/').pop() as string;
  const delivered = await poll('delivery', async () => {
    const status = await call('GET', `/documents/outbound/${documentId}`, { erpId: seller.ErpId });
    const current = field(field(status.body, 'CurrentStatus'), 'Status');
    return current === 'Delivered' || current === 'ConversionFailed' || current === 'Stopped' ? current : undefined;
  });
  log(`document ${documentId}: ${String(delivered)}`);
  const byErpId = await call('GET', `/invoices/outbound/byerpid/${encodeURIComponent(`INV-${run}`)}`, { erpId: seller.ErpId });
  log(`status by ErpDocumentId: ${byErpId.status}`);
  const list = await call('POST', '/documents/outbound/list', openCredential(seller.ErpId, 'clienttoken'), { body: { Take: 10, Skip: 0 } });
  log(`outbound list: ${list.status}`);
  const download = await call('GET', `/documents/outbound/download/${documentId}`, openCredential(seller.ErpId, 'clienttoken'));
  log(`outbound download: ${download.status}`);

  // The buyer's inbox: list, read the info, download, mark handled.
  const inbound = await poll('the invoice in the buyer\'s inbox', async () => {
    const answer = await call('GET', '/documents/incoming?type=invoice', { erpId: buyer.ErpId });
    const documents = field(answer.body, 'Documents');
    return Array.isArray(documents) && documents.length > 0 ? documents : undefined;
  });
  const handledIds: string[] = [];
  for (const document of inbound) {
    const id = String(field(document, 'Id'));
    // The info call's scheme is not shown: sent with the credential the other open calls take.
    const info = await call('GET', `/documents/${encodeURIComponent(id)}/info`, openCredential(buyer.ErpId, 'clienttoken'));
    log(`inbound info: ${info.status}`);
    const file = await call('GET', `/documents/${encodeURIComponent(id)}`, { erpId: buyer.ErpId });
    if (file.status === 200) handledIds.push(id);
  }
  const handled = await call('POST', '/documents/handled', { erpId: buyer.ErpId }, { body: { documents: handledIds } });
  log(`inbox: ${handledIds.length} fetched, marked handled: ${handled.status}`);

  // Done with the seller's token: revoke it, then request deletion of both companies.
  const sellerToken = tokens.get(seller.ErpId)?.token;
  if (sellerToken !== undefined) {
    await call('POST', '/clienttokens/revoke', OPEN_CREDENTIAL === 'clienttoken' ? { token: sellerToken } : { apiKey: true }, { body: { ClientToken: sellerToken } });
    tokens.delete(seller.ErpId);
  }
  for (const company of [seller, buyer]) {
    const credential: Credential = MUTATION === 'delete-with-token' ? { erpId: company.ErpId } : { apiKey: true };
    const deleted = await call('POST', '/companies/delete', credential, { body: { Id: company.ErpId } });
    log(`delete ${company.ErpId}: ${deleted.status}`);
  }
}

main().then(
  () => log('done'),
  (error: unknown) => {
    console.error(`[reference client] ${(error as Error).message}`);
    process.exit(1);
  },
);
