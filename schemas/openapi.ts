// Assembles an OpenAPI 3.1 document from the JSON Schemas of schemas/bodies, so users of Postman,
// Prism or Schemathesis reuse the very contract the suites check. Every path of the spec, both
// security schemes, and the status codes the spec lists; where the spec does not show which codes
// or which scheme apply, the document says so instead of guessing.
import { schemaDocuments, COMMON_SCHEMA } from './index.ts';
import { DATE_TIME_PATTERN } from './formats.ts';
import { loadRequirements } from './requirements.ts';
import { renderKeys, toCamel, toPascal, type Casing } from '../lib/casing.ts';
import { DEFAULT_SANDBOX_CASING } from '../lib/defaults.ts';
import { OPERATION_EXTRAS, answeredStatuses } from './openapi-extras.ts';
import type { Json, Operation, Scheme } from './openapi-operation.ts';
import { bodyNotes, specComponents, specOperationParts, specResponses, specSecurity } from './openapi-spec.ts';

const PROVIDER_A = '/companies/deliverymethods/b2c/providera';
const JSON_MEDIA = 'application/json';

/** Component name of each schema document: its title. */
function componentNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const [name, schema] of schemaDocuments()) if (name !== COMMON_SCHEMA) names.set(`${name}.schema.json`, String(schema.title));
  return names;
}

function ref(component: string): Json {
  return { $ref: `#/components/schemas/${component}` };
}

/** A schema document turned into an OpenAPI component: references point at components, the date-time format becomes a pattern. */
function toComponent(schema: unknown, files: Map<string, string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => toComponent(item, files));
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === '$id' || key === '$defs') continue;
    if (key === '$ref' && typeof value === 'string') {
      const [file, pointer] = value.split('#');
      const definition = pointer?.match(/^\/\$defs\/(.+)$/)?.[1];
      result.$ref = `#/components/schemas/${definition ?? files.get(file)}`;
      continue;
    }
    if (key === 'format' && value === 'dxs-date-time') {
      // Tools know only RFC 3339 date-time, which rejects the guide's "+0000" offsets.
      result.pattern = DATE_TIME_PATTERN;
      continue;
    }
    result[key] = toComponent(value, files);
  }
  return result;
}

/** Property names (and the required lists naming them) in the casing the target answers in. */
function cased(schema: unknown, casing: Casing): unknown {
  if (Array.isArray(schema)) return schema.map((item) => cased(item, casing));
  if (typeof schema !== 'object' || schema === null) return schema;
  const name = casing === 'camel' ? toCamel : toPascal;
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      result.properties = Object.fromEntries(Object.entries(value).map(([property, inner]) => [name(property), cased(inner, casing)]));
    } else if (key === 'required' && Array.isArray(value)) {
      result.required = value.map((property) => (typeof property === 'string' ? name(property) : property));
    } else if (key === 'example' || key === 'examples' || key === 'default' || key === 'const' || key === 'enum') {
      result[key] = key === 'example' ? renderKeys(value, casing) : value;
    } else {
      result[key] = cased(value, casing);
    }
  }
  return result;
}

/** A PATCH without a body changes nothing (which fields it needs is not shown); a list without one takes the defaults. */
const BODY_OPTIONAL = new Set(['updateProviderA', 'listOutboundDocuments']);

/** Definitions that only requests use, besides the request bodies themselves. */
const REQUEST_DEFINITIONS = new Set(['CompanyInput', 'PartySearch', 'PostalAddress', 'ProviderAContact']);

/** A property schema that also admits null. */
function nullable(schema: Json): Json {
  if (typeof schema.type === 'string' && schema.const === undefined && schema.enum === undefined) return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * The sandbox reads null as absent (the spec says nothing either way), so a request may carry null
 * for an optional field: the document says so instead of calling such a request invalid, which a
 * fuzzer would then expect to be refused. Required fields stay non-null.
 */
function optionalsNullable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(optionalsNullable);
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) result[key] = key === 'properties' ? value : optionalsNullable(value);
  if (typeof result.properties === 'object' && result.properties !== null) {
    const required = new Set(Array.isArray(result.required) ? (result.required as string[]) : []);
    result.properties = Object.fromEntries(Object.entries(result.properties as Record<string, Json>).map(([name, inner]) => {
      const nested = optionalsNullable(inner) as Json;
      return [name, required.has(name) ? nested : nullable(nested)];
    }));
  }
  return result;
}

