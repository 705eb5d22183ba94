// Provider A, the business-to-consumer delivery method for Swedish companies: registration (with
// the tenant conflict), the record, patch, icon, offboarding and the SSN lookup.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireClientToken } from '../auth.ts';
import { hasFault, hasVariant, locationOf, sendBody, type AreaOptions, type SandboxContext } from '../context.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import { normaliseOrgNo, type Company, type ProviderARecord } from '../store.ts';
import { allowedValue, bodyOf, optionalString, requiredEmail, requiredString, optionalEmail, type Body } from '../validate.ts';

const PATH = '/companies/deliverymethods/b2c/providera';
export const MAX_SSNS = 500_000;
export const MAX_ICON_BYTES = 1024 * 1024;
/** Icons kept per company; older ones are forgotten. */
const MAX_ICONS = 5;
const PATCH_FIELDS = ['DisplayName', 'OrgNo', 'ContactFirstName', 'ContactLastName', 'ContactPhone', 'ContactPersonEmail', 'GeneralEmail'];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Swedish organisation number: ten digits, optionally NNNNNN-NNNN, or twelve with the century prefix 16. */
const SWEDISH_ORG_NO = /^(16)?\d{6}-?\d{4}$/;
/** Swedish VAT number: SE, the ten-digit organisation number, 01. */
const SWEDISH_VAT_NO = /^SE\d{10}01$/i;
const PHONE = /^\+?[0-9][0-9 ()-]{4,24}$/;

function swedishCompany(context: SandboxContext, request: FastifyRequest): Company {
  const company = request.auth.company as Company;
  if (company.Fields.CountryCode !== 'SE' && !hasFault(context, 'providera-not-swedish')) {
    throw new ApiError(hasVariant(context, 'providera-not-swedish-403') ? 403 : 400, 'providerANotSwedish');
  }
  return company;
}

function nonEmpty(body: Body, name: string): string | undefined {
  const value = optionalString(body, name);
  if (value !== undefined && value.trim() === '') throw badRequest('fieldRequired', { field: name });
  return value;
}

function checkOrgNo(value: string): string {
  if (!SWEDISH_ORG_NO.test(value.trim())) throw badRequest('fieldInvalid', { field: 'OrgNo', detail: 'expected a Swedish organisation number such as 556677-8899' });
  return value.trim();
}

function checkPhone(value: string): string {
  if (!PHONE.test(value.trim())) throw badRequest('fieldInvalid', { field: 'ContactPhone', detail: 'expected a phone number such as +46 8 123 456' });
  return value.trim();
}

function mustAccept(body: Body, name: string): void {
  const value = body[name];
  if (value === undefined || value === null) throw badRequest('fieldRequired', { field: name });
  if (typeof value !== 'boolean') throw badRequest('fieldType', { field: name, type: 'a boolean' });
  if (!value) throw badRequest('providerAMustAccept', { field: name });
}

/** `YYYY-MM-DD HH:mm` in UTC, as the spec writes agreementStart. */
export function agreementStartText(date: Date): string {
  return date.toISOString().slice(0, 16).replace('T', ' ');
}

/** providera-record-to-unregistered: a company that never registered is answered the record of the latest one of its API key that did. */
function leakedRecord(context: SandboxContext, company: Company): ProviderARecord | undefined {
  if (!hasFault(context, 'providera-record-to-unregistered')) return undefined;
  let latest: ProviderARecord | undefined;
  for (const other of context.store.liveCompanies()) if (other.ApiKey === company.ApiKey && other.ProviderA !== undefined) latest = other.ProviderA;
  return latest;
}

function recordBody(context: SandboxContext, record: ProviderARecord | undefined) {
  // Before registration only the status is known; the other fields are left out rather than sent
  // empty, or sent as null with the providera-unknown-nulls variant.
  if (record === undefined) {
    if (!hasVariant(context, 'providera-unknown-nulls')) return { Status: 'Unknown' };
    return {
      Status: 'Unknown', AgreementStatus: null, AgreementStart: null, DisplayName: null, ContactPersonEmail: null,
      ContactFirstName: null, ContactLastName: null, GeneralEmail: null, ContactPhone: null,
    };
  }
  return {
    Status: record.Status,
    AgreementStatus: record.AgreementStatus,
    AgreementStart: agreementStartText(record.AgreementStart),
    DisplayName: record.DisplayName,
    ContactPersonEmail: record.ContactPersonEmail,
    ContactFirstName: record.ContactFirstName,
    ContactLastName: record.ContactLastName,
    GeneralEmail: record.GeneralEmail,
    ContactPhone: record.ContactPhone,
  };
}

