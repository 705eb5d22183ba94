// Contract of POST /network/setup: 202 with a RequestId (the guide shows 200), the feedback
// e-mail rule (invalid -> 400; empty or missing -> accepted), Operator, Processes and AttachmentUri.
import { checks, expectCheck, observe, schemaTypes, tags, test, type ApiResponse } from '../support/index.ts';
import { uploadFile } from '../support/outbound.ts';
import { networkSetup, robustnessBodies, setupAccepted } from '../support/network.ts';

const { statusIs, isRejected, notServerError, bodyIsJsonString } = checks;
const nonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/** 202 (the reference) or 200 (the guide example): both pass, which one is recorded (NET-SET-02). */
function recordSuccessStatus(response: ApiResponse): Promise<void> {
  return observe('NET-SET-02', `a successful network setup answered ${response.status}${response.status === 202 ? ' (the reference)' : response.status === 200 ? ' (the guide example)' : ''}`, response);
}

test.describe('network setup', () => {
  test('a network setup request with a client token answers 202 with a RequestId', {
    tag: tags('network', 'NET-SET-01', 'NET-SET-02', 'NET-SET-03', 'NET-SET-07', 'NET-SET-11', 'NET-SET-17'),
  }, async ({ api, registeredCompany, fixtures }) => {
    // The fixture carries a complete Operator and Processes [ReceiveInvoices]: a new invoice recipient.
    const body = fixtures.networkSetupRequest('SE');
    const response = await networkSetup(api, { clientToken: registeredCompany.token }, body);
    await expectCheck(response, [setupAccepted], { requirement: 'NET-SET-01' });
    // RequestId's own check before the schema, so a missing one fails under its own ID.
    await expectCheck(response, [checks.fieldSatisfies('RequestId', 'is a non-empty string', nonEmptyString)], { requirement: 'NET-SET-03' });
    await expectCheck(response, [schemaTypes('network-setup.response')], { requirement: 'NET-SET-01' });
    await recordSuccessStatus(response);
    await expectCheck(response, [setupAccepted], { requirement: 'NET-SET-07' });
    await expectCheck(response, [setupAccepted], { requirement: 'NET-SET-11' });
    await expectCheck(response, [setupAccepted], { requirement: 'NET-SET-17' });
  });

  test('an invalid NetworkSetupFeedbackEmail answers 400 with a JSON string', { tag: tags('network', 'NET-SET-04', 'NET-SET-12', 'NET-SET-13') }, async ({ api, registeredCompany, fixtures }) => {
    const body = fixtures.networkSetupRequest('SE', { feedbackEmail: 'nobody-at-all' });
    const response = await networkSetup(api, { clientToken: registeredCompany.token }, body);
    await expectCheck(response, [statusIs(400)], { requirement: 'NET-SET-04' });
    await expectCheck(response, [bodyIsJsonString], { requirement: 'NET-SET-12' });
    await observe('NET-SET-13', `400 body for an invalid feedback e-mail: ${response.text === undefined || response.text === '' ? '(empty)' : response.text.slice(0, 300)}`, response);
  });

  test('an empty or missing NetworkSetupFeedbackEmail is accepted', { tag: tags('network', 'NET-SET-02', 'NET-SET-05', 'NET-SET-06') }, async ({ api, registeredCompany, fixtures }) => {
    const empty = await networkSetup(api, { clientToken: registeredCompany.token }, fixtures.networkSetupRequest('DK', { feedbackEmail: '' }));
    await expectCheck(empty, [setupAccepted], { requirement: 'NET-SET-05' });
    await recordSuccessStatus(empty);
    const { NetworkSetupFeedbackEmail: _feedback, ...withoutFeedback } = fixtures.networkSetupRequest('FI');
    const missing = await networkSetup(api, { clientToken: registeredCompany.token }, withoutFeedback);
    await expectCheck(missing, [setupAccepted], { requirement: 'NET-SET-06' });
  });

  test('all four Processes are accepted and one outside them is refused', { tag: tags('network', 'NET-SET-08', 'NET-SET-09', 'NET-SET-15') }, async ({ api, registeredCompany, fixtures }) => {
    const all = await networkSetup(api, { clientToken: registeredCompany.token }, fixtures.networkSetupRequest('NO', { processes: ['ReceiveInvoices', 'SendInvoices', 'ReceiveOrders', 'SendOrders'] }));
    await expectCheck(all, [setupAccepted], { requirement: 'NET-SET-08' });
    const teleport = await networkSetup(api, { clientToken: registeredCompany.token }, { ...fixtures.networkSetupRequest('NO'), Processes: ['Teleport'] });
    await expectCheck(teleport, [notServerError], { requirement: 'NET-SET-15' });
    await expectCheck(teleport, [isRejected], { requirement: 'NET-SET-09' });
  });

  test('AttachmentUri accepts the reference an upload returned', { tag: tags('network', 'NET-SET-10') }, async ({ api, registeredCompany, fixtures }) => {
    const uploaded = await uploadFile(api, registeredCompany.token, 'small.pdf');
    await expectCheck(uploaded.response, [statusIs(202), checks.locationEndsWithUuid], { requirement: 'NET-SET-10' });
    const response = await networkSetup(api, { clientToken: registeredCompany.token }, fixtures.networkSetupRequest('SE', { attachmentUri: uploaded.reference }));
    await expectCheck(response, [setupAccepted, schemaTypes('network-setup.response')], { requirement: 'NET-SET-10' });
  });

  test('whether two network setup requests get distinct RequestIds is recorded', { tag: tags('network', 'NET-SET-16') }, async ({ api, registeredCompany, fixtures }) => {
    const body = fixtures.networkSetupRequest('SE');
    const first = await networkSetup(api, { clientToken: registeredCompany.token }, body);
    const second = await networkSetup(api, { clientToken: registeredCompany.token }, body);
    await expectCheck(second, [setupAccepted], { requirement: 'NET-SET-01' });
    const ids = [first.data?.RequestId, second.data?.RequestId];
    await observe('NET-SET-16', `the same request sent twice got ${ids[0] === ids[1] ? 'the same RequestId' : 'distinct RequestIds'} (${first.status}, ${second.status})`, second);
  });
});

test.describe('network setup security', () => {
  test('network setup without credentials is refused', { tag: tags('network', 'NET-SET-14') }, async ({ api, fixtures }) => {
    const response = await networkSetup(api, 'none', fixtures.networkSetupRequest('SE'));
    await expectCheck(response, [isRejected], { requirement: 'NET-SET-14' });
  });

  test('malformed JSON, wrong types and an oversized body on network setup give no 5xx', { tag: tags('network', 'NET-SET-15') }, async ({ api, registeredCompany, fixtures }) => {
    const valid = fixtures.networkSetupRequest('SE') as unknown as Record<string, unknown>;
    for (const { rawBody } of robustnessBodies(valid, { Processes: 'ReceiveInvoices', Operator: [{ Name: 'x' }] })) {
      const response = await api.post('/network/setup', { auth: { clientToken: registeredCompany.token }, rawBody, contentType: 'application/json' });
      await expectCheck(response, [notServerError], { requirement: 'NET-SET-15' });
    }
  });
});
