// The judges of the client catalog on hand-made traffic: each rule can fail, and counts by its basis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gradeCalls, type Finding, type GradedCall } from '../../grading/graded-call.ts';
import { FLOW_IDS, FLOWS } from '../../grading/judges/endpoints.ts';
import { quoteSentence } from '../../grading/spec-quote.ts';
import { catalogEndpoints } from '../../report/endpoints.ts';
import { judgeAll } from '../../grading/judges/index.ts';
import { multipartParts } from '../../grading/multipart.ts';
import type { RecordedAnswer, RecordedCall } from '../../grading/traffic.ts';
import { gradeRequirements, notExercisedReason, resolveRequiredFlows, type ClientVerdict } from '../../grading/verdicts.ts';
import { loadClientRequirements, type ClientRequirement } from '../../schemas/client-requirements.ts';

const KEY = 'key-with-delete-role';
const KEY_WITHOUT_DELETE = 'key-without-delete-role';

/** Traffic built call by call, each 1 s after the last unless told otherwise. */
class Traffic {
  readonly calls: RecordedCall[] = [];
  private clock = 1_800_000_000_000;

  add(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; answer?: Partial<RecordedAnswer> & { status: number }; after?: number; call?: Partial<RecordedCall> } = {}): this {
    this.clock += options.after ?? 1000;
    const [bare, query = ''] = path.split('?');
    this.calls.push({
      seq: this.calls.length + 1, method, url: `/v1/api${path}`, path: `/v1/api${bare}`, query: Object.fromEntries(new URLSearchParams(query)),
      headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers }, contentType: options.body !== undefined ? 'application/json' : undefined,
      body: options.body, bodySize: options.body === undefined ? 0 : JSON.stringify(options.body).length,
      startedAt: this.clock, finishedAt: this.clock + 5, answer: { headers: {}, size: 0, ...(options.answer ?? { status: 200 }) }, ...options.call,
    });
    this.clock += 5;
    return this;
  }

  now(): number {
    return this.clock;
  }

  register(erpId: string): this {
    return this.add('POST', '/companies/register', { headers: { apikey: KEY }, body: { ErpId: erpId, ErpProduct: 'erp 1', Name: 'A AB', Email: 'a@example.com', CountryCode: 'SE', OrgNo: '5566778899' }, answer: { status: 202 } });
  }

  token(erpId: string, token: string, validToMs = 10 * 60_000): this {
    const validTo = new Date(this.clock + 1000 + validToMs).toISOString();
    return this.add('POST', '/clienttokens/create', { headers: { apikey: KEY }, body: { ErpId: erpId, ValidTo: validTo }, answer: { status: 200, body: { token, validTo } } });
  }
}

function verdicts(traffic: Traffic, strict = false): Record<string, ClientVerdict> {
  const calls: GradedCall[] = gradeCalls(traffic.calls);
  const outcomes = gradeRequirements(judgeAll({ calls, apiKey: KEY, apiKeyWithoutDelete: KEY_WITHOUT_DELETE }), loadClientRequirements(), strict);
  return Object.fromEntries(outcomes.map((outcome) => [outcome.requirement.id, outcome.verdict]));
}

test('a clean company flow passes every rule it exercises; the rest is not exercised', () => {
  const traffic = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa')
    .add('GET', '/companies/status', { headers: { clienttoken: 'token-aaaaaa' }, answer: { status: 200, body: { status: 'Registered', companyId: 'c-1' } } })
    .add('GET', '/companies/details/c-1', { headers: { clienttoken: 'token-aaaaaa' } });
  const result = verdicts(traffic);
  assert.deepEqual(Object.entries(result).filter(([, verdict]) => verdict === 'failed' || verdict === 'warning'), []);
  assert.equal(result['CLI-REF-07'], 'passed');
  assert.equal(result['CLI-FLOW-01'], 'passed');
  assert.equal(result['CLI-PACE-01'], 'not exercised');
});

