// Sample bodies written from the spec, in the reference's PascalCase. The tests render them in
// camelCase too (renderKeys), so each sample checks both casings.
// Every field a party, company status Details and company details list (CMP-STA-04, CMP-DET-11, NET-LKP-07); unset ones are null.
const COMPANY_FIELDS = {
  Name: 'Exempel AB', AltName: null, StreetName: 'Storgatan 1', PostBox: null, City: 'Stockholm', PostalZone: '111 22', CountryCode: 'SE',
  PhoneNo: '+46 8 123 456', OrgNo: '5567321707', VatNo: 'SE556732170701', GLN: '7300009013378', Address: 'Storgatan 1', Address2: null, PostalCode: '11122',
  PeppolParticipantIdentifiers: ['0007::5567321707'],
};

export const VALID_SAMPLES: Record<string, unknown> = {
  'client-token.response': { Token: 'ZXhhbXBsZS10b2tlbg', ValidTo: '2026-11-22T10:10:00+0000' },
  'company-status.response': {
    Status: 'Registered',
    CompanyId: 'c0a80101-0000-4000-8000-000000000001',
    Details: {
      Name: 'Exempel AB', AltName: 'Butiken', StreetName: 'Storgatan 1', PostBox: 'Box 12', City: 'Stockholm', PostalZone: '111 22',
      CountryCode: 'SE', PhoneNo: '+46 8 123 456', OrgNo: '5567321707', VatNo: 'SE556732170701', GLN: '7300009013378',
      Processes: ['SendInvoices', 'ReceiveInvoices'], PeppolParticipantIdentifiers: ['0007::5567321707'], Address: 'Storgatan 1',
      Address2: '', PostalCode: '11122',
    },
  },
  'company-details.response': {
    ...COMPANY_FIELDS, CompanyId: 'c0a80101-0000-4000-8000-000000000001',
    ReceiveElectronicInvoiceCapability: 'CannotReceiveElectronicInvoices', SendsElectronicInvoiceCapability: 'SendsElectronicInvoices',
    ReceiveElectronicOrderCapability: 'ReceivesElectronicOrders', SendsElectronicOrderCapability: 'CannotSendElectronicOrders',
    HasInvoiceChecks: true, InvoiceChecks: { BuyerReferenceNo: true, BuyerReferenceName: false, BuyerOrderNo: false, BuyerName: true },
    PeppolParticipantIdentifiers: ['0007::5567321707', '0088::7300009013378'],
  },
  'lookup-buyer.response': {
    PotentialMatches: 1, ExactHit: true,
    Parties: [{ ...COMPANY_FIELDS, CompanyId: 'x1', Name: 'Köpare Oy', CountryCode: 'FI', OrgNo: '0112038-9', Connected: true, PeppolParticipantIdentifiers: [],
      ReceiveElectronicInvoiceCapability: 'CannotReceiveElectronicInvoices', SendsElectronicOrderCapability: 'SendsElectronicOrders' }],
  },
  'lookup-seller.response': {
    PotentialMatches: 2, ExactHit: false,
    Parties: [{ ...COMPANY_FIELDS, CompanyId: 'x2', Name: 'Sælger ApS', CountryCode: 'DK', Connected: false,
      SendsElectronicInvoiceCapability: 'ErpSystemSupportsSendingElectronicInvoices', ReceiveElectronicOrderCapability: 'CannotReceiveElectronicOrders' }],
  },
  'network-setup.response': { RequestId: '4b1f7a1e-61a4-4f0e-9a0b-3e1f55d1b2a7' },
  'outbound-document.response': {
    Id: '8d2c1f4e-5b6a-4c3d-9e8f-7a6b5c4d3e2f', DocumentType: 'Invoice', ErpDocumentId: 'INV-1001',
    CurrentStatus: { Status: 'Delivered', Time: '2026-11-22T10:03:00+0000' },
    StatusHistory: [
      { Status: 'Pending', Time: '2026-11-22T10:00:00+0000' },
      { Status: 'Sent', Time: '2026-11-22T10:02:00+01:00' },
      { Status: 'Delivered', Time: '2026-11-22T10:03:00Z' },
    ],
    Error: null,
  },
  'error-info': { Message: 'The document could not be converted.', MoreInfoUri: null, Status: 'ConversionFailed' },
  'incoming-documents.response': {
    Total: 1,
    Documents: [{ Id: 'd1', DocumentType: 'Invoice', DocumentFormat: 'PEPPOLBIS3', InfoUrl: 'https://x/v1/api/documents/d1/info',
      DownloadUrl: 'https://x/v1/api/documents/d1', SequenceNo: 17, CompanyId: 'c1' }],
  },
  'incoming-document-info.response': {
    Id: 'd1', DocumentType: 'Invoice', DocumentFormat: 'PEPPOLBIS3', DocumentUrl: 'https://x/v1/api/documents/d1',
    RenderedDocumentFormat: 'application/pdf', RenderedDocumentUrl: 'https://x/v1/api/documents/d1/rendered', Attachments: [],
  },
  'provider-a-record.response': {
    Status: 'Completed', AgreementStatus: 'Signed', AgreementStart: '2026-11-22 10:15', DisplayName: 'Exempel', ContactPersonEmail: 'anna@example.se',
    ContactFirstName: 'Anna', ContactLastName: 'Svensson', GeneralEmail: 'info@example.se', ContactPhone: '+46701234567',
  },
  'provider-a-lookup.response': { RegisteredSsns: ['198112289874'] },
  'error.response': 'UserName must be at least 5 alphanumeric characters.',
  'token-create.request': { ErpId: 'run-1-erp-1', ValidTo: '2026-11-22T10:10:00Z', User: { FullName: 'Anna Svensson', UserName: 'annas', Email: 'anna@example.se', Roles: ['Admin'] } },
  'token-revoke.request': { ClientToken: 'ZXhhbXBsZS10b2tlbg' },
  'search-token.request': { SearchId: 'installation-42', ValidTo: '2026-11-22T10:10:00+0000' },
  'company-register.request': {
    ErpId: 'run-1-erp-1', ErpProduct: 'Example ERP 12.3', Name: 'Exempel AB', Email: 'ekonomi@example.se', CountryCode: 'SE', OrgNo: '5567321707',
    City: 'Stockholm', PostalZone: '111 22', LanguageCode: 'sv', GLN: '7300009013378', IsVatRegistered: true, Processes: ['SendInvoices', 'ReceiveInvoices'],
  },
  'company-details.request': { RegistrationId: null, ErpProduct: 'Example ERP 12.3', Name: 'Exempel AB', Email: 'ekonomi@example.se', CountryCode: 'SE' },
  'services.request': { RegistrationId: 'reg-1', SearchId: 'installation-42', ErpId: 'run-1-erp-1', CountryCode: 'SE', OrgNo: '5567321707' },
  'users.request': { Email: 'new.user@example.se', UserName: 'newuser1', CultureCode: 'sv-SE' },
  'identifiers.request': { Type: 'GLN', Value: '7300009013378' },
  'delete.request': { Id: 'run-1-erp-1' },
  'lookup-buyer.request': { PartyId: 'p-1', Name: 'Köpare Oy', CountryCode: 'FI', PeppolParticipantIdentifier: '0037::01120389' },
  'lookup-seller.request': { PartyId: 'p-2', OrgNo: '5567321707', PaymentMeans: [{ Iban: 'SE4550000000058398257466', Bic: 'ESSESESS', CountryCode: 'SE' }] },
  'network-setup.request': {
    Operator: { Name: 'Operatören', ContactName: 'Per', ContactPhone: '+4681234', ContactEmail: 'per@operator.example' },
    Name: 'Ny Mottagare AB', CountryCode: 'SE', OrgNo: '5560000001', Processes: ['ReceiveInvoices'], NetworkSetupFeedbackEmail: '',
    AttachmentUri: 'urn:dxs:document:4b1f7a1e-61a4-4f0e-9a0b-3e1f55d1b2a7',
  },
  'send-document.request': {
    SendDocumentAs: { Type: 'Paper', Paper: { RecipientAddress: { Name: 'Kund AB', City: 'Malmö', CountryCode: 'SE' }, ReturnAddress: { Name: 'Exempel AB' } } },
    RecipientInformation: { OrgNo: '5560000001', Name: 'Kund AB', CountryCode: 'SE' },
    Document: { DocumentFormat: 'PEPPOLBIS3', DocumentUri: 'urn:dxs:document:4b1f7a1e-61a4-4f0e-9a0b-3e1f55d1b2a7', ErpDocumentId: 'INV-1001',
      Language: 'sv-SE', Culture: 'sv-SE', Attachments: [] },
  },
  'outbound-list.request': { Take: 10, Skip: 0, CreatedFrom: '2026-11-01T00:00:00Z', CreatedTo: '2026-11-30T00:00:00Z', UpdatedAfter: '2026-11-01T00:00:00Z' },
  'handled.request': { Documents: ['d1', 'd2'] },
  'provider-a-registration.request': {
    LegalName: 'Exempel AB', DisplayName: 'Exempel', OrgNo: '5567321707', ContactFirstName: 'Anna', ContactLastName: 'Svensson',
    ContactPersonEmail: 'anna@example.se', GeneralEmail: 'info@example.se', ContactPhone: '+46701234567', PubAgreement: true, TermsAndConditions: true,
  },
  'provider-a-patch.request': { DisplayName: 'Exempel Nytt' },
  'provider-a-icon.request': { ContentType: 'image/png', Filename: 'logo.png', Data: 'iVBORw0KGgo=' },
  'provider-a-lookup.request': { Ssns: ['198112289874', '190101011234'] },
  party: { ...COMPANY_FIELDS, Connected: true },
  'buyer-party': { ...COMPANY_FIELDS, Connected: false, ReceiveElectronicInvoiceCapability: 'SomethingNew', SendsElectronicOrderCapability: null },
  'seller-party': { ...COMPANY_FIELDS, Connected: false, SendsElectronicInvoiceCapability: 'SendsElectronicInvoices', ReceiveElectronicOrderCapability: null },
  'outbound-document-status': { Status: 'Pending', Time: '2026-11-22T10:00:00.123+0000' },
};

