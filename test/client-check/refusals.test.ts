// Every refusal of the grading sandbox names the client requirement it enforces (issue 37), or says
// why it is no fault of the client; the report shows it where the call was refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { gradeCalls } from '../../grading/graded-call.ts';
import { recogniseMessage, REFUSAL_RULES, refusalOf } from '../../grading/refusals.ts';
import type { RecordedCall } from '../../grading/traffic.ts';
import { loadClientRequirements } from '../../schemas/client-requirements.ts';
import { message, MESSAGE_KEYS } from '../../sandbox/messages.ts';
import { call, multipart, newSandbox, registeredCompany, SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE, type TestCompany } from '../sandbox/helpers.ts';

let app: FastifyInstance;
let company: TestCompany;
before(async () => {
  app = await newSandbox();
  company = await registeredCompany(app);
});
after(async () => {
  await app.close();
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
