// The provider A flow of the guide, on a Swedish company of its own: onboarding -> record -> patch
// -> icon -> SSN lookup -> business-to-consumer send -> offboarding, after which the provider A
// invoices that were not yet delivered are Stopped. Tagged with both areas, so a profile that
// selects provider A runs it without the other flows.
import { fixtureFile, iconRequestBody } from '../../fixtures/index.ts';
import { isFinalStatus } from '../../lib/document-statuses.ts';
import { checks, expectCheck, observe, registerCompany, tags, type ApiClient, type ApiResponse } from '../support/index.ts';
import { ICON_PATH, LOOKUP_PATH, OFFBOARD_PATH, pollRecord, pollResponse, PROVIDER_A_PATH, recordShowsRegistration } from '../support/provider-a.ts';
import { test } from '../support/index.ts';

const { statusIs, bodyIsEmpty, hasHeader, isRejected, isSuccess, locationEndsWithUuid, fieldSatisfies } = checks;

/** How many B2C invoices the flow sends, at most, to have one read as Pending just before offboarding. */
const PENDING_ATTEMPTS = 3;

const currentStatus = (response: ApiResponse): string | undefined => response.data?.CurrentStatus?.Status;
const lastSegment = (location: string | undefined): string => (location ?? '').replace(/\/+$/, '').split(/[/:]/).pop() ?? '';

/**
 * Uploads and sends one B2C invoice. Whether a send to a person provider A does not report as
 * registered is refused is not shown ("SSN is used only with provider A"): such a refusal is
 * recorded and ends the send (undefined), anything else is judged.
 */
async function sendBusinessToConsumer(api: ApiClient, token: string, body: (documentUri: string) => unknown, ssnRegistered: boolean): Promise<{ send: ApiResponse; documentId: string } | undefined> {
  const invoice = fixtureFile('invoice.xml');
  const upload = await api.post('/documents', { auth: { clientToken: token }, multipart: { File: { name: invoice.name, mimeType: invoice.contentType, buffer: invoice.bytes } } });
  await expectCheck(upload, [statusIs(202), locationEndsWithUuid], { requirement: 'FLOW-06' });
  const send = await api.post('/documents/outbound', { auth: { clientToken: token }, json: body(upload.headers['location'] ?? '') });
  if (!ssnRegistered && send.status >= 400 && send.status < 500) {
    await observe('FLOW-06', `a B2C send to an SSN provider A did not report as registered answered ${send.status}`, send);
    return undefined;
  }
  await expectCheck(send, [statusIs(200), locationEndsWithUuid], { requirement: 'FLOW-06' });
  return { send, documentId: lastSegment(send.headers['location']) };
}

