// What the OpenAPI document adds to the spec's own operation list so that a tool such as
// Schemathesis can use it: the statuses the sandbox answers besides the spec's, OpenAPI links for
// the stateful chains (register -> token -> status -> details, upload -> send -> status ->
// download, inbox -> download -> handled, provider A register -> read -> update), request
// examples drawn from the fixtures, and the rules JSON Schema cannot state, named in the
// operation's description (the fuzz configuration allows for exactly these: cli/commands/fuzz-config.ts).
import { createFixtures } from '../fixtures/generators.ts';
import { renderKeys, toCamel, toPascal, type Casing } from '../lib/casing.ts';

type Json = Record<string, unknown>;

export interface OperationExtras {
  /** Rules of the spec that JSON Schema cannot state; they are why a schema-valid request can still be refused. */
  rules?: string;
  /** A valid request body, in PascalCase, from the fixtures. */
  example?: () => unknown;
  /** Links of the success answer, PascalCase pointers and bodies (rendered in the document's casing). */
  links?: Record<string, Json>;
  /** Statuses the sandbox answers besides those the operation lists and those every operation of its kind gets. */
  statuses?: Record<string, string>;
}

// Schemathesis' extension of runtime expressions; no braces, which would end the expression.
const LAST_SEGMENT = '#regex:/([^/]+)$';

// Fixed seed and prefix: the document is the same on every export.
let fixtures: ReturnType<typeof createFixtures> | undefined;
function examples(): ReturnType<typeof createFixtures> {
  fixtures ??= createFixtures({ seed: 1, runPrefix: 'dxs-example' });
  return fixtures;
}
const EXAMPLE_UPLOAD = 'urn:dxs:document:6f1c2a4e-8b7d-4c3a-9e21-5d0f7a9b3c11';

const link = (operationId: string, description: string, fields: { parameters?: Json; requestBody?: unknown }): Json => ({ operationId, description, ...fields });
const outboundId = { 'path.DocumentId': `$response.header.Location${LAST_SEGMENT}` };
const firstIncoming = { 'path.id': '$response.body#/Documents/0/Id' };

