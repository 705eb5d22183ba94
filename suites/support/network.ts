// Helpers of the network suites: buyer and seller lookup, network setup, and what the suites
// read out of a lookup answer (the parties, their capability values, whether a company is among them).
import { randomUUID } from 'node:crypto';
import type { Check } from '../../lib/checks.ts';
import { fieldSatisfies, statusIs } from '../../lib/checks.ts';
import type { ApiClient, ApiResponse, Auth } from './client.ts';
import type { RegisteredCompany } from './companies.ts';
import { schema, schemaTypes } from './schema-checks.ts';
import { expectCheck } from './verdict.ts';

/** Organisation numbers compare without separators (556677-8899 = 5566778899). */
export function normaliseOrgNo(orgNo: string): string {
  return orgNo.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
}

export type LookupKind = 'buyer' | 'seller';

export const LOOKUP_PATH: Record<LookupKind, string> = { buyer: '/buyerparties/lookup', seller: '/sellerparties/lookup' };
export const LOOKUP_SCHEMA: Record<LookupKind, string> = { buyer: 'lookup-buyer.response', seller: 'lookup-seller.response' };

/** The capability fields each kind of party adds, with the values the spec lists as occurring. */
export const CAPABILITY_VALUES: Record<LookupKind, Record<string, readonly string[]>> = {
  buyer: {
    ReceiveElectronicInvoiceCapability: ['CannotReceiveElectronicInvoices'],
    SendsElectronicOrderCapability: ['SendsElectronicOrders', 'CannotSendElectronicOrders'],
  },
  seller: {
    SendsElectronicInvoiceCapability: ['SendsElectronicInvoices', 'ErpSystemSupportsSendingElectronicInvoices'],
    ReceiveElectronicOrderCapability: ['ReceivesElectronicOrders', 'CannotReceiveElectronicOrders'],
  },
};

/** A network setup succeeded: 202 by the reference, 200 in the guide example (NET-SET-02 records which). */
export const setupAccepted: Check = statusIs(202, 200);

const refused = (response: ApiResponse): boolean => response.status === 401 || response.status === 403;

/**
 * Seller lookup with a credential that the target takes. Which scheme applies is not shown
 * (NET-LKP-16), so a refused client token is retried with the APIkey, and then with a search token
 * in the ClientToken header: the spec's tokens "that identify ... a temporary search".
 */
export async function sellerLookup(api: ApiClient, token: string, body: unknown): Promise<ApiResponse> {
  const withToken = await api.post(LOOKUP_PATH.seller, { auth: { clientToken: token }, json: body });
  if (!refused(withToken)) return withToken;
  const withApiKey = await api.post(LOOKUP_PATH.seller, { auth: 'apiKey', json: body });
  if (!refused(withApiKey)) return withApiKey;
  const created = await api.post('/clienttokens/createsearchtoken', { auth: 'apiKey', json: { SearchId: `dxs-seller-lookup-${randomUUID()}` } });
  const searchToken = created.data?.Token;
  return typeof searchToken === 'string' ? api.post(LOOKUP_PATH.seller, { auth: { clientToken: searchToken }, json: body }) : withApiKey;
}

/** Buyer lookup is called with a ClientToken (authentication rule 4); seller lookup as above. */
export function lookup(api: ApiClient, kind: LookupKind, token: string, body: unknown): Promise<ApiResponse> {
  return kind === 'buyer' ? api.post(LOOKUP_PATH.buyer, { auth: { clientToken: token }, json: body }) : sellerLookup(api, token, body);
}

export function networkSetup(api: ApiClient, auth: Auth, body: unknown): Promise<ApiResponse> {
  return api.post('/network/setup', { auth, json: body });
}

/** The parties of a lookup answer (normalised names), or none when the body has no Parties array. */
export function partiesOf(response: ApiResponse): Array<Record<string, unknown>> {
  const parties = response.data?.Parties;
  return Array.isArray(parties) ? parties.filter((party): party is Record<string, unknown> => typeof party === 'object' && party !== null) : [];
}

/** The party that is this company: the same CompanyId, or else the same organisation number and country. */
export function isCompany(party: Record<string, unknown>, company: RegisteredCompany): boolean {
  if (company.companyId !== '' && party.CompanyId === company.companyId) return true;
  const orgNo = party.OrgNo;
  return (
    typeof orgNo === 'string' &&
    normaliseOrgNo(orgNo) === normaliseOrgNo(company.input.OrgNo) &&
    (typeof party.CountryCode !== 'string' || party.CountryCode.toUpperCase() === company.input.CountryCode)
  );
}

