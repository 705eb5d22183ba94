// The Transport section of index.html (issue 57): the deployment's transient answers by endpoint
// and cause, which calls were sent again, and each flaky test with every answer it met.
import { escapeHtml } from './escape-html.ts';
import { transientKind } from '../lib/transient.ts';
import type { TransportSummary } from './transport.ts';

export const TRANSPORT_CSS = `.badge.flaky{background:#d1242f;background:repeating-linear-gradient(45deg,#bf8700,#bf8700 6px,#9a6700 6px,#9a6700 12px)}`;

export function renderTransport(transport: TransportSummary | undefined): string {
  if (transport === undefined) return '';
  const rows = transport.byEndpoint.map((row) => `<tr><td>${escapeHtml(row.endpoint)}</td><td>${escapeHtml(row.kind)}</td><td>${row.answers}</td><td>${row.resent}</td></tr>`);
  const flaky = transport.flaky.map(
    (test) =>
      `<li><strong>${escapeHtml(test.test)}</strong> <span class="badge flaky">flaky</span> passed when run again (${test.attempts} attempts)${test.because === undefined ? '' : ` after ${escapeHtml(test.because)}`}<ul>${test.answers
        .map((answer) => `<li>${escapeHtml(answer.endpoint)}: ${escapeHtml(transientKind(answer))} at ${escapeHtml(answer.at)} (try ${answer.attempt}${answer.resent ? ', sent again' : ''})${answer.head === '' ? '' : ` <span class="muted">${escapeHtml(answer.head)}</span>`}</li>`)
        .join('')}</ul></li>`,
  );
  return `<h2 id="transport">Transport</h2>
<p>${transport.answers} transient answer${transport.answers === 1 ? '' : 's'} of the deployment (a 502, a 504, a 503 without Retry-After, a call lost or past its bound), ${transport.resent} followed by sending the call again. None is an answer of the API: no check judged them. A call safe to send again was sent again with backoff; any other call's test ran again from its start, once, with fresh data.</p>
${rows.length > 0 ? `<table><tr><th>Endpoint</th><th>Answer</th><th>Met</th><th>Sent again</th></tr>${rows.join('')}</table>` : ''}
${flaky.length > 0 ? `<h3>Flaky tests (${flaky.length})</h3><ul>${flaky.join('')}</ul>` : ''}`;
}
