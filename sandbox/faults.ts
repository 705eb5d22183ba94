// Names of the deliberate deviations (faults) and legitimate differences (variants) that the
// sandbox can be started with. Code asks `context.faults.has(name)`; this list only serves to
// reject misspelt names up front.
// Each fault breaks a statement the spec makes explicitly (or the security model), never a
// "not shown" choice; test/faults/expectations.ts names the catalog ID whose test must catch it.
import { DEPLOYMENT_VARIANTS } from './tls.ts';
import { isTimingVariant } from './timing-variants.ts';
import { closestName } from '../lib/closest-name.ts';

export const FAULTS: Record<string, string> = {
  // tokens
  'revoked-token-accepted': 'a revoked client token is still accepted',
  'expired-token-accepted': 'a client token past its ValidTo is still accepted',
  'token-create-201': 'token creation answers 201 instead of 200',
  'token-erpid-optional': 'token creation without ErpId still hands out a token',
  'token-validto-malformed': 'ValidTo of a token answer is not ISO 8601 (an HTTP date)',
  'search-token-company-access': "a search token is accepted on company-level calls and acts for the API key's latest registered company",
  'token-answer-without-token': 'the client token answer (200) has no Token: every company-level call is out of reach',
  'token-create-500': 'client token creation answers 500: every company-level call is out of reach',
  // companies
  'never-registered': 'a registered company never reaches Status Registered',
  'register-200': 'register answers 200 instead of 202',
  'register-processes-unchecked': 'register accepts a Processes value outside the four allowed values',
  'register-orgno-optional': 'register accepts a body without OrgNo',
  'services-orgno-unchecked': 'service activation does not validate OrgNo against the preregistration',
  'services-unauthenticated': 'service activation with no credential at all is taken for the company of its ErpId',
  'status-details-missing': 'the company status answer has no Details',
  'status-companyid-number': 'CompanyId of the company status answer is a number',
  'details-invoicechecks-string': 'HasInvoiceChecks of the company details is the string "false"',
  'details-peppol-malformed': 'PeppolParticipantIdentifiers of the company details lack the <scheme>::<id> form',
  'user-username-unchecked': 'add user accepts a UserName shorter than 5 alphanumeric characters',
  'user-culture-unchecked': 'add user accepts a CultureCode outside the list',
  'user-email-unchecked': 'add user accepts an invalid Email',
  'user-conflict-400': 'a UserName already taken is answered 400 instead of 409',
  'identifier-type-unchecked': 'add identifier accepts an unsupported Type',
  'identifier-202': 'add identifier answers 202 instead of 200 or 201',
  'status-processes-string': 'Details.Processes of the company status answer is one comma-separated string, not [string]',
  'reregister-new-company': 'registering an ErpId again creates a second company (a new CompanyId) instead of updating the first',
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
  'lookup-connected-string': 'Connected of a lookup party is the string "true"/"false", not a boolean',
  // outbound
  'upload-200': 'upload answers 200 instead of 202',
  'upload-location-missing': 'upload answers without a Location header',
  'upload-location-url': 'the upload Location is an http URL, not a URN',
  'send-202': 'send answers 202 instead of 200',
  'send-location-missing': 'send answers without a Location header',
  'send-type-unchecked': 'send accepts a SendDocumentAs.Type outside PDF, Paper, Electronic and BusinessToConsumer',
  'send-format-optional': 'send accepts a Document without DocumentFormat',
  'stays-pending': 'a sent document stays Pending: it never passes through another status',
  'status-time-malformed': 'status Time values are not ISO 8601 (an HTTP date)',
  'status-unlisted': 'a document status outside the DocumentStatus list (InPlatform) is reported',
  'status-history-missing': 'the outbound status answer has no StatusHistory',
  'status-history-current-only': 'StatusHistory holds only the current status, not the statuses the document passed through',
  'document-type-fixed': 'DocumentType stays Document after the checks passed',
  'erp-document-id-dropped': 'the outbound status answer drops the ErpDocumentId given at send time',
  'file-info-ignored': 'IncludeFileInfo=true adds no file information',
  'outbound-status-any-company': 'one company\'s client token reads another company\'s outbound status',
  'outbound-list-all-companies': 'the outbound list holds other companies\' documents',
  'outbound-download-any-company': 'one company\'s client token downloads another company\'s outbound document',
  'outbound-bad-uuid-500': 'a DocumentId that is not a uuid gives 500',
  'outbound-read-by-idle-company': 'a company that has sent nothing reads and downloads other companies\' outbound documents',
  'outbound-list-leak-after-sent': 'the outbound list also shows other companies\' documents once they reached Sent',
  'outbound-unknown-200': 'the outbound status of an unknown DocumentId answers 200 with an empty body',
  // inbound
  'handled-ignored': 'documents marked handled stay in the list made without sequenceNo',
  'sequenceno-ignored': 'with sequenceNo, handled documents are still left out',
  'inbound-download-headers-missing': 'the inbound download lacks Content-Disposition, X-Filename and X-Document-Format',
  'inbound-sequenceno-string': 'SequenceNo of the incoming list is a string',
  'inbound-read-any-company': 'one company\'s client token downloads and reads another company\'s inbound documents',
  'inbound-list-all-companies': 'the incoming list holds other companies\' documents',
  'inbox-never-receives': 'an electronic invoice is Delivered but never arrives in the recipient\'s inbox',
  'info-attachments-string': 'Attachments of the inbound document info is one string, not [string]',
  'inbox-leak-to-third-company': 'the incoming list also shows documents delivered to other companies, except to the company that sent them',
  'inbound-read-after-handled': 'once its recipient marked a document handled, any company downloads it and reads its info',
  'inbox-leak-after-handled': 'a document its recipient marked handled also shows in every other company\'s incoming list',
  // inbound, under load (issue 35): what only a history of many calls shows
  'inbound-list-lossy': 'one electronic delivery in ten (every tenth of the service) is stored but never shows in the incoming list, with or without sequenceNo',
  'inbound-list-lossy-total': 'one electronic delivery in ten (every tenth of the service) is stored but never shows in the incoming list, with or without sequenceNo, while the list\'s Total still counts it (every answer looks paged)',
  'inbound-list-duplicate': 'an incoming list answer that holds documents shows its first one a second time',
  'inbound-sequenceno-repeated': 'every second document delivered to a company gets the SequenceNo of the one before it',
  'handled-comes-back': 'a document downloaded after it was marked handled shows again in every other list its company makes without sequenceNo',
  'inbound-delivered-twice': 'one electronic send in ten (every tenth delivery of the service) arrives as two inbound documents',
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
  'providera-record-to-unregistered': 'a company that never registered provider A is answered the record of another company of its API key',
  // security
  'auth-not-enforced': 'ClientToken calls without a credential act for the latest registered company',
  'apikey-as-client-token': 'the API key is accepted in the ClientToken header',
  'malformed-json-500': 'malformed JSON gives 500',
  // access matrix (issue 40): one door each, where the older security tests do not knock
  'client-token-mints-tokens': 'POST /clienttokens/create with a ClientToken alone (no APIkey) hands out a token',
  'apikey-acts-as-company': 'the APIkey alone acts for the key\'s latest company on every ClientToken call but company status',
  'search-token-uploads': 'a search token acts for the key\'s latest company on upload, send and add user',
  'inbound-served-unauthenticated': 'an inbound document and its info are served to a call with no credential',
  'expired-token-accepted-on-send': 'an expired client token is still accepted on upload and send',
  'revoked-token-accepted-on-provider-a': 'a revoked client token is still accepted on the provider A calls',
  'unknown-token-on-identifiers': 'a ClientToken the service never issued acts for the latest company on add identifier',
  'empty-header-on-provider-a': 'an empty ClientToken header acts for the latest company onboarded with provider A (else the latest Swedish one) on the provider A calls',
  'outbound-download-unauthenticated': 'the outbound download serves any document to a call with no credential',
  'inbound-filename-header-injection': 'the inbound download decodes the file name\'s escapes and writes it raw: lines after a CRLF (%0D%0A) in it become headers',
  'deep-nesting-500': 'a JSON body nested deeper than 10 000 levels is answered 500 (a parser without a bound)',
  'long-arrays-500': 'JSON bodies have no size limit, and one with an array of more than 50 000 elements is answered 500 (held whole in memory)',
  'gzip-bomb-500': 'a gzip or deflate Content-Encoding is inflated without a bound: 500',
  'png-bomb-500': 'the provider A icon is decoded before it is checked: a PNG that claims millions of pixels gives 500',
  'details-company-from-body': 'set details takes a CompanyId from the body, which the spec does not list, and sets that company\'s details whoever calls',
  'wrong-api-key-registers': 'register takes an API key it never configured, as the first key it has',
  'refused-with-effect': 'a revoked client token on add user and send is answered 401 after the user is added or the document sent',
  'handled-any-company': "mark handled marks another company's inbound document too",
  'byerpid-any-company': 'byerpid answers the latest document of that ErpDocumentId, whichever company sent it',
  'send-foreign-upload': "send takes another company's upload as its DocumentUri",
  'send-foreign-attachment': "send takes another company's upload in Attachments: the recipient gets it as an attachment, and the sender downloads it through its document's file information",
  'odd-id-500': 'an outbound DocumentId holding a slash once decoded, or of more than 1 kB, gives 500',
  'xml-entities-expanded': 'an uploaded XML document\'s internal entities are expanded: a bomb answers 500 after 2 s',
  'xml-external-entity-read': 'an uploaded XML document\'s external entity is replaced by the content of a local file (a made-up line of /etc/passwd)',
  'error-stack-trace': 'error answers carry a stack trace',
};

