// What a fuzz run created at the target, from its journal (fuzz-setup/created.jsonl): the setup's
// lines and those hooks.py writes for every 2xx answer of a creating call Schemathesis made
// (marked by: "schemathesis"). Companies are deleted by the same cleanup as dxs test's; the rest
// (tokens, uploads, documents, users, ...) belongs to a company and goes with it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_LINES_FILE, parseJournalLines } from '../../../suites/support/journal.ts';
import type { CleanupReport } from '../../../report/cleanup.ts';

/**
 * What Schemathesis' calls created, per kind (token, upload, document, delete, ...): companies
 * counted once per key and ErpId (its examples register the same ErpId again and again), and
 * `setup`, the companies of the run's own setup.
 */
export function createdBySchemathesis(journalDir: string): Record<string, number> {
  const path = join(journalDir, JOURNAL_LINES_FILE);
  const counts: Record<string, number> = {};
  if (!existsSync(path)) return counts;
  const companies = { schemathesis: new Set<string>(), setup: new Set<string>() };
  for (const line of parseJournalLines(readFileSync(path, 'utf8'))) {
    const by = line.by === 'schemathesis' ? 'schemathesis' : 'setup';
    if (line.kind === 'company') companies[by].add(`${line.key}\n${line.ErpId}`);
    else if (by === 'schemathesis') counts[line.kind] = (counts[line.kind] ?? 0) + 1;
  }
  counts.company = companies.schemathesis.size;
  counts.setup = companies.setup.size;
  return counts;
}

const count = (number: number, one: string, many: string): string => `${number} ${number === 1 ? one : many}`;

/** The report's lines: what Schemathesis created, and what is left at the target after the cleanup. */
export function describeCreated(bySchemathesis: Record<string, number>, cleanup: CleanupReport): string[] {
  const of = (kind: string): number => bySchemathesis[kind] ?? 0;
  const lines = [
    `Schemathesis registered ${count(of('company'), 'company', 'companies')} (and asked ${count(of('delete'), 'delete', 'deletes')} itself), ${count(of('token'), 'token', 'tokens')}, ${count(of('upload'), 'upload', 'uploads')}, ${count(of('document'), 'document', 'documents')}, ${count(of('user'), 'user', 'users')}, ${count(of('identifier'), 'identifier', 'identifiers')}, ${count(of('network-setup'), 'network setup request', 'network setup requests')} and ${count(of('provider-a'), 'provider A registration', 'provider A registrations')}; the setup registered ${count(of('setup'), 'company', 'companies')}.`,
  ];
  const companies = cleanup.created.companies ?? 0;
  if (cleanup.left.length === 0) {
    lines.push(companies === 0 ? 'Nothing was registered, nothing is left.' : `Left at the target: nothing. Every company is deleted (${cleanup.deleted.length} by the cleanup, ${cleanup.alreadyDeleted} by the run itself); tokens, uploads, documents and users went with their companies.`);
  } else {
    const reasons = [...new Set(cleanup.left.map((company) => company.reason ?? 'unknown'))].join('; ');
    lines.push(`Left at the target: ${count(cleanup.left.length, 'company', 'companies')} of ${companies} (${reasons}), with their tokens, uploads and documents; delete them later with dxs clean --from <this report>/fuzz-setup.`);
  }
  return lines;
}
