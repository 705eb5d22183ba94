// Records rendered into the spec's response shapes (PascalCase; sendBody applies the casing).
// Unset optional strings are answered as null, as a .NET service would (the unset-* variants
// take the other readings: withUnset).
import type { Company } from './store.ts';
import { peppolIdentifiers, type DirectoryParty } from './directory.ts';

/**
 * How an answer writes a field the spec lists but nothing set (issue 28; the spec never says): by
 * default an unset string is null and an unset list empty. The variants take the other readings:
 * unset-null (lists too are null), unset-absent (the field is left out), unset-empty (strings are
 * empty, lists empty).
 */
export type UnsetReading = 'default' | 'null' | 'absent' | 'empty';

export function unsetReading(variants: ReadonlySet<string>): UnsetReading {
  if (variants.has('unset-null')) return 'null';
  if (variants.has('unset-absent')) return 'absent';
  if (variants.has('unset-empty')) return 'empty';
  return 'default';
}

/** The record with its unset fields (null, or an empty list among `lists`) written as the reading says; a new object. */
export function withUnset<T extends Record<string, unknown>>(record: T, reading: UnsetReading, lists: readonly string[] = []): T {
  if (reading === 'default') return record;
  const written: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(record)) {
    const emptyList = lists.includes(field) && Array.isArray(value) && value.length === 0;
    if (value !== null && !emptyList) continue;
    if (reading === 'absent') delete written[field];
    else if (reading === 'null') written[field] = null;
    else written[field] = lists.includes(field) ? [] : '';
  }
  return written as T;
}

/** The list fields of the company views, empty when unset. */
const COMPANY_LISTS = ['Processes', 'PeppolParticipantIdentifiers'] as const;

export interface Capabilities {
  ReceiveElectronicInvoiceCapability: string;
  SendsElectronicInvoiceCapability: string;
  ReceiveElectronicOrderCapability: string;
  SendsElectronicOrderCapability: string;
}

/**
 * Capability values from the active processes. The spec lists only some values; the one value it
 * does not list, ReceivesElectronicInvoices, follows the pattern of ReceivesElectronicOrders.
 */
export function capabilities(processes: readonly string[], unlisted = false): Capabilities {
  // The capability-unlisted variant: values beyond those the spec lists, which it allows to occur.
  if (unlisted) {
    return {
      ReceiveElectronicInvoiceCapability: processes.includes('ReceiveInvoices') ? 'CanReceiveElectronicInvoices' : 'CannotReceiveElectronicInvoices',
      SendsElectronicInvoiceCapability: processes.includes('SendInvoices') ? 'SendsElectronicInvoices' : 'NotSendingElectronicInvoices',
      ReceiveElectronicOrderCapability: processes.includes('ReceiveOrders') ? 'ReceivesElectronicOrders' : 'ReceivesOrdersByEmail',
      SendsElectronicOrderCapability: processes.includes('SendOrders') ? 'SendsElectronicOrders' : 'CannotSendElectronicOrders',
    };
  }
  return {
    ReceiveElectronicInvoiceCapability: processes.includes('ReceiveInvoices') ? 'ReceivesElectronicInvoices' : 'CannotReceiveElectronicInvoices',
    SendsElectronicInvoiceCapability: processes.includes('SendInvoices') ? 'SendsElectronicInvoices' : 'ErpSystemSupportsSendingElectronicInvoices',
    ReceiveElectronicOrderCapability: processes.includes('ReceiveOrders') ? 'ReceivesElectronicOrders' : 'CannotReceiveElectronicOrders',
    SendsElectronicOrderCapability: processes.includes('SendOrders') ? 'SendsElectronicOrders' : 'CannotSendElectronicOrders',
  };
}

export function companyPeppolIdentifiers(company: Company): string[] {
  const identifiers = peppolIdentifiers(company.Fields.CountryCode, company.Fields.OrgNo, company.Fields.GLN);
  for (const identifier of company.Identifiers) {
    if (identifier.Type === 'PeppolParticipantIdentifier' && !identifiers.includes(identifier.Value)) identifiers.push(identifier.Value);
  }
  return identifiers;
}

