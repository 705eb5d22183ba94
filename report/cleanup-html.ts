// The cleanup section of index.html, rendered from the run's cleanup record (report/cleanup.ts).
import type { CleanupCompany, CleanupReport } from './cleanup.ts';
import { escapeHtml } from './escape-html.ts';

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
