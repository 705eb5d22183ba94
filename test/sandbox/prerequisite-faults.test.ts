// The sandbox faults that break a prerequisite many tests share (issue 14): each breaks exactly
// the one step it names, so the root cause dxs reports can be told apart from everything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { call, companyInput, lastSegment, newSandbox, registeredCompany, upload, waitForStatus, SANDBOX_API_KEY } from './helpers.ts';

const INVOICE = readFileSync(new URL('../../fixtures/files/invoice.xml', import.meta.url));

/** Registers a company (202) and asks for its client token: the call the token faults break. */
async function createTokenForNewCompany(app: Awaited<ReturnType<typeof newSandbox>>): ReturnType<typeof call> {
  const input = companyInput();
  assert.equal((await call(app, 'POST', '/companies/register', { apiKey: SANDBOX_API_KEY, body: input })).status, 202);
  return call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: input.ErpId } });
}

test('token-answer-without-token: token creation answers 200 with ValidTo but no Token', async () => {
  const app = await newSandbox({ faults: ['token-answer-without-token'] });
  try {
    const created = await createTokenForNewCompany(app);
    assert.equal(created.status, 200);
    assert.deepEqual(created.json, { validTo: null });
  } finally {
    await app.close();
  }
});

test('token-create-500: token creation for a registered company answers 500 with a JSON string; unknown ErpIds are still 400', async () => {
  const app = await newSandbox({ faults: ['token-create-500'] });
  try {
    const created = await createTokenForNewCompany(app);
    assert.equal(created.status, 500);
    assert.equal(typeof created.json, 'string');
    assert.equal((await call(app, 'POST', '/clienttokens/create', { apiKey: SANDBOX_API_KEY, body: { ErpId: 'nobody-here' } })).status, 400);
  } finally {
    await app.close();
  }
});

test('inbox-never-receives: an electronic invoice reaches Delivered and the recipient\'s inbox stays empty', async () => {
  const app = await newSandbox({ faults: ['inbox-never-receives'] });
  try {
    const sender = await registeredCompany(app);
    const inbox = await registeredCompany(app, { GLN: `73${String(Date.now()).slice(-11)}` });
    const sent = await call(app, 'POST', '/documents/outbound', {
      token: sender.token,
      body: { SendDocumentAs: { Type: 'Electronic', Electronic: { RecipientId: inbox.input.GLN } }, Document: { DocumentFormat: 'UBL', DocumentUri: await upload(app, sender.token, INVOICE) } },
    });
    assert.equal(sent.status, 200);
    await waitForStatus(app, sender.token, lastSegment(sent.headers.location as string), ['Delivered']);
    const listed = await call(app, 'GET', '/documents/incoming', { token: inbox.token, query: { type: 'invoice' } });
    assert.equal(listed.status, 200);
    assert.equal(listed.json.total, 0);
  } finally {
    await app.close();
  }
});