/** The variants that existed before the contrarian ones; the kill table runs each of them on every area. */
export const BASE_VARIANTS: Record<string, string> = {
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
  // A slow staging (issue 27); any latency-<N>ms and async-<N>s or async-<N>ms is accepted too.
  'latency-80ms': 'every answer 80 ms later, as across a network (latency-<N>ms for another figure)',
  'async-1s': 'each background step takes 1 s (async-<N>s or async-<N>ms for another figure)',
};

/**
 * A contrarian variant (issue 21): the other defensible choice on one point the spec leaves open.
 * Each stays a correct implementation of the spec; `allowedBy` names the sentence, or the silence,
 * that allows it.
 */
export interface ContrarianVariant {
  description: string;
  allowedBy: string;
  /** The catalog areas whose tests the variant can affect: a run of it alone takes only these. */
  areas: readonly string[];
  /** Set when the variant makes another choice on a point a member of the group already takes: it runs alone only. */
  alone?: string;
}

const EVERY_AREA = ['tokens', 'companies', 'network', 'outbound', 'inbound', 'provider-a', 'security', 'access', 'conventions', 'observe', 'flows'] as const;

export const CONTRARIAN_VARIANTS: Record<string, ContrarianVariant> = {
  // conventions, every answer
  'offset-colon': {
    description: 'date-times written with a +00:00 offset instead of Z',
    allowedBy: 'Types: "date-time (ISO 8601)"; ISO 8601 writes the UTC offset as Z, +00:00 or +0000',
    areas: ['tokens', 'outbound', 'flows', 'conventions', 'observe'],
  },
  'time-seconds': {
    description: 'date-times without fractional seconds (2026-01-01T10:00:00Z)',
    allowedBy: 'Types: "date-time (ISO 8601)"; fractions of a second are optional in ISO 8601',
    areas: ['tokens', 'outbound', 'flows', 'conventions', 'observe'],
  },
  'error-object': {
    description: 'error bodies outside the Errors table are a JSON object {"message": ...}',
    allowedBy: 'Errors: "Error response schema for the other endpoints: not shown."',
    areas: EVERY_AREA,
  },
  'listed-error-object': {
    description: 'error bodies of the cases the Errors table lists are a JSON object {"message": ...}, not a bare JSON string',
    allowedBy: 'Errors: "Error bodies of the listed cases are a JSON string with a message." (read as a JSON text carrying a message)',
    areas: ['companies', 'network', 'provider-a', 'conventions', 'security', 'flows'],
  },
  'error-problem-json': {
    description: 'error bodies outside the Errors table are application/problem+json (RFC 9457)',
    allowedBy: 'Errors: "Error response schema for the other endpoints: not shown."',
    areas: EVERY_AREA,
    alone: 'error-object takes the error body in the group',
  },
  'error-plain-text': {
    description: 'error bodies outside the Errors table are text/plain messages',
    allowedBy: 'Errors: "Error response schema for the other endpoints: not shown."',
    areas: EVERY_AREA,
    alone: 'error-object takes the error body in the group',
  },
  'method-404': {
    description: 'a known path asked with a method it does not serve answers 404 (no 405, no Allow)',
    allowedBy: 'Errors: "Status codes of the other endpoints beyond the success codes listed: not shown."',
    areas: ['security', 'conventions', 'observe'],
  },
  'bodies-unlimited': {
    description: 'JSON bodies up to 64 MB are read and handled like any other body (no 413)',
    allowedBy: 'Limits: "Upload size limits: not shown."; Company input: "Length limits and formats of company fields: not shown."',
    areas: ['tokens', 'companies', 'network', 'outbound', 'inbound', 'provider-a', 'security'],
  },
  'content-type-lenient': {
    description: 'a body sent without Content-Type or with text/plain is read as JSON when it parses',
    allowedBy: 'Conventions: "Request and response bodies are JSON" (how a server treats another media type: not shown)',
    areas: ['security', 'conventions', 'observe'],
  },
  'names-exact': {
    description: 'request field names are matched in PascalCase or camelCase only, not regardless of case',
    allowedBy: 'Conventions: "whether names are matched regardless of case: not shown."',
    areas: EVERY_AREA,
  },
  'extra-headers': {
    description: 'every answer carries headers the spec does not name (X-Request-Id, Cache-Control: no-store)',
    allowedBy: 'the spec names no response header beyond Location and the download headers, and forbids none',
    areas: ['conventions', 'security', 'observe', 'outbound', 'inbound', 'provider-a'],
  },
  'moreinfouri-omitted': {
    description: 'an ErrorInfo without a MoreInfoUri leaves the field out instead of writing null',
    allowedBy: 'ErrorInfo: MoreInfoUri "Optional, may be null."',
    areas: ['outbound', 'flows', 'conventions'],
  },
  'conversion-error-no-errorinfo': {
    description: 'a document whose conversion failed ends in ConversionFailed with Error null: the target sets no ErrorInfo, so no ErrorInfo.Message',
    allowedBy: 'OutboundDocument: "Error | ErrorInfo |" (when a document carries an ErrorInfo is not shown; FLOW-18, which expects one, is the guide\'s flow)',
    areas: ['outbound', 'flows', 'conventions', 'observe'],
    alone: 'moreinfouri-omitted takes the ErrorInfo of a failed conversion in the group',
  },
  'messages-english': {
    description: 'error messages are always English, whatever Accept-Language asks',
    allowedBy: 'ErrorInfo.Message: "May be localized"; Errors: "Message text may be localized"',
    areas: ['conventions', 'observe'],
  },
  // tokens
  'token-unknown-erpid-404': {
    description: 'a client token for an ErpId without a registered company answers 404 instead of 400',
    allowedBy: 'Errors: "Status codes of the other endpoints beyond the success codes listed: not shown."',
    areas: ['tokens', 'security'],
  },
  'token-after-registered': {
    description: 'a client token is handed out only once the company status is Registered (400 before)',
    allowedBy: 'Authentication 1: a token is obtained "with the company\'s ErpId"; whether a company whose registration runs is one: not shown',
    areas: EVERY_AREA,
  },
  'token-unknown-erpid-401': {
    description: 'a client token for an ErpId without a registered company answers 401 instead of 400',
    allowedBy: 'Errors: "Status codes of the other endpoints beyond the success codes listed: not shown."',
    areas: ['tokens', 'security'],
    alone: 'token-unknown-erpid-404 takes the status of an unknown ErpId in the group',
  },
  'token-validto-omitted': {
    description: 'a token without expiry is answered without ValidTo instead of ValidTo null',
    allowedBy: 'ClientToken: "A token can be created with a validity period or without expiry" (how no expiry is written: not shown)',
    areas: ['tokens', 'security'],
  },
  'revoke-apikey-only': {
    description: 'token revoke takes the APIkey only (a ClientToken alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to token revoke ...: not shown."',
    areas: ['tokens', 'security'],
  },
  'search-token-apikey-only': {
    description: 'search token creation takes the APIkey only (a ClientToken alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... search token creation ...: not shown."',
    areas: ['tokens', 'network', 'security'],
  },
  'revoke-unknown-200': {
    description: 'revoking an unknown token, or one of another API key, answers 200 and revokes nothing',
    allowedBy: 'Tokens: revoke answers "200, no body"; its other statuses: not shown',
    areas: ['tokens', 'security'],
  },
  // companies
  'registration-processing': {
    description: 'a company is Processing (not Pending) until its registration completes',
    allowedBy: 'Company registration status: "Transitions and further values: not shown."',
    areas: EVERY_AREA,
  },
  'registered-at-once': {
    description: 'a company is Registered as soon as register answers 202',
    allowedBy: 'Company registration status: "Transitions and further values: not shown."',
    areas: EVERY_AREA,
    alone: 'registration-processing takes the status before Registered in the group',
  },
  'activated-when-registered': {
    description: 'a company counts as activated once Registered: POST /companies/details then takes a client token, not the RegistrationId',
    allowedBy: 'Company input: RegistrationId "Required when the company is not yet activated. Null when activated" (whether activated means Registered or services activated: not shown)',
    areas: ['companies', 'flows', 'security'],
  },
  'register-no-body': {
    description: 'register and service activation answer 202 with no body instead of {}',
    allowedBy: 'POST /companies/register: "Response 202 with an empty body or `{}`."',
    areas: ['companies', 'flows'],
  },
  'reregister-pending': {
    description: 're-registering an ErpId runs a new registration: the status is Pending again until it completes',
    allowedBy: 'POST /companies/register: "registers or updates a company"; "Registration runs in the background"',
    areas: ['companies', 'flows', 'security'],
  },
  'services-apikey-only': {
    description: 'service activation takes the APIkey only (a ClientToken alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... service activation ...: not shown."',
    areas: ['companies', 'flows', 'security'],
  },
  'foreign-403': {
    description: "another company's documents and details answer 403 instead of 404",
    allowedBy: 'Errors: "Status codes of the other endpoints beyond the success codes listed: not shown."',
    areas: ['companies', 'outbound', 'inbound', 'security'],
  },
  'identifier-200': {
    description: 'adding an identifier answers 200 with no body, also when it is new',
    allowedBy: 'POST /companies/identifiers: "Responses: 200 or 201 on success"',
    areas: ['companies'],
  },
  'user-no-body': {
    description: 'adding a user answers 200 with no body',
    allowedBy: 'POST /companies/users: "Responses: 200, 400, 401, 409, 500" (no response body shown)',
    areas: ['companies'],
  },
  'capability-unlisted': {
    description: 'capability fields use values beyond the listed ones (CanReceiveElectronicInvoices, NotSendingElectronicInvoices)',
    allowedBy: 'Company details response: "Full set of values of the capability fields: not shown beyond those listed."',
    areas: ['companies', 'network'],
  },
  // network
  'seller-lookup-token-only': {
    description: 'the seller lookup takes a client or search token only (an APIkey alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... seller lookup ...: not shown."',
    areas: ['network', 'security'],
  },
  'setup-attachment-unchecked': {
    description: 'network setup takes any AttachmentUri as given, without looking it up',
    allowedBy: 'POST /network/setup: AttachmentUri is a string "Uploaded first with POST /documents"; its check: not shown',
    areas: ['network'],
  },
  // outbound
  'statuses-no-conversion': {
    description: 'documents go Pending, PendingInPlatform, Sent, Delivered: no Converting or ConversionComplete',
    allowedBy: 'DocumentStatus: "The document passes through several statuses before it is actually delivered." and "Transitions: not shown."',
    areas: ['outbound', 'inbound', 'provider-a', 'flows'],
    alone: 'skip-statuses takes the statuses before Sent in the group',
  },
  'upload-urn-uuid': {
    description: 'the upload Location is urn:uuid:<uuid>',
    allowedBy: 'POST /documents: "a Location header that holds the document reference (a URN that ends in the document uuid)"',
    areas: ['outbound', 'inbound', 'network', 'provider-a', 'flows'],
  },
  'send-location-invoices': {
    description: 'the send Location is the link /invoices/outbound/<DocumentId>',
    allowedBy: 'POST /documents/outbound: "a Location header: a link whose last path segment is the DocumentId"',
    areas: ['outbound', 'inbound', 'provider-a', 'flows'],
  },
  'outbound-list-array': {
    description: 'the outbound list answers a bare JSON array of OutboundDocument',
    allowedBy: 'POST /documents/outbound/list: "the response schema ...: not shown."',
    areas: ['outbound'],
  },
  'outbound-list-paged': {
    description: 'the outbound list answers {items, totalCount, take, skip}',
    allowedBy: 'POST /documents/outbound/list: "the response schema ...: not shown."',
    areas: ['outbound'],
    alone: 'outbound-list-array takes the list shape in the group',
  },
  'outbound-list-newest-first': {
    description: 'the outbound list is ordered newest first',
    allowedBy: 'POST /documents/outbound/list: "ordering and paging defaults: not shown."',
    areas: ['outbound'],
  },
  'outbound-list-take-10': {
    description: 'the outbound list gives 10 documents when Take is not sent',
    allowedBy: 'POST /documents/outbound/list: "ordering and paging defaults: not shown."',
    areas: ['outbound'],
  },
  'outbound-list-token-only': {
    description: 'the outbound list takes a ClientToken only (an APIkey alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... outbound list ...: not shown."',
    areas: ['outbound', 'security'],
  },
  'outbound-download-token-only': {
    description: 'the outbound download takes a ClientToken only (an APIkey alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... outbound download: not shown."',
    areas: ['outbound', 'security', 'flows'],
  },
  'file-info-list': {
    description: 'IncludeFileInfo=true adds Files: [{Name, ContentType, Url}] at the top level',
    allowedBy: 'OutboundDocument: "Structure of the file information returned when IncludeFileInfo is true: not shown."',
    areas: ['outbound', 'flows'],
  },
  'outbound-malformed-id-404': {
    description: 'an outbound DocumentId that is not a uuid answers 404 instead of 400',
    allowedBy: 'Errors: "Status codes of the other endpoints beyond the success codes listed: not shown."',
    areas: ['outbound', 'security'],
  },
  'error-status-code': {
    description: 'ErrorInfo.Status of a failed conversion is the code "CONVERSION_FAILED"',
    allowedBy: 'Errors: "Values of ErrorInfo.Status: not shown."',
    areas: ['outbound', 'flows'],
  },
  'downloads-octet-stream': {
    description: 'document downloads answer Content-Type application/octet-stream, whatever was uploaded',
    allowedBy: 'Conventions: "document downloads (binary)"; GET /documents/{id}: "200 with the document as binary"',
    areas: ['outbound', 'inbound', 'flows'],
  },
  // inbound
  'inbound-newest-first': {
    description: 'the incoming list is ordered newest first',
    allowedBy: 'GET /documents/incoming: the order of Documents: not shown',
    areas: ['inbound', 'flows'],
  },
  'inbound-sequenceno-inclusive': {
    description: 'with sequenceNo, the incoming list starts at that SequenceNo (inclusive)',
    allowedBy: 'GET /documents/incoming: "optional query sequenceNo"; whether the list starts at it or after it: not shown',
    areas: ['inbound', 'flows'],
  },
  'inbound-type-required': {
    description: 'the incoming list without the type query answers 400',
    allowedBy: 'GET /documents/incoming: "Query type (the guide uses `invoice`); optional query sequenceNo" (only sequenceNo is called optional)',
    areas: ['inbound', 'flows', 'security'],
  },
  'inbound-type-unknown-empty': {
    description: 'an unknown type query gives an empty incoming list instead of 400',
    allowedBy: 'GET /documents/incoming: "Query type (the guide uses `invoice`)"; its other values: not shown',
    areas: ['inbound', 'security'],
  },
  'inbound-malformed-id-400': {
    description: 'an inbound document id that is not a uuid answers 400 instead of 404',
    allowedBy: 'Errors: "Status codes of the other endpoints beyond the success codes listed: not shown."',
    areas: ['inbound', 'security'],
  },
  'inbound-id-is-document-id': {
    description: 'an inbound document has the DocumentId its sender got from the send as its id',
    allowedBy: 'GET /documents/{id}: "id is the document id" (whether the recipient sees the sender\'s DocumentId or an id of its own: not shown)',
    areas: ['inbound', 'flows', 'security'],
  },
  'inbound-urls-relative': {
    description: 'InfoUrl, DownloadUrl and the info URLs are paths relative to the host',
    allowedBy: 'IncomingDocuments: InfoUrl, DownloadUrl "(strings)"; absolute or relative: not shown',
    areas: ['inbound', 'flows'],
  },
  'inbound-page-2': {
    description: 'an incoming list answer holds at most 2 Documents (the first 2 in its order, with sequenceNo too); Total still counts every matching document',
    allowedBy: 'IncomingDocuments: "Total (integer)" beside "Documents"; how many documents one answer holds: not shown',
    areas: ['inbound', 'flows', 'security'],
  },
  'handled-unknown-ignored': {
    description: 'POST /documents/handled ignores ids it does not know (or of another company) and answers 200',
    allowedBy: 'POST /documents/handled: "200, no body"; unknown ids: not shown',
    areas: ['inbound', 'security'],
  },
  // provider A
  'providera-patch-all-required': {
    description: 'PATCH of provider A needs every field of its body',
    allowedBy: 'Provider A: "Which fields of the PATCH call are required: not shown."',
    areas: ['provider-a', 'flows'],
  },
  'providera-not-swedish-403': {
    description: 'provider A calls of a company outside Sweden answer 403 instead of 400',
    allowedBy: 'Provider A: "Requirement: the company is registered in Sweden." (its status: not shown)',
    areas: ['provider-a'],
  },
  'providera-unknown-nulls': {
    description: 'the provider A record before registration has every field, null except status Unknown',
    allowedBy: 'Provider A registration record: "All are strings" (fields of a record not initiated: not shown)',
    areas: ['provider-a', 'flows'],
  },
  'providera-ssns-sorted': {
    description: 'registeredSsns of the SSN lookup is sorted, not in the order sent',
    allowedBy: 'Provider A lookup: "registeredSsns: [string], the subset that is registered" (order: not shown)',
    areas: ['provider-a', 'flows'],
  },
  // issue 28: readings derived from the spec's silences (schemas/README.md, the readings tables)
  'unset-absent': {
    description: 'a field nothing set is left out: unset strings and empty lists of the company status, details, parties and inbound info; ErpDocumentId and Error of a document',
    allowedBy: 'the response field lists give each field a type, not how a field nothing set is written (null, absent or empty)',
    areas: ['companies', 'network', 'outbound', 'inbound', 'flows', 'security'],
  },
  'unset-null': {
    description: 'a list nothing set is null too (Processes, PeppolParticipantIdentifiers, Attachments), not an empty list',
    allowedBy: 'the response field lists give each field a type, not how a field nothing set is written (null, absent or empty)',
    areas: ['companies', 'network', 'outbound', 'inbound', 'flows', 'security'],
    alone: 'unset-absent takes unset values in the group',
  },
  'unset-empty': {
    description: 'a string nothing set is an empty string ("") instead of null; ErpDocumentId too',
    allowedBy: 'the response field lists give each field a type, not how a field nothing set is written (null, absent or empty)',
    areas: ['companies', 'network', 'outbound', 'inbound', 'flows', 'security'],
    alone: 'unset-absent takes unset values in the group',
  },
  'final-sent-for-pdf-paper': {
    description: 'PDF and paper documents end in Sent: e-mail and post report no delivery, so they never show Delivered',
    allowedBy: 'DocumentStatus: "The document passes through several statuses before it is actually delivered." and "Transitions: not shown."',
    areas: ['outbound', 'inbound', 'provider-a', 'security', 'flows'],
  },
  'revoke-token-only': {
    description: 'token revoke takes the ClientToken being revoked only (an APIkey alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to token revoke ...: not shown."',
    areas: ['tokens', 'companies', 'security', 'flows'],
    alone: 'revoke-apikey-only takes the scheme of revoke in the group',
  },
  'search-token-open': {
    description: 'search token creation needs no credential (a credential sent is still checked)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... search token creation ...: not shown."; createsearchtoken: "no company registration needed"',
    areas: ['tokens', 'network', 'security', 'companies'],
    alone: 'search-token-apikey-only takes the scheme of search token creation in the group',
  },
  'services-token-only': {
    description: 'service activation takes a ClientToken only (an APIkey alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... service activation ...: not shown."',
    areas: ['companies', 'flows', 'security'],
    alone: 'services-apikey-only takes the scheme of service activation in the group',
  },
  'seller-lookup-apikey-only': {
    description: 'the seller lookup takes an APIkey only (a client or search token alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... seller lookup ...: not shown."',
    areas: ['network', 'security', 'flows'],
    alone: 'seller-lookup-token-only takes the scheme of the seller lookup in the group',
  },
  'outbound-list-apikey-only': {
    description: 'the outbound list takes an APIkey only (a ClientToken alone is 401) and lists the documents of every company of that key',
    allowedBy: 'Authentication 7: "Which scheme applies to ... outbound list ...: not shown."',
    areas: ['outbound', 'security', 'flows'],
    alone: 'outbound-list-token-only takes the scheme of the outbound list in the group',
  },
  'outbound-download-apikey-only': {
    description: 'the outbound download takes an APIkey only (a ClientToken alone is 401)',
    allowedBy: 'Authentication 7: "Which scheme applies to ... outbound download: not shown."',
    areas: ['outbound', 'security', 'flows'],
    alone: 'outbound-download-token-only takes the scheme of the outbound download in the group',
  },
  'providera-completed-later': {
    description: 'a provider A registration is Completed one background step after it answered 200; until then the record shows status Unknown',
    allowedBy: 'Provider A registration: "Transitions: not shown."',
    areas: ['provider-a', 'outbound', 'flows', 'security'],
  },
  'outbound-list-max-take-5': {
    description: 'an outbound list answer holds at most 5 documents, whatever Take asks (Skip reaches the rest)',
    allowedBy: 'POST /documents/outbound/list: "Take (integer), Skip (integer) for paging"; "ordering and paging defaults: not shown."',
    areas: ['outbound', 'security'],
  },
  'lookup-parties-5': {
    description: 'a lookup answer holds at most 5 Parties; PotentialMatches still counts every match',
    allowedBy: 'Lookup response: "PotentialMatches integer", "Parties [Party]" (how many parties one answer holds: not shown)',
    areas: ['network', 'flows'],
  },
};