/** The components: the sandbox-exact ones, or those of the spec export built from them. */
function components(sandboxExact: boolean): Json {
  const files = componentNames();
  const schemas: Json = {};
  const common = schemaDocuments().get(COMMON_SCHEMA) as { $defs: Json };
  for (const [name, definition] of Object.entries(common.$defs)) {
    const component = toComponent(definition, files);
    schemas[name] = sandboxExact && REQUEST_DEFINITIONS.has(name) ? optionalsNullable(component) : component;
  }
  for (const [name, schema] of schemaDocuments()) {
    if (name === COMMON_SCHEMA) continue;
    const component = toComponent(schema, files);
    schemas[String(schema.title)] = sandboxExact && name.endsWith('.request') ? optionalsNullable(component) : component;
  }
  return sandboxExact ? schemas : specComponents(schemas);
}

const SECURITY: Record<Scheme, Json[]> = {
  'api-key': [{ ApiKeyAuth: [] }],
  'client-token': [{ ClientTokenAuth: [] }],
  'not-shown': [{ ApiKeyAuth: [] }, { ClientTokenAuth: [] }],
};

const LOCATION = { Location: { description: 'Where the created or changed resource is.', schema: { type: 'string' } } };

function json(description: string, component: string): Json {
  return { description, content: { [JSON_MEDIA]: { schema: ref(component) } } };
}
function empty(description: string, headers?: Json): Json {
  return headers === undefined ? { description } : { description, headers };
}
function error(description: string): Json {
  return json(description, 'ErrorMessage');
}
const REFUSED = { '4XX': { description: 'Refused. Which 4xx codes apply and their bodies: not shown.' } };
const binary = (description: string, headers?: Json): Json => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  // The file is answered with its own media type (application/xml, application/pdf ...).
  content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
});
const header = (description: string): Json => ({ description, schema: { type: 'string' } });

const documentId = (description: string): Json => ({ name: 'DocumentId', in: 'path', required: true, description, schema: { type: 'string', format: 'uuid' } });
// explode: false, so that a value of the wrong type (an object) still arrives under the parameter's own name.
const includeFileInfo: Json = {
  name: 'IncludeFileInfo', in: 'query', required: false, explode: false, description: 'When true, file information with download URLs is included (its structure: not shown).',
  schema: { type: 'boolean', default: false },
};

