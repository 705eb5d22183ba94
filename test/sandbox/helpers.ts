// Shared helpers of the sandbox tests: calls through fastify.inject, a registered company with a
// client token, and a bounded poll.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildSandbox, type SandboxOptions } from '../../sandbox/index.ts';
import { API_PREFIX, SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../../lib/defaults.ts';

export { SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE };

export interface CallOptions {
  apiKey?: string;
  token?: string;
  body?: unknown;
  /** Raw payload sent as is (with its own content type in headers). */
  payload?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  raw: Buffer;
  json: any;
}

export async function newSandbox(options: SandboxOptions = {}): Promise<FastifyInstance> {
  return buildSandbox({ asyncDelayMs: 1, ...options });
}

export async function call(app: FastifyInstance, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers.APIkey = options.apiKey;
  if (options.token !== undefined) headers.ClientToken = options.token;
  let payload: string | Buffer | undefined = options.payload;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const query = options.query === undefined ? '' : `?${new URLSearchParams(options.query).toString()}`;
  const response = await app.inject({ method: method as 'GET', url: `${API_PREFIX}${path}${query}`, headers, payload });
  let json: unknown;
  try {
    json = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text: response.body, raw: response.rawPayload, json };
}

/** Bounded poll: at most `attempts` tries, `intervalMs` apart. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, attempts = 200, intervalMs = 5): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not reached after ${attempts} attempts`);
}

let orgCounter = 0;

export function companyInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  orgCounter++;
  const suffix = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  return {
    ErpId: `erp-${randomUUID()}`,
    ErpProduct: 'dxs test ERP 1.0',
    Name: `Test Company ${orgCounter}`,
    Email: 'company@example.com',
    CountryCode: 'SE',
    OrgNo: `55${String(orgCounter).padStart(2, '0')}${suffix.slice(0, 2)}-${suffix.slice(2)}`,
    Processes: ['SendInvoices', 'ReceiveInvoices'],
    ...overrides,
  };
}

export interface TestCompany {
  erpId: string;
  token: string;
  companyId: string;
  input: Record<string, unknown>;
}

/** Registers a company, creates a client token and waits until the status is Registered. */
export async function registeredCompany(app: FastifyInstance, overrides: Record<string, unknown> = {}, apiKey = SANDBOX_API_KEY): Promise<TestCompany> {
  const input = companyInput(overrides);
  const registered = await call(app, 'POST', '/companies/register', { apiKey, body: input });
  if (registered.status !== 202) throw new Error(`register answered ${registered.status}: ${registered.text}`);
  const created = await call(app, 'POST', '/clienttokens/create', { apiKey, body: { ErpId: input.ErpId } });
  if (created.status !== 200) throw new Error(`token create answered ${created.status}: ${created.text}`);
  const token = created.json.token as string;
  const status = await waitFor(async () => {
    const answer = await call(app, 'GET', '/companies/status', { token });
    return answer.json?.status === 'Registered' ? answer.json : undefined;
  });
  return { erpId: input.ErpId as string, token, companyId: status.companyId, input };
}
