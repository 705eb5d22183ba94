// The spec export: what `dxs schemas openapi` states by default, so that a tool such as
// Schemathesis judges an implementation by the spec and not by the sandbox's choices. It starts from
// the same operations and JSON Schemas as the sandbox-exact export and takes away every constraint
// the spec does not give: an enum, a format, a pattern, a length, a bound, a required field, a status.
// Each difference carries an `x-dxs-spec` note with the spec sentence it rests on (test/schemas
// checks that every quote occurs verbatim in the spec).
import type { Json, Operation } from './openapi-operation.ts';

/** Sentences of the spec, verbatim (whitespace aside), that the spec export rests on. */
export const SPEC_QUOTES = {
  statusesOpen: 'Status codes of the other endpoints beyond the success codes listed: not shown.',
  errorSchemaOpen: 'Error response schema for the other endpoints: not shown.',
  errorBodies: 'Error bodies of the listed cases are a JSON string with a message.',
  errorsByStatus: 'Errors are signalled by the HTTP status.',
  types: 'Types: string, boolean, integer, date-time (ISO 8601), uuid, binary.',
  offset: 'Time (date-time; the guide examples show an offset written like +0000)',
  mayBeNull: 'MoreInfoUri | string | Optional, may be null.',
  companyFormats: 'Length limits and formats of company fields: not shown.',
  schemeNotShown: 'Which scheme applies to token revoke, search token creation, service activation, seller lookup, outbound list and outbound download: not shown.',
  clientTokenCalls: 'The guide calls that use ClientToken are: company status, company details by id, add user, add identifier, buyer lookup, network setup, upload, send, outbound status, incoming list and download, mark handled, and all provider A calls.',
  detailsCredential: 'POST /companies/details takes RegistrationId for a company that is not yet activated, and a client token for an activated company.',
  incomingType: 'Query type (the guide uses `invoice`); optional query sequenceNo',
  sequenceNo: 'SequenceNo (integer)',
  documentIdUuid: 'Path DocumentId is a uuid (required).',
  outboundIdUuid: 'Document id owned by the service (uuid form).',
  registrationStatus: 'The value Registered occurs after a completed registration. Registration runs in the background and is monitored with the company status call. Transitions and further values: not shown.',
  capabilities: 'Full set of values of the capability fields: not shown beyond those listed.',
  registerAnswer: 'Response 202 with an empty body or `{}`.',
  outboundList: 'The remaining request fields, the response schema, ordering and paging defaults: not shown.',
  outboundListFields: 'Request fields: Take (integer), Skip (integer) for paging; CreatedFrom, CreatedTo (date-time); UpdatedAfter.',
  deleteDisabled: 'POST /companies/delete | 501 | All delete requests are disabled.',
  deleteBody: 'Body: Id (string, required)',
  tokenErpId: "A client token is obtained with POST /clienttokens/create, sent with the header APIkey and the company's ErpId.",
  userName: 'Must be at least 5 alphanumeric characters.',
  userInvalid: 'A required value is missing, or UserName, Email or CultureCode is invalid',
  validEmail: 'required, valid e-mail address',
  feedbackEmail: 'When empty or missing, feedback goes to the e-mail address of the company registration.',
  uploadLimits: 'Upload size limits: not shown.',
  rateLimits: 'Rate limits: not shown.',
  uploadLocation: 'Response 202 with no body and a Location header that holds the document reference (a URN that ends in the document uuid).',
  sendLocation: 'Response 200 with no body and a Location header: a link whose last path segment is the DocumentId (the id owned by the service).',
  searchId: 'SearchId (string): unique per installation/company, to be resent when the token expires',
  handledBody: 'documents: [string] of document ids',
  identifierTypes: 'The allowed types depend on a set agreed beforehand with the operator.',
  ssns: 'Ssns: [string]',
  ssnLimit: 'Social security numbers per lookup | at most 500000',
  iconFields: 'ContentType, Filename, Data (strings)',
  iconType: 'ContentType is the media type (image/png)',
  sendType: 'SendDocumentAs.Type | string | Allowed: PDF, Paper, Electronic, BusinessToConsumer.',
  patchFields: 'Which fields of the PATCH call are required: not shown.',
  agreementStart: 'agreementStart is written like `YYYY-MM-DD HH:mm`.',
  sweden: 'Requirement: the company is registered in Sweden.',
  partyId: 'Required. Not used by the service, but some value must be sent.',
  rules: 'Registration, service activation and deletion are asynchronous: the call answers 202 and the work completes in the background.',
  processes: 'Allowed values: SendInvoices, ReceiveInvoices, SendOrders, ReceiveOrders.',
  cultureCode: 'Allowed: en-GB (default), da-DK, fi-FI, is-IS, nn-NO, sv-SE.',
  peppol: 'PeppolParticipantIdentifiers | [string], each of the form `<scheme>::<id>`',
  agreement: 'required, must be true',
  services: 'Required. Validated against the preregistration.',
  identifiersError: 'Argument is null, adding an identifier is not allowed, or the type is not supported.',
  attachmentUri: 'Scanned letter from supplier or customer. Uploaded first with POST /documents.',
  documentUri: 'Required. Reference returned by the upload.',
  providerAInvalid: 'A value is invalid, for example OrgVatNo.',
  iconDimensions: 'Icon dimensions | square, 256x256 to 512x512 pixels',
  providerALookup: 'The organisation is not registered with the provider, the registration is not complete, or more than 500000 social security numbers are sent.',
  backgroundWork: 'The work is done in the background and is followed with GET /companies/status.',
} as const;

