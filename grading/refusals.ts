// Why the grading sandbox refused a call, as a requirement of the client catalog: the report names
// it where the call was refused, so an integrator reads "CLI-BODY-01: ValidTo is not a valid
// date-time" instead of a bare 400. Every message the sandbox can answer with has a rule here (the
// Record over MessageKey makes a new message a type error until it has one). A refusal that is no
// fault of the client (the spec's answer to a state, a limit of the sandbox) says that instead.
import { message, MESSAGE_KEYS, type Language, type MessageKey } from '../sandbox/messages.ts';
import { bodyRequirement, EMPTY_REQUIRED } from './judges/bodies.ts';
import { OPEN_SCHEME_CALLS } from './judges/endpoints.ts';
import { fieldAt, type GradedCall } from './graded-call.ts';
import { normaliseKeys } from '../lib/casing.ts';

export interface Refusal {
  status: number;
  /** The sandbox's message, as answered. */
  message: string;
  /** The client requirement the refusal enforces, when the client is at fault. */
  requirement?: string;
  /** Why the refusal is no fault of the client, when it is not. */
  notTheClient?: string;
}

type Params = Record<string, string>;
type Rule = { requirement: string } | { notTheClient: string } | ((call: GradedCall, params: Params) => { requirement: string } | { notTheClient: string });

const requirement = (id: string) => ({ requirement: id });
const notTheClient = (why: string) => ({ notTheClient: why });
const SPEC_ANSWER = notTheClient("the spec's own answer to the state of the company or the document, not a fault of the client's call");
const SANDBOX_LIMIT = notTheClient('a limit of the grading sandbox (the spec shows none), not a requirement of the client');

const byEndpoint = (table: Record<string, string>, otherwise: string) => (call: GradedCall) => requirement(table[call.endpoint] ?? otherwise);

/** The requirement of a body field's refusal: the rule of the endpoint's body, or of the upload. */
const bodyField = (call: GradedCall, params: Params) => requirement(call.endpoint === 'POST /documents' ? 'CLI-CNV-03' : bodyRequirement(call.endpoint, params.field ?? '') ?? 'CLI-CNV-02');

/** A required field refused as missing although the client sent it, as "": whether "" counts as given is not said (CLI-BODY-21). */
const requiredField = (call: GradedCall, params: Params) => (params.field !== undefined && blank(fieldAt(normaliseKeys(call.body ?? {}), params.field)) ? requirement(EMPTY_REQUIRED) : bodyField(call, params));
const blank = (value: unknown): boolean => typeof value === 'string' && value.trim() === '';

const REFERENCES: Record<string, string> = {
  'GET /documents/outbound/{DocumentId}': 'CLI-REF-04', 'GET /invoices/outbound/{DocumentId}': 'CLI-REF-04', 'GET /documents/outbound/download/{DocumentId}': 'CLI-REF-04',
  'GET /invoices/outbound/byerpid/{DocumentId}': 'CLI-REF-05',
  'GET /documents/{id}': 'CLI-REF-06', 'GET /documents/{id}/info': 'CLI-REF-06', 'POST /documents/handled': 'CLI-REF-06',
  'GET /companies/details/{CompanyId}': 'CLI-REF-07',
  'POST /clienttokens/revoke': 'CLI-BODY-02',
};
const referenced = (call: GradedCall) => (REFERENCES[call.endpoint] === undefined ? SPEC_ANSWER : requirement(REFERENCES[call.endpoint]));

const API_KEY_RULES: Record<string, string> = { 'POST /clienttokens/create': 'CLI-AUTH-01', 'POST /companies/register': 'CLI-AUTH-02', 'POST /companies/delete': 'CLI-AUTH-03' };
const apiKeyRule = (call: GradedCall) => requirement(API_KEY_RULES[call.endpoint] ?? (OPEN_SCHEME_CALLS.has(call.endpoint) ? 'CLI-AUTH-07' : 'CLI-AUTH-05'));