const OPERATIONS: Operation[] = [
  { method: 'post', path: '/clienttokens/create', tag: 'Tokens', operationId: 'createClientToken', summary: 'Create a client token for a company',
    description: 'The guide writes the path /clientTokens/create. Tokens of 10 minutes are recommended.', security: 'api-key', request: 'ClientTokenCreateRequest',
    responses: { '200': json('The client token.', 'ClientToken'), ...REFUSED } },
  { method: 'post', path: '/clienttokens/revoke', tag: 'Tokens', operationId: 'revokeClientToken', summary: 'Revoke a client token',
    description: 'Which scheme applies: not shown.', security: 'not-shown', request: 'ClientTokenRevokeRequest', responses: { '200': empty('Revoked; no body.'), ...REFUSED } },
  { method: 'post', path: '/clienttokens/createsearchtoken', tag: 'Tokens', operationId: 'createSearchToken', summary: 'Create a temporary search token',
    description: 'No company registration is needed. Which scheme applies: not shown.', security: 'not-shown', request: 'SearchTokenCreateRequest',
    responses: { '200': json('The search token.', 'ClientToken'), ...REFUSED } },
  { method: 'post', path: '/companies/register', tag: 'Companies', operationId: 'registerCompany', summary: 'Register or update a company and activate services',
    description: 'The work completes in the background; follow it with GET /companies/status. Update by registering again with the same ErpId.',
    security: 'api-key', request: 'CompanyRegisterRequest',
    responses: { '202': { description: 'Accepted; an empty body or {}.', content: { [JSON_MEDIA]: { schema: { type: 'object', maxProperties: 0 } } } }, ...REFUSED } },
  { method: 'post', path: '/companies/details', tag: 'Companies', operationId: 'setCompanyDetails', summary: 'Set company details',
    description: 'RegistrationId for a company not yet activated; a client token for an activated one.', security: 'not-shown', request: 'CompanyDetailsRequest',
    responses: { '200': empty('Details set.'), ...REFUSED } },
  { method: 'post', path: '/companies/services', tag: 'Companies', operationId: 'activateServices', summary: 'Activate services on a registered company',
    description: 'Completes in the background. Which scheme applies: not shown.', security: 'not-shown', request: 'ServicesActivationRequest',
    responses: { '202': empty('Accepted.'), ...REFUSED } },
  { method: 'get', path: '/companies/status', tag: 'Companies', operationId: 'getCompanyStatus', summary: "Read the company's registration status",
    security: 'client-token', responses: { '200': json('The company status.', 'CompanyStatusResponse'), ...REFUSED } },
  { method: 'get', path: '/companies/details/{CompanyId}', tag: 'Companies', operationId: 'getCompanyDetails', summary: 'Read company details by CompanyId',
    security: 'client-token', parameters: [{ name: 'CompanyId', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { '200': json('The company details.', 'CompanyDetailsResponse'), ...REFUSED } },
  { method: 'post', path: '/companies/users', tag: 'Companies', operationId: 'addUser', summary: 'Add a user to the company', security: 'client-token', request: 'AddUserRequest',
    responses: {
      '200': empty('User added.'),
      '400': error('A required value is missing, or UserName, Email or CultureCode is invalid.'),
      '401': error('The client token lacks the privilege to add a user.'),
      '409': error('The user name exists but is locked out or not approved, or is already taken.'),
      '500': error('Internal error.'),
    } },
  { method: 'post', path: '/companies/identifiers', tag: 'Companies', operationId: 'addIdentifier', summary: 'Add an additional identifier to the company',
    description: 'The allowed types are agreed beforehand with the operator.', security: 'client-token', request: 'AddIdentifierRequest',
    responses: {
      '200': empty('Identifier added.'), '201': empty('Identifier added.'),
      '400': error('Argument is null, adding an identifier is not allowed, or the type is not supported; the message names the expected types.'),
      '500': error('Internal error.'),
    } },
  { method: 'post', path: '/companies/delete', tag: 'Companies', operationId: 'deleteCompany', summary: "Request deletion of the company's data",
    description: 'The API key needs the role DeleteRegistration. The Id and the API key together decide which registration is deleted.',
    security: 'api-key', request: 'DeleteRegistrationRequest',
    responses: {
      '200': empty('Duplicate request.'), '202': empty('Request persisted.'),
      '401': error('API key invalid, or the role DeleteRegistration is missing.'),
      '500': error('The request could not be persisted.'), '501': error('All delete requests are disabled.'),
    } },
  { method: 'post', path: '/buyerparties/lookup', tag: 'Network', operationId: 'lookupBuyers', summary: 'Look up companies that receive invoices or send orders',
    security: 'client-token', request: 'BuyerPartyLookupRequest', responses: { '200': json('Matching buyer parties.', 'BuyerPartyLookupResponse'), ...REFUSED } },
  { method: 'post', path: '/sellerparties/lookup', tag: 'Network', operationId: 'lookupSellers', summary: 'Look up companies that send invoices or receive orders',
    description: 'Which scheme applies: not shown.', security: 'not-shown', request: 'SellerPartyLookupRequest',
    responses: { '200': json('Matching seller parties.', 'SellerPartyLookupResponse'), ...REFUSED } },
  { method: 'post', path: '/network/setup', tag: 'Network', operationId: 'requestNetworkSetup', summary: 'Ask for a company to be added to the network',
    description: 'The guide example answers 200 for success. The schema of NetworkSetupResponseBadInput: not shown.', security: 'client-token', request: 'NetworkSetupRequest',
    responses: {
      '200': json('Accepted (as in the guide example).', 'NetworkSetupResponse'),
      '202': json('Accepted; RequestId correlates the result notification.', 'NetworkSetupResponse'),
      '400': { description: 'NetworkSetupFeedbackEmail is not a valid e-mail address.' },
    } },
  { method: 'post', path: '/documents', tag: 'Outbound documents', operationId: 'uploadDocument', summary: 'Upload one file',
    description: 'The main document and each attachment are uploaded separately. Upload size limits: not shown.', security: 'client-token', request: 'multipart',
    responses: { '202': empty('Uploaded; no body.', { Location: header('The document reference: a URN that ends in the document uuid.') }), ...REFUSED } },
  { method: 'post', path: '/documents/outbound', tag: 'Outbound documents', operationId: 'sendDocument', summary: 'Send uploaded documents',
    security: 'client-token', request: 'SendDocumentRequest',
    responses: { '200': empty('Sent; no body.', { Location: header('A link whose last path segment is the DocumentId.') }), ...REFUSED } },
  { method: 'get', path: '/documents/outbound/{DocumentId}', tag: 'Outbound documents', operationId: 'getOutboundDocument', summary: 'Read the status of a sent document',
    security: 'client-token', parameters: [documentId('The id owned by the service.'), includeFileInfo],
    responses: { '200': json('The outbound document.', 'OutboundDocument'), ...REFUSED } },
  { method: 'get', path: '/invoices/outbound/{DocumentId}', tag: 'Outbound documents', operationId: 'getOutboundInvoice', summary: 'Read the status of a sent invoice',
    security: 'client-token', parameters: [documentId('The id owned by the service.'), includeFileInfo],
    responses: { '200': json('The outbound document.', 'OutboundDocument'), ...REFUSED } },
  { method: 'get', path: '/invoices/outbound/byerpid/{DocumentId}', tag: 'Outbound documents', operationId: 'getOutboundInvoiceByErpId',
    summary: "Read the status of a sent invoice by the integrator's ErpDocumentId", description: 'Works only when ErpDocumentId was supplied at send time.',
    security: 'client-token',
    parameters: [{ name: 'DocumentId', in: 'path', required: true, description: 'The ErpDocumentId given at send time.', schema: { type: 'string' } }, includeFileInfo],
    responses: { '200': json('The outbound document.', 'OutboundDocument'), ...REFUSED } },
  { method: 'get', path: '/documents/outbound/download/{DocumentId}', tag: 'Outbound documents', operationId: 'downloadOutboundDocument', summary: 'Download a sent document',
    description: 'Which scheme applies: not shown.', security: 'not-shown', parameters: [documentId('The id owned by the service.')],
    responses: { '200': binary('The document.'), ...REFUSED } },
  { method: 'post', path: '/documents/outbound/list', tag: 'Outbound documents', operationId: 'listOutboundDocuments', summary: 'List statuses of sent documents',
    description: 'The response schema, ordering, paging defaults and which scheme applies: not shown.', security: 'not-shown', request: 'OutboundListRequest',
    responses: { '200': { description: 'The statuses (schema not shown).', content: { [JSON_MEDIA]: { schema: {} } } }, ...REFUSED } },
  { method: 'get', path: '/documents/incoming', tag: 'Inbound documents', operationId: 'listIncomingDocuments', summary: 'List inbound documents',
    description: 'Without sequenceNo only documents not yet marked as handled are listed; with sequenceNo the handled flag is ignored.', security: 'client-token',
    parameters: [
      { name: 'type', in: 'query', required: false, explode: false, description: 'Document type; the guide uses invoice (which lists credit notes too). Matched regardless of case.',
        schema: { type: 'string', enum: ['', 'invoice', 'creditnote', 'order', 'orderresponse', 'despatchadvice', 'all'] } },
      { name: 'sequenceNo', in: 'query', required: false, explode: false, schema: { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 } },
    ],
    responses: { '200': json('The inbound documents.', 'IncomingDocuments'), ...REFUSED } },
  { method: 'get', path: '/documents/{id}', tag: 'Inbound documents', operationId: 'downloadIncomingDocument', summary: 'Download an inbound document',
    security: 'client-token', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '200': binary('The document.', {
        'Content-Disposition': header('Attachment and file name.'), 'X-Filename': header('The file name.'), 'X-Document-Format': header('The document format.'),
      }),
      ...REFUSED,
    } },
  { method: 'get', path: '/documents/{id}/info', tag: 'Inbound documents', operationId: 'getIncomingDocumentInfo', summary: 'Read information on an inbound document',
    security: 'client-token', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { '200': json('The document information.', 'IncomingDocumentInfo'), ...REFUSED } },
  { method: 'post', path: '/documents/handled', tag: 'Inbound documents', operationId: 'markDocumentsHandled', summary: 'Mark inbound documents as handled',
    security: 'client-token', request: 'MarkHandledRequest', responses: { '200': empty('Marked; no body.'), ...REFUSED } },
  { method: 'post', path: PROVIDER_A, tag: 'Provider A', operationId: 'registerProviderA', summary: 'Register the provider A business-to-consumer delivery method',
    description: 'The company must be registered in Sweden.', security: 'client-token', request: 'ProviderARegistrationRequest',
    responses: {
      '200': empty('Registered; no body.', LOCATION),
      '400': error('A value is invalid, for example OrgVatNo.'),
      '409': error('The customer tenant is owned by another company; resolved manually at the provider.'),
    } },
  { method: 'get', path: PROVIDER_A, tag: 'Provider A', operationId: 'getProviderA', summary: 'Read the provider A registration', security: 'client-token',
    responses: { '200': json('The registration record.', 'ProviderARegistrationRecord'), ...REFUSED } },
  { method: 'patch', path: PROVIDER_A, tag: 'Provider A', operationId: 'updateProviderA', summary: 'Update the provider A registration',
    description: 'Which fields are required: not shown.', security: 'client-token', request: 'ProviderAPatchRequest',
    responses: { '200': empty('Updated.', LOCATION), ...REFUSED } },
  { method: 'post', path: `${PROVIDER_A}/icon`, tag: 'Provider A', operationId: 'uploadProviderAIcon', summary: 'Upload the icon shown by provider A',
    description: 'A square PNG of 256x256 to 512x512 pixels with a 32-bit alpha channel, up to 1 MB. An update can take days to become visible.',
    security: 'client-token', request: 'ProviderAIconRequest',
    responses: { '202': empty('Accepted.', { Location: header('The icon address.') }), ...REFUSED } },
  { method: 'post', path: `${PROVIDER_A}/offboard`, tag: 'Provider A', operationId: 'offboardProviderA', summary: 'Offboard the provider A delivery method',
    description: 'All provider A business-to-consumer invoices are stopped.', security: 'client-token', responses: { '200': empty('Offboarded.', LOCATION), ...REFUSED } },
  { method: 'post', path: `${PROVIDER_A}/lookup`, tag: 'Provider A', operationId: 'lookupProviderASsns', summary: 'Find which persons are registered with provider A',
    security: 'client-token', request: 'ProviderALookupRequest',
    responses: {
      '200': json('The subset of the SSNs that is registered.', 'ProviderALookupResponse'),
      '400': error('Not registered with the provider, registration not complete, or more than 500000 SSNs.'),
    } },
];

const TAGS: Json[] = [
  { name: 'Tokens', description: 'Client tokens identify a company; search tokens a temporary search.' },
  { name: 'Companies', description: 'Registration, details, services, users, identifiers and deletion.' },
  { name: 'Network', description: 'Buyer and seller lookup, and network setup requests.' },
  { name: 'Outbound documents', description: 'Upload, send, and follow the status of sent documents.' },
  { name: 'Inbound documents', description: 'List, download and mark received documents.' },
  { name: 'Provider A', description: 'The provider A business-to-consumer delivery method.' },
];

function requirementIds(method: string, path: string): string[] {
  const endpoint = `${method.toUpperCase()} ${path}`;
  return loadRequirements().filter((requirement) => requirement.endpoints.includes(endpoint)).map((requirement) => requirement.id);
}

function operationObject(operation: Operation, casing: Casing, sandboxExact: boolean): Json {
  const extras = OPERATION_EXTRAS[operation.operationId] ?? {};
  // The rules of the extras are the sandbox's (which ErpId it knows, which check digits it computes): the spec export leaves them out.
  const rules = sandboxExact ? extras.rules : undefined;
  const security = sandboxExact ? { security: SECURITY[operation.security] } : specSecurity(operation, SECURITY[operation.security]);
  const parameters = sandboxExact ? (operation.parameters === undefined ? {} : { parameters: operation.parameters }) : specOperationParts(operation);
  const result: Json = {
    tags: [operation.tag],
    summary: operation.summary,
    operationId: operation.operationId,
    ...(operation.description === undefined && rules === undefined ? {} : { description: [operation.description, rules].filter(Boolean).join(' ') }),
    security: security.security,
    ...(security.note ?? {}),
    ...parameters,
  };
  if (operation.request === 'multipart') {
    result.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', properties: { File: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' } }, required: ['File'] },
          encoding: { File: { contentType: 'application/octet-stream' } },
        },
      },
    };
  } else if (operation.request !== undefined) {
    const example = extras.example === undefined ? {} : { example: renderKeys(extras.example(), casing) };
    result.requestBody = { required: !BODY_OPTIONAL.has(operation.operationId), content: { [JSON_MEDIA]: { schema: ref(operation.request), ...example } } };
  }
  result.responses = answeredStatuses(sandboxExact ? operation : { ...operation, responses: specResponses(operation) }, casing, { sandboxStatuses: sandboxExact });
  result['x-requirements'] = requirementIds(operation.method, operation.path);
  return result;
}