export type SpecQuote = keyof typeof SPEC_QUOTES;

/** An `x-dxs-spec` note: why the spec export says what it says here, with the sentence. */
export function specNote(reason: string, ...quotes: SpecQuote[]): Json {
  return { 'x-dxs-spec': { reason, quotes: quotes.map((quote) => SPEC_QUOTES[quote]) } };
}

/**
 * ISO 8601 date-times in the extended form: offsets Z, +hh:mm, +hhmm or +hh, or none; fractions
 * written with a dot or a comma. The spec gives "date-time (ISO 8601)" and nothing narrower.
 */
export const SPEC_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}(:\\d{2}([.,]\\d+)?)?([Zz]|[+-]\\d{2}(:?\\d{2})?)?$';

// ---------------------------------------------------------------------------------------------
// Bodies

/** Definitions the bodies share whose constraints are the spec's own: kept as they are. */
const KEPT_DEFINITIONS = new Set(['Process', 'Processes', 'DocumentStatus', 'PeppolParticipantIdentifier', 'Capability']);
/** The sandbox's own forms of text: the spec gives none of them, so they become plain strings. */
const PLAIN_TEXT_DEFINITIONS = new Set(['RequiredText', 'Email']);
/** Keywords that constrain a value; the spec export keeps them only where a rule below says the spec gives them. */
const DROPPED_KEYWORDS = new Set(['pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxProperties']);
/** Formats the spec gives somewhere (uuid of document ids, e-mail of the provider A and feedback addresses). */
const KEPT_FORMATS = new Set(['uuid', 'email']);

/** Components that are request bodies (or parts only requests use). */
export function isRequestComponent(name: string): boolean {
  return name.endsWith('Request') || ['CompanyInput', 'PartySearch', 'PostalAddress', 'ProviderAContact', 'RequestDateTime', 'RequiredText', 'Email'].includes(name);
}

