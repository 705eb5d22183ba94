// Flow: buyer and seller lookups in the network (POST /buyerparties/lookup and
// /sellerparties/lookup), with search criteria from a SharedArray.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, buyerLookup, sellerLookup, setupCompany } from '../lib/api.ts';
import { lookupCriteria, type LookupCriteria } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.buyerLookup, ENDPOINTS.sellerLookup];
export const options = buildOptions([...endpoints, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

export interface LookupData {
  token: string;
}

export function setupLookup(): LookupData {
  return { token: setupCompany(`${settings.runPrefix}-lookup`, ['SendInvoices', 'ReceiveInvoices']).token };
}

export function lookup(data: LookupData): void {
  const criteria = lookupCriteria[exec.scenario.iterationInTest % lookupCriteria.length] as LookupCriteria;
  buyerLookup(data.token, criteria);
  sellerLookup(data.token, criteria);
}

export const setup = setupLookup;
export default lookup;
