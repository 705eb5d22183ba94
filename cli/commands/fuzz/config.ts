// The Schemathesis configuration of `dxs fuzz`: the credentials (in a file, never on a command
// line), and the checks relaxed or turned off. Against the spec export every relaxation quotes the
// spec sentence that forces it; against the sandbox-exact export (the sandbox's self-check) each
// names the sandbox rule JSON Schema cannot state. `dxs fuzz --help`, docs/fuzz.md and the report
// list them.
import { fileURLToPath } from 'node:url';
import { SPEC_QUOTES, type SpecQuote } from '../../../schemas/openapi-spec.ts';

/** Drops generated bodies carrying a __proto__ key (see the file for why). */
export const HOOKS_FILE = fileURLToPath(new URL('hooks.py', import.meta.url));

/** Statuses Schemathesis' positive_data_acceptance check accepts by default. */
const POSITIVE_DEFAULT = ['2xx', '3xx', '401', '403', '404', '409', '429', '5xx'];
const NEGATIVE_DEFAULT = ['400', '401', '403', '404', '405', '406', '409', '415', '422', '428', '429', '5xx'];
const NOT_A_SERVER_ERROR_DEFAULT = ['2xx', '3xx', '4xx'];

type Check = 'positive_data_acceptance' | 'negative_data_rejection' | 'not_a_server_error';

export interface Relaxation {
  operationId: string;
  check: Check;
  /** What is allowed besides the default. */
  allows: string;
  /** Why: the rule (sandbox-exact) or the reason with its spec sentences (spec export). */
  rule: string;
  quotes?: SpecQuote[];
}

/** Checks turned off for every operation, with why. */
export interface DisabledCheck {
  check: string;
  rule: string;
  quotes?: SpecQuote[];
}

export type FuzzExport = 'spec' | 'sandbox-exact';

const allow400 = (operationId: string, rule: string): Relaxation => ({ operationId, check: 'positive_data_acceptance', allows: '400', rule });

/** The sandbox's self-check: rules the sandbox enforces that JSON Schema cannot state. */
const SANDBOX_RELAXATIONS: readonly Relaxation[] = [
  allow400('createClientToken', 'the ErpId must be registered under the API key'),
  allow400('registerCompany', 'OrgNo, VatNo and GLN carry the check digits of their country'),
  allow400('activateServices', 'ErpId, CountryCode and OrgNo must match a registration, with its RegistrationId and SearchId'),
  allow400('addIdentifier', 'the identifier types are agreed with the operator beforehand'),
  allow400('requestNetworkSetup', 'AttachmentUri must be the reference of an upload of the company'),
  allow400('sendDocument', 'DocumentUri and attachments must be uploads of the company; Electronic needs a known recipient; BusinessToConsumer an active provider'),
  allow400('registerProviderA', 'the OrgNo must be a Swedish organisation number no other company has claimed'),
  allow400('updateProviderA', 'the company must be registered with provider A first'),
  allow400('uploadProviderAIcon', 'provider A registration must be complete, and the icon a square PNG of 256 to 512 pixels with alpha'),
  allow400('offboardProviderA', 'the company must be registered with provider A'),
  allow400('lookupProviderASsns', 'provider A registration must be complete'),
  {
    operationId: 'uploadDocument', check: 'negative_data_rejection', allows: '413',
    rule: 'upload size limits are not shown (OUT-UPL-10), and a multipart body of too many parts is refused as too large',
  },
];

const refusable = (operationId: string, allows: string, rule: string, ...quotes: SpecQuote[]): Relaxation => ({ operationId, check: 'positive_data_acceptance', allows, rule, quotes });
const OPEN = 'statusesOpen' as const;

/**
 * The spec export: a request valid by the spec's schema may still be refused where the spec ties
 * it to something JSON Schema cannot state, or leaves its forms and statuses open.
 */
