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

/** A multipart/form-data payload with one file part (and optional extra parts). */
export function multipart(parts: Array<{ name: string; filename?: string; contentType?: string; content: Buffer | string }>): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----dxs${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType === undefined ? '' : `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Uploads a file for the company and answers the Location reference. */
export async function upload(app: FastifyInstance, token: string, content: Buffer | string, filename = 'invoice.xml', contentType = 'application/xml'): Promise<string> {
  const body = multipart([{ name: 'File', filename, contentType, content }]);
  const answer = await call(app, 'POST', '/documents', { token, payload: body.payload, headers: body.headers });
  if (answer.status !== 202) throw new Error(`upload answered ${answer.status}: ${answer.text}`);
  return answer.headers.location as string;
}

/** The last path segment of a Location header. */
export function lastSegment(location: string): string {
  return location.split('?')[0].split('/').filter(Boolean).pop() as string;
}

/** Polls an outbound document until its current status is one of `statuses`. */
export async function waitForStatus(app: FastifyInstance, token: string, documentId: string, statuses: string[]): Promise<any> {
  return waitFor(async () => {
    const answer = await call(app, 'GET', `/documents/outbound/${documentId}`, { token });
    return statuses.includes(answer.json?.currentStatus?.status) ? answer.json : undefined;
  }, 400);
}
