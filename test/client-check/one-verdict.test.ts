// One verdict (issue 37): what the client judge accepts in a request, the grading sandbox accepts,
// value form by value form; and every refusal of the grading sandbox names the client requirement
// it enforces (or says why it is no fault of the client), which the report shows on the refused call.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { gradeCalls, type Finding } from '../../grading/graded-call.ts';
import { judgeAll } from '../../grading/judges/index.ts';
import { multipartParts } from '../../grading/multipart.ts';
import { GRADING_SANDBOX_VARIANTS } from '../../grading/provocations.ts';
import { recogniseMessage, REFUSAL_RULES, refusalOf } from '../../grading/refusals.ts';
import type { RecordedCall } from '../../grading/traffic.ts';
import { loadClientRequirements } from '../../schemas/client-requirements.ts';
import { extendedDateTimeMs } from '../../schemas/formats.ts';
import { message, MESSAGE_KEYS } from '../../sandbox/messages.ts';
import { call, companyInput, multipart, newSandbox, registeredCompany, SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE, type TestCompany } from '../sandbox/helpers.ts';

let app: FastifyInstance;
let company: TestCompany;
before(async () => {
  // The sandbox as dxs client-check starts it.
  app = await newSandbox({ variants: [...GRADING_SANDBOX_VARIANTS] });
  company = await registeredCompany(app);
});
after(async () => {
  await app.close();
});

/** The judge's findings of one call as the recorder would have recorded it. */
function judged(recorded: Partial<RecordedCall> & { method: string; path: string }, status: number): Finding[] {
  const now = Date.now();
  const full: RecordedCall = { seq: 1, url: `/v1/api${recorded.path}`, query: {}, headers: {}, bodySize: 1, startedAt: now, finishedAt: now + 5, answer: { status, headers: {}, size: 0 }, ...recorded, path: `/v1/api${recorded.path}` };
  return judgeAll({ calls: gradeCalls([full]), apiKey: SANDBOX_API_KEY, apiKeyWithoutDelete: SANDBOX_API_KEY_WITHOUT_DELETE });
}

const verdictOf = (findings: readonly Finding[], id: string): string | undefined => findings.find((finding) => finding.id === id)?.verdict;

/** Five minutes ahead, written in every form ISO 8601's extended format allows, and some it does not. */
function dateTimeForms(): Array<{ value: string; accepted: boolean }> {
  const at = new Date(Date.now() + 5 * 60_000);
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const date = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
  const time = `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`;
  const seconds = `${time}:${pad(at.getUTCSeconds())}`;
  const ahead = new Date(at.getTime() + 90 * 60_000);
  const aheadTime = `${pad(ahead.getUTCHours())}:${pad(ahead.getUTCMinutes())}:${pad(ahead.getUTCSeconds())}`;
  const aheadDate = `${ahead.getUTCFullYear()}-${pad(ahead.getUTCMonth() + 1)}-${pad(ahead.getUTCDate())}`;
  return [
    ...[
      `${date}T${seconds}Z`, `${date}t${seconds}z`, `${date}T${seconds}.123Z`, `${date}T${seconds},5Z`, `${date}T${seconds}.1234567Z`,
      `${date}T${time}Z`, `${date}T${seconds}+00:00`, `${date}T${seconds}+0000`, `${date}T${seconds}+00`, `${date}T${seconds}-00:00`,
      `${aheadDate}T${aheadTime}+01:30`, `${aheadDate}T${aheadTime}+0130`,
      // Without an offset: still ISO 8601 (read as UTC).
      `${date}T${seconds}`, `${date}T${time}`, `${date}T${seconds}.123`,
    ].map((value) => ({ value, accepted: true })),
    ...['tomorrow', '', `${date} ${seconds}Z`, `${date.replace(/-/g, '')}T${seconds.replace(/:/g, '')}Z`, `${at.getUTCFullYear()}-02-30T10:00:00Z`, `${date}T25:00:00Z`, `${date}T${seconds}+24:00`, `${date}T${seconds}Z[UTC]`]
      .map((value) => ({ value, accepted: false })),
  ];
}

