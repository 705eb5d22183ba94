// Deleting what a run registered (issue 16), from its journal: at the end of `dxs test` (also after
// SIGINT/SIGTERM or a failed run) and in `dxs clean --from`. Best effort and bounded: a few
// deletes at once, each with its own timeout, all within one deadline. POST /companies/delete
// answers a duplicate with 200, so deleting again is harmless; 401 means the key lacks the
// DeleteRegistration role and 501 that deletes are disabled, and either stops the attempts with that key.
import { setMaxListeners } from 'node:events';
import { API_KEY_HEADER } from '../../lib/defaults.ts';
import { secrets } from '../../lib/redact.ts';
import { flatHeaders, isTransientOutcome, send, TransportError, type Connection } from '../../lib/transport.ts';
import { bodyHead, sendAgainOnTransient } from '../../lib/transient.ts';
import { recordTransient } from '../../suites/support/transport.ts';
import { forEachAtOnce } from '../../lib/concurrency.ts';
import type { CleanupCompany, CleanupReport } from '../../report/cleanup.ts';
import {
  appendJournal, JOURNAL_LINES_FILE, readJournal, writeJournal, type Journal, type JournalCompany, type KeyLabel,
} from '../../suites/support/journal.ts';
import type { RunContext } from '../../suites/support/run-context.ts';
import { isSharedErpId } from '../../suites/support/shared-company.ts';
import { budgetFor, gateFor, pacerFor, sendThroughGateway, type GatewayGate, type GatewaySettings } from '../../suites/support/gateway.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const CLEANUP_CONCURRENCY = 4;
export const CLEANUP_DEADLINE_MS = 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface DeleteOptions {
  baseUrl: string;
  keys: Partial<Record<KeyLabel, string>>;
  concurrency?: number;
  deadlineMs?: number;
  /** Aborting leaves the companies not yet deleted, with that reason. */
  signal?: AbortSignal;
  /** The run's proxy and TLS settings (default: a direct connection). */
  connection?: Connection;
  gateway?: CleanupGateway;
}

export interface DeleteOutcome {
  deleted: CleanupCompany[];
  left: CleanupCompany[];
}

function shown(company: JournalCompany): CleanupCompany {
  return { ErpId: company.ErpId, key: company.key, ...(company.OrgNo === undefined ? {} : { OrgNo: company.OrgNo }), ...(company.Id === undefined ? {} : { Id: company.Id }) };
}

/** Why a whole key's companies are left after one answer, or undefined when the answer concerns one company. */
function stopReason(status: number): string | undefined {
  if (status === 401 || status === 403) return `the key has no DeleteRegistration role (POST /companies/delete answered ${status})`;
  if (status === 501) return 'deletes are disabled at the target (POST /companies/delete answered 501)';
  return undefined;
}

async function deleteOne(baseUrl: string, apiKey: string, erpId: string, timeoutMs: () => number, signal: AbortSignal | undefined, connection: Connection, runFiles: GatewaySettings | undefined): Promise<{ status: number; headers: Record<string, string> }> {
  // Through the run's proxy and with its TLS settings, as every other call of the run. A delete is
  // repeatable ("200 (duplicate request)"): the deployment's transport sends it again (issue 57).
  const endpoint = 'POST /companies/delete';
  return sendAgainOnTransient(
    async () => {
      const answer = await send(`${baseUrl}/companies/delete`, {
        method: 'POST',
        headers: { [API_KEY_HEADER]: apiKey, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ Id: erpId }),
        timeoutMs: Math.max(1, timeoutMs()),
        signal,
      }, connection);
      return { status: answer.status, headers: flatHeaders(answer.headers), body: answer.body.subarray(0, 1024).toString() };
    },
    // An abort is the run's own stop, not the transport: no delete is sent again after it.
    (outcome) => isTransientOutcome(outcome) && (outcome.answer !== undefined || signal?.aborted !== true),
    ({ answer, error }, attempt, resent) => {
      if (runFiles === undefined) return;
      const at = new Date().toISOString();
      recordTransient(runFiles, answer !== undefined ? { endpoint, status: answer.status, head: bodyHead(answer.body), at, attempt, resent } : { endpoint, cause: /^no answer within/.test((error as TransportError).reason) ? 'timeout' : 'reset', head: secrets.redactText((error as TransportError).reason), at, attempt, resent });
    },
  );
}

/** The run's gateway settings: the cleanup waits for 429s and 503s with Retry-After within the budget, paced by --max-rps. */
export interface CleanupGateway extends GatewaySettings {
  maxRps?: number;
  /** The run's pace (dxs test): the deletes take their slots from it, --max-rps included. */
  gate?: GatewayGate;
}