test('credentials: a delete with the key without DeleteRegistration fails, set details without either form fails, an extra credential warns', () => {
  const traffic = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa')
    .add('POST', '/companies/delete', { headers: { apikey: KEY_WITHOUT_DELETE }, body: { Id: 'erp-1' }, answer: { status: 401 } })
    .add('POST', '/companies/details', { headers: { apikey: KEY }, body: { ErpProduct: 'p', Name: 'n', Email: 'a@example.com', CountryCode: 'SE' } })
    .add('GET', '/companies/status', { headers: { clienttoken: 'token-aaaaaa', apikey: KEY } });
  const result = verdicts(traffic);
  assert.equal(result['CLI-AUTH-04'], 'failed');
  assert.equal(result['CLI-AUTH-06'], 'failed');
  assert.equal(result['CLI-AUTH-08'], 'warning');
  assert.equal(verdicts(traffic, true)['CLI-AUTH-08'], 'failed');
});

test('tokens: a made-up token fails, no ValidTo or a long one warns, a revoked token used again warns', () => {
  const traffic = new Traffic().register('erp-1')
    .add('POST', '/clienttokens/create', { headers: { apikey: KEY }, body: { ErpId: 'erp-1' }, answer: { status: 200, body: { token: 'token-forever', validTo: null } } })
    .add('GET', '/companies/status', { headers: { clienttoken: 'token-made-up' }, answer: { status: 401 } })
    .add('POST', '/clienttokens/revoke', { headers: { apikey: KEY }, body: { ClientToken: 'token-forever' } })
    .add('GET', '/companies/status', { headers: { clienttoken: 'token-forever' }, answer: { status: 401 } });
  const result = verdicts(traffic);
  assert.equal(result['CLI-TOK-01'], 'failed');
  assert.equal(result['CLI-TOK-03'], 'warning');
  assert.equal(result['CLI-TOK-04'], 'warning');
  const long = verdicts(new Traffic().register('erp-1').token('erp-1', 'token-long', 60 * 60_000));
  assert.equal(long['CLI-TOK-03'], 'warning');
});

test('tokens: a token for an ErpId never registered fails; a new SearchId for every search token fails', () => {
  const traffic = new Traffic().register('erp-1').token('erp-2', 'token-bbbbbb');
  for (const searchId of ['s-1', 's-2', 's-3']) traffic.add('POST', '/clienttokens/createsearchtoken', { headers: { apikey: KEY }, body: { SearchId: searchId }, answer: { status: 200, body: { token: `search-${searchId}-token` } } });
  const result = verdicts(traffic);
  assert.equal(result['CLI-TOK-06'], 'failed');
  assert.equal(result['CLI-TOK-05'], 'failed');
  const resent = new Traffic().register('erp-1').register('erp-2');
  for (const searchId of ['s-1', 's-2', 's-1']) resent.add('POST', '/clienttokens/createsearchtoken', { headers: { apikey: KEY }, body: { SearchId: searchId }, answer: { status: 200, body: { token: `search-${searchId}-${resent.calls.length}` } } });
  assert.equal(verdicts(resent)['CLI-TOK-05'], 'passed');
});

test('bodies: a missing required field, a value outside a list and an empty PartyId fail; camelCase passes', () => {
  const traffic = new Traffic()
    .add('POST', '/companies/register', { headers: { apikey: KEY }, body: { erpId: 'erp-1', erpProduct: 'p', name: 'n', email: 'a@example.com', countryCode: 'SE', orgNo: '1', processes: ['SendInvoices'] }, answer: { status: 202 } })
    .token('erp-1', 'token-aaaaaa');
  assert.equal(verdicts(traffic)['CLI-BODY-04'], 'passed');
  assert.equal(verdicts(traffic)['CLI-BODY-06'], 'passed');
  traffic
    .add('POST', '/companies/register', { headers: { apikey: KEY }, body: { ErpId: 'erp-2', ErpProduct: 'p', Name: 'n', Email: 'a@example.com', CountryCode: 'SE', Processes: ['SendCreditNotes'] }, answer: { status: 400 } })
    .add('POST', '/buyerparties/lookup', { headers: { clienttoken: 'token-aaaaaa' }, body: { PartyId: '', Name: 'x' } })
    .add('POST', '/documents/outbound', { headers: { clienttoken: 'token-aaaaaa' }, body: { SendDocumentAs: { Type: 'Email' }, Document: { DocumentFormat: 'application/xml', DocumentUri: 'urn:x:1' } }, answer: { status: 400 } });
  const result = verdicts(traffic);
  assert.equal(result['CLI-BODY-04'], 'failed');
  assert.equal(result['CLI-BODY-06'], 'failed');
  assert.equal(result['CLI-BODY-12'], 'failed');
  assert.equal(result['CLI-BODY-16'], 'failed');
  assert.equal(result['CLI-REF-01'], 'failed');
});