test('every form of date-time the judge accepts the grading sandbox accepts, and what it refuses the judge fails', async () => {
  const forms = dateTimeForms();
  assert.ok(forms.filter((form) => form.accepted).length >= 15);
  for (const { value, accepted } of forms) {
    const requests: Array<{ path: string; id: string; body: Record<string, unknown>; auth: { apiKey?: string; token?: string } }> = [
      { path: '/clienttokens/create', id: 'CLI-BODY-01', body: { ErpId: company.erpId, ValidTo: value }, auth: { apiKey: SANDBOX_API_KEY } },
      { path: '/clienttokens/createsearchtoken', id: 'CLI-BODY-03', body: { SearchId: 'one-verdict', ValidTo: value }, auth: { apiKey: SANDBOX_API_KEY } },
      { path: '/documents/outbound/list', id: 'CLI-BODY-20', body: { Take: 10, CreatedFrom: value }, auth: { token: company.token } },
    ];
    for (const request of requests) {
      // An empty ValidTo counts as absent on both sides; it is not a form of date-time.
      if (value === '') continue;
      const answer = await call(app, 'POST', request.path, { ...request.auth, body: request.body });
      const findings = judged({ method: 'POST', path: request.path, body: request.body, contentType: 'application/json', headers: { 'content-type': 'application/json' } }, answer.status);
      const sandboxAccepts = answer.status >= 200 && answer.status < 300;
      assert.equal(verdictOf(findings, request.id), accepted ? 'passed' : 'failed', `judge, ${request.path} ${JSON.stringify(value)}`);
      assert.equal(sandboxAccepts, accepted, `grading sandbox, ${request.path} ${JSON.stringify(value)}: ${answer.status} ${answer.text}`);
    }
    assert.equal(extendedDateTimeMs(value) !== undefined, accepted, value);
  }
});

test('a ValidTo without an offset is read as UTC by the judge and the sandbox alike: about 10 minutes stays about 10 minutes', async () => {
  const at = new Date(Date.now() + 10 * 60_000).toISOString().replace(/\.\d+Z$/, '');
  const body = { ErpId: company.erpId, ValidTo: at };
  const answer = await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body });
  assert.equal(answer.status, 200, answer.text);
  const answered = extendedDateTimeMs(String(answer.json.validTo));
  assert.ok(answered !== undefined && Math.abs(answered - Date.parse(`${at}Z`)) < 1000, `${at} answered as ${String(answer.json.validTo)}`);
  const findings = judged({ method: 'POST', path: '/clienttokens/create', body, contentType: 'application/json', headers: { apikey: SANDBOX_API_KEY, 'content-type': 'application/json' } }, 200);
  assert.equal(verdictOf(findings, 'CLI-TOK-03'), 'passed');
});

test('the upload: a part File without a filename is accepted by both; a body without a part File is refused by both, with a message that says so', async () => {
  const cases: Array<{ parts: Array<{ name: string; filename?: string; contentType?: string; content: Buffer | string }>; accepted: boolean }> = [
    { parts: [{ name: 'File', content: '<Invoice/>', contentType: 'application/xml' }], accepted: true },
    { parts: [{ name: 'File', content: Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0x00, 0xe4]) }], accepted: true },
    { parts: [{ name: 'file', filename: 'invoice.xml', content: '<Invoice/>' }], accepted: true },
    { parts: [{ name: 'Document', filename: 'invoice.xml', content: '<Invoice/>' }], accepted: false },
    { parts: [{ name: 'Other', content: 'x' }], accepted: false },
  ];
  for (const { parts, accepted } of cases) {
    const body = multipart(parts);
    const answer = await call(app, 'POST', '/documents', { token: company.token, payload: body.payload, headers: body.headers });
    const findings = judged({ method: 'POST', path: '/documents', contentType: body.headers['content-type'], headers: { clienttoken: company.token, ...body.headers }, parts: multipartParts(body.payload, body.headers['content-type']) }, answer.status);
    const label = parts.map((part) => `${part.name}${part.filename === undefined ? '' : ` (${part.filename})`}`).join(', ');
    assert.equal(answer.status === 202, accepted, `grading sandbox, ${label}: ${answer.status} ${answer.text}`);
    assert.equal(verdictOf(findings, 'CLI-CNV-03') !== 'failed', accepted, `judge, ${label}`);
    if (!accepted) assert.match(answer.text, /part named File/);
  }
  // The bytes of a part without a filename are kept as sent.
  const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0x00, 0xe4, 0x0d, 0x0a]);
  const body = multipart([{ name: 'File', content: bytes }]);
  const uploaded = await call(app, 'POST', '/documents', { token: company.token, payload: body.payload, headers: body.headers });
  assert.equal(uploaded.status, 202);
});

