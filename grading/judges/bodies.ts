// Request bodies against the spec export (schemas/openapi-spec.ts): the required fields, types,
// enumerations and formats the spec gives, and nothing of the sandbox's own choices. Names are read
// in any casing (the spec allows PascalCase and camelCase), so a camelCase client passes.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { normaliseKeys } from '../../lib/casing.ts';
import { DXS_FORMATS, extendedDateTimeMs } from '../../schemas/formats.ts';
import { describeErrors } from '../../schemas/describe-errors.ts';
import { buildOpenApi } from '../../schemas/openapi.ts';
import { fieldAt, type Finding, type Judge } from '../graded-call.ts';

interface BodyRule {
  component: string;
  /** The requirement a schema error counts against. */
  id: string;
  /** Errors at these paths count against another requirement. */
  elsewhere?: Array<{ path: RegExp; id: string }>;
  /** Fields the statement names that the spec export leaves optional (it drops what the spec only implies). */
  present?: string[];
}

/** A required field sent as "": a warning, and what the grading sandbox's refusal of such a call counts against. */
export const EMPTY_REQUIRED = 'CLI-BODY-21';

const PROCESSES = { path: /^\/Processes\//, id: 'CLI-BODY-06' };

const RULES: Record<string, BodyRule> = {
  'POST /clienttokens/create': { component: 'ClientTokenCreateRequest', id: 'CLI-BODY-01' },
  'POST /clienttokens/revoke': { component: 'ClientTokenRevokeRequest', id: 'CLI-BODY-02' },
  'POST /clienttokens/createsearchtoken': { component: 'SearchTokenCreateRequest', id: 'CLI-BODY-03', present: ['SearchId'] },
  'POST /companies/register': { component: 'CompanyRegisterRequest', id: 'CLI-BODY-04', elsewhere: [PROCESSES] },
  'POST /companies/details': { component: 'CompanyDetailsRequest', id: 'CLI-BODY-05', elsewhere: [PROCESSES] },
  'POST /companies/services': { component: 'ServicesActivationRequest', id: 'CLI-BODY-07', elsewhere: [PROCESSES] },
  'POST /companies/users': { component: 'AddUserRequest', id: 'CLI-BODY-08', elsewhere: [{ path: /^\/CultureCode$/, id: 'CLI-BODY-09' }] },
  'POST /companies/identifiers': { component: 'AddIdentifierRequest', id: 'CLI-BODY-10', present: ['Type', 'Value'] },
  'POST /companies/delete': { component: 'DeleteRegistrationRequest', id: 'CLI-BODY-11' },
  'POST /buyerparties/lookup': { component: 'BuyerPartyLookupRequest', id: 'CLI-BODY-13', elsewhere: [{ path: /^\/PartyId$|^$/, id: 'CLI-BODY-12' }] },
  'POST /sellerparties/lookup': { component: 'SellerPartyLookupRequest', id: 'CLI-BODY-13', elsewhere: [{ path: /^\/PartyId$|^$/, id: 'CLI-BODY-12' }] },
  'POST /network/setup': { component: 'NetworkSetupRequest', id: 'CLI-BODY-14', elsewhere: [PROCESSES] },
  'POST /documents/outbound': { component: 'SendDocumentRequest', id: 'CLI-BODY-15', elsewhere: [{ path: /^\/SendDocumentAs\/Type$/, id: 'CLI-BODY-16' }] },
  'POST /documents/handled': { component: 'MarkHandledRequest', id: 'CLI-BODY-17', present: ['Documents'] },
  'POST /companies/deliverymethods/b2c/providera': { component: 'ProviderARegistrationRequest', id: 'CLI-BODY-18' },
  'PATCH /companies/deliverymethods/b2c/providera': { component: 'ProviderAPatchRequest', id: 'CLI-BODY-19' },
  'POST /companies/deliverymethods/b2c/providera/icon': { component: 'ProviderAIconRequest', id: 'CLI-BODY-19' },
  'POST /companies/deliverymethods/b2c/providera/lookup': { component: 'ProviderALookupRequest', id: 'CLI-BODY-19' },
  'POST /documents/outbound/list': { component: 'OutboundListRequest', id: 'CLI-BODY-20' },
};

/** The requirement a refusal of a body field counts against ("Document.DocumentUri", "Processes[0]"; "" for the body as a whole). */
export function bodyRequirement(endpoint: string, field: string): string | undefined {
  const rule = RULES[endpoint];
  if (rule === undefined) return undefined;
  const pointer = field === '' ? '' : `/${field.replace(/\[(\d+)\]/g, '.$1').split('.').join('/')}`;
  return rule.elsewhere?.find((other) => other.path.test(pointer) || (pointer !== '' && other.path.test(`${pointer}/`)))?.id ?? rule.id;
}

const SPEC_ID = 'https://dxs.invalid/client-check/spec-export';
let validators: Map<string, ValidateFunction> | undefined;
let components: Record<string, Record<string, unknown>> | undefined;

function validatorFor(component: string): ValidateFunction {
  if (validators === undefined) {
    validators = new Map();
    // date-time as the spec export reads it (ISO 8601 in its extended form, any offset form), read
    // by the function the grading sandbox reads it with: one verdict on every value.
    const ajv = new Ajv2020({ allErrors: true, strict: false, formats: { ...DXS_FORMATS, 'date-time': (value: string) => extendedDateTimeMs(value) !== undefined } });
    const document = buildOpenApi({ casing: 'pascal' }) as { components: { schemas: Record<string, Record<string, unknown>> } };
    components = document.components.schemas;
    ajv.addSchema({ $id: SPEC_ID, components: document.components });
    for (const rule of Object.values(RULES)) {
      if (!validators.has(rule.component)) validators.set(rule.component, ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${rule.component}` }));
    }
  }
  return validators.get(component) as ValidateFunction;
}

type SchemaNode = { $ref?: string; required?: string[]; properties?: Record<string, SchemaNode>; items?: SchemaNode; allOf?: SchemaNode[] };

/** The fields a schema marks required that the body sends as "", at any depth ("Document.DocumentUri"). */
function emptyRequired(schema: SchemaNode | undefined, value: unknown, path = '', depth = 0): string[] {
  if (schema === undefined || depth > 8) return [];
  if (schema.$ref !== undefined) return emptyRequired(components?.[schema.$ref.split('/').pop() as string] as SchemaNode | undefined, value, path, depth + 1);
  const found = (schema.allOf ?? []).flatMap((part) => emptyRequired(part, value, path, depth + 1));
  if (Array.isArray(value)) return [...found, ...value.flatMap((item, index) => emptyRequired(schema.items, item, `${path}[${index}]`, depth + 1))];
  if (typeof value !== 'object' || value === null) return found;
  const record = value as Record<string, unknown>;
  for (const name of schema.required ?? []) if (typeof record[name] === 'string' && (record[name] as string).trim() === '') found.push(path === '' ? name : `${path}.${name}`);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (record[name] !== undefined) found.push(...emptyRequired(property, record[name], path === '' ? name : `${path}.${name}`, depth + 1));
  }
  return found;
}

/** An error's path, with the missing property of a `required` error appended. */
function errorPath(error: ErrorObject): string {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  return missing === undefined ? error.instancePath : `${error.instancePath}/${missing}`;
}

export const judgeBodies: Judge = ({ calls }) => {
  const findings: Finding[] = [];
  for (const call of calls) {
    const rule = RULES[call.endpoint];
    if (rule === undefined || call.provocation !== undefined) continue;
    // A body that is not JSON is CLI-CNV-02's; none at all is judged as an empty object.
    if (call.bodyError !== undefined) continue;
    const body = normaliseKeys(call.body ?? {});
    const validate = validatorFor(rule.component);
    const errors = validate(body) ? [] : [...(validate.errors ?? [])];
    const byId = new Map<string, string[]>();
    const own = (error: ErrorObject): string => rule.elsewhere?.find((other) => other.path.test(errorPath(error)))?.id ?? rule.id;
    for (const error of errors) byId.set(own(error), [...(byId.get(own(error)) ?? []), ...describeErrors([error])]);
    for (const name of rule.present ?? []) {
      const value = fieldAt(body, name);
      if (value === undefined || value === null || value === '') byId.set(rule.id, [...(byId.get(rule.id) ?? []), `(root) must have property '${name}'`]);
    }
    if (call.endpoint.endsWith('parties/lookup')) {
      const partyId = fieldAt(body, 'PartyId');
      if (typeof partyId !== 'string' || partyId.trim() === '') {
        if (!(byId.get('CLI-BODY-12') ?? []).length) byId.set('CLI-BODY-12', [`PartyId is ${partyId === undefined ? 'missing' : JSON.stringify(partyId)}`]);
      }
    }
    // The spec export leaves "" valid for a required string: whether it counts as given is not said (CLI-BODY-21).
    const empty = emptyRequired(components?.[rule.component] as SchemaNode | undefined, body);
    findings.push({
      id: EMPTY_REQUIRED, verdict: empty.length === 0 ? 'passed' : 'failed', seq: call.seq, check: `no field the spec marks required in ${rule.component} is sent as ""`,
      expected: 'a value in every required field', actual: empty.length === 0 ? 'none empty' : `sent as "": ${empty.join(', ')}`,
    });
    const ids = new Set([rule.id, ...(rule.elsewhere ?? []).map((other) => other.id)]);
    for (const id of ids) {
      const problems = byId.get(id);
      // A requirement about one field is exercised only by bodies that carry it (or must).
      if (problems === undefined && id !== rule.id && !(id === 'CLI-BODY-12') && !mentions(body, id)) continue;
      findings.push({
        id, verdict: problems === undefined ? 'passed' : 'failed', seq: call.seq, check: `the body of ${call.endpoint} matches the spec's ${rule.component}`,
        expected: 'the required fields, types and allowed values the spec gives', actual: problems === undefined ? 'matches' : [...new Set(problems)].join('; '),
      });
    }
  }
  return findings;
};

function mentions(body: unknown, id: string): boolean {
  switch (id) {
    case 'CLI-BODY-06':
      return fieldAt(body, 'Processes') !== undefined;
    case 'CLI-BODY-09':
      return fieldAt(body, 'CultureCode') !== undefined;
    case 'CLI-BODY-16':
      return fieldAt(body, 'SendDocumentAs.Type') !== undefined;
    default:
      return true;
  }
}
