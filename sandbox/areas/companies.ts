// Company registration and update, details, services activation, status, users, identifiers and
// deletion.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateApiKey, authenticateClientToken, requireApiKey, requireClientToken, requireEither } from '../auth.ts';
import { hasFault, hasVariant, sendBody, type AreaOptions, type SandboxContext } from '../context.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import { normaliseOrgNo, PROCESSES, type Company, type CompanyFields } from '../store.ts';
import { companyDetailsBody, companyStatusBody, unsetReading } from '../views.ts';
import {
  allowedValue, bodyOf, optionalBoolean, optionalString, optionalStringArray, requiredEmail, requiredString, type Body,
} from '../validate.ts';

const OPTIONAL_STRINGS = [
  'AltName', 'StreetName', 'Department', 'PostBox', 'City', 'PostalZone', 'PostalCode', 'LanguageCode', 'PhoneNo', 'FaxNo', 'VatNo', 'GLN',
] as const;

/**
 * Delete takes the APIkey (authentication rules 2 and 3). Its faults each let one request through
 * that the spec refuses, answered 202 as if accepted: a key that is not configured, no credential,
 * or a ClientToken alone (which then deletes its own company).
 */
function deleteCredentials(context: SandboxContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const apiKey = request.headers.apikey;
    if (typeof apiKey !== 'string' || apiKey === '') {
      if (request.headers.clienttoken !== undefined && hasFault(context, 'delete-client-token-accepted')) return authenticateClientToken(context, request);
      if (hasFault(context, 'delete-unauthenticated')) {
        request.auth = {};
        return;
      }
    } else if (!context.store.apiKeys.has(apiKey) && hasFault(context, 'delete-any-api-key')) {
      request.auth = { apiKey };
      return;
    }
    authenticateApiKey(context, request);
  };
}

/** The status a new registration starts in: Pending, or Processing / Registered with their variants. */
function initialStatus(context: SandboxContext): Company['Status'] {
  if (hasVariant(context, 'registered-at-once')) return 'Registered';
  return hasVariant(context, 'registration-processing') ? 'Processing' : 'Pending';
}

/**
 * Another company's record is answered as not found, like an id that does not exist; with the
 * foreign-403 variant an id that does exist elsewhere is 403.
 */
export function foreignOrNotFound(context: SandboxContext, existsElsewhere: boolean, what: string): ApiError {
  if (existsElsewhere && hasVariant(context, 'foreign-403')) return new ApiError(403, 'foreignResource', { what });
  return notFound(what);
}

export const CULTURE_CODES = ['en-GB', 'da-DK', 'fi-FI', 'is-IS', 'nn-NO', 'sv-SE'];

function countryCode(body: Body, formatsOpen: boolean): string {
  const value = requiredString(body, 'CountryCode');
  if (!formatsOpen && !/^[A-Za-z]{2}$/.test(value)) throw badRequest('fieldInvalid', { field: 'CountryCode', detail: 'expected a two-letter country code such as SE' });
  return value.toUpperCase();
}

export function processList(body: Body, name = 'Processes'): string[] | undefined {
  const processes = optionalStringArray(body, name);
  return processes?.map((process, index) => allowedValue(process, PROCESSES, `${name}[${index}]`));
}

/** Company input of Register (OrgNo required) or Set details (OrgNo optional). */
function companyFields(body: Body, orgNoRequired: boolean, context?: SandboxContext): CompanyFields {
  // "Length limits and formats of company fields: not shown": grading-open takes any string.
  const formatsOpen = context !== undefined && hasVariant(context, 'grading-open');
  const fields: CompanyFields = {
    ErpProduct: requiredString(body, 'ErpProduct'),
    Name: requiredString(body, 'Name'),
    Email: formatsOpen ? requiredString(body, 'Email') : requiredEmail(body, 'Email'),
    CountryCode: countryCode(body, formatsOpen),
    OrgNo: orgNoRequired ? requiredString(body, 'OrgNo') : optionalString(body, 'OrgNo'),
    IsVatRegistered: optionalBoolean(body, 'IsVatRegistered'),
    Processes: context !== undefined && hasFault(context, 'register-processes-unchecked') ? optionalStringArray(body, 'Processes') : processList(body),
  };
  for (const name of OPTIONAL_STRINGS) fields[name] = optionalString(body, name);
  return fields;
}

