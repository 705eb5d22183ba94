// The "Access control" section of index.html (issue 40): the access matrix as the run tried it, a
// row per operation and a column per credential form, each cell passed, failed, observed (with the
// status that came back) or not applicable.
import { ACCESS_OPERATIONS, CREDENTIAL_FORMS, CREDENTIAL_FORM_TITLES, cellExpectation } from '../schemas/access-matrix.ts';
import { accessCellsOf, type AccessCell } from './access-cells.ts';
import { escapeHtml } from './escape-html.ts';
import type { Results } from './results.ts';

const CELL_CLASS: Record<AccessCell['outcome'], string> = { passed: 'passed', failed: 'failed', observed: 'info', 'not tried': 'skipped' };

function renderCell(cell: (AccessCell & { test: string }) | undefined, applies: boolean): string {
  if (!applies) return '<td class="muted">n/a</td>';
  if (cell === undefined) return '<td><span class="badge not-exercised">not run</span></td>';
  const title = `${cell.requirement}${cell.note !== undefined ? `: ${cell.note}` : ''}`;
  const status = cell.status === undefined ? '' : ` ${cell.status}`;
  // A failed cell's request and response are in its test's card under Failures.
  const badge = `<span class="badge ${CELL_CLASS[cell.outcome]}" title="${escapeHtml(title)}">${escapeHtml(cell.outcome)}${status}</span>`;
  return `<td>${cell.outcome === 'failed' ? `<a href="#failures">${badge}</a>` : badge}</td>`;
}

/** Empty when the run tried no cell (the access area was not selected). */
export function renderAccessControl(results: Results): string {
  const cells = accessCellsOf(results.tests);
  if (cells.length === 0) return '';
  const byKey = new Map(cells.map((cell) => [`${cell.endpoint}\n${cell.form}`, cell]));
  const failed = cells.filter((cell) => cell.outcome === 'failed').length;
  const header = `<tr><th>Operation</th>${CREDENTIAL_FORMS.map((form) => `<th>${escapeHtml(CREDENTIAL_FORM_TITLES[form])}</th>`).join('')}</tr>`;
  const rows = ACCESS_OPERATIONS.map((operation) => `<tr><td>${escapeHtml(operation.endpoint)}</td>${CREDENTIAL_FORMS.map((form) => renderCell(byKey.get(`${operation.endpoint}\n${form}`), cellExpectation(operation, form) !== undefined)).join('')}</tr>`);
  return `<h2 id="access">Access control</h2>
<p>Every operation tried with every credential form (a valid body each, so a refusal is the credential's): ${cells.length} cells, ${failed} failed. A refusal is any 4xx; observed cells are where the spec leaves the scheme open (rule 7), a search token where a search is what the call does, or both headers at once. Hover a cell for its requirement.</p>
<table class="access">${header}${rows.join('')}</table>`;
}
