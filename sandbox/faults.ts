// Names of the deliberate deviations (faults) and legitimate differences (variants) that the
// sandbox can be started with. Code asks `context.faults.has(name)`; this list only serves to
// reject misspelt names up front.
// Each fault breaks a statement the spec makes explicitly (or the security model), never a
// "not shown" choice; test/faults/expectations.ts names the catalog ID whose test must catch it.
export const FAULTS: Record<string, string> = {
  // tokens
  'revoked-token-accepted': 'a revoked client token is still accepted',
  'expired-token-accepted': 'a client token past its ValidTo is still accepted',
  'token-create-201': 'token creation answers 201 instead of 200',
  'token-erpid-optional': 'token creation without ErpId still hands out a token',
  'token-validto-malformed': 'ValidTo of a token answer is not ISO 8601 (an HTTP date)',
  'search-token-company-access': 'a search token is accepted on company-level calls',
  'token-answer-without-token': 'the client token answer (200) has no Token: every company-level call is out of reach',
  'token-create-500': 'client token creation answers 500: every company-level call is out of reach',
  // companies
  'never-registered': 'a registered company never reaches Status Registered',
  'register-200': 'register answers 200 instead of 202',
  'register-processes-unchecked': 'register accepts a Processes value outside the four allowed values',
  'register-orgno-optional': 'register accepts a body without OrgNo',
  'services-orgno-unchecked': 'service activation does not validate OrgNo against the preregistration',
  'status-details-missing': 'the company status answer has no Details',
  'status-companyid-number': 'CompanyId of the company status answer is a number',
  'details-invoicechecks-string': 'HasInvoiceChecks of the company details is the string "false"',
  'details-peppol-malformed': 'PeppolParticipantIdentifiers of the company details lack the <scheme>::<id> form',
  'details-other-company': 'one company\'s client token reads another company\'s details',
  'user-username-unchecked': 'add user accepts a UserName shorter than 5 alphanumeric characters',
  'user-culture-unchecked': 'add user accepts a CultureCode outside the list',
  'user-email-unchecked': 'add user accepts an invalid Email',
  'user-conflict-400': 'a UserName already taken is answered 400 instead of 409',
  'identifier-type-unchecked': 'add identifier accepts an unsupported Type',
  'identifier-202': 'add identifier answers 202 instead of 200 or 201',
  'delete-role-ignored': 'delete is accepted from an API key without the DeleteRegistration role',
  'delete-duplicate-202': 'a duplicate delete request answers 202 instead of 200',
  'delete-any-api-key': 'delete accepts an APIkey that is not configured (202, nothing deleted)',
  'delete-unauthenticated': 'delete without any credential is accepted (202, nothing deleted)',
  'delete-client-token-accepted': "a company's ClientToken alone deletes it",
  'delete-id-optional': 'delete without Id is accepted (202, nothing deleted)',
  'delete-every-api-key': 'a delete request removes the registrations with that Id of every API key',
  // network
  'lookup-partyid-optional': 'lookups accept a body without PartyId',
  'lookup-exacthit-string': 'ExactHit of a lookup answer is the string "false"',
  'lookup-unauthenticated': 'the buyer lookup answers without any credential',
  'setup-feedback-email-unchecked': 'network setup accepts an invalid NetworkSetupFeedbackEmail',
  'setup-processes-unchecked': 'network setup accepts a Processes value outside the allowed values',
  'setup-requestid-missing': 'the network setup answer has no RequestId',
  // outbound
  'upload-200': 'upload answers 200 instead of 202',
  'upload-location-missing': 'upload answers without a Location header',
  'upload-location-url': 'the upload Location is an http URL, not a URN',
  'send-202': 'send answers 202 instead of 200',
  'send-location-missing': 'send answers without a Location header',
  'send-type-unchecked': 'send accepts a SendDocumentAs.Type outside PDF, Paper, Electronic and BusinessToConsumer',
  'send-format-optional': 'send accepts a Document without DocumentFormat',
  'never-delivered': 'a sent document never reaches Delivered',
  'status-time-malformed': 'status Time values are not ISO 8601 (an HTTP date)',
  'status-unlisted': 'a document status outside the DocumentStatus list (InPlatform) is reported',
  'status-history-missing': 'the outbound status answer has no StatusHistory',
  'document-type-fixed': 'DocumentType stays Document after the checks passed',
  'erp-document-id-dropped': 'the outbound status answer drops the ErpDocumentId given at send time',
  'file-info-ignored': 'IncludeFileInfo=true adds no file information',
  'outbound-status-any-company': 'one company\'s client token reads another company\'s outbound status',
  'outbound-list-all-companies': 'the outbound list holds other companies\' documents',
  'outbound-download-any-company': 'one company\'s client token downloads another company\'s outbound document',
  'outbound-bad-uuid-500': 'a DocumentId that is not a uuid gives 500',
  // inbound
  'handled-ignored': 'documents marked handled stay in the list made without sequenceNo',
  'sequenceno-ignored': 'with sequenceNo, handled documents are still left out',
  'inbound-download-headers-missing': 'the inbound download lacks Content-Disposition, X-Filename and X-Document-Format',
  'inbound-sequenceno-string': 'SequenceNo of the incoming list is a string',
  'inbound-read-any-company': 'one company\'s client token downloads and reads another company\'s inbound documents',
  'inbound-list-all-companies': 'the incoming list holds other companies\' documents',
  'inbox-never-receives': 'an electronic invoice is Delivered but never arrives in the recipient\'s inbox',
  // provider A
  'providera-pubagreement-unchecked': 'provider A registration accepts PubAgreement false',
  'providera-not-swedish': 'provider A accepts a company not registered in Sweden',
  'providera-email-unchecked': 'provider A registration accepts an invalid GeneralEmail',
  'providera-conflict-400': 'a provider A tenant owned by another company is answered 400 instead of 409',
  'providera-location-missing': 'provider A registration answers without a Location header',
  'providera-status-unlisted': 'the provider A record shows status Active, outside Completed, CompleteConflict, Unknown',
  'providera-agreementstart-iso': 'agreementStart is written as ISO 8601, not YYYY-MM-DD HH:mm',
  'providera-icon-unchecked': 'icons of any size, shape and format are accepted',
  'providera-ssn-limit-off': 'the SSN lookup accepts more than 500000 SSNs',
  'offboard-keeps-b2c': 'offboarding provider A does not stop its business-to-consumer invoices',
  // security
  'auth-not-enforced': 'ClientToken calls without a credential act for the latest registered company',
  'apikey-as-client-token': 'the API key is accepted in the ClientToken header',
  'malformed-json-500': 'malformed JSON gives 500',
  'error-stack-trace': 'error answers carry a stack trace',
};

export const VARIANTS: Record<string, string> = {
  camel: 'responses in camelCase (the default)',
  pascal: 'responses in PascalCase',
  'extra-fields': 'every object body carries a field the spec does not name',
  'status-200': '200 instead of 202 where the guide shows 200 (network setup)',
  'offset-0000': 'date-times written with a +0000 offset',
  slow: 'each background step takes at least 250 ms',
  'skip-statuses': 'documents go from Pending straight to Sent, skipping the intermediate statuses',
  gzip: 'responses gzip-compressed when the client accepts it',
  'absolute-location': 'Location headers as absolute URLs (the default)',
  'relative-location': 'Location headers as paths relative to the host',
  'delay-token-create-50ms': 'POST /clienttokens/create answers 50 ms later (a slower build, for dxs load --baseline to find)',
};

export function checkNames(kind: 'fault' | 'variant', names: readonly string[]): void {
  const known = kind === 'fault' ? FAULTS : VARIANTS;
  for (const name of names) {
    if (!(name in known)) throw new Error(`unknown ${kind} "${name}" (known: ${Object.keys(known).join(', ')})`);
  }
}