const SPEC_RELAXATIONS: readonly Relaxation[] = [
  refusable('createClientToken', '4XX', 'the ErpId must be a company of the integrator, and the refusal status is open', 'tokenErpId', OPEN),
  refusable('revokeClientToken', '4XX', 'a generated token is unknown, and the refusal status is open', OPEN),
  refusable('createSearchToken', '4XX', 'SearchId is not marked required, so a body without it is schema-valid, and the refusal status is open', 'searchId', OPEN),
  refusable('registerCompany', '4XX', 'the forms of company fields (OrgNo, CountryCode ...) are not shown, and the refusal status is open', 'companyFormats', OPEN),
  refusable('setCompanyDetails', '4XX', 'the forms of company fields are not shown, the RegistrationId must be that of a company not yet activated, and the refusal status is open', 'companyFormats', 'detailsCredential', OPEN),
  refusable('activateServices', '4XX', 'the fields are validated against the preregistration, and the refusal status is open', 'services', OPEN),
  refusable('getCompanyDetails', '4XX', 'a generated CompanyId names no company, and the refusal status is open', OPEN),
  refusable('addUser', '400', 'the spec does not say what makes an Email valid, yet an invalid one is refused with 400', 'userInvalid'),
  refusable('addIdentifier', '400', 'the identifier types are agreed with the operator beforehand', 'identifierTypes', 'identifiersError'),
  refusable('lookupBuyers', '4XX', 'the forms of search criteria are not shown, and the refusal status is open', 'partyId', OPEN),
  refusable('lookupSellers', '4XX', 'the forms of search criteria are not shown, and the refusal status is open', 'partyId', OPEN),
  refusable('requestNetworkSetup', '400', 'AttachmentUri must be an upload of the company, and e-mail validity has readings', 'attachmentUri'),
  refusable('uploadDocument', '4XX', 'upload size limits are not shown, and the refusal status is open', 'uploadLimits', OPEN),
  refusable('sendDocument', '4XX', 'DocumentUri must be a reference returned by the upload, and the refusal status is open', 'documentUri', OPEN),
  refusable('getOutboundDocument', '4XX', 'a generated DocumentId names no document, and the refusal status is open', OPEN),
  refusable('getOutboundInvoice', '4XX', 'a generated DocumentId names no document, and the refusal status is open', OPEN),
  refusable('getOutboundInvoiceByErpId', '4XX', 'a generated ErpDocumentId names no document, and the refusal status is open', OPEN),
  refusable('downloadOutboundDocument', '4XX', 'a generated DocumentId names no document, and the refusal status is open', OPEN),
  refusable('listOutboundDocuments', '4XX', 'the request fields beyond their names are not shown, and the refusal status is open', 'outboundList', OPEN),
  refusable('listIncomingDocuments', '4XX', 'the document types are not listed, so an implementation may refuse one it does not know', 'incomingType', OPEN),
  refusable('downloadIncomingDocument', '4XX', 'a generated id names no document, and the refusal status is open', OPEN),
  refusable('getIncomingDocumentInfo', '4XX', 'a generated id names no document, and the refusal status is open', OPEN),
  refusable('markDocumentsHandled', '4XX', 'generated ids name no document of the inbox, and the refusal status is open', 'handledBody', OPEN),
  refusable('registerProviderA', '400', 'the company must be registered in Sweden, and values such as OrgVatNo are checked', 'sweden', 'providerAInvalid'),
  refusable('updateProviderA', '4XX', 'which fields the PATCH call needs is not shown, and the refusal status is open', 'patchFields', OPEN),
  refusable('uploadProviderAIcon', '4XX', 'the icon must be a square PNG of 256x256 to 512x512 pixels, and the refusal status is open', 'iconDimensions', OPEN),
  refusable('offboardProviderA', '4XX', 'the company may have no provider A registration, and the refusal status is open', OPEN),
  refusable('lookupProviderASsns', '400', 'provider A registration must be complete', 'providerALookup'),
  { operationId: 'deleteCompany', check: 'not_a_server_error', allows: '501', rule: 'a deployment may disable every delete request, and says so with 501', quotes: ['deleteDisabled'] },
];