test('references: ids no answer gave fail (outbound status, by ErpDocumentId, inbound, company details)', () => {
  const traffic = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa');
  const headers = { clienttoken: 'token-aaaaaa' };
  traffic
    .add('POST', '/documents', { headers, call: { contentType: 'multipart/form-data; boundary=x', parts: [{ name: 'File', filename: 'a.xml', size: 10 }], bodySize: 100 }, answer: { status: 202, headers: { location: 'urn:dxs:document:11111111-1111-1111-1111-111111111111' } } })
    .add('POST', '/documents/outbound', { headers, body: { SendDocumentAs: { Type: 'PDF' }, Document: { DocumentFormat: 'application/xml', DocumentUri: 'urn:dxs:document:11111111-1111-1111-1111-111111111111', ErpDocumentId: 'INV-1' } }, answer: { status: 200, headers: { location: 'http://h/v1/api/documents/outbound/22222222-2222-2222-2222-222222222222' } } })
    .add('GET', '/documents/outbound/22222222-2222-2222-2222-222222222222', { headers })
    .add('GET', '/invoices/outbound/byerpid/INV-1', { headers })
    .add('GET', '/documents/incoming?type=invoice', { headers, answer: { status: 200, body: { documents: [{ id: 'in-1' }] } } })
    .add('GET', '/documents/in-1', { headers })
    .add('POST', '/documents/handled', { headers, body: { documents: ['in-1'] } });
  const clean = verdicts(traffic);
  for (const id of ['CLI-REF-01', 'CLI-REF-04', 'CLI-REF-05', 'CLI-REF-06', 'CLI-CNV-03', 'CLI-CNV-06', 'CLI-FLOW-03']) assert.equal(clean[id], 'passed', id);
  traffic
    .add('GET', '/documents/outbound/33333333-3333-3333-3333-333333333333', { headers, answer: { status: 404 } })
    .add('GET', '/invoices/outbound/byerpid/INV-9', { headers, answer: { status: 404 } })
    .add('GET', '/documents/in-9/info', { headers, answer: { status: 404 } })
    .add('GET', '/companies/details/c-9', { headers, answer: { status: 404 } });
  const result = verdicts(traffic);
  for (const id of ['CLI-REF-04', 'CLI-REF-05', 'CLI-REF-06']) assert.equal(result[id], 'failed', id);
  assert.equal(result['CLI-REF-07'], 'warning');
});

test('pace: Retry-After ignored, a tight poll loop and an immediate retry after a 500 warn', () => {
  const traffic = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa');
  const headers = { clienttoken: 'token-aaaaaa' };
  traffic.add('GET', '/companies/status', { headers, answer: { status: 429, headers: { 'retry-after': '2' } } });
  for (let index = 0; index < 8; index++) traffic.add('GET', '/companies/status', { headers, after: 10 });
  traffic.add('POST', '/companies/users', { headers, body: { Email: 'a@example.com' }, answer: { status: 500 } }).add('POST', '/companies/users', { headers, body: { Email: 'a@example.com' }, after: 1 });
  const result = verdicts(traffic);
  assert.equal(result['CLI-PACE-01'], 'warning');
  assert.equal(result['CLI-PACE-02'], 'info');
  assert.equal(result['CLI-PACE-03'], 'warning');
  assert.equal(result['CLI-PACE-04'], 'warning');
});