/** Sends a delete for each company with the key it is registered under; never throws. */
export async function deleteCompanies(companies: readonly JournalCompany[], options: DeleteOptions): Promise<DeleteOutcome> {
  const deadline = Date.now() + (options.deadlineMs ?? CLEANUP_DEADLINE_MS);
  const deleted: CleanupCompany[] = [];
  const left: CleanupCompany[] = [];
  const stopped = new Map<KeyLabel, string>();
  const budget = options.gateway === undefined ? undefined : budgetFor(options.gateway);
  const gate = options.gateway?.gate ?? gateFor({});
  const pacer = options.gateway?.gate === undefined ? pacerFor({ maxRps: options.gateway?.maxRps }) : undefined;
  // Behind a gateway the run met, the parallel deletes leave a little apart, as the head start does:
  // all at once, each one in flight when the first 429 comes back meets the gateway too.
  const spread = options.gateway?.gate?.met === true;
  await forEachAtOnce(companies, options.concurrency ?? CLEANUP_CONCURRENCY, async (company) => {
    const entry = shown(company);
    const apiKey = options.keys[company.key];
    const stop = stopped.get(company.key);
    if (company.key === 'apiKeyWithoutDelete' && isSharedErpId(company.ErpId)) {
      left.push({ ...entry, reason: 'the one company every run registers again under the key without DeleteRegistration (its ErpId derives from the key\'s fingerprint): kept on purpose, it does not add up' });
    } else if (apiKey === undefined) {
      left.push({ ...entry, reason: company.key === 'other' ? 'registered under an API key dxs was not given' : `no ${company.key === 'apiKey' ? '--api-key' : '--api-key-without-delete'} configured to delete it with` });
    } else if (stop !== undefined) {
      left.push({ ...entry, reason: stop });
    } else if (options.signal?.aborted) {
      left.push({ ...entry, reason: 'the cleanup was interrupted' });
    } else if (Date.now() >= deadline) {
      left.push({ ...entry, reason: `the cleanup's deadline of ${Math.round((options.deadlineMs ?? CLEANUP_DEADLINE_MS) / 1000)} s passed` });
    } else {
      try {
        const sendDelete = () => deleteOne(options.baseUrl, apiKey, company.ErpId, () => Math.min(REQUEST_TIMEOUT_MS, Math.max(1, deadline - Date.now())), options.signal, options.connection ?? { insecure: false }, options.gateway);
        const answer = budget === undefined ? { response: await sendDelete(), gaveUp: undefined } : await sendThroughGateway({ endpoint: 'POST /companies/delete', send: sendDelete, pacer, gate, budget, start: spread });
        const status = answer.response.status;
        const reason = answer.gaveUp !== undefined ? `rate limited by the target: POST /companies/delete answered ${answer.gaveUp} after the run's budget of waiting was spent` : stopReason(status);
        if (status === 200 || status === 202) deleted.push({ ...entry, status });
        else if (reason !== undefined) {
          stopped.set(company.key, reason);
          left.push({ ...entry, status, reason });
        } else left.push({ ...entry, status, reason: `POST /companies/delete answered ${status}` });
      } catch (error) {
        const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
        left.push({ ...entry, reason: secrets.redactText(`no answer: ${options.signal?.aborted ? 'the cleanup was interrupted' : cause}`) });
      }
    }
  });
  return { deleted, left };
}

function countsOf(journal: Journal): Record<string, number> {
  return {
    companies: journal.companies.length,
    users: journal.users.length,
    identifiers: journal.identifiers.length,
    uploads: journal.uploads.length,
    documents: journal.documents.length,
    'network setup requests': journal.networkSetupRequests.length,
    'provider A registrations': journal.providerARegistrations.length,
    'provider A icons': journal.providerAIcons.length,
  };
}

/** Records the deletes in the journal (a later dxs clean then skips them) and rewrites created.json. */
function recordDeletes(reportDir: string, journal: Journal, deleted: readonly CleanupCompany[]): void {
  const lines = existsSync(join(reportDir, JOURNAL_LINES_FILE));
  const at = new Date().toISOString();
  for (const company of deleted) {
    if (lines) appendJournal(reportDir, { at, runPrefix: journal.runPrefix, kind: 'delete', key: company.key, ErpId: company.ErpId, by: 'cleanup' });
    const entry = journal.companies.find((candidate) => candidate.ErpId === company.ErpId && candidate.key === company.key);
    if (entry !== undefined) entry.deleteRequested = true;
  }
  writeJournal(reportDir, journal);
}

