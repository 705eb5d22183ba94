// certificate.html: the one printable page of a certification package (issue 22), drawn from the
// certificate's facts alone. Self-contained (inline CSS, no scripts, nothing fetched) so that it
// prints the same offline, and sized for one A4 page: certify prints it to certificate.pdf,
// scaled down when the lists are long.
import type { CertificateFacts, CertifiedRequirement } from './certificate-facts.ts';
import { escapeHtml } from './escape-html.ts';

const STYLE = `
@page{size:A4;margin:12mm}
@media screen{body{padding:16px 0}}
*{box-sizing:border-box}
body{font:10.5px/1.35 "DejaVu Sans",system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232a;margin:0;background:#fff}
main{max-width:186mm;margin:0 auto;padding:0}
h1{font-size:19px;margin:0}h2{font-size:12px;margin:9px 0 3px;border-bottom:1px solid #d6dae0;padding-bottom:2px;text-transform:uppercase;letter-spacing:.04em;color:#3a434d}
.head{display:flex;justify-content:space-between;align-items:baseline;border-bottom:2px solid #1d232a;padding-bottom:4px}
.verdict{margin:8px 0;padding:9px 12px;border-radius:5px;color:#fff;font-size:17px;font-weight:700;-webkit-print-color-adjust:exact;print-color-adjust:exact}
.verdict.conforms{background:#1a7f37}.verdict.fails{background:#cf222e}
.verdict small{display:block;font-size:11px;font-weight:400}
table.facts{border-collapse:collapse;width:100%}
table.facts th{text-align:left;font-weight:600;width:36mm;vertical-align:top;padding:1px 6px 1px 0;color:#3a434d}
table.facts td{padding:1px 0;overflow-wrap:anywhere}
code{font:9.5px/1.3 "DejaVu Sans Mono",ui-monospace,monospace;overflow-wrap:anywhere}
.counts span{display:inline-block;margin-right:10px}
ul.reqs{margin:2px 0;padding-left:14px}ul.reqs li{margin:1px 0}
.quote{color:#3a434d;font-style:italic}
.note{color:#57606a}
.columns{columns:2;column-gap:8mm}
.columns li{break-inside:avoid}
.muted{color:#57606a}
div.reason{margin:3px 0}
footer{margin-top:8px;border-top:1px solid #d6dae0;padding-top:3px;color:#57606a;font-size:9px}
`;

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

function row(label: string, value: string): string {
  return `<tr><th>${escapeHtml(label)}</th><td>${value}</td></tr>`;
}

function failingItem(requirement: CertifiedRequirement): string {
  const basis =
    requirement.basisKind === 'spec'
      ? `<div class="quote">Spec: “${escapeHtml(requirement.basis)}”</div>`
      : requirement.basisKind === 'invariant'
        ? `<div class="quote">Invariant: ${escapeHtml(requirement.basis)}</div>`
        : '';
  const notes = requirement.notes.slice(0, 2).map((note) => `<div class="note">${escapeHtml(note)}</div>`).join('');
  const more = requirement.notes.length > 2 ? `<div class="note">and ${requirement.notes.length - 2} more (see report/index.html)</div>` : '';
  return `<li><b>${escapeHtml(requirement.id)}</b> (${escapeHtml(requirement.level)}, ${escapeHtml(requirement.verdict)}): ${escapeHtml(requirement.statement)}${basis}${notes}${more}</li>`;
}

function shortItem(requirement: CertifiedRequirement, withReason: boolean): string {
  const reason = withReason ? ` <span class="note">(${escapeHtml(requirement.notes.join('; ') || requirement.verdict)})</span>` : '';
  return `<li><b>${escapeHtml(requirement.id)}</b> ${escapeHtml(requirement.statement)}${reason}</li>`;
}

/** Requirements not covered, grouped by reason: many share one ("no test of the profile's areas checks it"). */
function notCoveredList(requirements: readonly CertifiedRequirement[]): string {
  if (requirements.length === 0) return '<p class="muted">Nothing: every requirement of the profile\'s areas was checked.</p>';
  const byReason = new Map<string, CertifiedRequirement[]>();
  for (const requirement of requirements) {
    const reason = requirement.notes.join('; ') || requirement.verdict;
    byReason.set(reason, [...(byReason.get(reason) ?? []), requirement]);
  }
  // Each with its statement while they fit on the page; beyond that by ID (certificate.json has them all).
  const withStatements = requirements.length <= 24;
  return [...byReason]
    .map(([reason, group]) => {
      const items = withStatements
        ? `<ul class="reqs">${group.map((requirement) => `<li><b>${escapeHtml(requirement.id)}</b> ${escapeHtml(truncate(requirement.statement, 150))}</li>`).join('')}</ul>`
        : ` ${group.map((requirement) => `<b title="${escapeHtml(requirement.statement)}">${escapeHtml(requirement.id)}</b>`).join(', ')}`;
      return `<div class="reason"><span class="note">${escapeHtml(reason)}</span> (${group.length}):${items}</div>`;
    })
    .join('');
}

