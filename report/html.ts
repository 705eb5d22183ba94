// index.html: the page integrators keep as evidence. Self-contained (inline CSS, no external
// assets, two inline scripts: the copy buttons of the curl lines, the filter bar of find-html.ts),
// rendered from results.json and the requirements catalog alone.
import type { Requirement } from '../schemas/requirements.ts';
import type { CheckRecord, Exchange } from '../lib/run-record.ts';
import { baselineNote, renderBaselineSection } from './compare-html.ts';
import { NOT_REACHED_ANNOTATION, worst, type Results, type TestRecord, type Verdict } from './results.ts';
import { renderCleanup } from './cleanup-html.ts';
import { renderLastFailed } from './last-failed-html.ts';
import { escapeHtml } from './escape-html.ts';
import { connectionRows } from './connection-html.ts';
import { describeCause, rootCauseHeadline, rootCausesOf } from './root-causes.ts';
import { gatewayLine, type GatewaySummary } from './rate-limits.ts';
import { timingLines } from './timing.ts';
import { renderTimeline, TIMELINE_CSS } from './timeline-html.ts';
import { renderAccessControl } from './access-html.ts';
import { byReadingOrder, FIND_CSS, FIND_SCRIPT, renderFindBar, testAttributes } from './find-html.ts';

// Renderers elsewhere (dxs fuzz's page, the tests) import it from here.
export { escapeHtml };

type MatrixVerdict = Verdict | 'not exercised';

const LABEL: Record<string, string> = {
  passed: 'passed',
  failed: 'failed',
  warning: 'warning',
  info: 'info',
  skipped: 'skipped',
  blocked: 'blocked',
  'not exercised': 'not exercised',
};

