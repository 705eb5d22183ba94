// Flow: buyer and seller lookups in the network (POST /buyerparties/lookup and
// /sellerparties/lookup), with the search criteria of the fixture pack.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, buyerLookup, sellerLookup, setupCompany } from '../lib/api.ts';
import { buyerLookups, sellerLookups, type PartyLookupInput } from '../lib/data.ts';
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
  const iteration = exec.scenario.iterationInTest;
  buyerLookup(data.token, buyerLookups[iteration % buyerLookups.length] as PartyLookupInput);
  sellerLookup(data.token, sellerLookups[iteration % sellerLookups.length] as PartyLookupInput);
}

export const setup = setupLookup;
export default lookup;
