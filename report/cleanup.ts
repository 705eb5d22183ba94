// The cleanup section of a report (issue 16): what the run created at the target (from its
// journal, created.json), which of its companies were deleted at the end, and which were left and why.
import type { KeyLabel } from '../suites/support/journal.ts';
import { escapeHtml } from './html.ts';

export interface CleanupCompany {
  ErpId: string;
  /** The run's key the company is registered under, by role, never by value. */
  key: KeyLabel;
  OrgNo?: string;
  Id?: string;
  /** The status of the delete request, when one was answered. */
  status?: number;
  /** Why it was left (no delete key, 501, an error, the deadline). */
  reason?: string;
}

export interface CleanupReport {
  runPrefix: string;
  /**
   * done: every company is deleted or was already; partial: some are left; kept: --keep-data;
   * nothing: the run registered no company; failed: the journal could not be read.
   */
  status: 'done' | 'partial' | 'kept' | 'nothing' | 'failed';
  message: string;
  /** Counts of what the run created, by kind (companies, users, identifiers, documents, ...). */
  created: Record<string, number>;
  deleted: CleanupCompany[];
  /** Companies whose delete a test (or an earlier cleanup) had already requested. */
  alreadyDeleted: number;
  left: CleanupCompany[];
  durationMs: number;
}

const STATUS_ORDER: Array<CleanupReport['status']> = ['nothing', 'done', 'kept', 'partial', 'failed'];

/** The cleanups of several shards as one: lists joined, counts summed, the worst status. */
export function mergeCleanups(cleanups: readonly CleanupReport[]): CleanupReport {
  const created: Record<string, number> = {};
  for (const cleanup of cleanups) for (const [kind, count] of Object.entries(cleanup.created)) created[kind] = (created[kind] ?? 0) + count;
  return {
    runPrefix: [...new Set(cleanups.map((cleanup) => cleanup.runPrefix))].join(', '),
    status: cleanups.map((cleanup) => cleanup.status).reduce((worst, status) => (STATUS_ORDER.indexOf(status) > STATUS_ORDER.indexOf(worst) ? status : worst), 'nothing'),
    message: cleanups.map((cleanup) => cleanup.message).join('; '),
    created,
    deleted: cleanups.flatMap((cleanup) => cleanup.deleted),
    alreadyDeleted: cleanups.reduce((sum, cleanup) => sum + cleanup.alreadyDeleted, 0),
    left: cleanups.flatMap((cleanup) => cleanup.left),
    durationMs: Math.max(...cleanups.map((cleanup) => cleanup.durationMs)),
  };
}

function companyRows(companies: readonly CleanupCompany[], withReason: boolean): string {
  return companies
    .map((company) => `<tr><td><code>${escapeHtml(company.ErpId)}</code></td><td>${escapeHtml(company.OrgNo ?? '')}</td><td>${escapeHtml(company.key)}</td><td>${escapeHtml(company.status ?? '')}</td>${withReason ? `<td>${escapeHtml(company.reason ?? '')}</td>` : ''}</tr>`)
    .join('');
}

/** The section of index.html; empty when the run has no cleanup record (a merged report, an older run). */
export function renderCleanup(cleanup: CleanupReport | undefined): string {
  if (cleanup === undefined) return '';
  const created = Object.entries(cleanup.created)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${escapeHtml(kind)}: ${count}`)
    .join(', ');
  const left = cleanup.left.length === 0
    ? ''
    : `<h3>Left at the target (${cleanup.left.length})</h3><table><tr><th>ErpId</th><th>OrgNo</th><th>Key</th><th>Status</th><th>Why</th></tr>${companyRows(cleanup.left, true)}</table>`;
  const deleted = cleanup.deleted.length === 0
    ? ''
    : `<details><summary>Deleted (${cleanup.deleted.length})</summary><table><tr><th>ErpId</th><th>OrgNo</th><th>Key</th><th>Status</th></tr>${companyRows(cleanup.deleted, false)}</table></details>`;
  return `<h2 id="cleanup">Data created and cleanup</h2>
<p>${escapeHtml(cleanup.message)}</p>
<p class="muted">Run prefix <code>${escapeHtml(cleanup.runPrefix)}</code> (every ErpId of the run starts with it). Created: ${created === '' ? 'nothing' : created}. Deleted ${cleanup.deleted.length}, already deleted by the run itself ${cleanup.alreadyDeleted}, left ${cleanup.left.length}. Users, identifiers, documents and provider A registrations go with their company (POST /companies/delete requests deletion of the company's data; the API has no delete of their own). The journal, with every id, is created.json.</p>
${left}
${deleted}`;
}