/** Claims the tenant (OrgNo) for the company; false when another company owns it. */
function claimTenant(context: SandboxContext, company: Company, orgNo: string): boolean {
  const tenants = context.store.providerATenants;
  const tenant = normaliseOrgNo(orgNo);
  const owner = tenants.get(tenant);
  if (owner !== undefined && owner !== company.CompanyId && context.store.companies.get(owner)?.Status !== 'Deleted') return false;
  const previous = company.ProviderA;
  if (previous !== undefined && normaliseOrgNo(previous.OrgNo) !== tenant && tenants.get(normaliseOrgNo(previous.OrgNo)) === company.CompanyId) {
    tenants.delete(normaliseOrgNo(previous.OrgNo));
  }
  tenants.set(tenant, company.CompanyId);
  return true;
}

export type IconCheck = { ok: true; bytes: Buffer } | { ok: false; detail: string };

/** A PNG whose IHDR claims more than 4 million pixels, 16 times the largest icon (the fault png-bomb-500 decodes such a one). */
function claimsHugeImage(data: string): boolean {
  const bytes = Buffer.from(data.slice(0, 64), 'base64');
  return bytes.length >= 24 && bytes.toString('latin1', 12, 16) === 'IHDR' && bytes.readUInt32BE(16) * bytes.readUInt32BE(20) > 4_000_000;
}

/** The icon rules: Base64 PNG, at most 1 MB, square 256..512 px, 8-bit RGBA (32-bit with alpha). */
export function checkIcon(data: string): IconCheck {
  const compact = data.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return { ok: false, detail: 'Data is not Base64' };
  if ((compact.length / 4) * 3 > MAX_ICON_BYTES + 2) return { ok: false, detail: 'larger than 1 MB' };
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_ICON_BYTES) return { ok: false, detail: 'larger than 1 MB' };
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return { ok: false, detail: 'not a PNG image' };
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR') return { ok: false, detail: 'the PNG has no IHDR header' };
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width !== height) return { ok: false, detail: `the image is ${width}x${height} pixels, not square` };
  if (width < 256 || width > 512) return { ok: false, detail: `the image is ${width}x${height} pixels; allowed 256x256 to 512x512` };
  if (bytes[24] !== 8 || bytes[25] !== 6) return { ok: false, detail: 'the image is not 32-bit RGBA (8-bit depth with an alpha channel)' };
  if (bytes.toString('latin1', bytes.length - 8, bytes.length - 4) !== 'IEND') return { ok: false, detail: 'the PNG is truncated (no IEND chunk)' };
  return { ok: true, bytes };
}

/** Sandbox rule for "registered with provider A": a 10- or 12-digit SSN whose last digit is even, or one listed in the config. */
export function ssnRegistered(ssn: string, listed: ReadonlySet<string>): boolean {
  if (listed.has(ssn)) return true;
  const length = ssn.length;
  if (length < 10 || length > 13) return false;
  const last = ssn.charCodeAt(length - 1) - 48;
  if (last < 0 || last > 9 || last % 2 !== 0) return false;
  let digits = 0;
  for (let index = 0; index < length; index++) {
    const code = ssn.charCodeAt(index);
    if (code >= 48 && code <= 57) digits++;
    else if (!((code === 45 || code === 43) && index === length - 5)) return false;
  }
  return digits === 10 || digits === 12;
}