test('every e-mail address the judge accepts where the spec asks for a valid one, the grading sandbox accepts', async () => {
  const values = ['a@b.c', 'first.last@example.com', 'a+b@example.com', 'x_y@sub.example.co', 'ab@example.museum', 'x', 'a@b', '"q"@example.com', 'a@example.com '];
  let accepted = 0;
  for (const value of values) {
    const requests = [
      { path: '/companies/users', id: 'CLI-BODY-08', body: { Email: value } },
      { path: '/network/setup', id: 'CLI-BODY-14', body: { PartyId: 'p', NetworkSetupFeedbackEmail: value, Processes: ['ReceiveInvoices'] } },
    ];
    for (const request of requests) {
      const answer = await call(app, 'POST', request.path, { token: company.token, body: request.body });
      const findings = judged({ method: 'POST', path: request.path, body: request.body, contentType: 'application/json', headers: { clienttoken: company.token, 'content-type': 'application/json' } }, answer.status);
      if (verdictOf(findings, request.id) !== 'passed') continue;
      accepted++;
      assert.ok(answer.status >= 200 && answer.status < 300, `${request.path} ${JSON.stringify(value)}: the judge passes it, the grading sandbox answered ${answer.status} ${answer.text}`);
    }
  }
  assert.ok(accepted >= 8, `${accepted} accepted by the judge`);
});

test('every message of the sandbox has a rule, and every rule names a requirement of the client catalog', () => {
  const ids = new Set(loadClientRequirements().map((requirement) => requirement.id));
  assert.deepEqual(Object.keys(REFUSAL_RULES).sort(), [...MESSAGE_KEYS].sort());
  for (const [key, rule] of Object.entries(REFUSAL_RULES)) {
    if (typeof rule !== 'function' && 'requirement' in rule) assert.ok(ids.has(rule.requirement), `${key}: ${rule.requirement}`);
  }
  // Each message is recognised as itself, in both languages, with its parameters.
  for (const key of MESSAGE_KEYS) {
    for (const language of ['en', 'sv'] as const) {
      const text = message(language, key, { field: 'Document.DocumentUri', type: 'a string', detail: 'x', what: 'document', value: 'v', allowed: 'a, b', limit: 1, method: 'GET', url: '/x', erpId: 'e', registrationId: 'r', userName: 'u', count: 2 });
      assert.equal(recogniseMessage(text)?.key, key, `${language}: ${text}`);
    }
  }
});

/** A refusal as the recorder would have recorded it, and the requirement it names. */
async function refused(method: string, path: string, options: Parameters<typeof call>[3]): Promise<{ status: number; requirement?: string; notTheClient?: string; message: string }> {
  const answer = await call(app, method, path, options);
  const recorded: RecordedCall = {
    seq: 1, method, url: `/v1/api${path}`, path: `/v1/api${path}`, query: {}, headers: {}, bodySize: 1, startedAt: 0, finishedAt: 1,
    answer: { status: answer.status, headers: {}, body: answer.json ?? answer.text, size: answer.raw.length },
  };
  const refusal = refusalOf(gradeCalls([recorded])[0]);
  assert.ok(refusal !== undefined, `${method} ${path}: ${answer.status} ${answer.text}`);
  return refusal;
}

