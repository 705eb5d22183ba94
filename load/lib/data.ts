// Test data for the flows, made in the init context from the shared fixture generators and held
// in SharedArrays, so that every VU reads one copy. The same seed gives the same data on every
// run and every runner; ErpIds also carry the run prefix (and the segment), so runs against a
// persistent target do not collide.
//
// k6 side only.

import { SharedArray } from 'k6/data';
import { generateSsns } from '../../fixtures/ssn.ts';
import { generateSwedishOrgNo, generateGln } from '../../fixtures/check-digits.ts';
import { mulberry32, deriveSeed } from '../../fixtures/random.ts';
import { settings } from './settings.ts';

/** Swedish personal identity numbers for provider A lookups (DXS_SSN_COUNT of them). */
export const ssns = new SharedArray('ssns', () => generateSsns(settings.ssnCount, settings.seed));

export interface LookupCriteria {
  PartyId: string;
  Name?: string;
  CountryCode?: string;
  OrgNo?: string;
}

/** Search criteria for buyer and seller lookups: name words that occur in the network, per country. */
export const lookupCriteria = new SharedArray('lookup-criteria', () => {
  const words = ['Nordic', 'Baltic', 'Polar', 'Fjord', 'Birch', 'Granite', 'Harbour', 'Aurora', 'Lake', 'Pine'];
  const countries = ['SE', 'DK', 'FI', 'NO'];
  const random = mulberry32(deriveSeed(settings.seed, 'lookup'));
  const criteria: LookupCriteria[] = [];
  for (let index = 0; index < 200; index++) {
    const item: LookupCriteria = { PartyId: `party-${index}`, Name: words[index % words.length], CountryCode: countries[index % countries.length] };
    // Some searches by organisation number, which rarely hit: a lookup with no match is normal traffic too.
    if (index % 5 === 4) item.OrgNo = generateSwedishOrgNo(random);
    criteria.push(item);
  }
  return criteria;
});

/** The UBL invoice of the shared fixtures, uploaded and sent by the document flows. */
export const invoiceXml: string = open('../../fixtures/files/invoice.xml');
export const INVOICE_FORMAT = 'UBL';

/** A unique ErpId for one iteration of one VU of this run. */
export function erpIdFor(label: string, vu: number, iteration: number): string {
  return `${settings.runPrefix}-${label}-${vu}-${iteration}`;
}

export interface CompanyInput {
  ErpId: string;
  ErpProduct: string;
  Name: string;
  Email: string;
  CountryCode: string;
  OrgNo: string;
  GLN: string;
  Processes: string[];
}

/** A Swedish company (provider A requires Sweden) with valid check digits, seeded by its ErpId. */
export function companyInput(erpId: string, processes: string[]): CompanyInput {
  const random = mulberry32(deriveSeed(settings.seed, erpId));
  return {
    ErpId: erpId,
    ErpProduct: 'dxs load 0.1',
    Name: `Load ${erpId}`,
    Email: `${erpId.replace(/[^A-Za-z0-9-]/g, '')}@load.example`,
    CountryCode: 'SE',
    OrgNo: generateSwedishOrgNo(random),
    GLN: generateGln(random, 'SE'),
    Processes: processes,
  };
}
