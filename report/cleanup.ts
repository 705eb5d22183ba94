// The cleanup record of a run (issue 16): what the run created at the target (from its
// journal, created.json), which of its companies were deleted at the end, and which were left and why.
import type { KeyLabel } from '../suites/support/journal.ts';

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