/** How the target was reached; --insecure in bold, since the run then proves nothing of who answered. */
function connectionRow(facts: CertificateFacts): string {
  const connection = facts.connection;
  if (connection === undefined) return '';
  const parts = [
    connection.proxy === undefined ? '' : `through the proxy <code>${escapeHtml(connection.proxy)}</code>`,
    connection.clientCert === undefined ? '' : 'mutual TLS (client certificate)',
    connection.certificate === undefined ? '' : `server certificate ${escapeHtml(connection.certificate.subject)}, issued by ${escapeHtml(connection.certificate.issuer)}, valid until ${escapeHtml(connection.certificate.validTo.slice(0, 10))}`,
    connection.insecure ? '<b id="insecure">--insecure: the server certificate was NOT verified</b>' : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? '' : row('Connection', parts.join('; '));
}

export function renderCertificate(facts: CertificateFacts): string {
  const conforms = facts.verdict === 'CONFORMS';
  const deployment = `${facts.deployment.name} ${facts.deployment.version}`;
  const target = [
    `<code>${escapeHtml(facts.target.url)}</code>`,
    facts.target.embedded ? ' (the embedded reference sandbox)' : '',
    facts.target.sandboxFaults.length > 0 ? `; sandbox faults: ${escapeHtml(facts.target.sandboxFaults.join(', '))}` : '',
    facts.target.sandboxVariants.length > 0 ? `; sandbox variants: ${escapeHtml(facts.target.sandboxVariants.join(', '))}` : '',
  ].join('');
  const testCounts = (['passed', 'failed', 'blocked', 'warning', 'info', 'skipped'] as const).map((verdict) => `<span>${verdict} ${facts.tests[verdict] ?? 0}</span>`).join('');
  const requirementCounts = (Object.keys(facts.requirements) as Array<keyof CertificateFacts['requirements']>).map((verdict) => `<span>${escapeHtml(verdict)} ${facts.requirements[verdict]}</span>`).join('');
  const minutes = Math.round(facts.durationMs / 1000);
  const failing =
    facts.failing.length === 0
      ? ''
      : `<h2>Failing requirements (${facts.failing.length})</h2><ul class="reqs">${facts.failing.map(failingItem).join('')}</ul>`;
  const warnings =
    facts.warnings.length === 0
      ? ''
      : `<h2>Warnings (${facts.warnings.length}): listed, they do not prevent conformance</h2><ul class="reqs columns">${facts.warnings.map((requirement) => shortItem(requirement, false)).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dxs certificate: ${escapeHtml(facts.verdict)}, ${escapeHtml(facts.profile.name)}, ${escapeHtml(deployment)}</title><style>${STYLE}</style></head>
<body><main>
<div class="head"><h1>Certificate of Conformance</h1><span class="muted">Document Exchange Service API · dxs ${escapeHtml(facts.dxsVersion)}</span></div>
<div class="verdict ${conforms ? 'conforms' : 'fails'}" id="verdict">${conforms ? `CONFORMS to profile ${escapeHtml(facts.profile.name)}` : `DOES NOT CONFORM to profile ${escapeHtml(facts.profile.name)}`}
<small>${escapeHtml(deployment)}${facts.runProblem !== undefined ? ` · the run could not complete: ${escapeHtml(facts.runProblem)}` : conforms ? ' · every requirement the profile checks passed; warnings and observations allowed' : ` · ${facts.failing.length} requirement(s) failed or blocked`}</small></div>
<table class="facts">
${row('Deployment', `<b>${escapeHtml(facts.deployment.name)}</b> version <b>${escapeHtml(facts.deployment.version)}</b>`)}
${row('Target', target)}
${connectionRow(facts)}
${row('Date', `${escapeHtml(facts.date.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))} (started ${escapeHtml(facts.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}, ${minutes} s)`)}
${row('Profile', `<b>${escapeHtml(facts.profile.name)}</b>: ${escapeHtml(facts.profile.description)}. Areas: ${escapeHtml(facts.profile.areas.join(', '))}. Destructive checks: ${facts.profile.destructive ? 'included' : 'not included'}.`)}
${row('Keys used', facts.keys.map((key) => `${escapeHtml(key.role)} <span class="muted">(${escapeHtml(key.source)})</span>`).join('; ') + ' <span class="muted">(roles only; no value is recorded)</span>')}
${row('Specification', `sha256 <code id="spec-sha256">${escapeHtml(facts.spec.sha256)}</code> <span class="muted">${escapeHtml(facts.spec.file)}</span>`)}
${row('Catalog', `sha256 <code>${escapeHtml(facts.catalog.sha256)}</code> <span class="muted">${escapeHtml(facts.catalog.file)}, ${facts.catalog.requirements} requirements</span>`)}
${row('Test verdicts', `<span class="counts">${testCounts}</span>`)}
${row('Requirement verdicts', `<span class="counts">${requirementCounts}</span>`)}
</table>
${failing}
${warnings}
${facts.accessMatrix === undefined ? '' : `<p>Access matrix: ${facts.accessMatrix.operations} operations × ${facts.accessMatrix.forms} credential forms, ${facts.accessMatrix.cells} cells tried: ${facts.accessMatrix.passed} refused as required, ${facts.accessMatrix.failed} failed, ${facts.accessMatrix.observed} observed, ${facts.accessMatrix.notTried} not tried.</p>`}
<h2>What this certificate does not cover (${facts.notCovered.length})</h2>
${notCoveredList(facts.notCovered)}
<h2>Repeating the run</h2>
<table class="facts">
${row('Command', `<code>${escapeHtml(facts.command)}</code>`)}
</table>
<footer>The package holds this certificate (HTML and PDF), the report of the run (report/index.html, results.json, junit.xml, created.json) and manifest.json, the sha256 of every file. Check it with <code>dxs certify verify &lt;package&gt; [--public-key KEY.pem]</code>. API keys and tokens are redacted in every file.</footer>
</main></body></html>
`;
}
