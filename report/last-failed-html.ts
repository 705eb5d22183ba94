// The --last-failed section of index.html (issue 43): the earlier run's failed and blocked tests,
// which are fixed now and which still fail.
import { escapeHtml } from './escape-html.ts';
import type { LastFailedSection, RerunTest } from './results.ts';

function rows(tests: readonly RerunTest[], label: string, kind: string): string {
  return tests
    .map((test) => `<tr><td><span class="badge ${kind}">${escapeHtml(label)}</span></td><td>${escapeHtml(test.stableId)}</td><td>${escapeHtml(test.requirements.join(', '))}</td><td>${escapeHtml(test.before)}</td><td>${escapeHtml(test.now ?? 'not run')}</td></tr>`)
    .join('');
}

export function renderLastFailed(section: LastFailedSection | undefined): string {
  if (section === undefined) return '';
  const total = section.fixed.length + section.stillFailing.length + section.notRun.length;
  const all = section.stillFailing.length === 0 && section.notRun.length === 0;
  return `<section class="card ${all ? 'passed' : 'failed'}" id="last-failed"><h2>Run again (--last-failed ${escapeHtml(section.source)}): ${section.fixed.length} of ${total} fixed, ${section.stillFailing.length} still failing${section.notRun.length > 0 ? `, ${section.notRun.length} not run` : ''}</h2>
<table><tr><th></th><th>Test</th><th>Requirements</th><th>Before</th><th>Now</th></tr>${rows(section.stillFailing, 'still failing', 'failed')}${rows(section.notRun, 'not run', 'skipped')}${rows(section.fixed, 'fixed', 'passed')}</table></section>`;
}