function withoutConstraints(schema: unknown, keepRequired: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutConstraints(item, keepRequired));
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as Json;
  if (typeof source.$ref === 'string') {
    const target = source.$ref.replace('#/components/schemas/', '');
    if (PLAIN_TEXT_DEFINITIONS.has(target)) return { type: 'string', ...(source.description === undefined ? {} : { description: source.description }) };
    if (target === 'RequestDateTime') return { type: 'string', format: 'date-time', ...(source.description === undefined ? {} : { description: source.description }) };
  }
  // "Empty counts as absent" (an empty-string branch beside the value's form) stays: the spec says so of the feedback address.
  const emptyBranch = source.type === 'string' && source.maxLength === 0 && Object.keys(source).length === 2;
  const result: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED_KEYWORDS.has(key) && !emptyBranch) continue;
    if (key === 'format' && !KEPT_FORMATS.has(String(value))) continue;
    if (key === 'required' && !keepRequired) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      result.properties = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, withoutConstraints(inner, keepRequired)]));
      continue;
    }
    result[key] = withoutConstraints(value, keepRequired);
  }
  return result;
}

/** A property of an answer that may also be null: the spec writes "string" of a field it also says "may be null". */
function nullable(schema: Json): Json {
  if (schema.$ref !== undefined || schema.anyOf !== undefined || schema.allOf !== undefined) {
    return Array.isArray(schema.anyOf) && schema.anyOf.some((branch) => (branch as Json).type === 'null') ? schema : { anyOf: [schema, { type: 'null' }] };
  }
  if (schema.type === undefined) return schema;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const result: Json = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) result.enum = [...schema.enum, null];
  return result;
}

function nullableProperties(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableProperties);
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    result[key] = key === 'properties' && typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, nullable(nullableProperties(inner) as Json)]))
      : nullableProperties(value);
  }
  return result;
}

interface PropertyRule {
  component: string;
  /** Property names from the component down; empty for the component itself. */
  path: string[];
  /** Keywords set on the schema there (undefined removes one). */
  set: Json;
  reason: string;
  quotes: SpecQuote[];
}

const emailFormat = (component: string, property: string, ...quotes: SpecQuote[]): PropertyRule => ({
  component, path: [property], set: { type: 'string', format: 'email' }, reason: 'The spec asks for a valid e-mail address here.', quotes,
});