export interface OpenApiOptions {
  /** Field-name casing of the bodies: the target's. Defaults to the sandbox's default casing. */
  casing?: Casing;
  /**
   * The sandbox's own contract (every status it answers, its enums, patterns and required answer
   * fields), for its self-check. Left out: the spec export, what every implementation must do.
   */
  sandboxExact?: boolean;
}

export function buildOpenApi(options: OpenApiOptions = {}): Json {
  const casing = options.casing ?? DEFAULT_SANDBOX_CASING;
  const sandboxExact = options.sandboxExact === true;
  const paths: Record<string, Json> = {};
  for (const operation of OPERATIONS) (paths[operation.path] ??= {})[operation.method] = operationObject(operation, casing, sandboxExact);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Document Exchange Service API',
      version: '1',
      summary: 'HTTP/JSON interface to an electronic document exchange network.',
      description:
        `Assembled by dxs from its JSON Schemas. Property names are in ${casing === 'camel' ? 'camelCase, as the guide examples answer' : "the reference's PascalCase"} ` +
        '(`dxs schemas openapi --casing camel|pascal`); the service may accept either casing in requests. ' +
        'Date-times may carry offsets written +0000. Wherever the specification does not show a status code, scheme or body, this document says so. ' +
        (sandboxExact
          ? 'This is the sandbox-exact export: every status the dxs sandbox answers, and its own forms of values, for the sandbox\'s self-check; another implementation may differ where the specification is silent.'
          : 'This is the spec export: what every implementation must do. It states only the enums, formats, required fields and statuses the specification gives, `4XX` where it leaves statuses open; each place where it says less than the sandbox-exact export (`dxs schemas openapi --sandbox-exact`) carries an x-dxs-spec note quoting the specification.'),
    },
    servers: [
      {
        url: '{baseUrl}',
        description: 'The service; the base URL ends in the version prefix /v1/api.',
        variables: { baseUrl: { default: 'http://127.0.0.1:4010/v1/api', description: 'Base URL ending in /v1/api (default: the dxs sandbox).' } },
      },
    ],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'APIkey', description: 'Identifies the ERP system server (the integrator).' },
        ClientTokenAuth: { type: 'apiKey', in: 'header', name: 'ClientToken', description: 'Identifies the user, i.e. the company the token was created for.' },
      },
      schemas: cased(components(sandboxExact), casing) as Json,
      ...(sandboxExact ? {} : bodyNotes()),
    },
  };
}