/**
 * What stands in front of a deployment (issue 31; sandbox/gateway.ts): legitimate, run by
 * test/deployment rather than the kill table, since a rate-limited run of every area is slow by design.
 */
export const GATEWAY_VARIANTS: Record<string, string> = {
  'rate-limit': 'a gateway allows 15 requests a second (DXS_SANDBOX_RATE_LIMIT) and answers the rest 429 with Retry-After: 1',
  'rate-limit-per-address': 'a gateway allows each client address 15 requests a second (DXS_SANDBOX_RATE_LIMIT) and answers the rest 429 with Retry-After: 1, announcing no limit (no RateLimit header)',
  'maintenance-503': 'one call in ten is answered 503 with Retry-After, as during a rolling deployment',
  'body-limit-1mb': 'a gateway answers a request body over 1 MiB with 413 and its HTML page, as nginx\'s default client_max_body_size does: smaller than the spec permits (a 500000-SSN lookup, a 1 MB icon)',
  'urls-without-port': 'the absolute URLs of the answers (InfoUrl, DownloadUrl, the file information, Location) name the host without its port, as behind a proxy that passes Host without the port: dxs warns and does not follow them',
};

/**
 * The grading sandbox of dxs client-check (issue 37): what the client judge cannot fail a client on,
 * since the spec does not show it, the grading sandbox does not refuse. Not a reading of a server
 * the suite checks, so neither in the kill table nor in the contrarian group.
 */