export const OPERATION_EXTRAS: Record<string, OperationExtras> = {
  createClientToken: {
    rules: 'Rule JSON Schema cannot state: the ErpId must be registered under the API key (otherwise 400).',
    example: () => ({ ErpId: examples().company('SE').ErpId }),
    links: {
      CompanyStatus: link('getCompanyStatus', "The company's status, read with the new token.", { parameters: { 'header.ClientToken': '$response.body#/Token' } }),
      Revoke: link('revokeClientToken', 'Revoke the new token.', { requestBody: { ClientToken: '$response.body#/Token' } }),
    },
  },
  revokeClientToken: { rules: 'Rule JSON Schema cannot state: the ClientToken must be one of the API key (otherwise 404).', statuses: { '404': 'The token is unknown to this API key.' } },
  createSearchToken: {
    example: () => ({ SearchId: examples().searchId() }),
    links: { Revoke: link('revokeClientToken', 'Revoke the new search token.', { requestBody: { ClientToken: '$response.body#/Token' } }) },
  },
  registerCompany: {
    rules: 'Rules JSON Schema cannot state: OrgNo carries the check digits of its CountryCode, and VatNo and GLN theirs (otherwise 400).',
    example: () => examples().company('SE'),
    links: {
      ClientToken: link('createClientToken', 'A client token of the registered company.', { requestBody: { ErpId: '$request.body#/ErpId' } }),
    },
  },
  setCompanyDetails: {
    rules: 'Rules JSON Schema cannot state: the RegistrationId must be that of a company of the API key not yet activated; an activated company is changed with its client token (otherwise 400).',
    example: () => { const { RegistrationId: _registrationId, ...details } = examples().companyDetails(examples().company('SE')); return details; },
  },
  activateServices: {
    rules: 'Rules JSON Schema cannot state: ErpId, CountryCode and OrgNo must match a registration of the API key, with its RegistrationId and a SearchId (otherwise 400).',
    example: () => examples().servicesActivation(examples().company('SE'), { registrationId: 'registration-1', searchId: examples().searchId() }),
  },
  getCompanyStatus: {
    links: { Details: link('getCompanyDetails', "The company's details.", { parameters: { 'path.CompanyId': '$response.body#/CompanyId' } }) },
  },
  getCompanyDetails: { statuses: { '404': 'No company with this CompanyId is visible to the token (another company counts as unknown).' } },
  addUser: { rules: 'Rule JSON Schema cannot state: the UserName must not be taken (409).', example: () => examples().user('SE') },
  addIdentifier: {
    rules: 'Rules JSON Schema cannot state: the Type must be one agreed with the operator, and adding identifiers must be allowed (otherwise 400).',
    example: () => examples().identifier('GLN'),
  },
  deleteCompany: { example: () => ({ Id: examples().company('SE').ErpId }) },
  lookupBuyers: { example: () => examples().buyerLookup() },
  lookupSellers: { example: () => examples().sellerLookup(undefined, true) },
  requestNetworkSetup: {
    rules: 'Rule JSON Schema cannot state: an AttachmentUri must be the reference of an upload of the company (otherwise 400).',
    example: () => examples().networkSetupRequest('SE'),
  },
  uploadDocument: {
    links: {
      Send: link('sendDocument', 'Send the uploaded document as a PDF by e-mail.', {
        requestBody: { SendDocumentAs: { Type: 'PDF', Pdf: { RecipientEmail: 'recipient@example.com' } }, Document: { DocumentFormat: 'PDF', DocumentUri: '$response.header.Location', ErpDocumentId: 'dxs-fuzz-erp-document' } },
      }),
      NetworkSetup: link('requestNetworkSetup', 'A network setup request carrying the upload as its attachment.', { requestBody: { Name: 'Fuzz recipient AB', AttachmentUri: '$response.header.Location' } }),
    },
  },
  sendDocument: {
    rules: 'Rules JSON Schema cannot state: DocumentUri, RenderedDocumentUri and Attachments must be references of uploads of the company; Electronic needs a recipient id or number; BusinessToConsumer needs an active provider and its SSN or FMI (otherwise 400).',
    example: () => examples().sendDocument('PDF', { documentUri: EXAMPLE_UPLOAD, documentFormat: 'PDF' }),
    links: {
      Status: link('getOutboundDocument', 'The status of the sent document.', { parameters: outboundId }),
      InvoiceStatus: link('getOutboundInvoice', 'The status of the sent document, as an invoice.', { parameters: outboundId }),
      StatusByErpId: link('getOutboundInvoiceByErpId', 'The status by the ErpDocumentId given.', { parameters: { 'path.DocumentId': '$request.body#/Document/ErpDocumentId' } }),
      Download: link('downloadOutboundDocument', 'The sent document itself.', { parameters: outboundId }),
    },
  },
  getOutboundDocument: { statuses: { '404': 'No such document of the company.' } },
  getOutboundInvoice: { statuses: { '404': 'No such document of the company.' } },
  getOutboundInvoiceByErpId: { statuses: { '404': 'No document of the company with this ErpDocumentId.' } },
  downloadOutboundDocument: { statuses: { '404': 'No such document of the company.', '410': 'The file is no longer stored.' } },
  listIncomingDocuments: {
    links: {
      Download: link('downloadIncomingDocument', 'The first listed document.', { parameters: firstIncoming }),
      Info: link('getIncomingDocumentInfo', 'Information on the first listed document.', { parameters: firstIncoming }),
      Handled: link('markDocumentsHandled', 'Mark the first listed document handled.', { requestBody: { Documents: ['$response.body#/Documents/0/Id'] } }),
    },
  },
  downloadIncomingDocument: { statuses: { '404': 'No such document in the company inbox.', '410': 'The file is no longer stored.' } },
  getIncomingDocumentInfo: { statuses: { '404': 'No such document in the company inbox.' } },
  markDocumentsHandled: { rules: 'Rule JSON Schema cannot state: every id must be a document of the company inbox (otherwise 404).', statuses: { '404': 'A listed document is not in the company inbox.' } },
  registerProviderA: {
    rules: 'Rules JSON Schema cannot state: the company must be registered in Sweden, OrgNo must be a valid Swedish organisation number not claimed by another company (409) (otherwise 400).',
    example: () => examples().providerARegistration(),
    links: {
      Read: link('getProviderA', 'The registration record.', {}),
      Update: link('updateProviderA', 'Update the display name.', { requestBody: { DisplayName: 'Fuzz display name' } }),
      Lookup: link('lookupProviderASsns', 'Which of two persons are registered.', { requestBody: { Ssns: examples().ssns(2) } }),
    },
  },
  getProviderA: { statuses: { '404': 'The company has no provider A registration.' } },
  updateProviderA: { rules: 'Rule JSON Schema cannot state: the company must be registered with provider A first (otherwise 400).', example: () => examples().providerAUpdate() },
  uploadProviderAIcon: { rules: 'Rules JSON Schema cannot state: provider A registration must be complete, and Data must be a square PNG of 256x256 to 512x512 pixels with an alpha channel (otherwise 400).' },
  offboardProviderA: { rules: 'Rule JSON Schema cannot state: the company must be registered with provider A (otherwise 400).' },
  lookupProviderASsns: {
    rules: 'Rule JSON Schema cannot state: provider A registration must be complete (otherwise 400).',
    example: () => ({ Ssns: examples().ssns(3) }),
  },
};