test("the grading sandbox's refusals name the requirement the client broke", async () => {
  const cases: Array<{ method: string; path: string; options: Parameters<typeof call>[3]; id: string }> = [
    { method: 'POST', path: '/clienttokens/create', options: { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId, ValidTo: 'tomorrow' } }, id: 'CLI-BODY-01' },
    { method: 'POST', path: '/clienttokens/create', options: { apiKey: SANDBOX_API_KEY, body: { ErpId: 'never-registered' } }, id: 'CLI-TOK-06' },
    { method: 'POST', path: '/clienttokens/create', options: { body: { ErpId: company.erpId } }, id: 'CLI-AUTH-01' },
    { method: 'POST', path: '/companies/delete', options: { apiKey: SANDBOX_API_KEY_WITHOUT_DELETE, body: { Id: company.erpId } }, id: 'CLI-AUTH-04' },
    { method: 'GET', path: '/companies/status', options: { token: 'not-a-token' }, id: 'CLI-TOK-01' },
    { method: 'GET', path: '/companies/status', options: {}, id: 'CLI-AUTH-05' },
    { method: 'POST', path: '/documents/outbound', options: { token: company.token, body: { SendDocumentAs: { Type: 'PDF', Pdf: { RecipientEmail: 'a@example.com' } }, Document: { DocumentFormat: 'application/xml', DocumentUri: 'urn:dxs:document:00000000-0000-4000-8000-000000000000' } } }, id: 'CLI-REF-01' },
    { method: 'POST', path: '/documents/outbound', options: { token: company.token, body: { SendDocumentAs: { Type: 'Fax' }, Document: { DocumentFormat: 'application/xml', DocumentUri: 'x' } } }, id: 'CLI-BODY-16' },
    { method: 'POST', path: '/companies/users', options: { token: company.token, body: { Email: 'a@example.com', CultureCode: 'xx-XX' } }, id: 'CLI-BODY-09' },
    { method: 'POST', path: '/documents', options: { token: company.token, ...multipart([{ name: 'Document', filename: 'a.xml', content: '<a/>' }]) }, id: 'CLI-CNV-03' },
    { method: 'GET', path: '/documents/incoming', options: { token: company.token, query: { sequenceNo: '' } }, id: 'CLI-CNV-06' },
    { method: 'GET', path: '/no/such/endpoint', options: { token: company.token }, id: 'CLI-CNV-05' },
    { method: 'POST', path: '/companies/register', options: { apiKey: SANDBOX_API_KEY, payload: '{', headers: { 'content-type': 'application/json' } }, id: 'CLI-CNV-02' },
    { method: 'POST', path: '/companies/register', options: { apiKey: SANDBOX_API_KEY, body: { ErpId: 'x', Processes: ['SendFaxes'] } }, id: 'CLI-BODY-04' },
  ];
  for (const { method, path, options, id } of cases) {
    const refusal = await refused(method, path, options);
    assert.equal(refusal.requirement, id, `${method} ${path}: ${refusal.status} ${refusal.message}`);
  }
  // Swedish messages are recognised as well.
  const swedish = await refused('POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: company.erpId, ValidTo: 'tomorrow' }, headers: { 'accept-language': 'sv' } });
  assert.equal(swedish.requirement, 'CLI-BODY-01');
  assert.match(swedish.message, /tidpunkt/);
});

test('company fields whose formats the spec does not show: what the judge accepts, the grading sandbox registers', async () => {
  for (const fields of [{ Email: 'x' }, { Email: 'accounts at example.com' }, { CountryCode: 'SWE' }, { CountryCode: 'se' }, { OrgNo: '1' }]) {
    const body = companyInput(fields);
    const answer = await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body });
    const findings = judged({ method: 'POST', path: '/companies/register', body, contentType: 'application/json', headers: { apikey: SANDBOX_API_KEY, 'content-type': 'application/json' } }, answer.status);
    assert.equal(verdictOf(findings, 'CLI-BODY-04'), 'passed', JSON.stringify(fields));
    assert.equal(answer.status, 202, `${JSON.stringify(fields)}: ${answer.text}`);
  }
});