export const GRADING_VARIANTS: Record<string, string> = {
  'grading-open': 'what the spec leaves open is taken as sent: company Email and CountryCode as any non-empty string ("Length limits and formats of company fields: not shown."), a token User\'s Email as any string (the spec gives "Email strings"), outbound list Take and Skip as any integer (clamped: paging limits are not shown), an UpdatedAfter that is no date-time ignored (the spec gives it no type)',
};

export const VARIANTS: Record<string, string> = {
  ...BASE_VARIANTS,
  ...DEPLOYMENT_VARIANTS,
  ...GATEWAY_VARIANTS,
  ...GRADING_VARIANTS,
  ...Object.fromEntries(Object.entries(CONTRARIAN_VARIANTS).map(([name, variant]) => [name, variant.description])),
};

/**
 * Names that stand for several variants. `contrarian` takes every contrarian variant that is not
 * marked alone, and the older variants that make a choice the sandbox's default does not: PascalCase
 * answers, extra fields, 200 for network setup, fewer statuses, gzip, relative Locations. Left out:
 * camel and absolute-location (the defaults), offset-0000 (offset-colon takes the offset), slow (a
 * speed, not a reading of the spec).
 */
export const VARIANT_GROUPS: Record<string, readonly string[]> = {
  contrarian: [
    'pascal', 'extra-fields', 'status-200', 'skip-statuses', 'gzip', 'relative-location',
    ...Object.entries(CONTRARIAN_VARIANTS).filter(([, variant]) => variant.alone === undefined).map(([name]) => name),
  ],
};

/** Variant names with every group name replaced by its members, without duplicates. */
export function expandVariants(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((name) => VARIANT_GROUPS[name] ?? [name]))];
}

export function checkNames(kind: 'fault' | 'variant', names: readonly string[]): void {
  const known: Record<string, unknown> = kind === 'fault' ? FAULTS : { ...VARIANTS, ...VARIANT_GROUPS };
  for (const name of names) {
    if (name in known || (kind === 'variant' && isTimingVariant(name))) continue;
    const closest = closestName(name, Object.keys(known));
    throw new Error(`unknown ${kind} "${name}"${closest === undefined ? '' : ` (did you mean ${closest}?)`}; every ${kind}: dxs sandbox --help`);
  }
}