/** Where the spec does give a constraint, or gives less than the sandbox-exact export states. */
const PROPERTY_RULES: PropertyRule[] = [
  { component: 'DateTime', path: [], set: { type: 'string', pattern: SPEC_DATE_TIME_PATTERN, format: undefined }, reason: 'ISO 8601 in its extended form, with any offset form (Z, +hh:mm, +hhmm, +hh) or none.', quotes: ['types', 'offset'] },
  { component: 'AddUserRequest', path: ['UserName'], set: { type: 'string', pattern: '^[A-Za-z0-9]{5,}$' },
    reason: 'At least 5 letters A-Z and digits: alphanumeric under every reading, so generated names are ones every implementation accepts.', quotes: ['userName'] },
  emailFormat('AddUserRequest', 'Email', 'userInvalid'),
  emailFormat('ProviderARegistrationRequest', 'ContactPersonEmail', 'validEmail'),
  emailFormat('ProviderARegistrationRequest', 'GeneralEmail', 'validEmail'),
  { component: 'NetworkSetupRequest', path: ['NetworkSetupFeedbackEmail'], set: { anyOf: [{ type: 'string', maxLength: 0 }, { type: 'string', format: 'email' }] },
    reason: 'A valid e-mail address, or empty.', quotes: ['feedbackEmail'] },
  { component: 'ProviderALookupRequest', path: ['Ssns'], set: { type: 'array', items: { type: 'string' }, maxItems: 500000 }, reason: 'At most 500000 SSNs per lookup.', quotes: ['ssns', 'ssnLimit'] },
  { component: 'ProviderALookupRequest', path: [], set: { required: undefined }, reason: 'Ssns is not marked required.', quotes: ['ssns'] },
  { component: 'ProviderAIconRequest', path: [], set: { required: undefined }, reason: 'No icon field is marked required.', quotes: ['iconFields'] },
  { component: 'ProviderAIconRequest', path: ['ContentType'], set: { type: 'string', const: 'image/png' }, reason: 'The icon is a PNG.', quotes: ['iconType'] },
  { component: 'SearchTokenCreateRequest', path: [], set: { required: undefined }, reason: 'SearchId is not marked required.', quotes: ['searchId'] },
  { component: 'MarkHandledRequest', path: [], set: { required: undefined }, reason: 'documents is not marked required.', quotes: ['handledBody'] },
  { component: 'AddIdentifierRequest', path: [], set: { required: undefined }, reason: 'Type and Value are not marked required; the allowed types are agreed with the operator.', quotes: ['identifierTypes'] },
  { component: 'SendDocumentRequest', path: ['SendDocumentAs'], set: { required: undefined }, reason: 'SendDocumentAs.Type is not marked required.', quotes: ['sendType'] },
  { component: 'OutboundListRequest', path: ['UpdatedAfter'], set: { type: undefined, format: undefined, anyOf: undefined, description: 'Its type is not shown.' }, reason: 'UpdatedAfter is named without a type.', quotes: ['outboundListFields'] },
  { component: 'OutboundListRequest', path: ['Take'], set: { type: 'integer', description: 'How many statuses to list; its bound and default are not shown.' }, reason: 'Take is an integer for paging, with no bound given.', quotes: ['outboundListFields', 'outboundList'] },
  { component: 'PartySearch', path: ['PartyId'], set: { type: 'string', minLength: 1 }, reason: 'Some value must be sent: an empty string is none.', quotes: ['partyId'] },
  { component: 'ProviderARegistrationRecord', path: ['AgreementStart'], set: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$' }, reason: 'Written YYYY-MM-DD HH:mm.', quotes: ['agreementStart'] },
];

/** Reasons that hold for every body, shown once on the components. */
const BODY_NOTES: Json[] = [
  specNote('Request fields carry no length limit, pattern, bound or format beyond those the spec gives (e-mail addresses where it asks for valid ones, the uuid of document ids, the enumerations it lists).', 'companyFormats', 'types'),
  specNote('Answers: no field is required (the spec lists the fields of each answer, not which must be present), every field may be null (the spec writes "string" of a field that may be null), and fields it does not name may occur.', 'mayBeNull'),
  specNote('Capability values and company registration statuses are open; document statuses and the provider A values are the lists the spec gives.', 'capabilities', 'registrationStatus'),
];

function applyRule(component: Json, rule: PropertyRule, answer: boolean): void {
  let schema = component;
  let parent: Record<string, Json> | undefined;
  for (const name of rule.path) {
    parent = schema.properties as Record<string, Json> | undefined;
    if (parent?.[name] === undefined) throw new Error(`spec export: ${rule.component} has no property ${rule.path.join('.')}`);
    schema = parent[name];
  }
  for (const [key, value] of Object.entries(rule.set)) {
    if (value === undefined) delete schema[key];
    else schema[key] = value;
  }
  if (rule.path.length > 0 && '$ref' in schema && Object.keys(rule.set).some((key) => key !== '$ref')) delete schema.$ref;
  Object.assign(schema, specNote(rule.reason, ...rule.quotes));
  // A field of an answer stays nullable, as every other.
  if (answer && parent !== undefined) parent[rule.path[rule.path.length - 1]] = nullable(schema);
}

/**
 * The components of the spec export, from those of the sandbox-exact one (PascalCase, before
 * casing, without the nulls the sandbox admits in requests).
 */
export function specComponents(exact: Json): Json {
  const result: Json = {};
  for (const [name, schema] of Object.entries(exact)) {
    // Their references are replaced by plain strings and date-times below.
    if (PLAIN_TEXT_DEFINITIONS.has(name) || name === 'RequestDateTime') continue;
    if (KEPT_DEFINITIONS.has(name)) {
      result[name] = structuredClone(schema);
      continue;
    }
    const request = isRequestComponent(name);
    const relaxed = withoutConstraints(schema, request) as Json;
    result[name] = request ? relaxed : (nullableProperties(relaxed) as Json);
  }
  for (const rule of PROPERTY_RULES) {
    const component = result[rule.component] as Json | undefined;
    if (component === undefined) throw new Error(`spec export: no component ${rule.component}`);
    applyRule(component, rule, !isRequestComponent(rule.component));
  }
  result.ErrorMessage = LISTED_ERROR_BODY;
  return result;
}

/**
 * "A JSON string with a message" reads two ways: the message as a JSON string, or a JSON text that
 * carries the message. Both are the spec's; a body with no message is neither.
 */
const LISTED_ERROR_BODY: Json = {
  title: 'ErrorMessage',
  description: 'Error body of the cases in the Errors table: a JSON string with a message (the message as a JSON string, or a JSON object with a message field). Other error bodies: not shown.',
  anyOf: [
    { type: 'string', minLength: 1 },
    // Not a required message field: its name's casing is the target's, and an export cannot say "any casing".
    { type: 'object', minProperties: 1 },
  ],
  ...specNote('The body of a listed error is a JSON string with a message: the message itself as a JSON string, or a JSON object carrying it in a message field.', 'errorBodies'),
};

/** The notes that hold for every body, for the document's components. */
export function bodyNotes(): Json {
  return { 'x-dxs-spec': BODY_NOTES.map((note) => note['x-dxs-spec']) };
}

// ---------------------------------------------------------------------------------------------
// Operations

const ERROR_BODY = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } } };

