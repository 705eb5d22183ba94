// Registering a company the way the guide does it, for fixtures and scenarios:
// register (APIkey) -> client token (APIkey + ErpId) -> poll the status until Registered.
import type { CompanyInput } from '../../fixtures/bodies.ts';
import { secrets } from '../../lib/redact.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import type { RunContext } from './run-context.ts';

export interface RegisteredCompany {
  input: CompanyInput;
  erpId: string;
  companyId: string;
  /** A client token of the company (already registered as a secret). */
  token: string;
  /** The normalised body of the last company status answer. */
  status: Record<string, any>;
}

/** Thrown when a fixture cannot set up what a test needs; the message carries the redacted exchange. */
export class SetupFailed extends Error {
  override readonly name: string = 'SetupFailed';
}

function shortly(response: ApiResponse): string {
  const answer = response.recorded.response;
  return `${response.recorded.title} answered ${answer?.status}${answer?.body !== undefined ? ` ${JSON.stringify(answer.body).slice(0, 300)}` : ''}`;
}

/**
 * Calls `attempt` until it returns a value, within the run's async timeout. The wait between
 * attempts grows from 50 ms to 1 s, so a fast sandbox is not slowed and staging is not hammered.
 */
export async function pollUntil<T>(context: RunContext, description: string, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + context.asyncTimeoutSeconds * 1000;
  let wait = 50;
  for (let tries = 1; ; tries++) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() + wait > deadline) {
      throw new SetupFailed(`${description}: not reached within the async timeout of ${context.asyncTimeoutSeconds} s (${tries} attempts; raise it with --async-timeout)`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 1000);
  }
}

/** The API key a company is registered under: the run's key, or its second one (another integrator's). */
export type ApiKeyAuth = 'apiKey' | 'apiKeyWithoutDelete';

export async function createClientToken(api: ApiClient, erpId: string, extra: Record<string, unknown> = {}, apiKey: ApiKeyAuth = 'apiKey'): Promise<{ response: ApiResponse; token?: string }> {
  const response = await api.post('/clienttokens/create', { auth: apiKey, json: { ErpId: erpId, ...extra } });
  const token = response.status === 200 && typeof response.data?.Token === 'string' ? (response.data.Token as string) : undefined;
  secrets.add(token);
  return { response, token };
}

export async function registerCompany(api: ApiClient, context: RunContext, input: CompanyInput, apiKey: ApiKeyAuth = 'apiKey'): Promise<RegisteredCompany> {
  const register = await api.post('/companies/register', { auth: apiKey, json: input });
  if (register.status !== 202 && register.status !== 200) throw new SetupFailed(`cannot register company ${input.ErpId}: ${shortly(register)}`);
  let token: string | undefined;
  let last: ApiResponse | undefined;
  const status = await pollUntil(context, `company ${input.ErpId} reaching Status Registered`, async () => {
    // Whether a token can be had before registration completes is not shown, so it is retried too.
    token ??= (await createClientToken(api, input.ErpId, {}, apiKey)).token;
    if (token === undefined) return undefined;
    last = await api.get('/companies/status', { auth: { clientToken: token } });
    return last.status === 200 && last.data?.Status === 'Registered' ? (last.data as Record<string, any>) : undefined;
  }).catch((error: Error) => {
    throw new SetupFailed(`${error.message}${last !== undefined ? `; last answer: ${shortly(last)}` : '; no client token could be created'}`);
  });
  return { input, erpId: input.ErpId, companyId: String(status.CompanyId ?? ''), token: token as string, status };
}