export interface Mutation {
  schema: string;
  /** What the mutation breaks, for the test title. */
  breaks: 'missing required field' | 'wrong type' | 'enum value outside the list' | 'format' | 'pattern';
  body: unknown;
}

function without(schema: string, field: string): Record<string, unknown> {
  const copy = structuredClone(VALID_SAMPLES[schema]) as Record<string, unknown>;
  delete copy[field];
  return copy;
}

function withField(schema: string, path: string[], value: unknown): unknown {
  const copy = structuredClone(VALID_SAMPLES[schema]) as Record<string, unknown>;
  let target: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[path[path.length - 1]] = value;
  return copy;
}

export const MUTATIONS: Mutation[] = [
  { schema: 'client-token.response', breaks: 'missing required field', body: without('client-token.response', 'Token') },
  { schema: 'client-token.response', breaks: 'wrong type', body: withField('client-token.response', ['Token'], 42) },
  { schema: 'client-token.response', breaks: 'format', body: withField('client-token.response', ['ValidTo'], '22/11/2026 10:10') },
  { schema: 'company-status.response', breaks: 'missing required field', body: without('company-status.response', 'Status') },
  { schema: 'company-status.response', breaks: 'wrong type', body: withField('company-status.response', ['Details', 'Processes'], 'SendInvoices') },
  { schema: 'company-details.response', breaks: 'wrong type', body: withField('company-details.response', ['HasInvoiceChecks'], 'yes') },
  { schema: 'company-details.response', breaks: 'wrong type', body: withField('company-details.response', ['InvoiceChecks', 'BuyerName'], 1) },
  { schema: 'company-details.response', breaks: 'pattern', body: withField('company-details.response', ['PeppolParticipantIdentifiers'], ['5567321707']) },
  { schema: 'lookup-buyer.response', breaks: 'missing required field', body: without('lookup-buyer.response', 'ExactHit') },
  { schema: 'lookup-buyer.response', breaks: 'wrong type', body: withField('lookup-buyer.response', ['PotentialMatches'], 1.5) },
  { schema: 'lookup-seller.response', breaks: 'wrong type', body: withField('lookup-seller.response', ['Parties', '0', 'Connected'], 'true') },
  { schema: 'network-setup.response', breaks: 'missing required field', body: {} },
  { schema: 'outbound-document.response', breaks: 'missing required field', body: without('outbound-document.response', 'CurrentStatus') },
  { schema: 'outbound-document.response', breaks: 'enum value outside the list', body: withField('outbound-document.response', ['CurrentStatus', 'Status'], 'Lost') },
  { schema: 'outbound-document.response', breaks: 'wrong type', body: withField('outbound-document.response', ['StatusHistory'], {}) },
  { schema: 'outbound-document.response', breaks: 'format', body: withField('outbound-document.response', ['CurrentStatus', 'Time'], '2026-02-30T10:00:00Z') },
  { schema: 'outbound-document.response', breaks: 'wrong type', body: withField('outbound-document.response', ['Error'], { Message: 7 }) },
  { schema: 'incoming-documents.response', breaks: 'wrong type', body: withField('incoming-documents.response', ['Documents', '0', 'SequenceNo'], '17') },
  { schema: 'incoming-documents.response', breaks: 'missing required field', body: without('incoming-documents.response', 'Total') },
  { schema: 'incoming-document-info.response', breaks: 'wrong type', body: withField('incoming-document-info.response', ['Attachments'], 'a.pdf') },
  { schema: 'provider-a-record.response', breaks: 'enum value outside the list', body: withField('provider-a-record.response', ['Status'], 'Pending') },
  { schema: 'provider-a-record.response', breaks: 'enum value outside the list', body: withField('provider-a-record.response', ['AgreementStatus'], 'Unsigned') },
  { schema: 'provider-a-record.response', breaks: 'pattern', body: withField('provider-a-record.response', ['AgreementStart'], '2026-11-22T10:15:00Z') },
  { schema: 'provider-a-lookup.response', breaks: 'missing required field', body: {} },
  { schema: 'error.response', breaks: 'wrong type', body: { Message: 'not a string body' } },
  { schema: 'token-create.request', breaks: 'missing required field', body: without('token-create.request', 'ErpId') },
  { schema: 'token-create.request', breaks: 'wrong type', body: withField('token-create.request', ['User', 'Roles'], 'Admin') },
  { schema: 'company-register.request', breaks: 'missing required field', body: without('company-register.request', 'OrgNo') },
  { schema: 'company-register.request', breaks: 'missing required field', body: without('company-register.request', 'ErpProduct') },
  { schema: 'company-register.request', breaks: 'enum value outside the list', body: withField('company-register.request', ['Processes'], ['SendFaxes']) },
  { schema: 'company-register.request', breaks: 'wrong type', body: withField('company-register.request', ['IsVatRegistered'], 'yes') },
  { schema: 'company-details.request', breaks: 'missing required field', body: without('company-details.request', 'Email') },
  { schema: 'services.request', breaks: 'missing required field', body: without('services.request', 'ErpId') },
  { schema: 'users.request', breaks: 'enum value outside the list', body: withField('users.request', ['CultureCode'], 'de-DE') },
  { schema: 'users.request', breaks: 'pattern', body: withField('users.request', ['UserName'], 'ab-cd') },
  { schema: 'users.request', breaks: 'format', body: withField('users.request', ['Email'], 'not-an-address') },
  { schema: 'delete.request', breaks: 'missing required field', body: {} },
  { schema: 'lookup-buyer.request', breaks: 'missing required field', body: without('lookup-buyer.request', 'PartyId') },
  { schema: 'lookup-seller.request', breaks: 'wrong type', body: withField('lookup-seller.request', ['PaymentMeans'], 'SE45') },
  { schema: 'network-setup.request', breaks: 'format', body: withField('network-setup.request', ['NetworkSetupFeedbackEmail'], 'nobody-at-all') },
  { schema: 'network-setup.request', breaks: 'enum value outside the list', body: withField('network-setup.request', ['Processes'], ['Teleport']) },
  { schema: 'send-document.request', breaks: 'enum value outside the list', body: withField('send-document.request', ['SendDocumentAs', 'Type'], 'Pigeon') },
  { schema: 'send-document.request', breaks: 'missing required field', body: withField('send-document.request', ['Document'], { DocumentFormat: 'PEPPOLBIS3' }) },
  { schema: 'outbound-list.request', breaks: 'wrong type', body: withField('outbound-list.request', ['Take'], 'ten') },
  { schema: 'handled.request', breaks: 'wrong type', body: { Documents: 'd1' } },
  { schema: 'provider-a-registration.request', breaks: 'missing required field', body: without('provider-a-registration.request', 'LegalName') },
  { schema: 'provider-a-registration.request', breaks: 'wrong type', body: withField('provider-a-registration.request', ['PubAgreement'], false) },
  { schema: 'provider-a-registration.request', breaks: 'format', body: withField('provider-a-registration.request', ['GeneralEmail'], 'nope') },
  { schema: 'provider-a-icon.request', breaks: 'pattern', body: withField('provider-a-icon.request', ['Data'], '%%%') },
  { schema: 'provider-a-lookup.request', breaks: 'wrong type', body: { Ssns: '198112289874' } },
];