/** Checks the spec export turns off for every operation. */
const SPEC_DISABLED: readonly DisabledCheck[] = [
  {
    check: 'negative_data_rejection',
    rule: 'the spec states a refusal only for the calls of its Errors table, and even there its rules have readings (what "alphanumeric" or a valid e-mail address admits); accepting what the schema calls invalid is leniency, not a contradiction. No 5xx for such requests still holds (not_a_server_error)',
    quotes: [OPEN, 'userName'],
  },
  { check: 'unsupported_method', rule: 'the spec gives no status for a method it does not list, so a 404 is as good as a 405', quotes: [OPEN] },
  { check: 'allow_header_conformance', rule: 'the spec says nothing of the Allow header of a refused method', quotes: [OPEN] },
];

/**
 * Every check of Schemathesis's `--checks all` but max_response_time, which `all` turns on with a
 * 10 s limit (ST112). The spec gives no response time, so a slow answer is no failure of a sentence,
 * and one judged on a clock fails on a loaded machine: the report lists answers slower than
 * SLOW_ANSWER_MS as warnings instead. A call not answered within REQUEST_TIMEOUT_SECONDS is still
 * an error.
 */
export const FUZZ_CHECKS = [
  'not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_headers_conformance',
  'response_schema_conformance', 'negative_data_rejection', 'positive_data_acceptance', 'missing_required_header',
  'unsupported_method', 'allow_header_conformance', 'use_after_free', 'ensure_resource_availability', 'ignored_auth',
  'object_level_authorization',
] as const;

/** The limit `--checks all` would judge answers by; slower ones are the report's warnings. */
export const SLOW_ANSWER_MS = 10_000;

/**
 * How long Schemathesis waits for an answer before it calls the call an error. Its own default is
 * SLOW_ANSWER_MS, which would turn the slow answers back into errors; three times that still bounds a hang.
 */
export const REQUEST_TIMEOUT_SECONDS = 30;

/** The check left out for every export, with why (no spec sentence to quote: the spec is silent on time). */
export const UNTIMED: DisabledCheck = {
  check: 'max_response_time',
  rule: `the spec gives no response time: an answer slower than ${SLOW_ANSWER_MS / 1000} s is a warning of the report, not a failure (a call not answered within ${REQUEST_TIMEOUT_SECONDS} s is still an error)`,
};

/**
 * What the hooks (hooks.py, filter_failure) relax for every export, each with its ground. They
 * drop a failure only in the case named; the check stays on for everything else.
 */
export const HOOK_RELAXATIONS: readonly DisabledCheck[] = [
  {
    check: 'not_a_server_error',
    rule: 'a 501 for a method the spec does not list at a path is no server error: RFC 9110 §15.6.2 calls 501 "the appropriate response when the server does not recognize the request method", and the spec gives no status for such a method (a 501 for a listed method still fails)',
    quotes: [OPEN],
  },
  {
    check: 'ensure_resource_availability',
    rule: 'a resource created by work the spec calls background may appear later: a 404 for a resource just created is a finding only when the same request still answers 404 after three times the longest background work the setup saw the target do (at least 2 s, at most --async-timeout seconds)',
    quotes: ['rules', 'backgroundWork'],
  },
  {
    check: 'positive_data_acceptance',
    rule: 'the spec calls fields required without saying whether an empty string counts as given, and names "a required value is missing" among refusals: a 4xx for a request whose required field is "" is accepted (the fields: every required string field of every request body, listed in the report)',
    quotes: ['userInvalid', 'deleteBody'],
  },
];

type Json = Record<string, any>;

/**
 * Every required string field of every JSON request body of the document, per operation: paths of
 * property names (in the document's casing), through required objects. The hooks accept a 4xx when
 * one of them is sent as "".
 */
