// One company cannot reach another's documents, and one API key cannot reach another key's
// companies. Where the spec gives no status for the refusal, the call must be rejected (a 4xx)
// or, for lists, must not reveal the other company's data.
import { checks, expectCheck, observe, tags, test, type ApiResponse } from '../support/index.ts';
import { sentDocument } from '../support/outbound.ts';
import type { Check } from '../../lib/checks.ts';

const { isRejected, statusIs } = checks;

/** The answer's text does not carry the value (an id of the other company). */
function doesNotReveal(value: string, describe: string): Check {
  return (response) => ({
    check: 'doesNotReveal',
    ok: !(response.text ?? '').includes(value),
    expected: `an answer that does not list ${describe}`,
    actual: (response.text ?? '').includes(value) ? `the answer names ${describe} (${value})` : 'not listed',
    severity: 'failure',
  });
}

test("one company's token cannot read, download or list another company's sent document", { tag: tags('security', 'SEC-09') }, async ({ api, fixtures, registeredCompany, otherCompany }) => {
  const sent = await sentDocument(api, fixtures, otherCompany.token, 'PDF');
  const own = { clientToken: otherCompany.token };
  const intruder = { clientToken: registeredCompany.token };
  // The owner reads it, so a refusal below is about the token, not the id.
  const byOwner = await api.get(`/documents/outbound/${sent.documentId}`, { auth: own });
  await expectCheck(byOwner, [statusIs(200)], { requirement: 'OUT-STA-01' });
  const reads: ApiResponse[] = [
    await api.get(`/documents/outbound/${sent.documentId}`, { auth: intruder }),
    await api.get(`/invoices/outbound/${sent.documentId}`, { auth: intruder }),
    await api.get(`/documents/outbound/download/${sent.documentId}`, { auth: intruder }),
    await api.get(`/documents/${sent.documentId}`, { auth: intruder }),
    await api.get(`/documents/${sent.documentId}/info`, { auth: intruder }),
  ];
  if (sent.erpDocumentId !== undefined) reads.push(await api.get(`/invoices/outbound/byerpid/${encodeURIComponent(sent.erpDocumentId)}`, { auth: intruder }));
  for (const response of reads) await expectCheck(response, [isRejected], { requirement: 'SEC-09' });
  const inbox = await api.get('/documents/incoming', { auth: intruder, query: { type: 'invoice', sequenceNo: 0 } });
  await expectCheck(inbox, [doesNotReveal(sent.documentId, "the other company's document")], { requirement: 'SEC-09' });
  const list = await api.post('/documents/outbound/list', { auth: intruder, json: { Take: 100, Skip: 0 } });
  await expectCheck(list, [doesNotReveal(sent.documentId, "the other company's document")], { requirement: 'SEC-09' });
});

test('whether an API key can create tokens for a company registered under another API key is recorded', { tag: tags('security', 'SEC-17') }, async ({ api, target, registeredCompany }) => {
  // The run's second key (the one without the DeleteRegistration role) stands for another API key.
  test.skip(target.apiKeyWithoutDelete === undefined, 'no second API key configured (--api-key-without-delete)');
  test.skip(target.apiKeyWithoutDelete === target.apiKey, 'the second API key is the same as the first');
  // Whether the two keys stand for two integrators or one (the second has fewer roles) is not
  // shown, so either answer is recorded.
  const response = await api.post('/clienttokens/create', { auth: 'apiKeyWithoutDelete', json: { ErpId: registeredCompany.erpId } });
  await observe('SEC-17', `a token for the first key's ErpId, asked with the second key, answered ${response.status}`, response);
});
