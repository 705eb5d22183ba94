// Flow: provider A lookup with a large Ssns array (POST .../b2c/providera/lookup). The company is
// registered in Sweden and with provider A in setup(); the SSNs come from the shared generator
// of the fixture pack's seed through a SharedArray (DXS_SSN_COUNT of them, default 5000, at most 500000 by the spec).
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, providerALookup, registerProviderA, setupCompany } from '../lib/api.ts';
import { ssns } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';
import exec from 'k6/execution';

export const endpoints = [ENDPOINTS.providerALookup];
export const options = buildOptions([...endpoints, ENDPOINTS.providerARegister, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

export interface ProviderAData {
  token: string;
}

export function setupProviderA(): ProviderAData {
  const company = setupCompany(`${settings.runPrefix}-providera`, ['SendInvoices'], true);
  if (!registerProviderA(company.token, company.company)) exec.test.abort('setup: provider A registration failed');
  return { token: company.token };
}

// Copied out of the SharedArray once per VU: reading 5000 elements costs more than the request.
let ssnList: string[] | undefined;

export function provideraLookup(data: ProviderAData): void {
  if (ssnList === undefined) {
    ssnList = [];
    for (let index = 0; index < ssns.length; index++) ssnList.push(ssns[index] as string);
  }
  providerALookup(data.token, ssnList);
}

export const setup = setupProviderA;
export default provideraLookup;