export function requiredStringFields(document: Json): Record<string, string[][]> {
  const components = (document.components?.schemas ?? {}) as Record<string, Json>;
  const resolve = (schema: Json | undefined, depth = 0): Json | undefined => {
    if (schema === undefined || depth > 10) return schema;
    if (typeof schema.$ref === 'string') return resolve(components[schema.$ref.replace('#/components/schemas/', '')], depth + 1);
    return schema;
  };
  const isString = (schema: Json | undefined): boolean => {
    const resolved = resolve(schema);
    if (resolved === undefined) return false;
    const types = Array.isArray(resolved.type) ? resolved.type : [resolved.type];
    if (types.includes('string')) return true;
    return [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])].some((branch: Json) => isString(branch));
  };
  const walk = (schema: Json | undefined, path: string[], out: string[][], depth: number): void => {
    const resolved = resolve(schema);
    if (resolved === undefined || depth > 4) return;
    for (const part of resolved.allOf ?? []) walk(part, path, out, depth + 1);
    const properties = (resolved.properties ?? {}) as Record<string, Json>;
    for (const name of (resolved.required ?? []) as string[]) {
      const property = properties[name];
      if (property === undefined) continue;
      if (isString(property)) out.push([...path, name]);
      else walk(property, [...path, name], out, depth + 1);
    }
  };
  const result: Record<string, string[][]> = {};
  for (const operations of Object.values((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(operations)) {
      const schema = operation?.requestBody?.content?.['application/json']?.schema as Json | undefined;
      if (schema === undefined || typeof operation.operationId !== 'string') continue;
      const fields: string[][] = [];
      walk(schema, [], fields, 0);
      if (fields.length > 0) result[operation.operationId] = fields;
    }
  }
  return result;
}

/** The methods the document lists per path, lower case, for the 501 rule of the hooks. */
export function listedMethods(document: Json): Record<string, string[]> {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return Object.fromEntries(Object.entries((document.paths ?? {}) as Record<string, Json>).map(([path, item]) => [path, Object.keys(item).filter((key) => methods.includes(key))]));
}

/** Seconds hooks.py repeats a call that missed a just-created resource (ST302): see HOOK_RELAXATIONS. */
export function resourceWaitSeconds(backgroundMs: number, asyncTimeoutSeconds: number): number {
  return Math.min(asyncTimeoutSeconds, Math.max(2, (3 * backgroundMs) / 1000));
}

export function relaxationsOf(exportKind: FuzzExport): readonly Relaxation[] {
  return exportKind === 'spec' ? SPEC_RELAXATIONS : SANDBOX_RELAXATIONS;
}

export function disabledChecksOf(exportKind: FuzzExport): readonly DisabledCheck[] {
  return exportKind === 'spec' ? SPEC_DISABLED : [];
}

const quoted = (quotes: SpecQuote[] | undefined): string => (quotes === undefined || quotes.length === 0 ? '' : ` (spec: ${quotes.map((quote) => `"${SPEC_QUOTES[quote]}"`).join(' ')})`);

/** One line per relaxation, for --help, docs/fuzz.md and the report. */
export function describeRelaxations(exportKind: FuzzExport = 'spec'): string[] {
  return [
    ...[UNTIMED, ...disabledChecksOf(exportKind)].map((disabled) => `every operation: ${disabled.check} is off, because ${disabled.rule}${quoted(disabled.quotes)}`),
    ...relaxationsOf(exportKind).map((relaxation) => `${relaxation.operationId}: ${relaxation.check} also accepts ${relaxation.allows}, because ${relaxation.rule}${quoted(relaxation.quotes)}`),
    ...HOOK_RELAXATIONS.map((relaxation) => `every operation: ${relaxation.check} is relaxed (hooks.py), because ${relaxation.rule}${quoted(relaxation.quotes)}`),
    'every JSON body: generated bodies with a __proto__ key at any depth are not sent, because a service written in JavaScript may refuse them (400) and JSON Schema can forbid the key only where a schema names the properties',
  ];
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}

