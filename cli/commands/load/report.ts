// The run's own pages: summary.html (per script and endpoint: throughput, latency percentiles,
// errors, checks, threshold verdicts), summary.json (the same as data), and index.html linking
// them with k6's dashboard export and the raw JSON. Self-contained: inline CSS, no scripts, no
// external resources. Nothing secret reaches them: keys and tokens never enter the k6 metrics,
// and every page goes through the redaction registry besides.
import { writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { secrets } from '../../../lib/redact.ts';
import type { RunResult } from './results.ts';
import type { CleanupReport } from '../../../report/cleanup.ts';
import { renderCleanup } from '../../../report/cleanup-html.ts';
import { comparisonHtml, comparisonJson, type LoadComparison } from './compare.ts';
import { exchangeLines, exchangeSection, exchangeTotals, notJudgedBanner } from './exchange.ts';
import { requirementsOfCheckName } from '../../../lib/contract.ts';
import { describeBasis, requirementById, type Requirement } from '../../../schemas/requirements.ts';
import { gatewayAnswers, gatewayCounts } from './gateway-share.ts';

export interface ScriptArtifacts {
  script: string;
  /** k6's exit code, when a process ran here (not for merges). */
  exitCode?: number;
  dashboard?: string;
  rawFiles: string[];
  summaryExports: string[];
  log?: string;
}

export interface LoadReportInput {
  title: string;
  target: string;
  profile: string;
  startedAt: Date;
  results: RunResult[];
  artifacts: ScriptArtifacts[];
  notes: string[];
  /** What the run created at the target and what its cleanup deleted or left (as dxs test reports it). */
  cleanup?: CleanupReport;
  /** This run against --baseline, per endpoint. */
  comparison?: LoadComparison;
}

/** The cleanup section, with what a staging owner asks first: created, and left with the reason. */
function cleanupSection(cleanup: CleanupReport | undefined): string {
  if (cleanup === undefined) return '';
  const created = (kind: string): number => cleanup.created[kind] ?? 0;
  const leftCompanies = cleanup.left.length;
  const reasons = [...new Set(cleanup.left.map((company) => company.reason ?? 'unknown'))].join('; ');
  const count = (number: number, one: string, many: string): string => `${number} ${number === 1 ? one : many}`;
  const headline = `The run created ${count(created('companies'), 'company', 'companies')}, ${count(created('uploads'), 'upload', 'uploads')} and ${count(created('documents'), 'document', 'documents')}. ` +
    (leftCompanies === 0
      ? 'None is left at the target: the uploads and documents went with their companies.'
      : `Left at the target: ${count(leftCompanies, 'company', 'companies')} (${reasons}), with their uploads and documents.`);
  return `<p class="${leftCompanies === 0 ? 'pass' : 'fail'}" id="data-left">${escapeHtml(headline)}</p>\n${renderCleanup(cleanup)}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${((part / whole) * 100).toFixed(2)}%`;
}

function formatActual(value: number | undefined, ok = false): string {
  if (value === undefined) return ok ? 'no data' : 'not computable';
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d232a}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2.2rem;border-bottom:1px solid #d8dee4;padding-bottom:.3rem}
table{border-collapse:collapse;width:100%;margin:.6rem 0 1.2rem}th,td{border:1px solid #d8dee4;padding:.3rem .5rem;text-align:right}
th{background:#f3f5f7}td.name,th.name{text-align:left;font-family:ui-monospace,monospace;font-size:13px}td.endpoint{white-space:nowrap}
.pass{color:#116329;font-weight:600}.fail{color:#b42318;font-weight:600}.warn{color:#9a6700;font-weight:600}.muted{color:#59636e}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:.6rem;color:#fff;font-size:12px;white-space:nowrap}td.script,td.files a{white-space:nowrap}.badge.pass{background:#1a7f37}.badge.fail{background:#cf222e}.badge.warn{background:#9a6700}
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{font-weight:600}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;font-size:12px}details{margin:.3rem 0}
.plots{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0}figcaption{font-size:13px;margin-bottom:.2rem}svg text{font:11px system-ui,sans-serif;fill:#1d232a}
`;

/**
 * The requirements a check serves (the IDs its name ends with) and, when it failed, the basis of
 * each as dxs test gives it: the spec's sentence, the invariant, or hardening.
 */
export function checkBasis(name: string, failed: boolean): string {
  const ids = requirementsOfCheckName(name);
  if (ids.length === 0) return '';
  const lookup = (id: string): Requirement | undefined | null => {
    try {
      return requirementById(id);
    } catch {
      // The merge bundle of a k6-operator run carries no catalog (dxs load k8s): the IDs still say which requirement.
      return null;
    }
  };
  if (lookup(ids[0]) === null) return ids.join(', ');
  if (!failed) return ids.map((id) => `${id} (${lookup(id)?.basis ?? 'not in the catalog'})`).join(', ');
  return ids.map((id) => `${id}: ${describeBasis(lookup(id) ?? undefined) ?? 'not graded'}`).join(' ');
}

function verdictBadge(passed: boolean, exchangeFailed = false): string {
  const text = passed ? 'thresholds passed' : exchangeFailed ? 'exchange failed' : 'thresholds failed';
  return `<span class="badge ${passed ? 'pass' : 'fail'}">${text}</span>`;
}

/** The exchange alone failed these results: their thresholds all passed. */
function onlyExchangeFailed(results: readonly RunResult[]): boolean {
  return results.some((result) => result.exchange?.passed === false) && results.every((result) => result.thresholds.every((verdict) => verdict.ok));
}

/**
 * The warnings of one script: the contract's hardening checks that failed and the exchange's
 * hardening rules broken (each counted as often as it was seen). Neither fails the run without
 * --strict, so they are counted apart from the verdict.
 */
export function warningCount(result: RunResult): number {
  const checks = (result.warnings ?? []).reduce((total, item) => total + item.fails, 0);
  const exchange = (result.exchange?.rules ?? []).filter((rule) => rule.severity === 'warning').reduce((total, rule) => total + rule.count, 0);
  return checks + exchange;
}

/** A badge beside the verdict when the script warned, linking to where summary.html lists the warnings. */
function warningBadge(result: RunResult): string {
  const count = warningCount(result);
  return count === 0 ? '' : ` <a class="badge warn" href="summary.html#${escapeHtml(result.script)}">${count} warning${count === 1 ? '' : 's'}</a>`;
}

function resultBadge(result: RunResult): string {
  const notJudged = result.exchange?.notJudged ?? 0;
  if (result.gatewayRefused !== undefined) return '<span class="badge fail">target not loaded</span>';
  // A green badge never stands alone over invoices nobody proved delivered or lost, nor over warnings.
  return verdictBadge(result.passed, onlyExchangeFailed([result])) + (notJudged > 0 ? ` <span class="badge warn">${notJudged} not judged</span>` : '') + warningBadge(result);
}

function scriptSection(result: RunResult): string {
  const rows = result.endpoints
    .map((item) => {
      const order = ['http_req_duration', 'http_req_failed', 'checks'];
      const verdicts = result.thresholds
        .filter((verdict) => verdict.metric.includes(`{name:${item.endpoint}}`))
        .sort((a, b) => order.indexOf(a.metric.split('{')[0]) - order.indexOf(b.metric.split('{')[0]) || a.expression.localeCompare(b.expression));
      const verdictText = verdicts.length === 0
        ? '<span class="muted">none</span>'
        : verdicts.map((verdict) => `<span class="${verdict.ok ? 'pass' : 'fail'}">${verdict.ok ? '✓' : '✗'} ${escapeHtml(verdict.metric.split('{')[0].replace('http_req_', ''))} ${escapeHtml(verdict.expression)} (${formatActual(verdict.actual, verdict.ok)}${verdict.actual !== undefined && verdict.metric.startsWith('http_req_duration') ? ' ms' : ''})</span>`).join('<br>');
      return `<tr><td class="name endpoint">${escapeHtml(item.endpoint)}</td><td>${item.requests}</td><td>${item.requestsPerSecond.toFixed(1)}</td>` +
        `<td>${ms(item.latency.p50)}</td><td>${ms(item.latency.p90)}</td><td>${ms(item.latency.p95)}</td><td>${ms(item.latency.p99)}</td><td>${ms(item.latency.max)}</td>` +
        `<td class="${item.failed > 0 ? 'fail' : ''}">${item.failed} (${percent(item.failed, item.requests)})</td>` +
        `<td class="${gatewayAnswers(item) > 0 ? 'warn' : ''}" title="${escapeHtml(Object.entries(item.gateway ?? {}).map(([status, count]) => `${count}x ${status}`).join(', '))}">${gatewayAnswers(item)}</td>` +
        `<td class="${item.checksFailed > 0 ? 'fail' : ''}">${item.checksPassed}/${item.checksPassed + item.checksFailed}</td><td class="name">${verdictText}</td></tr>`;
    })
    .join('\n');
  const global = result.thresholds.filter((verdict) => !verdict.metric.includes('{name:'));
  const globalRows = global
    .map((verdict) => `<tr><td class="name">${escapeHtml(verdict.metric)}</td><td class="name">${escapeHtml(verdict.expression)}</td><td>${formatActual(verdict.actual, verdict.ok)}</td><td class="${verdict.ok ? 'pass' : 'fail'}">${verdict.ok ? 'passed' : 'failed'}</td></tr>`)
    .join('\n');
  const checkRows = result.checks
    .map((item) => `<tr><td class="name">${escapeHtml(item.name)}</td><td class="name">${escapeHtml(item.endpoint)}</td><td>${item.passes}</td><td class="${item.fails > 0 ? 'fail' : ''}">${item.fails}</td><td class="name">${escapeHtml(checkBasis(item.name, item.fails > 0))}</td></tr>`)
    .join('\n');
  const warningRows = (result.warnings ?? [])
    .map((item) => `<tr><td class="name">${escapeHtml(item.name)}</td><td class="name">${escapeHtml(item.endpoint)}</td><td>${item.passes}</td><td class="${item.fails > 0 ? 'warn' : ''}">${item.fails}</td><td class="name">${escapeHtml(checkBasis(item.name, item.fails > 0))}</td></tr>`)
    .join('\n');
  return `<h2 id="${escapeHtml(result.script)}">${escapeHtml(result.script)} ${resultBadge(result)}</h2>
${result.gatewayRefused === undefined ? '' : `<p class="fail">Not measured: ${escapeHtml(result.gatewayRefused)}.</p>`}
<p>${result.iterations} iterations, ${result.requests} requests in ${result.durationSeconds.toFixed(1)} s${result.runners > 1 ? `, merged from ${result.runners} runners` : ''}.</p>
<table><thead><tr><th class="name">endpoint</th><th>requests</th><th>req/s</th><th>p50 ms</th><th>p90 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th><th>failed</th><th title="answers 429, 502, 503 and 504: the gateway's, counted apart: neither in the latency figures nor failed nor judged by a check">gateway</th><th>checks passed</th><th class="name">thresholds (actual)</th></tr></thead>
<tbody>${rows || '<tr><td class="name" colspan="12">no requests</td></tr>'}</tbody></table>
${global.length > 0 ? `<table><thead><tr><th class="name">run-wide threshold</th><th class="name">expression</th><th>actual</th><th>verdict</th></tr></thead><tbody>${globalRows}</tbody></table>` : ''}
<table><thead><tr><th class="name">check</th><th class="name">endpoint</th><th>passed</th><th>failed</th><th class="name">requirement (basis)</th></tr></thead><tbody>${checkRows || '<tr><td class="name" colspan="5">no checks</td></tr>'}</tbody></table>
${warningRows === '' ? '' : `<p class="muted">Hardening checks of the answers' contract: a failure is a warning, as dxs test counts it without --strict.</p>
<table><thead><tr><th class="name">hardening check (warning)</th><th class="name">endpoint</th><th>passed</th><th>warnings</th><th class="name">requirement (basis)</th></tr></thead><tbody>${warningRows}</tbody></table>`}`;
}

export function summaryHtml(input: LoadReportInput): string {
  const passed = input.results.every((result) => result.passed);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(input.title)}</title><style>${STYLE}</style></head><body>
<h1>${escapeHtml(input.title)} ${input.results.some((result) => result.gatewayRefused !== undefined) ? '<span class="badge fail">target not loaded</span>' : verdictBadge(passed, onlyExchangeFailed(input.results))}</h1>
${notJudgedBanner(input.results, escapeHtml)}
<dl><dt>target</dt><dd>${escapeHtml(input.target)}</dd><dt>profile</dt><dd>${escapeHtml(input.profile)}</dd><dt>started</dt><dd>${input.startedAt.toISOString()}</dd></dl>
${input.notes.map((note) => `<p class="muted">${escapeHtml(note)}</p>`).join('\n')}
${input.comparison === undefined ? '' : comparisonHtml(input.comparison, escapeHtml)}
<p class="muted">Latencies are k6's http_req_duration over the target's answers; "failed" counts responses k6 flags in http_req_failed (status outside 200-399 or no response); "gateway" counts the answers 429, 502, 503 and 504 of the deployment in front of the target (a limit or a gateway error the load met: neither in the latency figures nor failed nor judged by a check; the document flows send a call again after Retry-After), and more than --max-gateway-share of an endpoint's answers means the target was not loaded as asked (exit 2); thresholds are judged on all the target's points of the run.</p>
${input.results.map(scriptSection).join('\n')}
${exchangeSection(input.results, escapeHtml)}
${cleanupSection(input.cleanup)}
</body></html>
`;
}

function link(directory: string, path: string | undefined, label: string): string {
  if (path === undefined || !existsSync(path)) return `<span class="muted">${escapeHtml(label)}: not written</span>`;
  return `<a href="${escapeHtml(relative(directory, path))}">${escapeHtml(label)}</a>`;
}

export function indexHtml(directory: string, input: LoadReportInput): string {
  const rows = input.artifacts
    .map((artifact) => {
      const result = input.results.find((item) => item.script === artifact.script);
      const links = [
        `<a href="summary.html#${escapeHtml(artifact.script)}">summary</a>`,
        link(directory, artifact.dashboard, 'k6 dashboard'),
        ...artifact.rawFiles.map((file, index) => link(directory, file, artifact.rawFiles.length > 1 ? `raw points ${index + 1}` : 'raw points (JSON lines, gzip)')),
        ...artifact.summaryExports.map((file, index) => link(directory, file, artifact.summaryExports.length > 1 ? `k6 summary ${index + 1}` : 'k6 summary (JSON)')),
        ...(artifact.log === undefined ? [] : [link(directory, artifact.log, 'k6 log')]),
      ];
      const figures = result === undefined
        ? '<td colspan="3" class="muted">no result</td>'
        : `<td>${result.requests}</td><td>${result.durationSeconds > 0 ? (result.requests / result.durationSeconds).toFixed(1) : '0'}</td><td class="${checkTotals(result).fails > 0 ? 'fail' : ''}">${checkTotals(result).passes}/${checkTotals(result).passes + checkTotals(result).fails}</td>`;
      return `<tr><td class="name script">${escapeHtml(artifact.script)}</td><td>${result === undefined ? '<span class="muted">no result</span>' : resultBadge(result)}</td>${figures}<td class="name files">${links.join(' · ')}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(input.title)}</title><style>${STYLE}</style></head><body>
<h1>${escapeHtml(input.title)}</h1>
${notJudgedBanner(input.results, escapeHtml)}
<dl><dt>target</dt><dd>${escapeHtml(input.target)}</dd><dt>profile</dt><dd>${escapeHtml(input.profile)}</dd><dt>started</dt><dd>${input.startedAt.toISOString()}</dd></dl>
${input.notes.filter((note) => note.startsWith('Not run') || note.startsWith('Interrupted')).map((note) => `<p class="fail">${escapeHtml(note)}</p>`).join('\n')}
${input.comparison === undefined ? '' : `<p class="${input.comparison.regression ? 'fail' : 'pass'}">Against the baseline: ${input.comparison.regression ? `${input.comparison.endpoints.filter((item) => item.verdict === 'slower').map((item) => escapeHtml(`${item.script} ${item.endpoint}`)).join(', ')} slower` : 'no endpoint slower'} (<a href="summary.html#baseline">the comparison</a>).</p>`}
<p><a href="summary.html">Summary of every script</a> (per endpoint: throughput, latency percentiles, errors, checks, thresholds) · <a href="summary.json">summary.json</a></p>
<table><thead><tr><th class="name">script</th><th>verdict</th><th>requests</th><th>req/s</th><th>checks passed</th><th class="name">files</th></tr></thead><tbody>${rows || '<tr><td class="name" colspan="6">no script ran</td></tr>'}</tbody></table>
${cleanupSection(input.cleanup)}
</body></html>
`;
}

/** Writes summary.html, summary.json and index.html into the report directory. */
export function writeLoadReport(directory: string, input: LoadReportInput): void {
  const json = { title: input.title, target: input.target, profile: input.profile, startedAt: input.startedAt.toISOString(), notes: input.notes, results: input.results, exchange: exchangeTotals(input.results), cleanup: input.cleanup, comparison: input.comparison === undefined ? undefined : comparisonJson(input.comparison) };
  writeFileSync(join(directory, 'summary.json'), secrets.redactText(JSON.stringify(json, null, 2)));
  writeFileSync(join(directory, 'summary.html'), secrets.redactText(summaryHtml(input)));
  writeFileSync(join(directory, 'index.html'), secrets.redactText(indexHtml(directory, input)));
}

function checkTotals(result: RunResult): { passes: number; fails: number } {
  return result.checks.reduce((total, item) => ({ passes: total.passes + item.passes, fails: total.fails + item.fails }), { passes: 0, fails: 0 });
}


/** The line printed per script at the end of a run. */
export function summaryLine(result: RunResult, reportPath: string): string {
  const checks = checkTotals(result);
  const failedThresholds = result.thresholds.filter((verdict) => !verdict.ok);
  const rate = result.durationSeconds > 0 ? result.requests / result.durationSeconds : 0;
  const gateway = result.endpoints.reduce((total, item) => total + gatewayAnswers(item), 0);
  const notJudged = result.exchange?.notJudged ?? 0;
  return `${result.script}: ${result.gatewayRefused !== undefined ? 'NOT MEASURED' : result.passed ? 'passed' : 'FAILED'}${notJudged > 0 ? ` (${notJudged} invoice${notJudged === 1 ? '' : 's'} not judged)` : ''} - ${result.iterations} iterations, ${result.requests} requests (${rate.toFixed(1)}/s)${gateway > 0 ? `, ${gateway} answered by the gateway (${gatewayCounts(result)})` : ''}, checks ${checks.passes}/${checks.passes + checks.fails}, thresholds ${result.thresholds.length - failedThresholds.length}/${result.thresholds.length} passed` +
    (failedThresholds.length > 0 ? ` (failed: ${failedThresholds.slice(0, 3).map((verdict) => `${verdict.metric} ${verdict.expression}`).join('; ')}${failedThresholds.length > 3 ? ' ...' : ''})` : '') +
    ` - ${reportPath}` +
    (result.gatewayRefused === undefined ? '' : `\n  not measured: ${result.gatewayRefused}`) +
    failedRequirements(result) +
    (result.exchange === undefined ? '' : `\n${exchangeLines(result.exchange).join('\n')}`);
}

/** One line per failed check that names requirements, with the basis; hardening warnings counted. */
function failedRequirements(result: RunResult): string {
  const lines = result.checks.filter((item) => item.fails > 0 && requirementsOfCheckName(item.name).length > 0)
    .map((item) => `\n  failed ${item.fails}x: ${item.name} (${item.endpoint}). ${checkBasis(item.name, true)}`);
  const warned = (result.warnings ?? []).filter((item) => item.fails > 0);
  if (warned.length > 0) lines.push(`\n  warnings (hardening): ${warned.map((item) => `${requirementsOfCheckName(item.name).join(', ')} ${item.fails}x on ${item.endpoint}`).join('; ')}`);
  return lines.join('');
}
