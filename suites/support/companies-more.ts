// Helpers of the company, token and security suites beyond the framework's: robustness bodies,
// the shape of server errors on the calls whose 500 the spec describes, service activation with
// the credential the target takes, and the optional settings that a few checks need.
import type { CompanyInput } from '../../fixtures/bodies.ts';
import { bodyIsJsonString, type Check } from '../../lib/checks.ts';
import { expectCheck } from './verdict.ts';
import { defaultConfig } from '../../sandbox/config.ts';
import type { ApiClient, ApiResponse, Auth } from './client.ts';
import { blockOnWait, createClientToken, pollUntil, registerCompany, registrationCause, SetupFailed, type RegisteredCompany } from './companies.ts';
import { requirePrerequisites, unlessTransport } from './prerequisites.ts';
import type { RunContext } from './run-context.ts';

/** A JSON body cut short: every JSON endpoint must refuse it with a 4xx. */
export const TRUNCATED_JSON = '{"Name": "dxs truncated", "Email": ';

/** "Oversized" bodies stay bounded: a few MB, the size the catalog names. */
export const OVERSIZED_BYTES = 5 * 1024 * 1024;
let oversizedText: string | undefined;

/** A string of OVERSIZED_BYTES characters, built once per worker. */
export function oversizedString(): string {
  oversizedText ??= 'x'.repeat(OVERSIZED_BYTES);
  return oversizedText;
}

/** A value of another JSON type than the one given: never silently coerced to a string by a binder. */
export function wrongTypeOf(value: unknown): unknown {
  if (Array.isArray(value)) return 'dxs-not-an-array';
  if (value !== null && typeof value === 'object') return ['dxs-not-an-object'];
  return { dxsWrongType: true };
}

/**
 * Where the spec names a 500 (add user, add identifier) or a 500 and a 501 (delete), the answer of
 * a server error is that status with "a JSON string with a message", under either reading of the
 * phrase (bodyIsJsonString: the message as a JSON string, or a JSON object with a message field).
 * Nothing provokes a 500; any 5xx that does come back is held to this.
 */
export function serverErrorIsJsonString(allowed: readonly number[] = [500]): Check {
  return (response) => {
    const text = (response.text ?? '').slice(0, 200);
    if (response.status < 500) return { check: 'serverErrorIsJsonString', ok: true, expected: `no 5xx, or ${allowed.join(' or ')} with a JSON string`, actual: `status ${response.status}`, severity: 'failure' };
    const ok = allowed.includes(response.status) && bodyIsJsonString(response).ok;
    return { check: 'serverErrorIsJsonString', ok, expected: `a server error answered ${allowed.join(' or ')} with a JSON string with a message (a JSON string, or a JSON object with a message field)`, actual: `status ${response.status}, body ${text || '(empty)'}`, severity: 'failure' };
  };
}

/**
 * A POST whose every answer is also held to serverErrorIsJsonString under `requirement` (the
 * calls whose 500 the spec describes). `rawBody` is sent as application/json.
 */
export async function postHoldingServerErrors(
  api: ApiClient,
  path: string,
  auth: Auth,
  body: { json?: unknown; rawBody?: string },
  requirement: string,
  allowed: readonly number[] = [500],
): Promise<ApiResponse> {
  const response = await api.post(path, { auth, ...body, ...(body.rawBody !== undefined ? { contentType: 'application/json' } : {}) });
  await expectCheck(response, [serverErrorIsJsonString(allowed)], { requirement });
  return response;
}

/** Neither the body nor any header of the answer carries one of the values (credentials). */
export function echoesNone(values: readonly string[], describe: string): Check {
  return (response) => {
    const haystack = `${response.text ?? ''}\n${Object.values(response.headers).join('\n')}`;
    const found = values.filter((value) => value.length >= 8 && haystack.includes(value));
    return {
      check: 'echoesNone',
      ok: found.length === 0,
      expected: `an answer that does not echo ${describe}`,
      // The values are secrets: the message says how many, never which.
      actual: found.length === 0 ? 'none echoed' : `${found.length} credential value(s) echoed in the answer`,
      severity: 'failure',
    };
  };
}

/** A registration body with every optional field of the Company input set (CMP-REG-09). */
export function withEveryOptionalField(input: CompanyInput): CompanyInput {
  return {
    ...input,
    AltName: `${input.Name} Avdelning`,
    StreetName: input.StreetName ?? 'Storgatan 1',
    Department: 'Ekonomi',
    PostBox: 'Box 123',
    City: input.City ?? 'Stockholm',
    PostalZone: input.PostalZone ?? '111 22',
    PostalCode: input.PostalZone ?? '111 22',
    LanguageCode: input.LanguageCode ?? 'sv',
    PhoneNo: input.PhoneNo ?? '+46 8 123 456',
    FaxNo: '+46 8 123 457',
    VatNo: input.VatNo,
    GLN: input.GLN,
  };
}