export interface CleanupInput {
  reportDir: string;
  baseUrl: string;
  keys: Partial<Record<KeyLabel, string>>;
  /** --keep-data: nothing is deleted, the report says so. */
  keepData?: boolean;
  signal?: AbortSignal;
  deadlineMs?: number;
  connection?: Connection;
  gateway?: CleanupGateway;
  /** Deletes at once (CLEANUP_CONCURRENCY by default). */
  concurrency?: number;
}

/** Reads the journal of a report directory, deletes its live companies, records the deletes; never throws. */
export async function cleanUp(input: CleanupInput): Promise<CleanupReport> {
  const started = Date.now();
  let journal: Journal | undefined;
  try {
    journal = readJournal(input.reportDir);
  } catch (error) {
    return { runPrefix: '', status: 'failed', message: `the journal could not be read: ${(error as Error).message}`, created: {}, deleted: [], alreadyDeleted: 0, left: [], durationMs: Date.now() - started };
  }
  if (journal === undefined) {
    return { runPrefix: '', status: 'nothing', message: `no journal (${JOURNAL_LINES_FILE} or created.json) in ${input.reportDir}: nothing to delete`, created: {}, deleted: [], alreadyDeleted: 0, left: [], durationMs: Date.now() - started };
  }
  const live = journal.companies.filter((company) => !company.deleteRequested);
  const base = { runPrefix: journal.runPrefix, created: countsOf(journal), alreadyDeleted: journal.companies.length - live.length };
  if (input.keepData) {
    writeJournal(input.reportDir, journal);
    const left = live.map((company) => ({ ...shown(company), reason: '--keep-data' }));
    return { ...base, status: 'kept', message: `--keep-data: the ${live.length} companies the run registered and did not delete were kept`, deleted: [], left, durationMs: Date.now() - started };
  }
  const { deleted, left } = await deleteCompanies(live, { baseUrl: input.baseUrl, keys: input.keys, signal: input.signal, deadlineMs: input.deadlineMs, connection: input.connection, gateway: input.gateway, concurrency: input.concurrency });
  try {
    recordDeletes(input.reportDir, journal, deleted);
  } catch (error) {
    console.error(`dxs: cannot record the deletes in the journal: ${(error as Error).message}`);
  }
  const status = journal.companies.length === 0 ? 'nothing' : left.length === 0 ? 'done' : 'partial';
  const message = status === 'nothing'
    ? 'the run registered no company'
    : left.length === 0
      ? `every company the run registered is deleted (${deleted.length} now, ${base.alreadyDeleted} by the run itself)`
      : `${left.length} of the ${journal.companies.length} companies the run registered ${left.length === 1 ? 'is' : 'are'} left at the target: ${[...new Set(left.map((company) => company.reason))].join('; ')}`;
  return { ...base, status, message, deleted, left, durationMs: Date.now() - started };
}

/** One line for the console. */
export function cleanupLine(report: CleanupReport): string {
  return `cleanup: ${report.message}${report.deleted.length > 0 && report.left.length > 0 ? ` (deleted ${report.deleted.length})` : ''}`;
}

/**
 * The hook of dxs test (after Playwright) and dxs load (after k6), before the embedded sandbox stops: a signal during
 * the cleanup ends it early (what is left is reported), a second one is left to its default.
 */
export async function cleanUpAfterRun(context: Pick<RunContext, 'reportDir' | 'baseUrl' | 'apiKey' | 'apiKeyWithoutDelete' | 'embedded' | 'connection'> & Partial<Pick<RunContext, 'runPrefix' | 'maxRps' | 'rateLimitBudgetSeconds'>>, keepData: boolean, concurrency?: number, gate?: GatewayGate): Promise<CleanupReport> {
  const controller = new AbortController();
  // Every delete in flight listens on it: as many as the run had workers, past Node's warning at 10.
  setMaxListeners(Math.max(10, (concurrency ?? CLEANUP_CONCURRENCY) * 2), controller.signal);
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const report = await cleanUp({
      reportDir: context.reportDir,
      baseUrl: context.baseUrl,
      keys: { apiKey: context.apiKey, apiKeyWithoutDelete: context.apiKeyWithoutDelete },
      keepData,
      signal: controller.signal,
      connection: context.connection,
      gateway: { reportDir: context.reportDir, runPrefix: context.runPrefix ?? 'cleanup', maxRps: context.maxRps, rateLimitBudgetSeconds: context.rateLimitBudgetSeconds, gate },
      concurrency,
    });
    if (report.status === 'kept' && context.embedded) report.message += ', until the embedded sandbox stopped with the run';
    return report;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