/** The address fields shared by the status Details, the details response and the parties. */
export function companyAddress(company: Company) {
  const fields = company.Fields;
  return {
    Name: fields.Name ?? null,
    AltName: fields.AltName ?? null,
    StreetName: fields.StreetName ?? null,
    PostBox: fields.PostBox ?? null,
    City: fields.City ?? null,
    // PostalCode is used only when PostalZone is not set.
    PostalZone: fields.PostalZone ?? fields.PostalCode ?? null,
    CountryCode: fields.CountryCode ?? null,
    PhoneNo: fields.PhoneNo ?? null,
    OrgNo: fields.OrgNo ?? null,
    VatNo: fields.VatNo ?? null,
    GLN: fields.GLN ?? null,
    Address: fields.StreetName ?? null,
    Address2: fields.Department ?? fields.PostBox ?? null,
    PostalCode: fields.PostalCode ?? fields.PostalZone ?? null,
  };
}

export function companyStatusBody(company: Company, reading: UnsetReading = 'default') {
  const address = companyAddress(company);
  return {
    Status: company.Status,
    CompanyId: company.CompanyId,
    Details: withUnset({
      Name: address.Name,
      AltName: address.AltName,
      StreetName: address.StreetName,
      PostBox: address.PostBox,
      City: address.City,
      PostalZone: address.PostalZone,
      CountryCode: address.CountryCode,
      PhoneNo: address.PhoneNo,
      OrgNo: address.OrgNo,
      VatNo: address.VatNo,
      GLN: address.GLN,
      Processes: company.Fields.Processes ?? [],
      PeppolParticipantIdentifiers: companyPeppolIdentifiers(company),
      Address: address.Address,
      Address2: address.Address2,
      PostalCode: address.PostalCode,
    }, reading, COMPANY_LISTS),
  };
}

export function companyDetailsBody(company: Company, unlistedCapabilities = false, reading: UnsetReading = 'default') {
  return withUnset({
    CompanyId: company.CompanyId,
    ...companyAddress(company),
    ...capabilities(company.Fields.Processes ?? [], unlistedCapabilities),
    HasInvoiceChecks: false,
    InvoiceChecks: { BuyerReferenceNo: false, BuyerReferenceName: false, BuyerOrderNo: false, BuyerName: false },
    PeppolParticipantIdentifiers: companyPeppolIdentifiers(company),
  }, reading, COMPANY_LISTS);
}

export type PartyKind = 'buyer' | 'seller';

/** One searchable party, whether a sandbox company or a directory entry. */
export interface PartyView {
  Common: Record<string, unknown>;
  Processes: readonly string[];
  Connected: boolean;
}

export function partyOfCompany(company: Company): PartyView {
  return {
    Common: { CompanyId: company.CompanyId, ...companyAddress(company), PeppolParticipantIdentifiers: companyPeppolIdentifiers(company) },
    Processes: company.Fields.Processes ?? [],
    Connected: company.Status === 'Registered',
  };
}

export function partyOfDirectory(party: DirectoryParty): PartyView {
  return {
    Common: {
      CompanyId: party.CompanyId,
      Name: party.Name,
      AltName: party.AltName,
      StreetName: party.StreetName,
      PostBox: party.PostBox,
      City: party.City,
      PostalZone: party.PostalZone,
      CountryCode: party.CountryCode,
      PhoneNo: party.PhoneNo,
      OrgNo: party.OrgNo,
      VatNo: party.VatNo,
      GLN: party.GLN,
      Address: party.StreetName,
      Address2: party.PostBox,
      PostalCode: party.PostalZone,
      PeppolParticipantIdentifiers: party.PeppolParticipantIdentifiers,
    },
    Processes: party.Processes,
    Connected: party.Connected,
  };
}

export function partyBody(party: PartyView, kind: PartyKind, unlistedCapabilities = false, reading: UnsetReading = 'default') {
  const all = capabilities(party.Processes, unlistedCapabilities);
  const added = kind === 'buyer'
    ? { ReceiveElectronicInvoiceCapability: all.ReceiveElectronicInvoiceCapability, SendsElectronicOrderCapability: all.SendsElectronicOrderCapability }
    : { SendsElectronicInvoiceCapability: all.SendsElectronicInvoiceCapability, ReceiveElectronicOrderCapability: all.ReceiveElectronicOrderCapability };
  return withUnset({ ...party.Common, Connected: party.Connected, ...added }, reading, COMPANY_LISTS);
}
