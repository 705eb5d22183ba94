// Conventions that hold across the API: the versioned base path, JSON bodies (multipart upload,
// binary downloads), field-name casing both ways, date-times, Accept-Language, and error bodies.
// The strict casing modes (--casing strict-pascal / strict-camel) are applied by expectCheck itself.
import { renderKeys, casingViolations } from '../../lib/casing.ts';
import type { Check } from '../../lib/checks.ts';
import { isDxsDateTime } from '../../schemas/formats.ts';
import { checks, expectCheck, observe, step, tags, test, type ApiClient, type ApiResponse, type RegisteredCompany } from '../support/index.ts';
import { downloadOutbound, fact, pollStatus, sentDocument, statusPath, uploadFile } from '../support/outbound.ts';

const { statusIs, isJson, isRejected, isSuccess, bodyIsJsonString, casingIs, hasHeader } = checks;

/** A fixed uuid no target has handed out. */
const UNKNOWN_ID = '0d5c7a51-9a3e-4f0e-b7a4-2f6c1e8d9b70';

/** The JSON answers every target gives a registered company, for checks that look at many bodies. */
async function jsonAnswers(api: ApiClient, company: RegisteredCompany, fixtures: { buyerLookup: (of?: any) => unknown }): Promise<ApiResponse[]> {
  const auth = { clientToken: company.token };
  return [
    await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: company.erpId } }),
    await api.get('/companies/status', { auth }),
    await api.get(`/companies/details/${encodeURIComponent(company.companyId)}`, { auth }),
    await api.post('/buyerparties/lookup', { auth, json: fixtures.buyerLookup(company.input) }),
  ];
}

/**
 * "Errors are signalled by the HTTP status": any status of 400 or above, not a 2xx carrying an error.
 * Which one is the call's own matter (a delete without its role may meet "All delete requests are
 * disabled", 501).
 */
const signalsError: Check = (response) => ({ check: 'signalsError', ok: response.status >= 400, expected: 'a status of 400 or above', actual: `status ${response.status}`, severity: 'failure' });

const jsonContentType = hasHeader('Content-Type', /^application\/([\w.+-]+\+)?json\b/i);

function offsetForm(value: string): string {
  if (/[Zz]$/.test(value)) return 'Z';
  const match = /([+-]\d{2}(:?\d{2})?)$/.exec(value);
  return match === null ? 'no offset' : /:/.test(match[1]) ? '+hh:mm' : match[1].length === 3 ? '+hh' : '+hhmm';
}

function dateTimesAre(values: string[], describe: string): Check {
  return fact('dateTimesAreIso8601', values.length > 0 && values.every(isDxsDateTime), `${describe}: ISO 8601 date-times`, values.length === 0 ? 'no date-time found' : values.join(', '));
}

test.describe('paths and bodies', () => {
  test('the documented paths answer under a base URL that ends in /v1/api', { tag: tags('conventions', 'CNV-01', 'CNV-12') }, async ({ api, target, registeredCompany }) => {
    const path = new URL(target.baseUrl).pathname.replace(/\/+$/, '');
    const status = await api.get('/companies/status', { auth: { clientToken: registeredCompany.token } });
    await expectCheck(status, [fact('baseUrlVersioned', path.endsWith('/v1/api'), 'a base URL whose path ends in /v1/api', `base URL path ${path || '/'}`), statusIs(200)], { requirement: 'CNV-01' });
    const token = await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: registeredCompany.erpId } });
    await expectCheck(token, [statusIs(200)], { requirement: 'CNV-12' });
  });

  test('JSON answers carry a JSON content type and parse', { tag: tags('conventions', 'CNV-02', 'CNV-18') }, async ({ api, registeredCompany, fixtures }) => {
    for (const response of await jsonAnswers(api, registeredCompany, fixtures)) {
      await expectCheck(response, [isSuccess, jsonContentType], { requirement: 'CNV-02', soft: true });
      await expectCheck(response, [isJson], { requirement: 'CNV-18', soft: true });
    }
  });

  test('the upload takes multipart/form-data and the outbound download is binary', { tag: tags('conventions', 'CNV-03', 'CNV-04') }, async ({ api, registeredCompany, fixtures }) => {
    const upload = await uploadFile(api, registeredCompany.token, 'small.pdf');
    await expectCheck(upload.response, [statusIs(202), hasHeader('Location')], { requirement: 'CNV-03' });
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF', { file: 'invoice.xml' });
    // Which scheme the outbound download takes is not shown (rule 7): the APIkey when the token is refused, as OUT-DL-01 does.
    const download = await downloadOutbound(api, registeredCompany.token, `/documents/outbound/download/${sent.documentId}`);
    await expectCheck(
      download,
      [
        statusIs(200),
        fact('binaryBody', (download.size ?? 0) > 0 && !(typeof download.json === 'object' && download.json !== null), 'the document itself, not a JSON wrapper', `${download.size} bytes of ${download.headers['content-type'] ?? 'no content type'}${typeof download.json === 'object' && download.json !== null ? ' (a JSON object)' : ''}`),
      ],
      { requirement: 'CNV-04' },
    );
  });

  test('whether paths match regardless of case is recorded', { tag: tags('conventions', 'CNV-16') }, async ({ api, registeredCompany }) => {
    const response = await api.get('/Companies/Status', { auth: { clientToken: registeredCompany.token } });
    await observe('CNV-16', `GET /Companies/Status answered ${response.status}`, response);
  });
});

