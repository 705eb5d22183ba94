// index.html of dxs client-check: the integrator's evidence that their client follows the spec.
// Self-contained like the server report; rendered from results.json and the client catalog alone.
import { escapeHtml } from '../report/escape-html.ts';
import type { Exchange } from '../lib/run-record.ts';
import type { ClientRequirement } from '../schemas/client-requirements.ts';
import type { ClientResults } from './results.ts';
import { notExercisedReason } from './verdicts.ts';
import { BACKGROUND_PROVOCATIONS } from './provocations.ts';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:24px}h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #d6dae0;padding-bottom:4px}h3{font-size:15px;margin:12px 0 4px}
table{border-collapse:collapse;width:100%;background:#fff;margin:6px 0}th,td{border:1px solid #e1e4e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef0f3}pre{background:#0f1720;color:#e6edf3;padding:10px;overflow:auto;white-space:pre-wrap;word-break:break-word;border-radius:4px;font-size:12px;margin:4px 0}
.verdict{padding:16px;border-radius:6px;color:#fff;margin:12px 0}.verdict.passed{background:#1a7f37}.verdict.failed{background:#cf222e}.verdict.interrupted,.verdict.error,.verdict.unreachable{background:#9a6700}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;color:#fff;background:#6e7781;white-space:nowrap}
.badge.passed{background:#1a7f37}.badge.failed{background:#cf222e}.badge.warning{background:#bf8700}.badge.info{background:#0969da}.badge.not-exercised,.badge.skipped{background:#d0d7de;color:#24292f}
.card{background:#fff;border:1px solid #d6dae0;border-radius:6px;padding:12px;margin:10px 0}.card.failed{border-left:4px solid #cf222e}.card.warning{border-left:4px solid #bf8700}
.meta td:first-child{width:180px;font-weight:600}.muted{color:#57606a}nav a{margin-right:14px}details>summary{cursor:pointer;font-weight:600}
`;

const badge = (verdict: string): string => `<span class="badge ${escapeHtml(verdict.replace(/\s/g, '-'))}">${escapeHtml(verdict === 'skipped' ? 'not exercised' : verdict)}</span>`;

function renderExchange(exchange: Exchange): string {
  const request = [`${exchange.request.method} ${exchange.request.url}`, ...Object.entries(exchange.request.headers).map(([name, value]) => `${name}: ${value}`)];
  if (exchange.request.body !== undefined) request.push('', typeof exchange.request.body === 'string' ? exchange.request.body : JSON.stringify(exchange.request.body, null, 2));
  const response = exchange.response === undefined
    ? [`no answer: ${exchange.error ?? 'unknown'}`]
    : [`${exchange.response.status}`, ...Object.entries(exchange.response.headers).map(([name, value]) => `${name}: ${value}`), ...(exchange.response.body === undefined ? [] : ['', typeof exchange.response.body === 'string' ? exchange.response.body : JSON.stringify(exchange.response.body, null, 2)])];
  return `<h3>${escapeHtml(exchange.title)}</h3><div class="muted">What the client sent</div><pre>${escapeHtml(request.join('\n'))}</pre><div class="muted">What the grading sandbox answered</div><pre>${escapeHtml(response.join('\n'))}</pre>`;
}

function renderCards(results: ClientResults, verdict: 'failed' | 'warning', catalog: ReadonlyMap<string, ClientRequirement>): string {
  const tests = results.tests.filter((test) => test.verdict === verdict);
  if (tests.length === 0) return `<p class="muted">${verdict === 'failed' ? 'No client requirement failed.' : 'No warnings.'}</p>`;
  return tests.map((test) => {
    const requirement = catalog.get(test.id);
    const basis = requirement?.basis === 'spec' ? `<div>The spec: “${escapeHtml(requirement.quote ?? '')}”</div>` : requirement?.basis === 'hardening' ? '<div class="muted">Hardening: a good practice the spec does not require (a warning; a failure with --strict).</div>' : requirement?.level === 'GUIDE' ? '' : '';
    const rows = test.checks.filter((check) => check.verdict === verdict).map((check) => `<tr><td>${escapeHtml(check.check)}</td><td>${escapeHtml(check.expected)}</td><td>${escapeHtml(check.actual)}</td></tr>`).join('');
    return `<div class="card ${verdict}"><div><strong>${escapeHtml(test.title)}</strong> ${badge(test.verdict)} <span class="muted">${escapeHtml(requirement?.level ?? '')} · ${escapeHtml(requirement?.basis ?? '')}</span></div>${basis}` +
      `<table><tr><th>Where</th><th>Expected</th><th>The client did</th></tr>${rows}</table>` +
      ((test.exchanges ?? []).length > 0 ? `<details${verdict === 'failed' ? ' open' : ''}><summary>The calls (${test.exchanges?.length})</summary>${(test.exchanges ?? []).map(renderExchange).join('')}</details>` : '') + '</div>';
  }).join('\n');
}

function renderMatrix(results: ClientResults, catalog: readonly ClientRequirement[]): string {
  const verdicts = new Map(results.tests.map((test) => [test.id, test.verdict as string]));
  const areas = [...new Set(catalog.map((requirement) => requirement.area))];
  return areas.map((area) => {
    const rows = catalog.filter((requirement) => requirement.area === area).map((requirement) => {
      const verdict = verdicts.get(requirement.id) ?? 'not exercised';
      const why = verdict === 'not exercised' ? `<br><span class="muted">${escapeHtml(notExercisedReason(requirement.id, results.client.flows.notTried))}</span>` : '';
      return `<tr><td>${escapeHtml(requirement.id)}</td><td>${escapeHtml(`${requirement.level} · ${requirement.basis ?? ''}`)}</td><td>${badge(verdict)}${why}</td><td>${escapeHtml(requirement.statement)}${requirement.quote !== undefined ? `<br><span class="muted">spec: “${escapeHtml(requirement.quote)}”</span>` : ''}</td></tr>`;
    }).join('');
    return `<h3>${escapeHtml(area)}</h3><table><tr><th>ID</th><th>Level · basis</th><th>Verdict</th><th>Requirement</th></tr>${rows}</table>`;
  }).join('\n');
}

function verdictText(results: ClientResults): string {
  const { run, summary } = results;
  if (summary.failed > 0) return `FAILED: ${summary.failed} client requirement${summary.failed === 1 ? '' : 's'} failed`;
  if (run.status === 'passed') return `PASSED: no client requirement failed${summary.warning > 0 ? ` (${summary.warning} with warnings)` : ''}`;
  return `NOT JUDGED WHOLE: ${run.message ?? run.status}`;
}

export function renderClientHtml(results: ClientResults, catalog: readonly ClientRequirement[]): string {
  const { run, summary, client } = results;
  const byId = new Map(catalog.map((requirement) => [requirement.id, requirement]));
  const exit = client.exit === undefined ? 'not run (--serve)' : client.exit.timedOut ? `stopped by --timeout` : client.exit.signal !== null ? `ended by ${client.exit.signal}` : `exit code ${client.exit.code}`;
  const meta: Array<[string, string]> = [
    ['Client', client.command !== undefined ? `<code>${escapeHtml(client.command)}</code>` : 'a client elsewhere (--serve)'],
    ['The client', escapeHtml(exit)],
    ['Grading sandbox', escapeHtml(run.target)],
    ['Date', escapeHtml(run.startedAt)],
    ['Duration', `${(run.durationMs / 1000).toFixed(1)} s`],
    ['Calls recorded', String(client.calls.length)],
    ['Provocations', client.provocations.length === 0 ? 'none' : client.provocations.map((provocation) => `<b>${escapeHtml(provocation.name)}</b>: ${escapeHtml(provocation.description)} (${BACKGROUND_PROVOCATIONS.has(provocation.name) ? 'every background step' : provocation.calls.length === 0 ? 'never triggered' : `answered call${provocation.calls.length === 1 ? '' : 's'} ${provocation.calls.map((seq) => `#${seq}`).join(', ')}`})`).join('<br>')],
    ['Requirements', `${summary.total} exercised: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info; ${client.notExercised.length} not exercised`],
    ['dxs version', escapeHtml(run.version)],
  ];
  const observations = results.tests.flatMap((test) => test.checks.filter((check) => check.verdict === 'info').map((check) => `<tr><td>${escapeHtml(check.requirement)}</td><td>${escapeHtml(check.check)}</td><td>${escapeHtml(check.actual)}</td></tr>`));
  const calls = client.calls.map((call) => `<tr><td>#${call.seq}</td><td>${(call.atMs / 1000).toFixed(2)} s</td><td>${escapeHtml(`${call.method} ${call.path}`)}</td><td>${escapeHtml(call.endpoint)}</td><td>${call.status ?? 'no answer'}${call.provocation !== undefined ? ` <span class="badge warning">${escapeHtml(call.provocation)}</span>` : ''}</td><td>${call.durationMs} ms</td></tr>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>dxs client-check: ${escapeHtml(verdictText(results))}</title><style>${CSS}</style></head>
<body><main>
<h1>Document Exchange Service API: client certification report</h1>
<div class="verdict ${escapeHtml(summary.failed > 0 ? 'failed' : run.status)}"><strong>${escapeHtml(verdictText(results))}</strong>${run.message !== undefined && summary.failed > 0 ? `<br>${escapeHtml(run.message)}` : ''}</div>
<table class="meta">${meta.map(([name, value]) => `<tr><td>${name}</td><td>${value}</td></tr>`).join('')}</table>
<nav><a href="#failures">Failures</a><a href="#warnings">Warnings</a><a href="#flows">Flows not tried</a><a href="#matrix">Requirements</a><a href="#observations">Observations</a><a href="#traffic">Traffic</a></nav>
<h2 id="failures">Failures (${summary.failed})</h2>
${renderCards(results, 'failed', byId)}
<h2 id="warnings">Warnings (${summary.warning})</h2>
${renderCards(results, 'warning', byId)}
<h2 id="flows">Flows the client did not try (${client.flows.notTried.length})</h2>
${client.flows.notTried.length === 0 ? '<p class="muted">The client tried every flow.</p>' : `<p>${client.flows.notTried.map(escapeHtml).join(', ')}.</p><p class="muted">The requirements of these flows are not exercised: this report certifies nothing about them. Tried: ${client.flows.tried.map(escapeHtml).join(', ') || 'nothing'}.</p>`}
<h2 id="matrix">Client requirements</h2>
${renderMatrix(results, catalog)}
<h2 id="observations">Observations where the spec is silent</h2>
${observations.length === 0 ? '<p class="muted">None.</p>' : `<table><tr><th>ID</th><th>What</th><th>What the client did</th></tr>${observations.join('')}</table>`}
<h2 id="traffic">Traffic (${client.calls.length} calls)</h2>
${calls.length === 0 ? '<p class="muted">The client made no call.</p>' : `<table><tr><th>#</th><th>At</th><th>Call</th><th>Endpoint</th><th>Answer</th><th>Took</th></tr>${calls.join('')}</table>`}
<p class="muted">Generated by dxs ${escapeHtml(run.version)} client-check. API keys and tokens are redacted. Machine-readable: results.json, junit.xml.</p>
</main></body></html>
`;
}