/** Statuses the spec export adds to an operation whose statuses the spec lists, with why. */
const LISTED_ADDITIONS: Record<string, Record<string, Json>> = {
  addIdentifier: {
    '401': { description: 'Credentials missing or not valid. The spec names ClientToken for this call but not the status of a refusal.', ...specNote('Credentials are required where the spec names the scheme; the status of a refusal is not listed.', 'clientTokenCalls', 'errorsByStatus') },
    '403': { description: 'Credentials not valid for this call (the status of a refusal is not listed).', ...specNote('Credentials are required where the spec names the scheme; the status of a refusal is not listed.', 'clientTokenCalls', 'errorsByStatus') },
  },
  deleteCompany: {
    '400': { description: 'A body without the required Id (its status is not listed).', ...specNote('Id is required; the status of a body without it is not listed.', 'deleteBody', 'errorsByStatus') },
  },
};
for (const operationId of ['requestNetworkSetup', 'registerProviderA', 'lookupProviderASsns']) LISTED_ADDITIONS[operationId] = LISTED_ADDITIONS.addIdentifier;
// A deployment may limit the rate of any call, those of the Errors table included.
const RATE_LIMITED: Json = { description: 'Too many requests.', ...specNote('Rate limits are not shown, so a deployment may have them.', 'rateLimits') };
for (const operationId of ['addUser', 'addIdentifier', 'deleteCompany', 'requestNetworkSetup', 'registerProviderA', 'lookupProviderASsns']) {
  LISTED_ADDITIONS[operationId] = { ...LISTED_ADDITIONS[operationId], '429': RATE_LIMITED };
}

/** Operations whose scheme the spec does not name: credentials are optional in the spec export. */
const OPTIONAL_CREDENTIALS: Record<string, Json> = {
  revokeClientToken: specNote('Which scheme applies is not shown.', 'schemeNotShown'),
  createSearchToken: specNote('Which scheme applies is not shown.', 'schemeNotShown'),
  activateServices: specNote('Which scheme applies is not shown.', 'schemeNotShown'),
  lookupSellers: specNote('Which scheme applies is not shown.', 'schemeNotShown'),
  listOutboundDocuments: specNote('Which scheme applies is not shown.', 'schemeNotShown'),
  downloadOutboundDocument: specNote('Which scheme applies is not shown.', 'schemeNotShown'),
  setCompanyDetails: specNote('A company not yet activated is named by its RegistrationId, without a client token.', 'detailsCredential'),
  getIncomingDocumentInfo: specNote('The info call is not among the calls the spec names for ClientToken, and no other scheme is named for it.', 'clientTokenCalls'),
};