test('values the spec gives no format or range: what the judge accepts, the grading sandbox takes', async () => {
  const cases: Array<{ path: string; id: string; body: Record<string, unknown>; auth: { apiKey?: string; token?: string } }> = [
    { path: '/clienttokens/create', id: 'CLI-BODY-01', body: { ErpId: company.erpId, User: { FullName: 'A', Email: '' } }, auth: { apiKey: SANDBOX_API_KEY } },
    { path: '/clienttokens/create', id: 'CLI-BODY-01', body: { ErpId: company.erpId, User: { Email: 'the accounts desk' } }, auth: { apiKey: SANDBOX_API_KEY } },
    { path: '/documents/outbound/list', id: 'CLI-BODY-20', body: { Take: -1, Skip: -5 }, auth: { token: company.token } },
    { path: '/documents/outbound/list', id: 'CLI-BODY-20', body: { Take: 100000 }, auth: { token: company.token } },
    { path: '/documents/outbound/list', id: 'CLI-BODY-20', body: { UpdatedAfter: 'yesterday' }, auth: { token: company.token } },
  ];
  for (const request of cases) {
    const answer = await call(app, 'POST', request.path, { ...request.auth, body: request.body });
    const findings = judged({ method: 'POST', path: request.path, body: request.body, contentType: 'application/json', headers: { 'content-type': 'application/json' } }, answer.status);
    assert.equal(verdictOf(findings, request.id), 'passed', `judge, ${request.path} ${JSON.stringify(request.body)}`);
    assert.equal(answer.status, 200, `${request.path} ${JSON.stringify(request.body)}: ${answer.text}`);
  }
});

/** The refusal of a register call with this body, as the recorder would have recorded it with the sandbox's answer. */
function registerRefusal(body: unknown, answer: Awaited<ReturnType<typeof call>>) {
  const recorded: RecordedCall = {
    seq: 1, method: 'POST', url: '/v1/api/companies/register', path: '/v1/api/companies/register', query: {}, headers: { apikey: SANDBOX_API_KEY, 'content-type': 'application/json' }, body, contentType: 'application/json', bodySize: 1, startedAt: 0, finishedAt: 1,
    answer: { status: answer.status, headers: {}, body: answer.json ?? answer.text, size: answer.raw.length },
  };
  return refusalOf(gradeCalls([recorded])[0]);
}

test('a required field sent as "": the judge warns under CLI-BODY-21, and the grading sandbox refusing it names CLI-BODY-21', async () => {
  const headers = { apikey: SANDBOX_API_KEY, 'content-type': 'application/json' };
  for (const Name of ['', '  ']) {
    const body = companyInput({ Name });
    const answer = await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body });
    const findings = judged({ method: 'POST', path: '/companies/register', body, contentType: 'application/json', headers }, answer.status);
    // The spec export takes "" as a string: the body rule holds; whether "" counts as given is not said.
    assert.equal(verdictOf(findings, 'CLI-BODY-04'), 'passed', JSON.stringify(Name));
    assert.equal(verdictOf(findings, 'CLI-BODY-21'), 'failed', JSON.stringify(Name));
    assert.equal(answer.status, 400, answer.text);
    assert.equal(registerRefusal(body, answer)?.requirement, 'CLI-BODY-21', answer.text);
  }
  // A body with every required field given passes the rule, and a field left out is still CLI-BODY-04's.
  const whole = companyInput({});
  assert.equal(verdictOf(judged({ method: 'POST', path: '/companies/register', body: whole, contentType: 'application/json', headers }, 202), 'CLI-BODY-21'), 'passed');
  const { Name: _left, ...without } = whole as Record<string, unknown>;
  const answer = await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: without });
  assert.equal(registerRefusal(without, answer)?.requirement, 'CLI-BODY-04', answer.text);
});