test(
  'provider A onboarding, record, patch, icon, SSN lookup and a B2C send work, and offboarding stops the undelivered B2C invoices',
  { tag: tags('flows', '@area:provider-a', 'FLOW-06', 'FLOW-07', 'PRA-01', 'PRA-22', 'PRA-23', 'PRA-24', 'PRA-27', 'PRA-29', 'PRA-36', 'PRA-37', 'PRA-38', 'PRA-44', 'PRA-48', 'PRA-49') },
  async ({ api, target, fixtures }) => {
    const company = await registerCompany(api, target, fixtures.company('SE'));
    const auth = { clientToken: company.token };
    const registration = fixtures.providerARegistration(company.input);

    let offboarded = false;
    try {
      const onboard = await api.post(PROVIDER_A_PATH, { auth, json: registration });
      await expectCheck(onboard, [statusIs(200), bodyIsEmpty, hasHeader('Location')], { requirement: 'PRA-01' });
      await expectCheck(onboard, [isSuccess], { requirement: 'PRA-44' });
      await observe('PRA-49', `the registration's Location was ${JSON.stringify(onboard.headers['location'] ?? null)}`, onboard);

      const { response: record, seen } = await pollRecord(api, target, company.token);
      await observe('PRA-48', `values seen until Completed: ${seen.join(' -> ')}`, record);
      await expectCheck(record, [statusIs(200), fieldSatisfies('Status', 'is Completed', (value) => value === 'Completed'), fieldSatisfies('AgreementStatus', 'is Signed', (value) => value === 'Signed')], { requirement: 'PRA-22' });
      await expectCheck(record, recordShowsRegistration(registration), { requirement: 'PRA-23' });

      // Which PATCH fields are required is not shown: every field is sent, which fits every reading.
      const patch = await api.patch(PROVIDER_A_PATH, { auth, json: { ...fixtures.providerAUpdate(company.input), DisplayName: `${registration.DisplayName} B2C` } });
      await expectCheck(patch, [statusIs(200), hasHeader('Location')], { requirement: 'PRA-24' });

      const icon = await api.post(ICON_PATH, { auth, json: iconRequestBody('256') });
      await expectCheck(icon, [statusIs(202), hasHeader('Location')], { requirement: 'PRA-27' });
      const notSquare = await api.post(ICON_PATH, { auth, json: iconRequestBody('not-square') });
      await expectCheck(notSquare, [isRejected], { requirement: 'PRA-29' });

      const ssns = fixtures.ssns(20);
      const lookup = await api.post(LOOKUP_PATH, { auth, json: { Ssns: ssns } });
      await expectCheck(lookup, [statusIs(200), fieldSatisfies('RegisteredSsns', 'is an array of strings', (value) => Array.isArray(value) && value.every((ssn) => typeof ssn === 'string'))], { requirement: 'PRA-37' });
      await expectCheck(lookup, [fieldSatisfies('RegisteredSsns', 'holds only SSNs that were sent', (value) => Array.isArray(value) && value.every((ssn) => ssns.includes(ssn as string)))], { requirement: 'PRA-38' });
      const registered: string[] = Array.isArray(lookup.data?.RegisteredSsns) ? lookup.data.RegisteredSsns : [];
      const ssn = registered[0] ?? ssns[0];
      if (registered.length === 0) test.info().annotations.push({ type: 'info', description: `FLOW-06: none of the ${ssns.length} SSNs sent is registered with provider A at this target; the B2C invoices go to an unregistered SSN` });

      const businessToConsumer = (documentUri: string) => fixtures.sendDocument('BusinessToConsumer', { documentUri, ssn, sender: company.input });
      const ssnRegistered = registered.length > 0;
      const first = await sendBusinessToConsumer(api, company.token, businessToConsumer, ssnRegistered);
      const statusOf = (documentId: string) => api.get(`/documents/outbound/${documentId}`, { auth });
      let secondId = '';
      let before: string | undefined;
      if (first !== undefined) {
        const progressed = await pollResponse(target, 'the B2C invoice leaving Pending', () => statusOf(first.documentId), (response) => response.status === 200 && currentStatus(response) !== undefined && currentStatus(response) !== 'Pending');
        await expectCheck(progressed, [statusIs(200), fieldSatisfies('CurrentStatus', 'has moved on from Pending', (value: any) => typeof value?.Status === 'string' && value.Status !== 'Pending')], { requirement: 'FLOW-06' });

        // The second invoice is sent right before offboarding, so it is still on its way; it is read
        // once, just before, to know whether there is anything left to stop. Only an invoice read as
        // Pending is surely undelivered when the offboarding arrives, and a fast target may move on
        // within the read's round trip, so a few more are sent until one is read as Pending.
        let attempts = 0;
        do {
          const second = await sendBusinessToConsumer(api, company.token, businessToConsumer, ssnRegistered);
          if (second === undefined) break;
          secondId = second.documentId;
          before = currentStatus(await statusOf(secondId));
        } while (before !== 'Pending' && ++attempts < PENDING_ATTEMPTS);
      }

      const offboard = await api.post(OFFBOARD_PATH, { auth });
      offboarded = offboard.status < 300;
      await expectCheck(offboard, [statusIs(200), hasHeader('Location')], { requirement: 'PRA-36' });
      await expectCheck(offboard, [isSuccess], { requirement: 'PRA-44' });

      if (first === undefined || secondId === '') {
        test.info().annotations.push({ type: 'info', description: 'FLOW-07 not checked: no B2C invoice was accepted (the SSN sent is not registered with provider A at this target)' });
      } else if (before === 'Delivered' || before === 'Stopped' || before === undefined) {
        test.info().annotations.push({ type: 'warning', description: `FLOW-07 not checked: the B2C invoice was ${before ?? 'unreadable'} just before offboarding` });
      } else {
        const after = await pollResponse(target, 'the B2C invoice being stopped', () => statusOf(secondId), (response) => isFinalStatus(currentStatus(response)));
        // A document passes through several statuses before it is delivered (spec), so one read as
        // Pending cannot have been delivered in the moment before the offboarding reached the target;
        // one read further along might have been, so for it a Delivered only warns.
        await expectCheck(
          after,
          [statusIs(200), fieldSatisfies('CurrentStatus', `is Stopped (it was ${before} just before offboarding)`, (value: any) => value?.Status === 'Stopped')],
          { requirement: 'FLOW-07', ...(before === 'Pending' ? {} : { level: 'GUIDE' as const }) },
        );
      }

      const afterOffboarding = await api.get(PROVIDER_A_PATH, { auth });
      await observe('PRA-48', `after offboarding the record answered ${afterOffboarding.status} with status ${JSON.stringify(afterOffboarding.data?.Status)}`, afterOffboarding);
    } finally {
      // Frees the tenant (the OrgNo) when the flow stopped early: a later run may draw it again.
      if (!offboarded) await api.post(OFFBOARD_PATH, { auth });
    }
  },
);