/** Response headers the spec states, required in the spec export. */
const STATED_HEADERS: Record<string, { status: string; schema: Json; quote: SpecQuote }> = {
  uploadDocument: { status: '202', schema: { type: 'string', pattern: '^urn:.*[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$' }, quote: 'uploadLocation' },
  sendDocument: { status: '200', schema: { type: 'string', pattern: '[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$' }, quote: 'sendLocation' },
};

/** The parameters of an operation in the spec export. */
function specParameters(parameters: Json[]): Json[] {
  return parameters.map((parameter) => {
    if (parameter.name === 'type' && parameter.in === 'query') {
      return {
        ...parameter, required: true, description: 'Document type; the guide uses invoice.', schema: { type: 'string' }, example: 'invoice',
        ...specNote('No list of types is given; only sequenceNo is called optional, so a client sends type and an implementation may require it.', 'incomingType'),
      };
    }
    if (parameter.name === 'sequenceNo' && parameter.in === 'query') {
      return { ...parameter, schema: { type: 'integer' }, ...specNote('An integer, as the SequenceNo of the listed documents; no bound is given.', 'incomingType', 'sequenceNo') };
    }
    if (parameter.name === 'DocumentId' && (parameter.schema as Json | undefined)?.format === 'uuid') {
      // An example in the form the spec gives; dxs fuzz puts the id of its own sent document in its place.
      return { ...parameter, example: '3f2b8c1e-5a7d-4e9f-8b6a-2c4d1e0f9a7b', ...specNote('The id owned by the service is a uuid.', 'documentIdUuid', 'outboundIdUuid') };
    }
    return parameter;
  });
}

/** The security requirement of an operation in the spec export, and its note when it differs. */
export function specSecurity(operation: Operation, exact: Json[]): { security: Json[]; note?: Json } {
  const note = OPTIONAL_CREDENTIALS[operation.operationId];
  if (note === undefined) return { security: exact };
  return { security: [{}, ...exact], note };
}

/** The responses of an operation in the spec export: the statuses the spec lists, `4XX` where it leaves them open. */
export function specResponses(operation: Operation): Record<string, Json> {
  const responses: Record<string, Json> = structuredClone(operation.responses);
  if ('4XX' in responses) {
    responses['4XX'] = { ...responses['4XX'], ...specNote('Statuses besides those listed, and their bodies, are open.', 'statusesOpen', 'errorSchemaOpen') };
  }
  for (const [status, response] of Object.entries(LISTED_ADDITIONS[operation.operationId] ?? {})) if (!(status in responses)) responses[status] = response;
  for (const [status, response] of Object.entries(responses)) {
    if (/^[45]\d\d$/.test(status) && response.content !== undefined && operation.responses[status] !== undefined) {
      responses[status] = { ...response, ...ERROR_BODY, ...specNote('The body of a listed error is a JSON string with a message.', 'errorBodies') };
    }
  }
  for (const [status, response] of Object.entries(responses)) {
    const media = (response.content as Record<string, { schema?: Json }> | undefined)?.['application/json'];
    if (media?.schema?.maxProperties === 0) {
      // No body, or "{}" (with the fields the spec does not name that any answer may carry): no media type is stated for the empty one.
      const { content: _content, ...rest } = response;
      responses[status] = { ...rest, ...specNote('An empty body (with no media type) or {}; fields the spec does not name may occur in any answer.', 'registerAnswer') };
    }
  }
  const header = STATED_HEADERS[operation.operationId];
  if (header !== undefined) {
    const response = responses[header.status];
    responses[header.status] = { ...response, headers: { ...(response.headers as Json | undefined), Location: { description: SPEC_QUOTES[header.quote], required: true, schema: header.schema, ...specNote('The spec states the header and its form.', header.quote) } } };
  }
  return responses;
}

export function specOperationParts(operation: Operation): { parameters?: Json[] } {
  return operation.parameters === undefined ? {} : { parameters: specParameters(operation.parameters) };
}
