// Test data for the flows: the run's fixture pack (fixtures/pack.ts, written by `dxs load` with
// the run's prefix; the build's default pack when a script is started by hand), read in the init
// context into SharedArrays so that every VU reads one copy.
//
// k6 side only.

import { SharedArray } from 'k6/data';
import { packInfo, packSection, packSsns } from '../../fixtures/k6.ts';
import type { CompanyInput, PartyLookupInput, ProviderARegistrationInput } from '../../fixtures/bodies.ts';
import { PROJECT_ROOT, settings } from './settings.ts';

const PACK = settings.fixturePack ?? `${PROJECT_ROOT}/fixtures/generated/pack.json`;

const companies = packSection(SharedArray, open, PACK, 'companies');
export const buyerLookups = packSection(SharedArray, open, PACK, 'buyerLookups');
export const sellerLookups = packSection(SharedArray, open, PACK, 'sellerLookups');
const providerARegistrations = packSection(SharedArray, open, PACK, 'providerARegistrations');

/** Swedish personal identity numbers for provider A lookups (DXS_SSN_COUNT of them), from the pack's seed. */
export const ssns = packSsns(SharedArray, packInfo(SharedArray, open, PACK), settings.ssnCount);

export type { CompanyInput, PartyLookupInput };

/** The UBL invoice of the shared fixtures, uploaded and sent by the document flows. */
export const invoiceXml: string = open(`${PROJECT_ROOT}/fixtures/files/invoice.xml`);
export const INVOICE_FORMAT = 'UBL';

/**
 * A unique ErpId for one iteration of this script of this run, from k6's `exec.scenario.iterationInTest`. k6
 * numbers those across execution segments, so the runners of a distributed run, which share one
 * run prefix (a k6-operator TestRun's runners run one archive), never make the same ErpId; VU ids
 * and per-VU iteration counters start alike on every runner.
 */
export function erpIdFor(label: string, iterationInTest: number): string {
  // The script's tag: business-day runs the flows of the other scripts of its run, whose iterations count from 0 too.
  return `${settings.runPrefix}-${settings.scriptTag === undefined ? '' : `${settings.scriptTag}-`}${label}-${iterationInTest}`;
}

function hash(text: string): number {
  let value = 0;
  for (let index = 0; index < text.length; index++) value = (Math.imul(value, 31) + text.charCodeAt(index)) >>> 0;
  return value;
}

/** A company of the pack under a new ErpId; `swedish` picks one registered in Sweden (provider A requires it). */
export function companyInput(erpId: string, processes: string[], swedish = false): CompanyInput {
  const start = hash(erpId) % companies.length;
  let template = companies[start] as CompanyInput;
  // Bounded by the pack's size.
  for (let offset = 0; swedish && template.CountryCode !== 'SE' && offset < companies.length; offset++) {
    template = companies[(start + offset) % companies.length] as CompanyInput;
  }
  return { ...template, ErpId: erpId, Processes: processes as CompanyInput['Processes'] };
}

/** The pack's provider A registration body, made to match the company it registers. */
export function providerARegistration(company: CompanyInput): ProviderARegistrationInput {
  const template = providerARegistrations[0] as ProviderARegistrationInput;
  // OrgVatNo is left out: the template's belongs to another organisation.
  return { ...template, OrgNo: company.OrgNo, LegalName: company.Name, OrgVatNo: undefined };
}