test.describe('field-name casing', () => {
  test('JSON answers use the spec names in PascalCase or camelCase; camelCase as in the guide is preferred', { tag: tags('conventions', 'CNV-05', 'CNV-06') }, async ({ api, registeredCompany, fixtures }) => {
    const answers = await jsonAnswers(api, registeredCompany, fixtures);
    for (const response of answers) await expectCheck(response, [casingIs('mixed')], { requirement: 'CNV-05', soft: true });
    for (const response of answers) await expectCheck(response, [casingIs('camel')], { requirement: 'CNV-06' });
    const pascal = answers.filter((response) => casingViolations(response.json, 'camel').length > 0).length;
    await observe('CNV-06', `${pascal} of ${answers.length} JSON answers are not in camelCase`, answers[0]);
  });

  for (const casing of ['pascal', 'camel'] as const) {
    const requirement = casing === 'pascal' ? 'CNV-07' : 'CNV-08';
    test(`requests written in ${casing === 'pascal' ? 'PascalCase' : 'camelCase'} are accepted`, { tag: tags('conventions', requirement) }, async ({ api, registeredCompany, fixtures }) => {
      const register = await api.post('/companies/register', { auth: 'apiKey', json: renderKeys(fixtures.company('FI'), casing) });
      await expectCheck(register, [statusIs(202)], { requirement, soft: true });
      const token = await api.post('/clienttokens/create', { auth: 'apiKey', json: renderKeys({ ErpId: registeredCompany.erpId }, casing) });
      await expectCheck(token, [statusIs(200)], { requirement, soft: true });
      const lookup = await api.post('/buyerparties/lookup', { auth: { clientToken: registeredCompany.token }, json: renderKeys(fixtures.buyerLookup(registeredCompany.input), casing) });
      await expectCheck(lookup, [statusIs(200)], { requirement, soft: true });
    });
  }

  test('whether field names are matched regardless of case is recorded', { tag: tags('conventions', 'CNV-09') }, async ({ api, registeredCompany }) => {
    const upper = await api.post('/clienttokens/create', { auth: 'apiKey', json: { ERPID: registeredCompany.erpId } });
    const lower = await api.post('/clienttokens/create', { auth: 'apiKey', json: { erpid: registeredCompany.erpId } });
    await observe('CNV-09', `token creation with ERPID answered ${upper.status}, with erpid ${lower.status}`, upper);
  });
});

test.describe('date-times', () => {
  test('date-times are ISO 8601 and the offset form is recorded', { tag: tags('conventions', 'CNV-10', 'CNV-11') }, async ({ api, target, registeredCompany, fixtures }) => {
    const token = await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: registeredCompany.erpId, ValidTo: new Date(Date.now() + 10 * 60_000).toISOString() } });
    const validTo = token.data?.ValidTo;
    if (typeof validTo === 'string') await expectCheck(token, [dateTimesAre([validTo], 'ValidTo')], { requirement: 'CNV-10' });
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const poll = await pollStatus(api, target, registeredCompany.token, sent.documentId, (data) => Array.isArray(data?.StatusHistory) && data.StatusHistory.length > 1);
    const times = [poll.last.data?.CurrentStatus?.Time, ...(Array.isArray(poll.last.data?.StatusHistory) ? poll.last.data.StatusHistory.map((entry: any) => entry?.Time) : [])].filter((time): time is string => typeof time === 'string');
    await expectCheck(poll.last, [statusIs(200), dateTimesAre(times, 'CurrentStatus.Time and StatusHistory[].Time')], { requirement: 'CNV-10' });
    await expectCheck(poll.last, [dateTimesAre(times, 'Time values, +0000 offsets accepted')], { requirement: 'CNV-11' });
    // The same document by the other route the spec names for its status.
    const byInvoices = await api.get(statusPath(sent.documentId, 'invoices'), { auth: { clientToken: registeredCompany.token } });
    const invoiceTimes = [byInvoices.data?.CurrentStatus?.Time, ...(Array.isArray(byInvoices.data?.StatusHistory) ? byInvoices.data.StatusHistory.map((entry: any) => entry?.Time) : [])].filter((time): time is string => typeof time === 'string');
    await expectCheck(byInvoices, [statusIs(200), dateTimesAre(invoiceTimes, 'Time values of GET /invoices/outbound/{DocumentId}, +0000 offsets accepted')], { requirement: 'CNV-11' });
    await observe('CNV-11', `offset forms used: ${[...new Set([...(typeof validTo === 'string' ? [validTo] : []), ...times, ...invoiceTimes].map(offsetForm))].join(', ') || 'none seen'}`, poll.last);
  });
});