/** Waits for Status Registered with a fresh token (a shared prerequisite); returns the token and the last status answer. */
export async function untilRegistered(api: ApiClient, target: RunContext, erpId: string): Promise<{ token: string; status: ApiResponse }> {
  requirePrerequisites('client-token', 'registration');
  let token: string | undefined;
  let last: ApiResponse | undefined;
  await pollUntil(target, `company ${erpId} reaching Status Registered`, async () => {
    token ??= (await createClientToken(api, erpId)).token;
    if (token === undefined) return undefined;
    last = await api.get('/companies/status', { auth: { clientToken: token } });
    return last.status === 200 && last.data?.Status === 'Registered' ? true : undefined;
  }).catch((error: Error) => {
    if (!(error instanceof SetupFailed) || token === undefined) throw error;
    blockOnWait(error, registrationCause(target, last));
  });
  return { token: token as string, status: last as ApiResponse };
}

export type ActivationScheme = { clientToken: string } | 'apiKey';

/**
 * Which credential service activation takes is not shown (CMP-SVC-09): the client token is tried
 * first, the API key when the token is refused as a credential (401, 403).
 */
export async function activateServices(api: ApiClient, company: RegisteredCompany, body: unknown): Promise<{ response: ApiResponse; auth: Auth; tried: ApiResponse[] }> {
  const withToken = await api.post('/companies/services', { auth: { clientToken: company.token }, json: body });
  if (withToken.status !== 401 && withToken.status !== 403) return { response: withToken, auth: { clientToken: company.token }, tried: [withToken] };
  const withKey = await api.post('/companies/services', { auth: 'apiKey', json: body });
  return { response: withKey, auth: 'apiKey', tried: [withToken, withKey] };
}

/**
 * A company of the test's own, registered and with its services activated. "Activated" may mean
 * Registered or activated through POST /companies/services (the readings in schemas/README.md):
 * after both, the client token is the credential rule 5 names for setting details under either.
 * The activation itself is judged in companies-services.spec.ts, not here.
 */
export async function activatedCompany(api: ApiClient, target: RunContext, input: CompanyInput, searchId: string, early?: Promise<ApiResponse | undefined>): Promise<RegisteredCompany> {
  const company = await registerCompany(api, target, input, 'apiKey', early);
  await activateServices(api, company, firstActivation(company, searchId));
  const auth = { clientToken: company.token };
  await pollUntil(target, 'the company readable after its activation', async () => ((await api.get('/companies/status', { auth })).status === 200 ? true : undefined)).catch(unlessTransport(undefined));
  return company;
}

/** The body of a first activation of the company: RegistrationId is the CompanyId (see the suite). */
export function firstActivation(company: RegisteredCompany, searchId: string): Record<string, string> {
  return { RegistrationId: company.companyId, SearchId: searchId, ErpId: company.erpId, CountryCode: company.input.CountryCode, OrgNo: company.input.OrgNo };
}

/**
 * Settings a few checks need and the spec gives no way to obtain through the API. Outside the
 * embedded sandbox they come from the environment (dxs test sets it from --locked-out-user-name and the
 * like, or their config keys: WORKER_SETTINGS of lib/config.ts); without them the check is skipped with the reason.
 *   DXS_LOCKED_OUT_USER_NAME, DXS_NOT_APPROVED_USER_NAME  user names that exist but are locked out / not approved (CMP-USR-11)
 *   DXS_ERP_ID_WITHOUT_IDENTIFIERS                        ErpId of a company of the API key that may not add identifiers (CMP-IDN-05)
 *   DXS_IDENTIFIER_TYPES                                  the target's agreed identifier types, comma-separated (CMP-IDN-01, CMP-IDN-04)
 */
export interface TargetSettings {
  lockedOutUserName?: string;
  notApprovedUserName?: string;
  erpIdWithoutIdentifiers?: string;
  /**
   * Whether the run knows the target's agreed identifier types ("agreed beforehand with the
   * operator"): the embedded sandbox's, or DXS_IDENTIFIER_TYPES (comma-separated, used by the fixtures).
   */
  identifierTypesKnown: boolean;
}

export function targetSettings(target: RunContext, env: Record<string, string | undefined> = process.env): TargetSettings {
  const fromEnv: TargetSettings = {
    lockedOutUserName: env.DXS_LOCKED_OUT_USER_NAME || undefined,
    notApprovedUserName: env.DXS_NOT_APPROVED_USER_NAME || undefined,
    erpIdWithoutIdentifiers: env.DXS_ERP_ID_WITHOUT_IDENTIFIERS || undefined,
    identifierTypesKnown: configuredIdentifierTypes(env) !== undefined,
  };
  if (!target.embedded) return fromEnv;
  // The embedded sandbox runs with its default configuration, which seeds such users.
  const sandbox = defaultConfig();
  return {
    lockedOutUserName: fromEnv.lockedOutUserName ?? sandbox.lockedOutUserNames[0],
    notApprovedUserName: fromEnv.notApprovedUserName ?? sandbox.notApprovedUserNames[0],
    erpIdWithoutIdentifiers: fromEnv.erpIdWithoutIdentifiers,
    identifierTypesKnown: true,
  };
}

/** The target's agreed identifier types from DXS_IDENTIFIER_TYPES, when given. */
export function configuredIdentifierTypes(env: Record<string, string | undefined> = process.env): string[] | undefined {
  const types = (env.DXS_IDENTIFIER_TYPES ?? '').split(',').map((type) => type.trim()).filter(Boolean);
  return types.length > 0 ? types : undefined;
}
