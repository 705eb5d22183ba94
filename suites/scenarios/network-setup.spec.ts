// Network setup as the guide does it: upload the scanned letter first, then ask for the company to
// be added with the letter as AttachmentUri; an invalid feedback e-mail is refused, and the same
// request with the address corrected (or left empty) goes through.
import { checks, expectCheck, schemaTypes, tags, test } from '../support/index.ts';
import { networkSetup, setupAccepted } from '../support/network.ts';
import { uploadFile } from '../support/outbound.ts';

const { statusIs } = checks;
const nonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

test('a network setup request carries a scanned letter uploaded first; an invalid feedback e-mail is refused until it is corrected', {
  tag: tags('flows', 'FLOW-10', 'NET-SET-04', 'NET-SET-05', 'NET-SET-10'),
}, async ({ api, registeredCompany, fixtures }) => {
  const auth = { clientToken: registeredCompany.token };
  const letter = await uploadFile(api, registeredCompany.token, 'small.pdf');
  await expectCheck(letter.response, [statusIs(202), checks.locationEndsWithUuid], { requirement: 'FLOW-10' });

  const request = fixtures.networkSetupRequest('SE', { attachmentUri: letter.reference });
  const invalid = await networkSetup(api, auth, { ...request, NetworkSetupFeedbackEmail: 'nobody-at-all' });
  await expectCheck(invalid, [statusIs(400)], { requirement: 'NET-SET-04' });

  const accepted = await networkSetup(api, auth, request);
  await expectCheck(accepted, [setupAccepted, schemaTypes('network-setup.response'), checks.fieldSatisfies('RequestId', 'is a non-empty string', nonEmptyString)], { requirement: 'FLOW-10' });
  await expectCheck(accepted, [setupAccepted], { requirement: 'NET-SET-10' });

  // Feedback then goes to the e-mail address of the company registration.
  const toRegistration = await networkSetup(api, auth, { ...request, NetworkSetupFeedbackEmail: '' });
  await expectCheck(toRegistration, [setupAccepted, schemaTypes('network-setup.response')], { requirement: 'NET-SET-05' });
});