/** A runtime expression's JSON pointer in the document's casing ("$response.body#/Documents/0/Id" -> ".../documents/0/id"). */
function casedExpression(expression: string, casing: Casing): string {
  const name = casing === 'camel' ? toCamel : toPascal;
  return expression.replace(/^(\$(?:request|response)\.body#)(\/[^#]*)$/, (_match, head: string, pointer: string) => head + pointer.split('/').map((segment) => (/^\d+$/.test(segment) ? segment : name(segment))).join('/'));
}

function casedLinkValue(value: unknown, casing: Casing): unknown {
  if (typeof value === 'string') return casedExpression(value, casing);
  if (Array.isArray(value)) return value.map((item) => casedLinkValue(item, casing));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(renderKeys<Json>(value, casing)).map(([key, inner]) => [key, casedLinkValue(inner, casing)]));
  }
  return value;
}

function casedLinks(links: Record<string, Json>, casing: Casing): Record<string, Json> {
  const result: Record<string, Json> = {};
  for (const [name, definition] of Object.entries(links)) {
    const parameters = definition.parameters as Json | undefined;
    result[name] = {
      ...definition,
      ...(parameters === undefined ? {} : { parameters: Object.fromEntries(Object.entries(parameters).map(([key, value]) => [key, casedExpression(String(value), casing)])) }),
      ...(definition.requestBody === undefined ? {} : { requestBody: casedLinkValue(definition.requestBody, casing) }),
    };
  }
  return result;
}

/** What the answered statuses depend on of an operation (openapi.ts's Operation has these fields; it imports this file). */
export interface AnsweredOperation {
  operationId: string;
  request?: string;
  parameters?: Json[];
  responses: Record<string, Json>;
}

const errorBody = (description: string): Json => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } } });

/**
 * The operation's responses: the spec's, plus (with sandboxStatuses) every status the sandbox
 * answers for it, each marked as such, with the links on the success answers.
 */
export function answeredStatuses(operation: AnsweredOperation, casing: Casing, options: { sandboxStatuses: boolean }): Record<string, Json> {
  const extras = OPERATION_EXTRAS[operation.operationId] ?? {};
  const responses: Record<string, Json> = { ...operation.responses };
  const add = (status: string, description: string) => {
    if (options.sandboxStatuses && !(status in responses)) responses[status] = errorBody(`${description} (as the sandbox answers)`);
  };
  add('401', 'Credentials missing or not valid: no header, an unknown, expired or revoked token, or a search token where a company is needed.');
  if (operation.request !== undefined) {
    add('400', operation.request === 'multipart' ? 'No File part, or a multipart body that cannot be read.' : 'The body is malformed, or a field is missing or not valid.');
    add('413', 'The body is too large.');
    add('415', operation.request === 'multipart' ? 'The body is not multipart/form-data.' : 'The body is not JSON.');
  }
  if ((operation.parameters ?? []).length > 0) add('400', 'A path or query parameter is not valid.');
  for (const [status, description] of Object.entries(extras.statuses ?? {})) add(status, description);
  if (extras.links !== undefined) {
    const links = casedLinks(extras.links, casing);
    for (const status of Object.keys(responses)) if (/^2\d\d$/.test(status)) responses[status] = { ...responses[status], links };
  }
  return responses;
}