test('conventions and flows: a path outside the base URL and a body not sent as JSON fail; services before Registered warn', () => {
  const traffic = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa');
  traffic.calls.push({ ...traffic.calls[0], seq: 3, url: '/api/companies/register', path: '/api/companies/register' });
  traffic
    .add('POST', '/companies/users', { headers: { clienttoken: 'token-aaaaaa', 'content-type': 'text/plain' }, call: { contentType: 'text/plain', body: undefined, bodyText: 'Email=a@example.com', bodySize: 19 } })
    .add('GET', '/companies/status', { headers: { clienttoken: 'token-aaaaaa' }, answer: { status: 200, body: { status: 'Pending' } } })
    .add('POST', '/companies/services', { headers: { clienttoken: 'token-aaaaaa' }, body: { ErpId: 'erp-1', CountryCode: 'SE', OrgNo: '1' }, answer: { status: 202 } })
    .add('POST', '/documents', { headers: { clienttoken: 'token-aaaaaa' }, call: { contentType: 'multipart/form-data; boundary=x', parts: [{ name: 'file', filename: 'a.xml', size: 1 }], bodySize: 10 }, answer: { status: 202, headers: { location: 'urn:x:1' } } })
    .add('GET', '/documents/incoming', { headers: { clienttoken: 'token-aaaaaa' } });
  const result = verdicts(traffic);
  assert.equal(result['CLI-CNV-01'], 'failed');
  assert.equal(result['CLI-CNV-02'], 'failed');
  assert.equal(result['CLI-CNV-03'], 'warning');
  assert.equal(result['CLI-CNV-06'], 'failed');
  assert.equal(result['CLI-FLOW-02'], 'warning');
});

test('the multipart reader names the parts a client sent', () => {
  const body = Buffer.from('--b0\r\nContent-Disposition: form-data; name="Note"\r\n\r\nhello\r\n--b0\r\nContent-Disposition: form-data; name="File"; filename="invoice.xml"\r\nContent-Type: application/xml\r\n\r\n<Invoice/>\r\n--b0--\r\n');
  assert.deepEqual(multipartParts(body, 'multipart/form-data; boundary=b0'), [
    { name: 'Note', filename: undefined, contentType: undefined, size: 5 },
    { name: 'File', filename: 'invoice.xml', contentType: 'application/xml', size: 10 },
  ]);
});

/** The findings of one requirement, as the report's cards show them. */
function findingsOf(traffic: Traffic, id: string): Finding[] {
  return judgeAll({ calls: gradeCalls(traffic.calls), apiKey: KEY, apiKeyWithoutDelete: KEY_WITHOUT_DELETE }).filter((finding) => finding.id === id);
}