/** A check that the company is among the Parties of a lookup answer. */
export function partiesInclude(company: RegisteredCompany): Check {
  return (response) => {
    const parties = partiesOf(response as ApiResponse);
    const found = parties.some((party) => isCompany(party, company));
    return {
      check: 'partiesInclude',
      ok: found,
      expected: `company ${company.companyId} (OrgNo ${company.input.OrgNo}) among Parties`,
      actual: `${parties.length} part${parties.length === 1 ? 'y' : 'ies'}${parties.length > 0 ? `: ${parties.slice(0, 5).map((party) => `${String(party.Name)} (${String(party.OrgNo)})`).join(', ')}` : ''}`,
      severity: 'failure',
    };
  };
}

/** Capability values seen in the parties that the spec does not list (the set is open: NET-LKP-19). */
export function unlistedCapabilityValues(kind: LookupKind, parties: Array<Record<string, unknown>>): string[] {
  const unlisted = new Set<string>();
  for (const party of parties) {
    for (const [field, listed] of Object.entries(CAPABILITY_VALUES[kind])) {
      const value = party[field];
      if (typeof value === 'string' && !listed.includes(value)) unlisted.add(`${field}=${value}`);
    }
  }
  return [...unlisted].sort();
}

/** The company's Peppol participant identifiers as the target reported them in the company status. */
export function peppolIdentifiersOf(company: RegisteredCompany): string[] {
  const identifiers = company.status.Details?.PeppolParticipantIdentifiers;
  return Array.isArray(identifiers) ? identifiers.filter((value): value is string => typeof value === 'string' && value.includes('::')) : [];
}

/**
 * Bodies that must never cause a 5xx: malformed JSON, wrong types, and an oversized field. The
 * oversized body is 2 MiB: far beyond any name, small enough not to load a staging server.
 */
export function robustnessBodies(valid: Record<string, unknown>, wrongTypes: Record<string, unknown>): Array<{ reason: string; rawBody: string }> {
  return [
    { reason: 'malformed JSON', rawBody: '{"PartyId": "dxs", "Name": ' },
    { reason: `wrong types (${Object.keys(wrongTypes).join(', ')})`, rawBody: JSON.stringify({ ...valid, ...wrongTypes }) },
    { reason: 'an oversized Name (2 MiB)', rawBody: JSON.stringify({ ...valid, Name: 'x'.repeat(2 * 1024 * 1024) }) },
  ];
}

/**
 * The checks of a lookup answer's shape, each under its ID: PotentialMatches (NET-LKP-04),
 * ExactHit (NET-LKP-05), Parties (NET-LKP-06), the party fields (NET-LKP-07) and the capability
 * fields of the kind of party (NET-LKP-08 buyer, NET-LKP-10 seller).
 */
export async function expectLookupShape(response: ApiResponse, kind: LookupKind): Promise<void> {
  await expectCheck(response, [fieldSatisfies('PotentialMatches', 'is an integer', Number.isInteger)], { requirement: 'NET-LKP-04' });
  await expectCheck(response, [fieldSatisfies('ExactHit', 'is a boolean', (value) => typeof value === 'boolean')], { requirement: 'NET-LKP-05' });
  await expectCheck(response, [fieldSatisfies('Parties', 'is an array', Array.isArray)], { requirement: 'NET-LKP-06' });
  // The party schemas are part of the lookup response schemas: the types here, a listed field left out under NET-LKP-22.
  await expectCheck(response, [schemaTypes(LOOKUP_SCHEMA[kind])], { requirement: 'NET-LKP-07' });
  const capabilities = Object.keys(CAPABILITY_VALUES[kind]);
  await expectCheck(
    response,
    [
      fieldSatisfies('Parties', `each carry ${capabilities.join(' and ')}, where present, as strings (or null)`, (parties) =>
        Array.isArray(parties) && parties.every((party) => capabilities.every((field) => party?.[field] === undefined || party[field] === null || typeof party[field] === 'string'))),
    ],
    { requirement: kind === 'buyer' ? 'NET-LKP-08' : 'NET-LKP-10' },
  );
  await expectCheck(response, [schema(LOOKUP_SCHEMA[kind])], { requirement: 'NET-LKP-22' });
}

/** A lookup body with every search criterion the spec lists set from the company's data (NET-LKP-11). */
export function everyCriterion(company: RegisteredCompany, partyId: string, department: string): Record<string, string | undefined> {
  const input = company.input;
  return {
    PartyId: partyId,
    Name: input.Name, Department: department, StreetName: input.StreetName, PostBox: 'Box 17', PostalZone: input.PostalZone,
    City: input.City, CountryCode: input.CountryCode, PhoneNo: input.PhoneNo, FaxNo: input.PhoneNo, Email: input.Email,
    GLN: input.GLN, OrgNo: input.OrgNo, VatNo: input.VatNo,
  };
}