export const REFUSAL_RULES: Record<MessageKey, Rule> = {
  apiKeyMissing: apiKeyRule,
  apiKeyInvalid: apiKeyRule,
  clientTokenMissing: byEndpoint({ 'POST /companies/details': 'CLI-AUTH-06' }, 'CLI-AUTH-05'),
  clientTokenInvalid: requirement('CLI-TOK-01'),
  clientTokenExpired: requirement('CLI-TOK-04'),
  clientTokenRevoked: requirement('CLI-TOK-04'),
  searchTokenNotAllowed: requirement('CLI-AUTH-05'),
  credentialsMissing: requirement('CLI-AUTH-07'),
  deleteRoleMissing: requirement('CLI-AUTH-04'),
  deletesDisabled: SANDBOX_LIMIT,
  userPrivilegeMissing: SPEC_ANSWER,
  bodyNotObject: requirement('CLI-CNV-02'),
  bodyRequired: (call) => requirement(bodyRequirement(call.endpoint, '') ?? 'CLI-CNV-02'),
  bodyMalformed: requirement('CLI-CNV-02'),
  bodyTooLarge: SANDBOX_LIMIT,
  fileTooLarge: SANDBOX_LIMIT,
  unsupportedMediaType: byEndpoint({ 'POST /documents': 'CLI-CNV-03' }, 'CLI-CNV-02'),
  fieldRequired: requiredField,
  fieldType: bodyField,
  fieldInvalid: bodyField,
  fieldEnum: bodyField,
  emailInvalid: bodyField,
  dateTimeInvalid: bodyField,
  queryInvalid: byEndpoint({ 'GET /documents/incoming': 'CLI-CNV-06' }, 'CLI-CNV-05'),
  notFound: referenced,
  routeNotFound: (call) => requirement(/^\/v1\/api\//i.test(call.path) ? 'CLI-CNV-05' : 'CLI-CNV-01'),
  methodNotAllowed: requirement('CLI-CNV-05'),
  companyNotFoundForErpId: byEndpoint({ 'POST /companies/services': 'CLI-FLOW-02', 'POST /companies/delete': 'CLI-BODY-11' }, 'CLI-TOK-06'),
  companyNotRegistered: requirement('CLI-FLOW-02'),
  foreignResource: referenced,
  registrationIdUnknown: requirement('CLI-AUTH-06'),
  companyActivated: requirement('CLI-AUTH-06'),
  preregistrationMismatch: requirement('CLI-BODY-07'),
  userNameInvalid: requirement('CLI-BODY-08'),
  userNameTaken: SPEC_ANSWER,
  userLockedOut: SPEC_ANSWER,
  userNotApproved: SPEC_ANSWER,
  identifierArgumentNull: requirement('CLI-BODY-10'),
  identifiersNotAllowed: SPEC_ANSWER,
  identifierTypeUnsupported: requirement('CLI-BODY-10'),
  uploadMissingFile: requirement('CLI-CNV-03'),
  xmlEntitiesRefused: notTheClient('a choice of the grading sandbox, which expands no XML entity (the spec shows no rule on uploaded XML), not a requirement of the client'),
  uploadNotMultipart: requirement('CLI-CNV-03'),
  uploadUnknown: (_call, params) => requirement(/AttachmentUri/i.test(params.field ?? '') ? 'CLI-REF-03' : /DocumentUri$/.test(params.field ?? '') && !/Rendered/i.test(params.field ?? '') ? 'CLI-REF-01' : 'CLI-REF-02'),
  uploadEvicted: SANDBOX_LIMIT,
  outboundMultipartUnsupported: requirement('CLI-CNV-02'),
  electronicRecipientMissing: requirement('CLI-BODY-15'),
  b2cNotActive: SPEC_ANSWER,
  b2cProviderNotActive: SPEC_ANSWER,
  b2cProviderAmbiguous: SPEC_ANSWER,
  conversionNotWellFormed: SPEC_ANSWER,
  conversionUnknownType: SPEC_ANSWER,
  conversionUnknownFormat: SPEC_ANSWER,
  documentsEvicted: SANDBOX_LIMIT,
  providerANotSwedish: SPEC_ANSWER,
  providerAMustAccept: requirement('CLI-BODY-18'),
  providerAConflict: SPEC_ANSWER,
  providerANotRegistered: SPEC_ANSWER,
  providerANotComplete: SPEC_ANSWER,
  providerATooManySsns: requirement('CLI-BODY-19'),
  iconInvalid: requirement('CLI-BODY-19'),
  internalError: notTheClient('the grading sandbox failed: not a fault of the client'),
};

interface Template {
  key: MessageKey;
  pattern: RegExp;
  names: string[];
  /** Characters outside the parameters: the more, the more specific. */
  literal: number;
}

let templates: Template[] | undefined;

/** Each message in each language as a pattern whose groups are its parameters, most specific first. */
function messageTemplates(): Template[] {
  templates ??= MESSAGE_KEYS.flatMap((key) => (['en', 'sv'] as Language[]).map((language) => {
    const text = message(language, key);
    const names = [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    const source = text.split(/\{\w+\}/).map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([\\s\\S]*?)');
    return { key, pattern: new RegExp(`^${source}$`), names, literal: text.replace(/\{\w+\}/g, '').length };
  })).sort((left, right) => right.literal - left.literal);
  return templates;
}

/** The message key and parameters of a sandbox message, if it is one. */
export function recogniseMessage(text: string): { key: MessageKey; params: Params } | undefined {
  for (const template of messageTemplates()) {
    const match = template.pattern.exec(text);
    if (match !== null) return { key: template.key, params: Object.fromEntries(template.names.map((name, index) => [name, match[index + 1]])) };
  }
  return undefined;
}

/** Why the grading sandbox refused a call (a 4xx or 5xx it answered itself), or undefined for a call it did not refuse. */
export function refusalOf(call: GradedCall): Refusal | undefined {
  const answer = call.answer;
  if (answer === undefined || answer.status < 400 || call.provocation !== undefined) return undefined;
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? '');
  const recognised = recogniseMessage(text);
  if (recognised === undefined) return { status: answer.status, message: text, notTheClient: 'an answer the grading sandbox gives without a message of its own' };
  const rule = REFUSAL_RULES[recognised.key];
  return { status: answer.status, message: text, ...(typeof rule === 'function' ? rule(call, recognised.params) : rule) };
}