test('counted once: status calls made and refused follow the registration; a ClientToken in the APIkey\'s place is CLI-AUTH-03 alone', () => {
  const refused = new Traffic().register('erp-1').add('GET', '/companies/status', { headers: { clienttoken: 'token-made-up' }, answer: { status: 401 } });
  const result = verdicts(refused);
  assert.equal(result['CLI-TOK-01'], 'failed');
  assert.equal(result['CLI-FLOW-01'], 'passed');
  assert.match(findingsOf(refused, 'CLI-FLOW-01')[0].actual, /#2 \(401\), refused/);
  // No status call at all still counts against CLI-FLOW-01.
  assert.equal(verdicts(new Traffic().register('erp-1'))['CLI-FLOW-01'], 'warning');

  const deleteWithToken = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa').add('POST', '/companies/delete', { headers: { clienttoken: 'token-aaaaaa' }, body: { Id: 'erp-1' }, answer: { status: 401 } });
  const deleted = verdicts(deleteWithToken);
  assert.equal(deleted['CLI-AUTH-03'], 'failed');
  assert.ok(!findingsOf(deleteWithToken, 'CLI-AUTH-08').some((finding) => finding.verdict !== 'passed'), 'CLI-AUTH-08 repeats CLI-AUTH-03');
  // Beside the APIkey, a ClientToken is still the extra credential of CLI-AUTH-08.
  const both = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa').add('POST', '/companies/delete', { headers: { apikey: KEY, clienttoken: 'token-aaaaaa' }, body: { Id: 'erp-1' }, answer: { status: 202 } });
  assert.equal(verdicts(both)['CLI-AUTH-08'], 'warning');
});

test('a reference failure shows the value the client sent and the values the service had handed out', () => {
  const headers = { clienttoken: 'token-aaaaaa' };
  const traffic = new Traffic().register('erp-1').token('erp-1', 'token-aaaaaa')
    .add('POST', '/documents', { headers, call: { contentType: 'multipart/form-data; boundary=x', parts: [{ name: 'File', filename: 'a.xml', size: 10 }], bodySize: 100 }, answer: { status: 202, headers: { location: 'urn:dxs:document:11111111-1111-1111-1111-111111111111' } } })
    .add('POST', '/documents/outbound', { headers, body: { SendDocumentAs: { Type: 'PDF' }, Document: { DocumentFormat: 'application/xml', DocumentUri: '11111111-1111-1111-1111-111111111111' } }, answer: { status: 400 } });
  const [finding] = findingsOf(traffic, 'CLI-REF-01');
  assert.equal(finding.verdict, 'failed');
  assert.match(finding.actual, /Document\.DocumentUri "11111111-1111-1111-1111-111111111111", which no upload returned; the service had handed out "urn:dxs:document:11111111-1111-1111-1111-111111111111" \(#3\)/);
});

test('every endpoint of the catalog is in a flow; not-exercised reasons name the call or flow per requirement', () => {
  const inFlows = new Set(Object.values(FLOWS).flat());
  assert.deepEqual(catalogEndpoints().filter((endpoint) => !inFlows.has(endpoint)), []);
  for (const flow of Object.keys(FLOWS)) assert.ok(FLOW_IDS[flow] !== undefined, flow);
  const byId = new Map(loadClientRequirements().map((requirement) => [requirement.id, requirement]));
  const reason = (id: string, tried: string[] = []): string => notExercisedReason(byId.get(id) as ClientRequirement, tried);
  assert.match(reason('CLI-REF-05', ['follow an outbound status']), /^exercised by GET \/invoices\/outbound\/byerpid\/\{DocumentId\} \(flow: follow an outbound status\); the client made no such call \(it tried follow an outbound status by other calls\)$/);
  assert.match(reason('CLI-AUTH-07'), /^observed when the client makes a call of the flows revoke a token/);
  assert.match(reason('CLI-PACE-01'), /--provoke rate-limit/);
  assert.match(reason('CLI-CNV-01'), /any call: the client made none/);
  // Reasons differ from requirement to requirement: not one list of flows repeated.
  const reasons = new Set(loadClientRequirements().map((requirement) => reason(requirement.id)));
  assert.ok(reasons.size > 30, `${reasons.size} distinct reasons`);
  assert.deepEqual(resolveRequiredFlows(['core', 'revoke-token', 'use provider A', 'nonsense']).unknown, ['nonsense']);
  assert.equal(resolveRequiredFlows(['all']).flows.length, Object.keys(FLOWS).length);
});

test('quotes as sentences: a table row names its table, field and columns; a cell names its row', () => {
  const spec = ['## Resources', '', '### ClientToken', '', '| Field | Type | Notes |', '|---|---|---|', '| Token | string | The token value. |', '', '### Tokens', '', '| Method and path | Request | Response |', '|---|---|---|', '| POST /clienttokens/revoke | ClientToken (string, required) | 200, no body |', '', 'A sentence outside tables.'];
  assert.equal(quoteSentence('| Token | string | The token value. |', spec), 'ClientToken, field Token (string): The token value.');
  assert.equal(quoteSentence('The token value.', spec), 'ClientToken, field Token (string): “The token value.”');
  assert.equal(quoteSentence('| POST /clienttokens/revoke | ClientToken (string, required) | 200, no body |', spec), 'Tokens, POST /clienttokens/revoke: request: ClientToken (string, required); response: 200, no body');
  assert.equal(quoteSentence('A sentence outside tables.', spec), '“A sentence outside tables.”');
});
