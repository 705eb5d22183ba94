// certificate.html: the one printable page of a certification package (issue 22), drawn from the
// certificate's facts alone. Self-contained (inline CSS, no scripts, nothing fetched) so that it
// prints the same offline, and one readable A4 page (issue 59): the verdict, what was certified,
// the root causes, the counts by area and the first failures by requirement ID come first; every
// list is bounded and points to the report (and certificate.json) for the rest. certify prints the
// most detailed of its renderings that fits the page unscaled (certify-pdf.ts).
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
table.areas{border-collapse:collapse;margin:2px 0}
table.areas th,table.areas td{padding:0 7px 0 0;text-align:right}
table.areas th:first-child,table.areas td:first-child{text-align:left}
table.areas th{font-weight:600;color:#3a434d}table.areas tr.all td{border-top:1px solid #d6dae0;font-weight:600}
td.bad{color:#cf222e;font-weight:700}
footer{margin-top:8px;border-top:1px solid #d6dae0;padding-top:3px;color:#57606a;font-size:9.5px}
`;

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

function row(label: string, value: string): string {
  return `<tr><th>${escapeHtml(label)}</th><td>${value}</td></tr>`;
}

/**
 * How much each list shows, from the most detailed rendering to the shortest: certify prints the
 * first that fits one page unscaled, so the text keeps its size however many requirements fail.
 */
interface Detail {
  causes: number;
  /** Failing requirements shown with their statement (0: by ID only). */
  failures: number;
  /** Failing requirements named by ID where they are not shown whole. */
  failureIds: number;
  statement: number;
  basis: number;
  notes: number;
  note: number;
  warnings: number;
  /** Requirements not covered named by ID, per reason (0: counts only). */
  notCoveredIds: number;
  /** Up to this many not covered, each with its statement. */
  notCoveredStatements: number;
}

const DETAILS: readonly Detail[] = [
  { causes: 5, failures: 12, failureIds: 60, statement: 160, basis: 220, notes: 1, note: 200, warnings: 60, notCoveredIds: 80, notCoveredStatements: 24 },
  { causes: 3, failures: 8, failureIds: 60, statement: 140, basis: 140, notes: 0, note: 0, warnings: 24, notCoveredIds: 24, notCoveredStatements: 0 },
  { causes: 3, failures: 3, failureIds: 30, statement: 100, basis: 0, notes: 0, note: 0, warnings: 0, notCoveredIds: 0, notCoveredStatements: 0 },
  { causes: 2, failures: 0, failureIds: 40, statement: 0, basis: 0, notes: 0, note: 0, warnings: 0, notCoveredIds: 0, notCoveredStatements: 0 },
];


function failingItem(requirement: CertifiedRequirement, detail: Detail): string {
  const basis =
    detail.basis === 0
      ? ''
      : requirement.basisKind === 'spec'
        ? `<div class="quote">Spec: “${escapeHtml(truncate(requirement.basis, detail.basis))}”</div>`
        : requirement.basisKind === 'invariant'
          ? `<div class="quote">Invariant: ${escapeHtml(truncate(requirement.basis, detail.basis))}</div>`
          : '';
  const notes = requirement.notes.slice(0, detail.notes).map((note) => `<div class="note">${escapeHtml(truncate(note, detail.note))}</div>`).join('');
  const more = detail.notes > 0 && requirement.notes.length > detail.notes ? `<div class="note">and ${requirement.notes.length - detail.notes} more (see report/index.html)</div>` : '';
  return `<li><b>${escapeHtml(requirement.id)}</b> (${escapeHtml(requirement.level)}, ${escapeHtml(requirement.verdict)}): ${escapeHtml(truncate(requirement.statement, detail.statement))}${basis}${notes}${more}</li>`;
}

/** IDs in a row, at most `limit`, and how many more. */
function idList(requirements: readonly CertifiedRequirement[], limit: number): string {
  const shown = requirements.slice(0, limit).map((requirement) => `<b title="${escapeHtml(requirement.statement)}">${escapeHtml(requirement.id)}</b>`).join(', ');
  return `${shown}${requirements.length > limit ? `, and ${requirements.length - limit} more` : ''}`;
}

/** Requirements not covered, grouped by reason: many share one ("no test of the profile's areas checks it"). */
function notCoveredList(requirements: readonly CertifiedRequirement[], detail: Detail): string {
  if (requirements.length === 0) return '<p class="muted">Nothing: every requirement of the profile\'s areas was checked.</p>';
  const byReason = new Map<string, CertifiedRequirement[]>();
  for (const requirement of requirements) {
    const reason = requirement.notes.join('; ') || requirement.verdict;
    byReason.set(reason, [...(byReason.get(reason) ?? []), requirement]);
  }
  // Each with its statement while they fit on the page; beyond that by ID (certificate.json has them all).
  const withStatements = requirements.length <= detail.notCoveredStatements;
  return [...byReason]
    .map(([reason, group]) => {
      const items = withStatements
        ? `<ul class="reqs">${group.map((requirement) => `<li><b>${escapeHtml(requirement.id)}</b> ${escapeHtml(truncate(requirement.statement, 150))}</li>`).join('')}</ul>`
        : detail.notCoveredIds > 0
          ? ` ${idList(group, detail.notCoveredIds)}`
          : '';
      return `<div class="reason"><span class="note">${escapeHtml(truncate(reason, 200))}</span> (${group.length})${items === '' ? '' : ':'}${items}</div>`;
    })
    .join('');
}

const COUNTED = ['passed', 'failed', 'blocked', 'warning', 'info', 'skipped', 'not exercised'] as const;

/** Requirement verdicts area by area, and all of them. */
function areaTable(facts: CertificateFacts): string {
  const cells = (counts: CertificateFacts['requirements']) => COUNTED.map((verdict) => `<td${(verdict === 'failed' || verdict === 'blocked') && counts[verdict] > 0 ? ' class="bad"' : ''}>${counts[verdict]}</td>`).join('');
  const rows = facts.areas.map(({ area, requirements }) => `<tr><td>${escapeHtml(area)}</td>${cells(requirements)}</tr>`).join('');
  return `<table class="areas" id="areas"><tr><th>area</th>${COUNTED.map((verdict) => `<th>${verdict}</th>`).join('')}</tr>${rows}<tr class="all"><td>all</td>${cells(facts.requirements)}</tr></table>`;
}

function rootCauseList(facts: CertificateFacts, detail: Detail): string {
  if (facts.rootCauses.length === 0) return '';
  const shown = facts.rootCauses.slice(0, detail.causes);
  const items = shown.map((cause) => `<li><b>${escapeHtml(cause.requirement)}</b> ${escapeHtml(cause.prerequisite)} is broken: ${escapeHtml(truncate(cause.message, detail.basis === 0 ? 140 : 260))} <span class="note">(${cause.blocked} test${cause.blocked === 1 ? '' : 's'} blocked)</span></li>`).join('');
  const more = facts.rootCauses.length > shown.length ? `<li class="note">and ${facts.rootCauses.length - shown.length} more (report/index.html)</li>` : '';
  return `<h2 id="root-causes">Root causes (${facts.rootCauses.length}): fixed, each unblocks every test it blocked</h2><ul class="reqs">${items}${more}</ul>`;
}

function failingList(facts: CertificateFacts, detail: Detail): string {
  if (facts.failing.length === 0) return '';
  const whole = facts.failing.slice(0, detail.failures);
  const rest = facts.failing.slice(whole.length);
  const named = rest.slice(0, detail.failureIds);
  const shown = whole.length + named.length;
  const items = whole.length === 0 ? '' : `<ul class="reqs">${whole.map((requirement) => failingItem(requirement, detail)).join('')}</ul>`;
  const ids = named.length === 0 ? '' : `<p>${whole.length === 0 ? '' : 'Also failing or blocked: '}${idList(rest, detail.failureIds)}</p>`;
  const heading = `Failing requirements (${facts.failing.length}${whole.length < facts.failing.length ? `; the first ${whole.length === 0 ? shown : whole.length} by requirement ID` : ''})`;
  const pointer = `<p class="muted" id="for-the-rest">${whole.length < facts.failing.length ? 'The rest, and for each failure the request, the answer and a curl script that reproduces it: ' : 'For each failure the request, the answer and a curl script that reproduces it: '}report/index.html; certificate.json lists every requirement with its verdict.</p>`;
  return `<h2 id="failing">${escapeHtml(heading)}</h2>${items}${ids}${pointer}`;
}

/** What was certified: a deployment by its name, or dxs's own reference sandbox, which is none. */
function subjectRow(facts: CertificateFacts): string {
  if (facts.deployment !== undefined) return row('Deployment', `<b>${escapeHtml(facts.deployment.name)}</b> version <b>${escapeHtml(facts.deployment.version)}</b>`);
  if (facts.subject.kind === 'reference sandbox') return row('Subject', `<b id="subject">${escapeHtml(facts.subject.text)}</b>: no base URL was given, so this certificate speaks of no deployment`);
  return row('Subject', `<b id="subject">${escapeHtml(facts.subject.text)}</b>`);
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

export function renderCertificate(facts: CertificateFacts, level = 0): string {
  const detail = DETAILS[Math.max(0, Math.min(DETAILS.length - 1, level))];
  const conforms = facts.verdict === 'CONFORMS';
  const subject = facts.subject.text;
  const target = [
    `<code>${escapeHtml(facts.target.url)}</code>`,
    facts.target.embedded ? ' (the embedded reference sandbox)' : '',
    facts.target.sandboxFaults.length > 0 ? `; sandbox faults: ${escapeHtml(facts.target.sandboxFaults.join(', '))}` : '',
    facts.target.sandboxVariants.length > 0 ? `; sandbox variants: ${escapeHtml(facts.target.sandboxVariants.join(', '))}` : '',
  ].join('');
  const testCounts = (['passed', 'failed', 'blocked', 'warning', 'info', 'skipped'] as const).map((verdict) => `<span>${verdict} ${facts.tests[verdict] ?? 0}</span>`).join('');
  const minutes = Math.round(facts.durationMs / 1000);
  const warnings =
    facts.warnings.length === 0
      ? ''
      : detail.warnings === 0
        ? `<p>Warnings (${facts.warnings.length}), which do not prevent conformance: see report/index.html.</p>`
        : `<h2>Warnings (${facts.warnings.length}): listed, they do not prevent conformance</h2><p>${idList(facts.warnings, detail.warnings)}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dxs certificate: ${escapeHtml(facts.verdict)}, ${escapeHtml(facts.profile.name)}, ${escapeHtml(subject)}</title><style>${STYLE}</style></head>
<body><main>
<div class="head"><h1>Certificate of Conformance</h1><span class="muted">Document Exchange Service API · dxs ${escapeHtml(facts.dxsVersion)}</span></div>
<div class="verdict ${conforms ? 'conforms' : 'fails'}" id="verdict">${conforms ? `CONFORMS to profile ${escapeHtml(facts.profile.name)}` : `DOES NOT CONFORM to profile ${escapeHtml(facts.profile.name)}`}
<small>${escapeHtml(subject)}${facts.runProblem !== undefined ? ` · the run could not complete: ${escapeHtml(truncate(facts.runProblem, 300))}` : conforms ? ' · every requirement the profile checks passed; warnings and observations allowed' : ` · ${facts.failing.length} requirement(s) failed or blocked`}</small></div>
<table class="facts">
${subjectRow(facts)}
${row('Target', target)}
${connectionRow(facts)}
</table>
${rootCauseList(facts, detail)}
<h2>Requirements by area</h2>
${areaTable(facts)}
${failingList(facts, detail)}
<h2>The run</h2>
<table class="facts">
${row('Date', `${escapeHtml(facts.date.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))} (started ${escapeHtml(facts.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}, ${minutes} s)`)}
${row('Profile', `<b>${escapeHtml(facts.profile.name)}</b>: ${escapeHtml(facts.profile.description)}. Areas: ${escapeHtml(facts.profile.areas.join(', '))}. Destructive checks: ${facts.profile.destructive ? 'included' : 'not included'}.`)}
${row('Keys used', facts.keys.map((key) => `${escapeHtml(key.role)} <span class="muted">(${escapeHtml(key.source)})</span>`).join('; ') + ' <span class="muted">(roles only; no value is recorded)</span>')}
${row('Specification', `sha256 <code id="spec-sha256">${escapeHtml(facts.spec.sha256)}</code> <span class="muted">${escapeHtml(facts.spec.file)}</span>`)}
${row('Catalog', `sha256 <code>${escapeHtml(facts.catalog.sha256)}</code> <span class="muted">${escapeHtml(facts.catalog.file)}, ${facts.catalog.requirements} requirements</span>`)}
${row('Test verdicts', `<span class="counts">${testCounts}</span>`)}
</table>
${warnings}
${facts.accessMatrix === undefined ? '' : `<p>Access matrix: ${facts.accessMatrix.operations} operations × ${facts.accessMatrix.forms} credential forms, ${facts.accessMatrix.cells} cells tried: ${facts.accessMatrix.passed} refused as required, ${facts.accessMatrix.failed} failed, ${facts.accessMatrix.observed} observed, ${facts.accessMatrix.notTried} not tried.</p>`}
<h2>What this certificate does not cover (${facts.notCovered.length})</h2>
${notCoveredList(facts.notCovered, detail)}
<h2>Repeating the run</h2>
<table class="facts">
${row('Command', `<code>${escapeHtml(facts.command)}</code>`)}
</table>
<footer>The package holds this certificate (HTML and PDF), the report of the run (report/index.html, results.json, junit.xml, created.json) and manifest.json, the sha256 of every file. Check it with <code>dxs certify verify &lt;package&gt; [--public-key KEY.pem]</code>. API keys and tokens are redacted in every file.</footer>
</main></body></html>
`;
}

/** Every rendering of the certificate, from the most detailed to the shortest, for the printer to choose from. */
export function certificateRenderings(facts: CertificateFacts): string[] {
  return DETAILS.map((_, level) => renderCertificate(facts, level));
}
