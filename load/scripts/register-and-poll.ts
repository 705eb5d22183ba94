// Flow: register a new company (POST /companies/register, 202), get it a client token and poll
// GET /companies/status until the background registration reports Registered.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, registerAndWait } from '../lib/api.ts';
import { companyInput, erpIdFor } from '../lib/data.ts';

export const endpoints = [ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status];
export const options = buildOptions(endpoints);

export function registerAndPoll(): void {
  const erpId = erpIdFor('register', exec.scenario.iterationInTest);
  // Polled every 0.1 s until Registered, for at most --async-timeout.
  registerAndWait(companyInput(erpId, ['SendInvoices', 'ReceiveInvoices']), 0.1);
}

export default registerAndPoll;
