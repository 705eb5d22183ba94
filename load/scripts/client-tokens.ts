// Flow: create client tokens for registered companies (POST /clienttokens/create).
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, clientTokenMaker, registerAndWait } from '../lib/api.ts';
import { companyInput } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.createToken];
export const options = buildOptions([...endpoints, ENDPOINTS.register, ENDPOINTS.status]);

export interface ClientTokensData {
  erpIds: string[];
}

/** A few companies to create tokens for; tokens are asked for with the recommended 10 minutes. */
export function setupClientTokens(): ClientTokensData {
  const erpIds: string[] = [];
  for (let index = 0; index < 3; index++) {
    const company = companyInput(`${settings.runPrefix}-tokens-${index}`, ['SendInvoices']);
    if (registerAndWait(company).registered) erpIds.push(company.ErpId);
  }
  if (erpIds.length === 0) exec.test.abort('setup: no company could be registered for token creation');
  return { erpIds };
}

// Made on the VU's first iteration from setup()'s data, which reaches each iteration wrapped
// around Go values (every read of data.erpIds crosses into Go and wraps the array anew). It takes
// the companies in turn.
let createToken: (() => void) | undefined;

export function clientTokens(data: ClientTokensData): void {
  createToken ??= clientTokenMaker([...data.erpIds], 10);
  createToken();
}

export const setup = setupClientTokens;
export default clientTokens;