const badge = (verdict: string): string => `<span class="badge ${verdict.replace(/\s/g, '-')}">${escapeHtml(LABEL[verdict] ?? verdict)}</span>`;

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #d6dae0;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;width:100%;background:#fff;margin:6px 0}
th,td{border:1px solid #e1e4e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef0f3;font-weight:600}
pre{background:#0f1720;color:#e6edf3;padding:10px;overflow:auto;white-space:pre-wrap;word-break:break-word;border-radius:4px;font-size:12px;margin:4px 0}
.verdict{padding:16px;border-radius:6px;color:#fff;margin:12px 0}
.verdict.passed{background:#1a7f37}.verdict.failed{background:#cf222e}.verdict.interrupted,.verdict.unreachable,.verdict.error{background:#9a6700}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;color:#fff;background:#6e7781;white-space:nowrap}
.badge.passed{background:#1a7f37}.badge.failed{background:#cf222e}.badge.warning{background:#bf8700}.badge.info{background:#0969da}
.badge.skipped{background:#8c959f}.badge.blocked{background:#8250df}.badge.not-exercised{background:#d0d7de;color:#24292f}
.meta td:first-child{width:160px;font-weight:600}
.card{background:#fff;border:1px solid #d6dae0;border-radius:6px;padding:12px;margin:10px 0}
.card.failed{border-left:4px solid #cf222e}.card.warning{border-left:4px solid #bf8700}
.matrix td:first-child,#observations+table td:first-child{white-space:nowrap}nav a{margin-right:14px}
.muted{color:#57606a}.counts span{margin-right:10px}
details>summary{cursor:pointer;font-weight:600;padding:4px 0}
#root-causes h2{margin-top:0}
.access th,.access td{font-size:12px;padding:2px 4px}
#observations+table{table-layout:fixed}#observations+table td{overflow-wrap:anywhere}#observations+table th:first-child{width:9em}#observations+table th:last-child{width:22%}
`;

function renderMeta(results: Results): string {
  const { run, summary } = results;
  const rows: Array<[string, string]> = [
    ['Target', `${escapeHtml(run.target)}${run.embedded ? ' <span class="muted">(embedded sandbox)</span>' : ''}`],
    ['Date', escapeHtml(run.startedAt)],
    ['Duration', `${(run.durationMs / 1000).toFixed(1)} s`],
    ['dxs version', escapeHtml(run.version)],
    ['Profile', `${escapeHtml(run.profile)}${run.destructive ? ' (with destructive checks)' : ''}${run.strict ? ', strict: hardening checks fail' : ''}`],
    ['Areas', escapeHtml(run.areas.length > 0 ? run.areas.join(', ') : 'all')],
    ['Casing', escapeHtml(run.casing)],
    ['Tests', `${summary.total}: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info, ${summary.skipped} skipped${summary.blocked ? `, ${summary.blocked} blocked` : ''}`],
  ];
  if (run.shards.length > 0) rows.push(['Shards', escapeHtml(run.shards.join(', '))]);
  rows.push(...connectionRows(run.connection));
  if (results.timing !== undefined) {
    const [concurrency, network, background] = timingLines(results.timing).map((line) => escapeHtml(line.replace(/^[^:]*: /, '')));
    rows.push(['Concurrency', concurrency], ['Waited for the network', network], ['Waited for background work', background]);
  }
  return `<table class="meta">${rows.map(([name, value]) => `<tr><td>${name}</td><td>${value}</td></tr>`).join('')}</table>`;
}

function verdictText(results: Results): string {
  const { run, summary } = results;
  switch (run.status) {
    case 'passed':
      return `PASSED: no test failed${summary.warning > 0 ? ` (${summary.warning} with warnings)` : ''}`;
    case 'failed':
      return `FAILED: ${summary.failed} test${summary.failed === 1 ? '' : 's'} failed${summary.blocked ? `, ${summary.blocked} blocked` : ''}`;
    case 'unreachable':
      return 'NOT RUN: the target was unreachable';
    case 'interrupted':
      return 'INCOMPLETE: the run was interrupted';
    default:
      return 'NOT RUN: the run could not be made';
  }
}

/** Per catalog ID, the verdicts of every test that names it. */
function matrixOf(tests: readonly TestRecord[]): Map<string, { verdict: MatrixVerdict; tests: TestRecord[] }> {
  const matrix = new Map<string, { verdicts: Verdict[]; tests: TestRecord[] }>();
  for (const test of tests) {
    for (const [id, verdict] of Object.entries(test.requirementVerdicts)) {
      const entry = matrix.get(id) ?? { verdicts: [], tests: [] };
      entry.verdicts.push(verdict);
      entry.tests.push(test);
      matrix.set(id, entry);
    }
  }
  const result = new Map<string, { verdict: MatrixVerdict; tests: TestRecord[] }>();
  for (const [id, entry] of matrix) {
    // A skip only shows when nothing else ran for the ID.
    const ran = entry.verdicts.filter((verdict) => verdict !== 'skipped');
    result.set(id, { verdict: worst(ran.length > 0 ? ran : entry.verdicts) ?? 'not exercised', tests: entry.tests });
  }
  return result;
}

function renderMatrix(results: Results, catalog: readonly Requirement[]): string {
  const matrix = matrixOf(results.tests);
  const areas = [...new Set([...catalog.map((requirement) => requirement.area as string), ...results.tests.map((test) => test.area)])];
  const known = new Set(catalog.map((requirement) => requirement.id));
  const sections: string[] = [];
  const totals: Record<MatrixVerdict, number> = { passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0, 'not exercised': 0 };
  for (const area of areas) {
    const entries = catalog.filter((requirement) => requirement.area === area);
    const extra = [...matrix.keys()].filter((id) => !known.has(id) && results.tests.some((test) => test.area === area && test.requirements.includes(id)));
    if (entries.length === 0 && extra.length === 0) continue;
    const counts: Record<MatrixVerdict, number> = { passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0, 'not exercised': 0 };
    const rows = [
      ...entries.map((requirement) => ({ id: requirement.id, level: requirement.basis === undefined ? requirement.level : `${requirement.level} · ${requirement.basis}`, statement: requirement.statement, quote: requirement.quote })),
      ...extra.map((id) => ({ id, level: '?', statement: '(not in the catalog)', quote: undefined })),
    ].map((row) => {
      const entry = matrix.get(row.id);
      const verdict: MatrixVerdict = entry?.verdict ?? 'not exercised';
      counts[verdict]++;
      totals[verdict]++;
      const testsCell = entry === undefined ? '' : entry.tests.map((test) => escapeHtml(test.title)).join('<br>');
      return `<tr><td>${escapeHtml(row.id)}</td><td>${escapeHtml(row.level)}</td><td>${badge(verdict)}</td><td>${escapeHtml(row.statement)}${row.quote === undefined ? '' : `<br><span class="muted">spec: “${escapeHtml(row.quote)}”</span>`}</td><td class="muted">${testsCell}</td></tr>`;
    });
    const countText = (Object.keys(counts) as MatrixVerdict[]).map((verdict) => `<span>${badge(verdict)} ${counts[verdict]}</span>`).join('');
    sections.push(
      `<details${counts.failed > 0 ? ' open' : ''}><summary>${escapeHtml(area)} <span class="counts">${countText}</span></summary>` +
        `<table class="matrix"><tr><th>ID</th><th>Level</th><th>Verdict</th><th>Requirement</th><th>Tests</th></tr>${rows.join('')}</table></details>`,
    );
  }
  const totalText = (Object.keys(totals) as MatrixVerdict[]).map((verdict) => `<span>${badge(verdict)} ${totals[verdict]}</span>`).join('');
  return `<p class="counts">${totalText}</p>${sections.join('\n')}`;
}

function renderExchange(exchange: Exchange): string {
  const request = [`${exchange.request.method} ${exchange.request.url}`, ...Object.entries(exchange.request.headers).map(([name, value]) => `${name}: ${value}`)];
  if (exchange.request.body !== undefined) request.push('', typeof exchange.request.body === 'string' ? exchange.request.body : JSON.stringify(exchange.request.body, null, 2));
  let response: string[];
  if (exchange.response !== undefined) {
    response = [`${exchange.response.status}`, ...Object.entries(exchange.response.headers).map(([name, value]) => `${name}: ${value}`)];
    if (exchange.response.body !== undefined) response.push('', typeof exchange.response.body === 'string' ? exchange.response.body : JSON.stringify(exchange.response.body, null, 2));
  } else response = [`no response: ${exchange.error ?? 'unknown'}`];
  return `<h3>${escapeHtml(exchange.title)} <span class="muted">(${exchange.durationMs} ms)</span></h3><div class="muted">Request</div><pre>${escapeHtml(request.join('\n'))}</pre><div class="muted">Response</div><pre>${escapeHtml(response.join('\n'))}</pre>`;
}

function renderChecks(checks: readonly CheckRecord[]): string {
  if (checks.length === 0) return '';
  const rows = checks.map(
    (check) =>
      `<tr><td>${escapeHtml(check.requirement)}</td><td>${badge(check.verdict)}</td><td>${escapeHtml(check.check)}</td><td>${escapeHtml(check.expected)}</td><td>${escapeHtml(check.actual)}</td></tr>`,
  );
  return `<table><tr><th>ID</th><th>Verdict</th><th>Check</th><th>Expected</th><th>Actual</th></tr>${rows.join('')}</table>`;
}

/** The requirements a test could not reach while judging the others, each with why (issue 57). */
function renderNotReached(test: TestRecord): string {
  const reasons = test.annotations.filter((annotation) => annotation.type === NOT_REACHED_ANNOTATION).map((annotation) => `<li>${escapeHtml(annotation.description ?? '')}</li>`);
  return reasons.length === 0 ? '' : `<ul class="muted">${reasons.join('')}</ul>`;
}

/** The failing call as a curl command, with a copy button, and the whole script that reproduces the test (issue 43). */
function renderReproduce(test: TestRecord): string {
  const reproduce = test.reproduce;
  if (reproduce === undefined) return '';
  if (reproduce.script === undefined) return `<p class="muted">No reproduce script: ${escapeHtml(reproduce.error ?? 'unknown reason')}</p>`;
  const id = `curl-${test.id.replace(/[^A-Za-z0-9_-]/g, '')}`;
  const script = `<a href="${escapeHtml(reproduce.script)}">${escapeHtml(reproduce.script)}</a>`;
  if (reproduce.call === undefined) return `<p>Reproduce with curl: ${script} (every call of the test; needs curl and jq).</p>`;
  return `<div class="reproduce"><strong>Reproduce with curl</strong> <button type="button" data-copy="${id}">Copy</button> <span class="muted">the call the check judged; ${script} makes it with every call before it (needs curl, jq, and DXS_API_KEY set)</span><pre id="${id}">${escapeHtml(reproduce.call)}</pre></div>`;
}

const COPY_SCRIPT = `<script>document.addEventListener('click',function(event){var id=event.target&&event.target.getAttribute&&event.target.getAttribute('data-copy');if(!id)return;var text=document.getElementById(id).textContent;if(navigator.clipboard)navigator.clipboard.writeText(text).then(function(){event.target.textContent='Copied';});});</script>`;

function renderTestCard(test: TestRecord, kind: 'failed' | 'warning', note = ''): string {
  const relevant = kind === 'failed' ? test.checks : test.checks.filter((check) => check.verdict === 'warning');
  const exchanges =
    kind === 'failed'
      ? (test.exchanges ?? [])
      : (test.exchanges ?? []).filter((_, index) => relevant.some((check) => check.exchange === index));
  return (
    `<div class="card ${kind}"${testAttributes(test)}><div><strong>${escapeHtml(test.titlePath.join(' › '))}</strong> ${badge(test.verdict)}${note}</div>` +
    `<div class="muted">${escapeHtml(test.file)} · ${escapeHtml(test.requirements.join(', '))} · area ${escapeHtml(test.area)}</div>` +
    (test.failure !== undefined ? `<pre>${escapeHtml(test.failure)}</pre>` : '') +
    renderChecks(relevant) +
    renderNotReached(test) +
    renderReproduce(test) +
    (exchanges.length > 0 ? `<details${kind === 'failed' ? ' open' : ''}><summary>Requests and responses (${exchanges.length})</summary>${exchanges.map(renderExchange).join('')}</details>` : '') +
    '</div>'
  );
}

function renderObservations(results: Results, catalog: readonly Requirement[]): string {
  const statements = new Map(catalog.map((requirement) => [requirement.id, requirement.statement]));
  const rows: string[] = [];
  for (const test of results.tests) {
    for (const check of test.checks.filter((check) => check.verdict === 'info')) {
      rows.push(
        `<tr><td>${escapeHtml(check.requirement)}</td><td>${escapeHtml(statements.get(check.requirement) ?? '')}</td><td>${escapeHtml(check.actual)}</td><td class="muted">${escapeHtml(test.title)}</td></tr>`,
      );
    }
  }
  if (rows.length === 0) return '<p class="muted">No observations were recorded.</p>';
  return `<table><tr><th>ID</th><th>Where the spec is silent</th><th>What the target did</th><th>Test</th></tr>${rows.join('')}</table>`;
}

function renderCoverage(results: Results, catalogEndpoints: readonly string[]): string {
  const endpoints = [...new Set([...catalogEndpoints, ...Object.keys(results.coverage)])].sort((a, b) => a.split(' ')[1].localeCompare(b.split(' ')[1]) || a.localeCompare(b));
  const rows = endpoints.map((endpoint) => {
    const statuses = results.coverage[endpoint];
    const cell =
      statuses === undefined
        ? '<span class="badge not-exercised">not called</span>'
        : Object.entries(statuses)
            .sort()
            .map(([status, count]) => `<span class="badge ${status.startsWith('2') ? 'passed' : status.startsWith('4') ? 'info' : status.startsWith('5') ? 'failed' : 'skipped'}">${escapeHtml(status)}</span> ×${count}`)
            .join(' ');
    return `<tr><td>${escapeHtml(endpoint)}</td><td>${cell}</td></tr>`;
  });
  return `<table><tr><th>Endpoint</th><th>Statuses seen (calls)</th></tr>${rows.join('')}</table>`;
}

/** The broken prerequisites, first on the page: fixing one unblocks every test it lists. */
function renderRootCauses(results: Results): string {
  const groups = results.rootCauses ?? rootCausesOf(results.tests);
  const headline = rootCauseHeadline(groups);
  if (headline === undefined) return '';
  const items = groups.map(
    (group) =>
      `<li><strong>${escapeHtml(describeCause(group))}</strong><details><summary>${group.tests.length} blocked test${group.tests.length === 1 ? '' : 's'}</summary><ul>${group.tests.map((test) => `<li>${escapeHtml(test)}</li>`).join('')}</ul></details></li>`,
  );
  return `<section class="card failed" id="root-causes"><h2>${escapeHtml(headline)}</h2><ol>${items.join('')}</ol></section>`;
}

/** The gateway's answers (issue 31): how many, where, and how long the run waited for them. */
function renderGateway(gateway: GatewaySummary | undefined): string {
  const line = gatewayLine(gateway);
  if (gateway === undefined || line === undefined) return '';
  const rows = Object.entries(gateway.byEndpoint)
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([endpoint, byStatus]) => `<tr><td>${escapeHtml(endpoint)}</td><td>${Object.entries(byStatus).map(([status, count]) => `${escapeHtml(status)} ×${count}`).join(', ')}</td></tr>`);
  return `<h2 id="gateway">Rate limits and maintenance answers</h2>
<p>${escapeHtml(line.replace(/^gateway: /, ''))}. A 429, or a 503 with Retry-After, is the gateway's answer, not the target's: each call waited as Retry-After asked and was sent again; no check judged such an answer.${gateway.limit !== undefined ? ` The first one: ${escapeHtml(gateway.limit)}.` : ''}</p>
${rows.length > 0 ? `<table><tr><th>Endpoint</th><th>Gateway answers</th></tr>${rows.join('')}</table>` : ''}`;
}

function renderAllTests(results: Results): string {
  const rows = byReadingOrder(results.tests).map(
    (test) =>
      `<tr${testAttributes(test)}><td>${escapeHtml(test.titlePath.join(' › '))}</td><td>${escapeHtml(test.area)}</td><td>${escapeHtml(test.requirements.join(', '))}</td><td>${badge(test.verdict)}${test.skipReason ? ` <span class="muted">${escapeHtml(test.skipReason)}</span>` : ''}${test.verdict === 'blocked' && test.failure ? ` <span class="muted">${escapeHtml(test.failure)}</span>` : ''}</td><td>${test.durationMs} ms</td></tr>`,
  );
  return `<table id="test-list"><tr><th>Test</th><th>Area</th><th>Requirements</th><th>Verdict</th><th>Duration</th></tr>${rows.join('')}</table>`;
}

/** The blocked tests, each with what it waited for, next to the failures: both are what a reader acts on first. */
function renderBlocked(blocked: readonly TestRecord[]): string {
  if (blocked.length === 0) return '';
  const rows = blocked.map((test) => `<tr${testAttributes(test)}><td>${escapeHtml(test.titlePath.join(' › '))}</td><td>${escapeHtml(test.area)}</td><td>${escapeHtml(test.requirements.join(', '))}</td><td class="muted">${escapeHtml(test.failure ?? '')}</td></tr>`);
  return `<h2 id="blocked">Blocked: a prerequisite broke (${blocked.length})</h2>
<table><tr><th>Test</th><th>Area</th><th>Requirements</th><th>What it waited for</th></tr>${rows.join('')}</table>`;
}

export interface HtmlInput {
  results: Results;
  catalog: readonly Requirement[];
  catalogEndpoints: readonly string[];
}

/** Renders the page; the caller redacts the text before writing it. */
export function renderHtml({ results, catalog, catalogEndpoints }: HtmlInput): string {
  const failed = results.tests.filter((test) => test.verdict === 'failed');
  const warnings = results.tests.filter((test) => test.verdict === 'warning');
  const blocked = results.tests.filter((test) => test.verdict === 'blocked');
  const status = results.run.status;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>dxs test report: ${escapeHtml(verdictText(results))}</title><style>${CSS}${TIMELINE_CSS}${FIND_CSS}</style></head>
<body><main>
<h1>Document Exchange Service API: conformance report</h1>
${results.baseline !== undefined ? renderBaselineSection(results.baseline) : ''}
${renderLastFailed(results.lastFailed)}
<div class="verdict ${escapeHtml(status)}"><strong>${escapeHtml(verdictText(results))}</strong>${results.run.message !== undefined ? `<br>${escapeHtml(results.run.message)}` : ''}</div>
${renderRootCauses(results)}
${renderFindBar(results.tests)}
<h2 id="failures">Failures (${failed.length})</h2>
${failed.length === 0 ? '<p class="muted">No test failed.</p>' : failed.map((test) => renderTestCard(test, 'failed', baselineNote(results.baseline, test.id))).join('\n')}
${renderBlocked(blocked)}
${renderMeta(results)}
<nav><a href="#failures">Failures</a>${blocked.length > 0 ? '<a href="#blocked">Blocked</a>' : ''}<a href="#warnings">Warnings</a><a href="#matrix">Requirements</a>${results.tests.some((test) => test.area === 'access') ? '<a href="#access">Access control</a>' : ''}<a href="#observations">Observations</a><a href="#coverage">Endpoint coverage</a>${results.timeline !== undefined ? '<a href="#timeline">Timeline</a>' : ''}<a href="#tests">All tests</a></nav>
<h2 id="warnings">Warnings: deviations from the guide (${warnings.length})</h2>
${warnings.length === 0 ? '<p class="muted">No warnings.</p>' : warnings.map((test) => renderTestCard(test, 'warning')).join('\n')}
<h2 id="matrix">Requirements by area</h2>
${renderMatrix(results, catalog)}
${renderAccessControl(results)}
<h2 id="observations">Observations where the spec is silent</h2>
${renderObservations(results, catalog)}
<h2 id="coverage">Endpoint coverage</h2>
${renderCoverage(results, catalogEndpoints)}
${renderTimeline(results.timeline)}
${renderGateway(results.gateway)}
${renderCleanup(results.cleanup)}
<h2 id="tests">All tests, worst first (${results.tests.length})</h2>
${results.tests.length === 0 ? '<p class="muted">No test ran.</p>' : renderAllTests(results)}
<p class="muted">Generated by dxs ${escapeHtml(results.run.version)}. API keys and tokens are redacted. The Playwright report with every step is in playwright/index.html; machine-readable results in results.json and junit.xml.</p>
</main>${COPY_SCRIPT}${FIND_SCRIPT}</body></html>
`;
}
