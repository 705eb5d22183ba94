// Every property name that the spec uses, in the reference's PascalCase spelling. The provider A
// record and the SSN lookup answer are written in camelCase in the spec; they are PascalCased here
// so that one dictionary serves every body. Query parameters are not body fields and are absent.
export const SPEC_FIELD_NAMES: readonly string[] = [
  // Tokens
  'Token', 'ValidTo', 'ErpId', 'User', 'FullName', 'UserName', 'Roles', 'ClientToken', 'SearchId',
  // Companies
  'RegistrationId', 'ErpProduct', 'Name', 'Email', 'CountryCode', 'OrgNo', 'AltName', 'StreetName', 'Department',
  'PostBox', 'City', 'PostalZone', 'PostalCode', 'LanguageCode', 'PhoneNo', 'FaxNo', 'VatNo', 'GLN', 'IsVatRegistered',
  'Processes', 'Status', 'CompanyId', 'Details', 'PeppolParticipantIdentifiers', 'Address', 'Address2',
  'ReceiveElectronicInvoiceCapability', 'SendsElectronicInvoiceCapability', 'ReceiveElectronicOrderCapability',
  'SendsElectronicOrderCapability', 'HasInvoiceChecks', 'InvoiceChecks', 'BuyerReferenceNo', 'BuyerReferenceName',
  'BuyerOrderNo', 'BuyerName', 'CultureCode', 'Type', 'Value', 'Id',
  // Network
  'PartyId', 'PeppolParticipantIdentifier', 'PaymentMeans', 'Iban', 'AccountNo', 'Bic', 'AccountTypeCode',
  'FinancialInstitutionId', 'Connected', 'PotentialMatches', 'ExactHit', 'Parties', 'Operator', 'ContactName',
  'ContactPhone', 'ContactEmail', 'AttachmentUri', 'NetworkSetupFeedbackEmail', 'RequestId',
  // Outbound documents
  'DocumentType', 'CurrentStatus', 'StatusHistory', 'ErpDocumentId', 'Error', 'Time', 'Message', 'MoreInfoUri',
  'SendDocumentAs', 'Paper', 'RecipientAddress', 'ReturnAddress', 'Electronic', 'RecipientId', 'Pdf', 'RecipientEmail',
  'RecipientName', 'SenderEmail', 'SenderName', 'BusinessToConsumer', 'FMI', 'SSN', 'Provider', 'RecipientInformation',
  'RecipientNo', 'Document', 'DocumentFormat', 'DocumentUri', 'RenderedDocumentFormat', 'RenderedDocumentUri',
  'Language', 'Culture', 'Attachments', 'Take', 'Skip', 'CreatedFrom', 'CreatedTo', 'UpdatedAfter', 'DocumentId', 'File',
  // Inbound documents
  'Total', 'Documents', 'InfoUrl', 'DownloadUrl', 'SequenceNo', 'DocumentUrl', 'RenderedDocumentUrl',
  // Provider A
  'LegalName', 'DisplayName', 'OrgVatNo', 'ContactFirstName', 'ContactLastName', 'ContactPersonEmail', 'GeneralEmail',
  'PubAgreement', 'TermsAndConditions', 'AgreementStatus', 'AgreementStart', 'ContentType', 'Filename', 'Data', 'Ssns',
  'RegisteredSsns',
];
