// The seeded part of the network that buyer and seller lookups search besides the sandbox's own
// companies. Generated from a fixed seed, so every run sees the same parties.
import { mulberry32 } from '../fixtures/random.ts';

export interface DirectoryParty {
  CompanyId: string;
  Name: string;
  AltName: string | null;
  StreetName: string;
  PostBox: string | null;
  City: string;
  PostalZone: string;
  CountryCode: string;
  PhoneNo: string;
  OrgNo: string;
  VatNo: string;
  GLN: string;
  PeppolParticipantIdentifiers: string[];
  Processes: string[];
  Connected: boolean;
}

/** Peppol ICD scheme per country for the organisation number (0088 = GLN elsewhere). */
const ORG_SCHEME: Record<string, string> = { SE: '0007', DK: '0184', FI: '0037', NO: '0192' };

export function peppolIdentifiers(countryCode: string | undefined, orgNo: string | undefined, gln: string | undefined): string[] {
  const identifiers: string[] = [];
  const scheme = countryCode ? ORG_SCHEME[countryCode.toUpperCase()] : undefined;
  if (scheme && orgNo) identifiers.push(`iso6523-actorid-upis::${scheme}:${orgNo.replace(/[^0-9A-Za-z]/g, '')}`);
  if (gln) identifiers.push(`iso6523-actorid-upis::0088:${gln}`);
  return identifiers;
}

const FIRST = ['Nordic', 'Baltic', 'Polar', 'Fjord', 'Birch', 'Granite', 'Harbour', 'Aurora', 'Lake', 'Pine', 'Coastal', 'Meadow'];
const SECOND = ['Trading', 'Logistics', 'Foods', 'Timber', 'Electric', 'Consulting', 'Textiles', 'Machines', 'Pharma', 'Print'];
const SUFFIX: Record<string, string> = { SE: 'AB', DK: 'ApS', FI: 'Oy', NO: 'AS' };
const CITIES: Record<string, string[]> = {
  SE: ['Stockholm', 'Göteborg', 'Malmö', 'Uppsala'],
  DK: ['København', 'Aarhus', 'Odense'],
  FI: ['Helsinki', 'Espoo', 'Tampere'],
  NO: ['Oslo', 'Bergen', 'Trondheim'],
};
const COUNTRIES = ['SE', 'DK', 'FI', 'NO'];

function digits(next: () => number, count: number): string {
  let text = '';
  for (let index = 0; index < count; index++) text += Math.floor(next() * 10);
  return text;
}

export function seedDirectory(size: number): DirectoryParty[] {
  const next = mulberry32(20260101);
  const parties: DirectoryParty[] = [];
  for (let index = 0; index < size; index++) {
    const countryCode = COUNTRIES[index % COUNTRIES.length];
    const orgNo = countryCode === 'SE' ? `55${digits(next, 4)}-${digits(next, 4)}` : digits(next, 8);
    const gln = `73${digits(next, 11)}`;
    const cities = CITIES[countryCode];
    const processes = ['SendInvoices', 'ReceiveInvoices', 'SendOrders', 'ReceiveOrders'].filter(() => next() < 0.6);
    parties.push({
      CompanyId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      Name: `${FIRST[Math.floor(next() * FIRST.length)]} ${SECOND[Math.floor(next() * SECOND.length)]} ${SUFFIX[countryCode]}`,
      AltName: null,
      StreetName: `Storgatan ${1 + Math.floor(next() * 99)}`,
      PostBox: null,
      City: cities[Math.floor(next() * cities.length)],
      PostalZone: digits(next, countryCode === 'SE' ? 5 : 4),
      CountryCode: countryCode,
      PhoneNo: `+46${digits(next, 9)}`,
      OrgNo: orgNo,
      VatNo: `${countryCode}${orgNo.replace('-', '')}${countryCode === 'SE' ? '01' : ''}`,
      GLN: gln,
      PeppolParticipantIdentifiers: peppolIdentifiers(countryCode, orgNo, gln),
      Processes: processes,
      Connected: processes.length > 0,
    });
  }
  return parties;
}