function sameOrgNo(left: string | undefined, right: string): boolean {
  return left !== undefined && normaliseOrgNo(left) === normaliseOrgNo(right);
}

export async function companiesArea(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const { store, engine } = context;
  const config = store.config;

  app.post('/companies/register', { preHandler: requireApiKey(context) }, async (request, reply) => {
    const body = bodyOf(request);
    const erpId = requiredString(body, 'ErpId');
    const fields = companyFields(body, !hasFault(context, 'register-orgno-optional'), context);
    const apiKey = request.auth.apiKey as string;
    // The fault: registering an ErpId again makes a second company instead of updating the first.
    const existing = hasFault(context, 'reregister-new-company') ? undefined : store.companyByErpId(apiKey, erpId);
    if (existing !== undefined) {
      // An update keeps the company (same CompanyId) and its registration status; with
      // reregister-pending it runs a new registration in the background.
      existing.Fields = { ...fields, Processes: fields.Processes ?? existing.Fields.Processes };
      if (hasVariant(context, 'reregister-pending') && existing.Status === 'Registered') {
        existing.Status = initialStatus(context);
        engine.registerCompany(existing);
      }
    } else {
      // A registration made after its Id's delete request is a new registration: a delete request
      // for it is a new request (202), not a duplicate of the one that ended the earlier registration.
      store.deleteRequests.delete(`${apiKey}\n${erpId}`);
      const company = store.createCompany(apiKey, erpId, fields);
      company.Status = initialStatus(context);
      engine.registerCompany(company);
    }
    if (hasVariant(context, 'register-no-body')) return reply.code(hasFault(context, 'register-200') ? 200 : 202).send();
    return sendBody(context, reply, hasFault(context, 'register-200') ? 200 : 202, {});
  });

  app.post('/companies/details', { preHandler: requireEither(context) }, async (request, reply) => {
    const body = bodyOf(request);
    let company = request.auth.company;
    // With a client token the RegistrationId is not used, but it is still a string when given.
    if (company !== undefined) optionalString(body, 'RegistrationId');
    // The fault: a CompanyId the spec does not list in the body picks the company whose details are set, whoever calls.
    const named = hasFault(context, 'details-company-from-body') && typeof body.CompanyId === 'string' ? store.companies.get(body.CompanyId) : undefined;
    if (named !== undefined) company = named;
    if (company === undefined) {
      const registrationId = requiredString(body, 'RegistrationId');
      const candidate = store.companies.get(registrationId);
      if (candidate === undefined || candidate.ApiKey !== request.auth.apiKey || candidate.Status === 'Deleted') {
        throw badRequest('registrationIdUnknown', { registrationId });
      }
      // activated-when-registered: a completed registration counts as the activation.
      if (candidate.Activated || (candidate.Status === 'Registered' && hasVariant(context, 'activated-when-registered'))) throw badRequest('companyActivated');
      company = candidate;
    }
    const fields = companyFields(body, false, context);
    company.Fields = {
      ...fields,
      OrgNo: fields.OrgNo ?? company.Fields.OrgNo,
      Processes: fields.Processes ?? company.Fields.Processes,
    };
    return reply.code(200).send();
  });

  const servicesAuth = hasVariant(context, 'services-apikey-only') ? requireApiKey(context) : hasVariant(context, 'services-token-only') ? requireClientToken(context) : requireEither(context);
  // The fault: a call with no credential at all is taken for the company of its ErpId.
  const servicesOpen = hasFault(context, 'services-unauthenticated');
  app.post('/companies/services', {
    preHandler: (request, reply, done) => (servicesOpen && request.headers.clienttoken === undefined && request.headers.apikey === undefined ? done() : servicesAuth(request, reply, done)),
  }, async (request, reply) => {
    const body = bodyOf(request);
    const erpId = requiredString(body, 'ErpId');
    const country = countryCode(body, hasVariant(context, 'grading-open'));
    const orgNo = requiredString(body, 'OrgNo');
    const registrationId = optionalString(body, 'RegistrationId');
    const searchId = optionalString(body, 'SearchId');
    const processes = processList(body);
    let company: Company | undefined = request.auth?.company;
    if (company === undefined && request.auth?.apiKey === undefined) {
      company = [...store.liveCompanies()].reverse().find((candidate) => candidate.ErpId === erpId);
      if (company === undefined) throw badRequest('companyNotFoundForErpId', { erpId });
    } else if (company === undefined) {
      company = store.companyByErpId(request.auth.apiKey as string, erpId);
      if (company === undefined) throw badRequest('companyNotFoundForErpId', { erpId });
    } else if (company.ErpId !== erpId) {
      throw badRequest('preregistrationMismatch', { field: 'ErpId', value: erpId });
    }
    if (company.Fields.CountryCode !== country) throw badRequest('preregistrationMismatch', { field: 'CountryCode', value: country });
    if (!sameOrgNo(company.Fields.OrgNo, orgNo) && !hasFault(context, 'services-orgno-unchecked')) throw badRequest('preregistrationMismatch', { field: 'OrgNo', value: orgNo });
    // Under the fault a call with no credential at all passes whatever the company's state: under the
    // reading of rule 5 where RegistrationId is a not yet activated company's credential, a call
    // without it carries none either, and the activation may still be running in the background.
    const unauthenticated = servicesOpen && request.headers.clienttoken === undefined && request.headers.apikey === undefined;
    if (!company.Activated && !unauthenticated) {
      if (registrationId === undefined || registrationId === '') throw badRequest('fieldRequired', { field: 'RegistrationId' });
      if (registrationId !== company.RegistrationId) throw badRequest('registrationIdUnknown', { registrationId });
      if (searchId === undefined || searchId === '') throw badRequest('fieldRequired', { field: 'SearchId' });
    }
    engine.activateServices(company, searchId, processes);
    if (hasVariant(context, 'register-no-body')) return reply.code(202).send();
    return sendBody(context, reply, 202, {});
  });

  // Synchronous and authenticating in the handler (see POST /clienttokens/create): a status poll
  // costs no hook runner and no promise.
  app.get('/companies/status', (request, reply) => {
    authenticateClientToken(context, request);
    const body: Record<string, unknown> = companyStatusBody(request.auth.company as Company, unsetReading(context.variants));
    if (hasFault(context, 'status-details-missing')) delete body.Details;
    if (hasFault(context, 'status-companyid-number')) body.CompanyId = Number.parseInt(String(body.CompanyId).replace(/\D/g, '').slice(0, 9) || '0', 10);
    if (hasFault(context, 'status-processes-string')) body.Details = { ...(body.Details as Record<string, unknown>), Processes: ((body.Details as { Processes?: string[] }).Processes ?? []).join(',') };
    sendBody(context, reply, 200, body);
  });

  app.get<{ Params: { CompanyId: string } }>('/companies/details/:CompanyId', { preHandler: requireClientToken(context) }, async (request, reply) => {
    const company = request.auth.company as Company;
    // Another company's details are answered as not found, like an id that does not exist (a sandbox
    // choice: the spec does not make details private, and another implementation may answer them).
    if (request.params.CompanyId !== company.CompanyId) throw foreignOrNotFound(context, store.companies.has(request.params.CompanyId), `company ${request.params.CompanyId}`);
    const body: Record<string, unknown> = companyDetailsBody(company, hasVariant(context, 'capability-unlisted'), unsetReading(context.variants));
    if (hasFault(context, 'details-invoicechecks-string')) body.HasInvoiceChecks = String(body.HasInvoiceChecks);
    if (hasFault(context, 'details-peppol-malformed')) body.PeppolParticipantIdentifiers = (body.PeppolParticipantIdentifiers as string[]).map((identifier) => identifier.replace('::', ':'));
    return sendBody(context, reply, 200, body);
  });

  app.post('/companies/users', { preHandler: requireClientToken(context) }, async (request, reply) => {
    const roles = request.auth.token?.UserRoles;
    // A token made for a User without the Admin role may not add users (sandbox choice).
    if (roles !== undefined && !roles.some((role) => role.toLowerCase() === 'admin')) throw new ApiError(401, 'userPrivilegeMissing');
    const body = bodyOf(request);
    const email = hasFault(context, 'user-email-unchecked') ? requiredString(body, 'Email') : requiredEmail(body, 'Email');
    const userName = optionalString(body, 'UserName');
    if (userName !== undefined && !/^[A-Za-z0-9]{5,}$/.test(userName) && !hasFault(context, 'user-username-unchecked')) throw badRequest('userNameInvalid');
    const cultureCodeValue = optionalString(body, 'CultureCode');
    const cultureCode = cultureCodeValue === undefined ? 'en-GB' : hasFault(context, 'user-culture-unchecked') ? cultureCodeValue : allowedValue(cultureCodeValue, CULTURE_CODES, 'CultureCode');
    const name = userName ?? email;
    const existing = store.users.get(name.toLowerCase());
    if (existing !== undefined) {
      const lower = name.toLowerCase();
      if (config.lockedOutUserNames.some((locked) => locked.toLowerCase() === lower)) throw new ApiError(409, 'userLockedOut', { userName: name });
      if (config.notApprovedUserNames.some((pending) => pending.toLowerCase() === lower)) throw new ApiError(409, 'userNotApproved', { userName: name });
      throw new ApiError(hasFault(context, 'user-conflict-400') ? 400 : 409, 'userNameTaken', { userName: name });
    }
    const company = request.auth.company as Company;
    store.users.set(name.toLowerCase(), { UserName: name, Email: email, CultureCode: cultureCode, CompanyId: company.CompanyId });
    if (hasVariant(context, 'user-no-body')) return reply.code(200).send();
    return sendBody(context, reply, 200, { UserName: name, Email: email, CultureCode: cultureCode });
  });

  app.post('/companies/identifiers', { preHandler: requireClientToken(context) }, async (request, reply) => {
    const body = bodyOf(request);
    for (const field of ['Type', 'Value']) {
      const value = body[field];
      if (value === undefined || value === null || value === '') throw badRequest('identifierArgumentNull', { field });
    }
    const typeValue = requiredString(body, 'Type');
    const value = requiredString(body, 'Value');
    if (!config.identifiersEnabled) throw badRequest('identifiersNotAllowed');
    const type = config.identifierTypes.find((candidate) => candidate.toLowerCase() === typeValue.toLowerCase()) ?? (hasFault(context, 'identifier-type-unchecked') ? typeValue : undefined);
    if (type === undefined) throw badRequest('identifierTypeUnsupported', { value: typeValue, allowed: config.identifierTypes.join(', ') });
    const company = request.auth.company as Company;
    const exists = company.Identifiers.some((identifier) => identifier.Type === type && identifier.Value === value);
    if (!exists) company.Identifiers.push({ Type: type, Value: value });
    if (hasVariant(context, 'identifier-200') && !hasFault(context, 'identifier-202')) return reply.code(200).send();
    return sendBody(context, reply, hasFault(context, 'identifier-202') ? 202 : exists ? 200 : 201, { Type: type, Value: value });
  });

  app.post('/companies/delete', { preHandler: deleteCredentials(context) }, async (request, reply) => {
    if (!config.deletesEnabled) throw new ApiError(501, 'deletesDisabled');
    // A company, an unknown key or no key at all come only from deleteCredentials' faults.
    if (request.auth.company !== undefined) {
      engine.deleteCompany(request.auth.company);
      return reply.code(202).send();
    }
    const apiKey = request.auth.apiKey;
    if (apiKey === undefined || !store.apiKeys.has(apiKey)) return reply.code(202).send();
    if (!store.apiKeys.get(apiKey)?.Roles.has('DeleteRegistration') && !hasFault(context, 'delete-role-ignored')) throw new ApiError(401, 'deleteRoleMissing');
    const body = bodyOf(request);
    if (hasFault(context, 'delete-id-optional') && (body.Id === undefined || body.Id === null || body.Id === '')) return reply.code(202).send();
    const id = requiredString(body, 'Id');
    const requestKey = `${apiKey}\n${id}`;
    if (store.deleteRequests.has(requestKey)) return reply.code(hasFault(context, 'delete-duplicate-202') ? 202 : 200).send();
    store.deleteRequests.add(requestKey);
    if (hasFault(context, 'delete-every-api-key')) {
      for (const key of store.apiKeys.keys()) engine.deleteCompany(store.companyByErpId(key, id));
    } else {
      engine.deleteCompany(store.companyByErpId(apiKey, id));
    }
    return reply.code(202).send();
  });
}