test.describe('errors', () => {
  test('an error call with Accept-Language sv-SE keeps its status; the messages are recorded', { tag: tags('conventions', 'CNV-13', 'CNV-17') }, async ({ api, target, registeredCompany, fixtures }) => {
    const auth = { clientToken: registeredCompany.token };
    const invalid = fixtures.invalidUsers()[0].body;
    const english = await api.post('/companies/users', { auth, json: invalid, headers: { 'Accept-Language': 'en-GB' } });
    const swedish = await api.post('/companies/users', { auth, json: invalid, headers: { 'Accept-Language': 'sv-SE' } });
    await expectCheck(swedish, [isRejected, statusIs(english.status)], { requirement: 'CNV-13' });
    const same = JSON.stringify(english.json) === JSON.stringify(swedish.json);
    await observe('CNV-17', `error body with en-GB: ${JSON.stringify(english.json ?? english.text)}; with sv-SE: ${JSON.stringify(swedish.json ?? swedish.text)} (${same ? 'the same text' : 'localised'})`, swedish);

    // ErrorInfo.Message of a document whose conversion failed, read in both languages.
    const failed = await sentDocument(api, fixtures, registeredCompany.token, 'PDF', { file: 'unconvertible.xml' });
    const poll = await pollStatus(api, target, registeredCompany.token, failed.documentId, (data) => typeof data?.Error?.Message === 'string');
    const messages: string[] = [];
    for (const language of ['en-GB', 'sv-SE']) {
      const status = await api.get(`/documents/outbound/${failed.documentId}`, { auth, headers: { 'Accept-Language': language } });
      messages.push(`${language}: ${JSON.stringify(status.data?.Error?.Message ?? null)}`);
    }
    // A Message is not promised: the wait ends once the document is final, and the observation says so.
    const none = poll.reached ? '' : ` (${poll.ended} with no ErrorInfo.Message: the target sets none)`;
    await observe('CNV-17', `ErrorInfo.Message after ${poll.seen.join(' -> ')}${none}: ${messages.join('; ')}`, poll.last);
  });

  test('the error bodies of the listed cases are a JSON string with a message, sent with a 4xx', { tag: tags('conventions', 'CNV-14', 'CNV-15') }, async ({ api, target, registeredCompany, fixtures }) => {
    const auth = { clientToken: registeredCompany.token };
    const cases: Array<[string, () => Promise<ApiResponse>]> = [
      ['POST /companies/users with an invalid user', () => api.post('/companies/users', { auth, json: fixtures.invalidUsers()[0].body })],
      ['POST /companies/identifiers with an unsupported type', () => api.post('/companies/identifiers', { auth, json: fixtures.unsupportedIdentifier() })],
      ['POST /network/setup with an invalid feedback e-mail', () => api.post('/network/setup', { auth, json: fixtures.invalidNetworkSetupRequest().body })],
    ];
    if (target.apiKeyWithoutDelete !== undefined) {
      // An Id that was never registered: even a target that ignored the role would delete nothing.
      cases.push(['POST /companies/delete without the DeleteRegistration role', () => api.post('/companies/delete', { auth: 'apiKeyWithoutDelete', json: { Id: `${fixtures.runPrefix}-never-registered` } })]);
    }
    for (const [description, call] of cases) {
      await step(description, async () => {
        const response = await call();
        await expectCheck(response, [signalsError], { requirement: 'CNV-15', soft: true });
        await expectCheck(response, [bodyIsJsonString], { requirement: 'CNV-14', soft: true });
      });
    }
    const unknown = await api.get(`/documents/outbound/${UNKNOWN_ID}`, { auth });
    await expectCheck(unknown, [signalsError], { requirement: 'CNV-15' });
  });
});
