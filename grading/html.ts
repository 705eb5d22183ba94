// index.html of dxs client-check: the integrator's evidence that their client follows the spec.
// Self-contained like the server report; rendered from results.json and the client catalog alone
// (and the spec, for the words around a quote). What it certifies it says in the banner; what the
// client did not exercise is never shown in green.
import { escapeHtml } from '../report/escape-html.ts';
import type { Exchange } from '../lib/run-record.ts';
import type { ClientRequirement } from '../schemas/client-requirements.ts';
import { FLOW_IDS, FLOWS } from './judges/endpoints.ts';
import type { CallSummary, ClientResults } from './results.ts';
import { notExercisedReason } from './verdicts.ts';
import { BACKGROUND_PROVOCATIONS } from './provocations.ts';
import { quoteSentence } from './spec-quote.ts';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:24px}h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #d6dae0;padding-bottom:4px}h3{font-size:15px;margin:12px 0 4px}
table{border-collapse:collapse;width:100%;background:#fff;margin:6px 0}th,td{border:1px solid #e1e4e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef0f3}pre{background:#0f1720;color:#e6edf3;padding:10px;overflow:auto;white-space:pre-wrap;word-break:break-word;border-radius:4px;font-size:12px;margin:4px 0}
.verdict{padding:14px 16px;border-radius:6px 6px 0 0;color:#fff;margin:12px 0 0}.verdict.passed{background:#1a7f37}.verdict.failed{background:#cf222e}.verdict.interrupted,.verdict.error,.verdict.unreachable{background:#9a6700}
.verdict .certified{font-weight:400;margin-top:4px}
.uncertified{background:#eaeef2;border:1px solid #d0d7de;border-top:0;border-radius:0 0 6px 6px;padding:10px 16px;margin:0 0 12px;color:#24292f}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;color:#fff;background:#6e7781;white-space:nowrap}
.badge.passed{background:#1a7f37}.badge.failed{background:#cf222e}.badge.warning{background:#bf8700}.badge.info{background:#0969da}.badge.not-exercised,.badge.skipped,.badge.nothing-observed,.badge.not-tried{background:#d0d7de;color:#24292f}.badge.tried{background:#8c959f}.badge.missing{background:#cf222e}
.card{background:#fff;border:1px solid #d6dae0;border-radius:6px;padding:12px;margin:10px 0}.card.failed{border-left:4px solid #cf222e}.card.warning{border-left:4px solid #bf8700}.card.why{border-left:4px solid #9a6700}
.meta td:first-child{width:180px;font-weight:600}.muted{color:#57606a}nav a{margin-right:14px}details>summary{cursor:pointer;font-weight:600}
.refusal{font-size:12px}
`;

type Catalog = ReadonlyMap<string, ClientRequirement>;

const LABELS: Record<string, string> = { skipped: 'not exercised' };
const badge = (verdict: string): string => `<span class="badge ${escapeHtml(verdict.replace(/\s/g, '-'))}">${escapeHtml(LABELS[verdict] ?? verdict)}</span>`;

/** Escaped text whose call numbers (#12) link to the call's row in the traffic table. */
function linked(text: string): string {
  // Not the &#39; of an escaped quote.
  return escapeHtml(text).replace(/(?<!&)#(\d+)\b/g, '<a href="#call-$1">#$1</a>');
}

const requirementLink = (id: string): string => `<a href="#req-${escapeHtml(id)}">${escapeHtml(id)}</a>`;

/** What a requirement's level and basis mean, said once. */
export function basisLabel(requirement: ClientRequirement | undefined): string {
  if (requirement === undefined) return '';
  if (requirement.basis === 'observe') return 'observation: the spec does not show it';
  if (requirement.basis === 'hardening') return 'good practice (hardening), not a requirement of the spec: a warning, a failure with --strict';
  if (requirement.level === 'GUIDE') return "the spec's recommendation: a warning";
  return 'MUST, by the spec';
}

function basisSentence(requirement: ClientRequirement | undefined): string {
  return requirement?.basis === 'spec' && requirement.quote !== undefined ? `The spec, ${quoteSentence(requirement.quote)}` : '';
}

function refusalText(refusal: NonNullable<CallSummary['refusal']>, catalog: Catalog): string {
  if (refusal.requirement === undefined) return `<span class="muted">${escapeHtml(refusal.message)} (${escapeHtml(refusal.notTheClient ?? '')})</span>`;
  const requirement = catalog.get(refusal.requirement);
  return `refused under ${requirementLink(refusal.requirement)}${requirement !== undefined ? ` <span class="muted">(${escapeHtml(requirement.basis === 'spec' ? 'the spec' : requirement.basis ?? '')})</span>` : ''}: ${escapeHtml(refusal.message)}` +
    (refusal.judged ? '' : ' <span class="muted">(the judge found no fault of the client on this call: the grading sandbox may be stricter than the spec; please report it)</span>');
}

function renderExchange(exchange: Exchange, call: CallSummary | undefined, catalog: Catalog): string {
  const request = [`${exchange.request.method} ${exchange.request.url}`, ...Object.entries(exchange.request.headers).map(([name, value]) => `${name}: ${value}`)];
  if (exchange.request.body !== undefined) request.push('', typeof exchange.request.body === 'string' ? exchange.request.body : JSON.stringify(exchange.request.body, null, 2));
  const response = exchange.response === undefined
    ? [`no answer: ${exchange.error ?? 'unknown'}`]
    : [`${exchange.response.status}`, ...Object.entries(exchange.response.headers).map(([name, value]) => `${name}: ${value}`), ...(exchange.response.body === undefined ? [] : ['', typeof exchange.response.body === 'string' ? exchange.response.body : JSON.stringify(exchange.response.body, null, 2)])];
  return `<h3>${linked(exchange.title)}</h3><div class="muted">What the client sent</div><pre>${escapeHtml(request.join('\n'))}</pre><div class="muted">What the grading sandbox answered</div><pre>${escapeHtml(response.join('\n'))}</pre>` +
    (call?.refusal !== undefined ? `<div class="refusal">${refusalText(call.refusal, catalog)}</div>` : '');
}

function renderCards(results: ClientResults, verdict: 'failed' | 'warning', catalog: Catalog): string {
  const tests = results.tests.filter((test) => test.verdict === verdict);
  if (tests.length === 0) return `<p class="muted">${verdict === 'failed' ? 'No client requirement failed.' : 'No warnings.'}</p>`;
  const bySeq = new Map(results.client.calls.map((call) => [call.seq, call]));
  return tests.map((test) => {
    const requirement = catalog.get(test.id);
    const sentence = basisSentence(requirement);
    const notable = test.checks.filter((check) => check.verdict === verdict);
    const rows = notable.map((check) => `<tr><td>${linked(check.check)}</td><td>${linked(check.expected)}</td><td>${linked(check.actual)}</td></tr>`).join('');
    const exchanges = test.exchanges ?? [];
    const calls = new Set(notable.map((check) => /^#(\d+):/.exec(check.check)?.[1]).filter((seq) => seq !== undefined)).size;
    const shown = exchanges.length < calls ? `The calls: ${exchanges.length} of the ${calls} shown here, every one in traffic.json` : `The call${exchanges.length === 1 ? '' : 's'} (${exchanges.length})`;
    return `<div class="card ${verdict}" id="card-${escapeHtml(test.id)}"><div><strong>${escapeHtml(test.title)}</strong> ${badge(test.verdict)} <span class="muted">${escapeHtml(basisLabel(requirement))}</span></div>` +
      (sentence === '' ? '' : `<div>${escapeHtml(sentence)}</div>`) +
      `<table><tr><th>Where</th><th>Expected</th><th>The client did</th></tr>${rows}</table>` +
      (exchanges.length > 0 ? `<details${verdict === 'failed' ? ' open' : ''}><summary>${escapeHtml(shown)}</summary>${exchanges.map((exchange) => renderExchange(exchange, bySeq.get(Number(/^#(\d+)/.exec(exchange.title)?.[1])), catalog)).join('')}</details>` : '') + '</div>';
  }).join('\n');
}

function renderMatrix(results: ClientResults, catalog: readonly ClientRequirement[]): string {
  const verdicts = new Map(results.tests.map((test) => [test.id, test.verdict as string]));
  const areas = [...new Set(catalog.map((requirement) => requirement.area))];
  return areas.map((area) => {
    const rows = catalog.filter((requirement) => requirement.area === area).map((requirement) => {
      const judged = verdicts.get(requirement.id);
      // An observation with nothing to observe is not a gap in what is certified.
      const verdict = judged ?? (requirement.basis === 'observe' ? 'nothing observed' : 'not exercised');
      const why = judged === undefined ? `<br><span class="muted">${escapeHtml(notExercisedReason(requirement, results.client.flows.tried))}</span>` : '';
      const sentence = basisSentence(requirement);
      return `<tr id="req-${escapeHtml(requirement.id)}"><td>${escapeHtml(requirement.id)}</td><td>${escapeHtml(basisLabel(requirement))}</td><td>${badge(verdict)}${why}</td><td>${escapeHtml(requirement.statement)}${sentence !== '' ? `<br><span class="muted">${escapeHtml(sentence)}</span>` : ''}</td></tr>`;
    }).join('');
    return `<h3>${escapeHtml(area)}</h3><table><tr><th>ID</th><th>Basis</th><th>Verdict</th><th>Requirement</th></tr>${rows}</table>`;
  }).join('\n');
}

function renderFlows(results: ClientResults): string {
  const { tried, required, missing } = results.client.flows;
  const rows = Object.entries(FLOWS).map(([flow, endpoints]) => {
    const state = missing.includes(flow) ? 'missing' : tried.includes(flow) ? 'tried' : 'not tried';
    return `<tr><td>${escapeHtml(flow)}</td><td><code>${escapeHtml(FLOW_IDS[flow] ?? '')}</code></td><td>${badge(state === 'missing' ? 'missing' : state)}${required.includes(flow) ? ' <span class="muted">required</span>' : ''}</td><td class="muted">${escapeHtml(endpoints.join(', '))}</td></tr>`;
  }).join('');
  return `<table><tr><th>Flow</th><th>--require-flows</th><th>The client</th><th>Its calls</th></tr>${rows}</table>` +
    '<p class="muted">The requirements of a flow not tried are not exercised: this report certifies nothing about them.</p>';
}

/** The headline: what failed, or what is certified; never a pass for what was not exercised. */
export function verdictText(results: ClientResults): string {
  const { run, summary, client } = results;
  if (summary.failed > 0 || client.flows.missing.length > 0) {
    const parts = [...(summary.failed > 0 ? [`${summary.failed} client requirement${summary.failed === 1 ? '' : 's'} failed`] : []), ...(client.flows.missing.length > 0 ? [`required flow${client.flows.missing.length === 1 ? '' : 's'} not tried: ${client.flows.missing.join(', ')}`] : [])];
    return `FAILED: ${parts.join('; ')}`;
  }
  if (run.status !== 'passed') return `NOT JUDGED WHOLE: ${run.message ?? run.status}`;
  return `${client.flows.notTried.length === 0 ? 'PASSED' : 'PASSED IN PART'}: no client requirement failed${summary.warning > 0 ? ` (${summary.warning} with warnings)` : ''}`;
}

function certifiedText(results: ClientResults, catalogSize: number): string {
  const { summary, client } = results;
  const flows = Object.keys(FLOWS).length;
  const failed = summary.failed > 0 || client.flows.missing.length > 0;
  return `${failed ? 'Judged' : 'Certified'}: the ${client.flows.tried.length} of ${flows} flows the client tried${client.flows.tried.length > 0 ? ` (${client.flows.tried.join(', ')})` : ''}, and the ${summary.total} of ${catalogSize} requirements they exercised: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} observed.`;
}

function uncertifiedText(results: ClientResults, catalog: readonly ClientRequirement[]): string {
  const { client } = results;
  const notExercised = catalog.filter((requirement) => client.notExercised.includes(requirement.id) && requirement.basis !== 'observe');
  if (client.flows.notTried.length === 0 && notExercised.length === 0) return '';
  return `<div class="uncertified"><strong>Not certified</strong>: ${notExercised.length} requirement${notExercised.length === 1 ? '' : 's'} not exercised (${notExercised.map((requirement) => requirementLink(requirement.id)).join(', ')})` +
    `${client.flows.notTried.length > 0 ? `; ${client.flows.notTried.length} flow${client.flows.notTried.length === 1 ? '' : 's'} not tried: ${escapeHtml(client.flows.notTried.join(', '))}` : ''}. <a href="#flows">Flows</a> · <a href="#matrix">why each was not exercised</a></div>`;
}

function exitText(results: ClientResults): string {
  const exit = results.client.exit;
  if (exit === undefined) return 'not run here: a client elsewhere (--serve)';
  if (exit.timedOut) return 'stopped by dxs after --timeout';
  if (exit.signal !== null) return `ended by ${exit.signal}`;
  return exit.code === 0 ? 'exit code 0: the client finished normally' : `exit code ${exit.code}: the client stopped with an error (see why below)`;
}

/** A run not judged whole says why: the reason, the last calls with their answers, the client's last lines, and where the rest is. */
function renderWhy(results: ClientResults, catalog: Catalog): string {
  const { run, client } = results;
  const exit = client.exit;
  const stopped = exit !== undefined && (exit.code !== 0 || exit.signal !== null || exit.timedOut);
  if (run.status !== 'error' && run.status !== 'interrupted' && !stopped) return '';
  const last = client.calls.slice(-5);
  const calls = last.map((call) => `<tr><td><a href="#call-${call.seq}">#${call.seq}</a></td><td>${escapeHtml(`${call.method} ${call.path}`)}</td><td>${call.status ?? 'no answer'}${call.refusal !== undefined ? `<br><span class="refusal">${refusalText(call.refusal, catalog)}</span>` : ''}</td></tr>`).join('');
  const output = client.lastOutput ?? [];
  return `<div class="card why" id="why"><h2 style="margin-top:0">${run.status === 'failed' ? 'Why the client stopped' : 'Why the run was not judged whole'}</h2><p><strong>${escapeHtml(run.message ?? run.status)}</strong>. The requirements below are judged on the calls the client made before it stopped.</p>` +
    `<h3>The last calls and their answers</h3>${last.length === 0 ? '<p class="muted">The client made no call.</p>' : `<table><tr><th>#</th><th>Call</th><th>Answer</th></tr>${calls}</table>`}` +
    `<h3>The client's last lines</h3>${output.length === 0 ? '<p class="muted">The client wrote nothing.</p>' : `<pre>${escapeHtml(output.join('\n'))}</pre>`}` +
    `<p>Everything: ${output.length === 0 ? '' : '<a href="client.log">client.log</a> (the client\'s output) · '}<a href="traffic.json">traffic.json</a> (every call and answer).</p></div>`;
}

export function renderClientHtml(results: ClientResults, catalog: readonly ClientRequirement[]): string {
  const { run, summary, client } = results;
  const byId = new Map(catalog.map((requirement) => [requirement.id, requirement]));
  const meta: Array<[string, string]> = [
    ['Client', client.command !== undefined ? `<code>${escapeHtml(client.command)}</code>` : 'a client elsewhere (--serve)'],
    ['Client exit', escapeHtml(exitText(results))],
    ['Grading sandbox', escapeHtml(run.target)],
    ['Date', escapeHtml(run.startedAt)],
    ['Duration', `${(run.durationMs / 1000).toFixed(1)} s`],
    ['Calls recorded', String(client.calls.length)],
    ['Provocations', client.provocations.length === 0 ? 'none' : client.provocations.map((provocation) => `<b>${escapeHtml(provocation.name)}</b>: ${escapeHtml(provocation.description)} (${BACKGROUND_PROVOCATIONS.has(provocation.name) ? 'every background step' : provocation.calls.length === 0 ? 'never triggered' : `answered call${provocation.calls.length === 1 ? '' : 's'} ${provocation.calls.map((seq) => `<a href="#call-${seq}">#${seq}</a>`).join(', ')}`})`).join('<br>')],
    ['Requirements', `${summary.total} exercised: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info; ${client.notExercised.length} not exercised`],
    ['Required flows', client.flows.required.length === 0 ? 'none (--require-flows)' : escapeHtml(client.flows.required.join(', '))],
    ['dxs version', escapeHtml(run.version)],
  ];
  const observations = results.tests.flatMap((test) => test.checks.filter((check) => check.verdict === 'info').map((check) => `<tr><td>${requirementLink(check.requirement)}</td><td>${linked(check.check)}</td><td>${linked(check.actual)}</td></tr>`));
  const calls = client.calls.map((call) => `<tr id="call-${call.seq}"><td>#${call.seq}</td><td>${(call.atMs / 1000).toFixed(2)} s</td><td>${escapeHtml(`${call.method} ${call.path}`)}</td><td>${escapeHtml(call.endpoint)}</td><td>${call.status ?? 'no answer'}${call.provocation !== undefined ? ` <span class="badge warning">${escapeHtml(call.provocation)}</span>` : ''}${call.refusal !== undefined && call.provocation === undefined ? `<br><span class="refusal">${refusalText(call.refusal, byId)}</span>` : ''}</td><td>${call.durationMs} ms</td></tr>`);
  const failed = summary.failed > 0 || client.flows.missing.length > 0;
  const why = renderWhy(results, byId);
  const bannerClass = failed ? 'failed' : run.status;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>dxs client-check: ${escapeHtml(verdictText(results))}</title><style>${CSS}</style></head>
<body><main>
<h1>Document Exchange Service API: client certification report</h1>
<div class="verdict ${escapeHtml(bannerClass)}"><strong>${escapeHtml(verdictText(results))}</strong>${run.message !== undefined && !verdictText(results).includes(run.message) ? `<br>${escapeHtml(run.message)}` : ''}${why !== '' ? ' <a style="color:#fff" href="#why">Why</a>' : ''}<div class="certified">${escapeHtml(certifiedText(results, catalog.length))}</div></div>
${uncertifiedText(results, catalog) || '<div class="uncertified">Every flow tried; every requirement a client without provocations can exercise was judged.</div>'}
${why}
<table class="meta">${meta.map(([name, value]) => `<tr><td>${name}</td><td>${value}</td></tr>`).join('')}</table>
<nav><a href="#failures">Failures</a><a href="#warnings">Warnings</a><a href="#flows">Flows</a><a href="#matrix">Requirements</a><a href="#observations">Observations</a><a href="#traffic">Traffic</a></nav>
<h2 id="failures">Failures (${summary.failed})</h2>
${renderCards(results, 'failed', byId)}
<h2 id="warnings">Warnings (${summary.warning})</h2>
${renderCards(results, 'warning', byId)}
<h2 id="flows">Flows: ${client.flows.tried.length} tried, ${client.flows.notTried.length} not tried</h2>
${renderFlows(results)}
<h2 id="matrix">Client requirements</h2>
${renderMatrix(results, catalog)}
<h2 id="observations">Observations where the spec is silent</h2>
${observations.length === 0 ? '<p class="muted">None.</p>' : `<table><tr><th>ID</th><th>What</th><th>What the client did</th></tr>${observations.join('')}</table>`}
<h2 id="traffic">Traffic (${client.calls.length} calls)</h2>
${calls.length === 0 ? '<p class="muted">The client made no call.</p>' : `<table><tr><th>#</th><th>At</th><th>Call</th><th>Endpoint</th><th>Answer</th><th>Took</th></tr>${calls.join('')}</table>`}
<p class="muted">Generated by dxs ${escapeHtml(run.version)} client-check. API keys and tokens are redacted. Machine-readable: results.json, junit.xml; every call and answer: <a href="traffic.json">traffic.json</a>.</p>
</main></body></html>
`;
}