export interface FuzzConfigInput {
  apiKey: string;
  clientToken: string;
  /** A second company's token, for operations that change the company they are called for. */
  scratchClientToken: string;
  /** Which export the run uses; the relaxations follow it. Default: spec. */
  exportKind?: FuzzExport;
  /** The run's proxy (credentials included: the file is private) and TLS settings (issue 31). */
  proxy?: string;
  /** A CA bundle path (the system roots with --ca-cert), or false for --insecure. */
  tlsVerify?: string | false;
  requestCert?: string;
  requestCertKey?: string;
}

/** Operations that change the company of their token (its CountryCode, its details): they get the scratch company. */
const SCRATCH_OPERATIONS = ['setCompanyDetails'];

const DEFAULTS: Record<Check, string[]> = {
  positive_data_acceptance: POSITIVE_DEFAULT,
  negative_data_rejection: NEGATIVE_DEFAULT,
  not_a_server_error: NOT_A_SERVER_ERROR_DEFAULT,
};

/** The schemathesis.toml text. It holds credentials: write it with mode 0600 and delete it after the run. */
export function fuzzConfigToml(input: FuzzConfigInput): string {
  const relaxations = relaxationsOf(input.exportKind ?? 'spec');
  const lines = [
    '# Written by dxs fuzz for one run; deleted afterwards.',
    `hooks = ${tomlString(HOOKS_FILE)}`,
    ...(input.proxy === undefined ? [] : [`proxy = ${tomlString(input.proxy)}`]),
    ...(input.tlsVerify === undefined ? [] : [`tls-verify = ${input.tlsVerify === false ? 'false' : tomlString(input.tlsVerify)}`]),
    ...(input.requestCert === undefined ? [] : [`request-cert = ${tomlString(input.requestCert)}`]),
    ...(input.requestCertKey === undefined ? [] : [`request-cert-key = ${tomlString(input.requestCertKey)}`]),
    '',
    '[headers]',
    `APIkey = ${tomlString(input.apiKey)}`,
    `ClientToken = ${tomlString(input.clientToken)}`,
    '',
    '# Every operation must get an answer other than 401/403 and 404.',
    '[warnings]',
    'fail-on = ["missing_auth", "missing_test_data"]',
    '',
    '# Long enough scenarios that the links (register -> token -> status, upload -> send -> status) are followed.',
    '[phases.stateful]',
    'max-steps = 200',
  ];
  // One entry per operation: Schemathesis applies the first entry that matches.
  const operationIds = [...new Set([...SCRATCH_OPERATIONS, ...relaxations.map((relaxation) => relaxation.operationId)])];
  for (const operationId of operationIds) {
    const own = relaxations.filter((candidate) => candidate.operationId === operationId);
    lines.push('', ...own.map((relaxation) => `# ${relaxation.rule}`), '[[operations]]', `include-operation-id = ${tomlString(operationId)}`);
    if (SCRATCH_OPERATIONS.includes(operationId)) lines.push(`headers = { APIkey = ${tomlString(input.apiKey)}, ClientToken = ${tomlString(input.scratchClientToken)} }`);
    for (const relaxation of own) {
      const statuses = [...DEFAULTS[relaxation.check], relaxation.allows];
      lines.push(`checks.${relaxation.check}.expected-statuses = [${statuses.map(tomlString).join(', ')}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The --checks argument of the run: FUZZ_CHECKS but those the export turns off. */
export function checksArguments(exportKind: FuzzExport): string[] {
  const disabled = new Set(disabledChecksOf(exportKind).map((item) => item.check));
  return ['--checks', FUZZ_CHECKS.filter((check) => !disabled.has(check)).join(',')];
}
