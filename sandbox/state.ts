// GET /_sandbox/state: what the sandbox holds, for the tests of cleanup and concurrent runs
// (issue 16). Outside /v1/api on purpose: it is no part of the API and no suite may rely on it.
// API keys are never shown: each is named by its place in the configuration and its roles.
import type { FastifyInstance } from 'fastify';
import type { AreaOptions } from './context.ts';
import type { Company } from './store.ts';

export const STATE_PATH = '/_sandbox/state';

/** Bounds the ErpId list of one answer: a load run can leave 100000 companies. */
const MAX_ERP_IDS = 5000;

export interface CompanyCounts {
  /** Every company still held, Deleted ones included (the oldest are forgotten past the cap). */
  total: number;
  /** Not Deleted: what a run that cleans up must leave at 0 for its own ErpIds. */
  live: number;
  deleted: number;
}

export interface ApiKeyState extends CompanyCounts {
  /** "key 1", "key 2": the place of the key in the configuration, never its value. */
  apiKey: string;
  roles: string[];
  /** ErpIds of the live companies (only those starting with ?erpIdPrefix= when given), at most MAX_ERP_IDS. */
  liveErpIds: string[];
}

export interface SandboxState {
  companies: CompanyCounts;
  byApiKey: ApiKeyState[];
  users: number;
  uploads: number;
  outboundDocuments: number;
  inboundDocuments: number;
  networkSetupRequests: number;
  providerATenants: number;
}

function count(companies: Iterable<Company>): CompanyCounts {
  const counts = { total: 0, live: 0, deleted: 0 };
  for (const company of companies) {
    counts.total++;
    if (company.Status === 'Deleted') counts.deleted++;
    else counts.live++;
  }
  return counts;
}

export async function stateRoute(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const { store } = context;
  app.get(STATE_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const prefix = typeof query.erpIdPrefix === 'string' ? query.erpIdPrefix : '';
    const companies = [...store.companies.values()];
    const byApiKey = [...store.apiKeys.values()].map((apiKey, index): ApiKeyState => {
      const own = companies.filter((company) => company.ApiKey === apiKey.Key);
      const liveErpIds = own.filter((company) => company.Status !== 'Deleted' && company.ErpId.startsWith(prefix)).map((company) => company.ErpId);
      return { apiKey: `key ${index + 1}`, roles: [...apiKey.Roles], ...count(own), liveErpIds: liveErpIds.slice(0, MAX_ERP_IDS) };
    });
    const state: SandboxState = {
      companies: count(companies),
      byApiKey,
      users: store.users.size,
      uploads: store.uploads.size,
      outboundDocuments: store.outbound.size,
      inboundDocuments: store.inbound.size,
      networkSetupRequests: store.networkSetupRequests.size,
      providerATenants: store.providerATenants.size,
    };
    return reply.code(200).header('cache-control', 'no-store').send(state);
  });
}