export async function providerAArea(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const { store } = context;
  const clientToken = { preHandler: requireClientToken(context) };
  const listedSsns = new Set(store.config.registeredSsns);

  app.post(PATH, clientToken, async (request, reply) => {
    const company = swedishCompany(context, request);
    const body = bodyOf(request);
    const legalName = requiredString(body, 'LegalName');
    const displayName = requiredString(body, 'DisplayName');
    const orgNo = checkOrgNo(requiredString(body, 'OrgNo'));
    const orgVatNo = optionalString(body, 'OrgVatNo');
    if (orgVatNo !== undefined && orgVatNo !== '' && !SWEDISH_VAT_NO.test(orgVatNo.replace(/\s+/g, ''))) {
      throw badRequest('fieldInvalid', { field: 'OrgVatNo', detail: 'expected SE, the ten-digit organisation number and 01, such as SE556677889901' });
    }
    const record: ProviderARecord = {
      Status: 'Completed',
      AgreementStatus: 'Signed',
      AgreementStart: company.ProviderA?.AgreementStart ?? new Date(),
      LegalName: legalName,
      DisplayName: displayName,
      OrgNo: orgNo,
      OrgVatNo: orgVatNo === '' ? undefined : orgVatNo,
      ContactFirstName: requiredString(body, 'ContactFirstName'),
      ContactLastName: requiredString(body, 'ContactLastName'),
      ContactPersonEmail: requiredEmail(body, 'ContactPersonEmail'),
      GeneralEmail: hasFault(context, 'providera-email-unchecked') ? requiredString(body, 'GeneralEmail') : requiredEmail(body, 'GeneralEmail'),
      ContactPhone: checkPhone(requiredString(body, 'ContactPhone')),
    };
    if (!hasFault(context, 'providera-pubagreement-unchecked')) mustAccept(body, 'PubAgreement');
    mustAccept(body, 'TermsAndConditions');
    if (!claimTenant(context, company, orgNo)) {
      // The record shows the conflict until it is resolved at the provider and registration is retried.
      company.ProviderA = { ...record, Status: 'CompleteConflict' };
      throw new ApiError(hasFault(context, 'providera-conflict-400') ? 400 : 409, 'providerAConflict', { value: orgNo });
    }
    // providera-completed-later: the provider reports the registration a step later; until then the
    // record shows Unknown, the only listed status before it (transitions are not shown).
    const pending = hasVariant(context, 'providera-completed-later') && company.ProviderA?.Status !== 'Completed';
    company.ProviderA = pending ? { ...record, Status: 'Unknown' } : record;
    if (pending) {
      context.engine.after(1, () => {
        if (company.ProviderA?.Status === 'Unknown') company.ProviderA = { ...company.ProviderA, Status: 'Completed' };
      });
    }
    if (hasFault(context, 'providera-location-missing')) return reply.code(200).send();
    return reply.code(200).header('location', locationOf(context, request, PATH)).send();
  });

  app.get(PATH, clientToken, async (request, reply) => {
    const company = swedishCompany(context, request);
    const body: Record<string, unknown> = recordBody(context, company.ProviderA ?? leakedRecord(context, company));
    if (hasFault(context, 'providera-status-unlisted') && body.Status === 'Completed') body.Status = 'Active';
    if (hasFault(context, 'providera-agreementstart-iso') && company.ProviderA !== undefined) body.AgreementStart = company.ProviderA.AgreementStart.toISOString();
    return sendBody(context, reply, 200, body);
  });

  app.patch(PATH, clientToken, async (request, reply) => {
    const company = swedishCompany(context, request);
    const body = bodyOf(request);
    const record = company.ProviderA;
    if (record === undefined) throw badRequest('providerANotRegistered');
    if (hasVariant(context, 'providera-patch-all-required')) for (const name of PATCH_FIELDS) requiredString(body, name);
    const orgNo = nonEmpty(body, 'OrgNo');
    const phone = nonEmpty(body, 'ContactPhone');
    const changes: Partial<ProviderARecord> = {
      DisplayName: nonEmpty(body, 'DisplayName'),
      OrgNo: orgNo === undefined ? undefined : checkOrgNo(orgNo),
      ContactFirstName: nonEmpty(body, 'ContactFirstName'),
      ContactLastName: nonEmpty(body, 'ContactLastName'),
      ContactPhone: phone === undefined ? undefined : checkPhone(phone),
      ContactPersonEmail: optionalEmail(body, 'ContactPersonEmail'),
      GeneralEmail: optionalEmail(body, 'GeneralEmail'),
    };
    if (changes.OrgNo !== undefined && !claimTenant(context, company, changes.OrgNo)) throw new ApiError(409, 'providerAConflict', { value: changes.OrgNo });
    for (const [name, value] of Object.entries(changes)) if (value !== undefined) (record as unknown as Record<string, unknown>)[name] = value;
    return reply.code(200).header('location', locationOf(context, request, PATH)).send();
  });

  app.post(`${PATH}/icon`, clientToken, async (request, reply) => {
    const company = swedishCompany(context, request);
    if (company.ProviderA === undefined) throw badRequest('providerANotRegistered');
    if (company.ProviderA.Status !== 'Completed') throw badRequest('providerANotComplete');
    const body = bodyOf(request);
    allowedValue(requiredString(body, 'ContentType'), ['image/png'], 'ContentType');
    requiredString(body, 'Filename');
    const data = requiredString(body, 'Data');
    // The fault png-bomb-500: the icon is decoded before it is checked, and a PNG that claims millions of pixels runs out of memory.
    if (hasFault(context, 'png-bomb-500') && claimsHugeImage(data)) throw new Error('png-bomb-500: out of memory while decoding the icon');
    const icon: IconCheck = hasFault(context, 'providera-icon-unchecked') ? { ok: true, bytes: Buffer.from(data, 'base64') } : checkIcon(data);
    if (!icon.ok) throw badRequest('iconInvalid', { detail: icon.detail });
    const id = randomUUID();
    company.Icons.set(id, icon.bytes);
    if (company.Icons.size > MAX_ICONS) company.Icons.delete(company.Icons.keys().next().value as string);
    return reply.code(202).header('location', locationOf(context, request, `${PATH}/icon/${id}`)).send();
  });

  app.get<{ Params: { id: string } }>(`${PATH}/icon/:id`, clientToken, async (request, reply) => {
    const icon = (request.auth.company as Company).Icons.get(request.params.id.toLowerCase());
    if (icon === undefined) throw notFound(`icon ${request.params.id}`);
    return reply.code(200).header('content-type', 'image/png').send(icon);
  });

  app.post(`${PATH}/offboard`, clientToken, async (request, reply) => {
    const company = swedishCompany(context, request);
    const record = company.ProviderA;
    if (record === undefined) throw badRequest('providerANotRegistered');
    if (store.providerATenants.get(normaliseOrgNo(record.OrgNo)) === company.CompanyId) store.providerATenants.delete(normaliseOrgNo(record.OrgNo));
    company.ProviderA = undefined;
    // All provider A business-to-consumer invoices of the company are stopped.
    const now = Date.now();
    for (const document of store.outbound.values()) {
      if (hasFault(context, 'offboard-keeps-b2c')) break;
      if (document.CompanyId !== company.CompanyId || document.Provider !== 'ProviderA') continue;
      const current = document.StatusHistory[document.StatusHistory.length - 1].Status;
      if (current === 'Stopped' || current === 'ConversionFailed') continue;
      document.StatusHistory.push({ Status: 'Stopped', Time: now });
      document.UpdatedAt = now;
    }
    return reply.code(200).header('location', locationOf(context, request, PATH)).send();
  });

  app.post(`${PATH}/lookup`, clientToken, async (request, reply) => {
    const company = swedishCompany(context, request);
    const ssns = bodyOf(request).Ssns;
    if (ssns === undefined || ssns === null) throw badRequest('fieldRequired', { field: 'Ssns' });
    if (!Array.isArray(ssns)) throw badRequest('fieldType', { field: 'Ssns', type: 'an array of strings' });
    if (ssns.length > MAX_SSNS && !hasFault(context, 'providera-ssn-limit-off')) throw badRequest('providerATooManySsns', { count: ssns.length });
    if (company.ProviderA === undefined) throw badRequest('providerANotRegistered');
    if (company.ProviderA.Status !== 'Completed') throw badRequest('providerANotComplete');
    const seen = new Set<string>();
    const registered: string[] = [];
    for (const ssn of ssns) {
      if (typeof ssn !== 'string') throw badRequest('fieldType', { field: 'Ssns', type: 'an array of strings' });
      if (seen.has(ssn)) continue;
      seen.add(ssn);
      if (ssnRegistered(ssn, listedSsns)) registered.push(ssn);
    }
    if (hasVariant(context, 'providera-ssns-sorted')) registered.sort();
    return sendBody(context, reply, 200, { RegisteredSsns: registered });
  });
}
