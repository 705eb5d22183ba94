// The exchange as a whole in dxs load's report (issue 35): runs the checker (lib/exchange-check.ts)
// on the history a script's flows recorded, grades each rule by the basis of its requirement as
// dxs test grades a failed check (spec and invariant fail, hardening warns, observe informs),
// judges the delivery time against the thresholds file, and renders the section of summary.html
// and the console lines. `dxs load`, `dxs load merge` (so the runners of a distributed run are
// judged as one run) and the baseline of a comparison all come through here.
import { checkExchange, DELIVERY_TIME_RESOLUTION_MS, EXCHANGE_RULES, type ExchangeRule } from '../../../lib/exchange-check.ts';
import type { ExchangeEvent } from '../../../lib/exchange-history.ts';
import type { FinalReadSummary, FinalReadWalks } from '../../../lib/final-read.ts';
import { deliveryTimeLimit, type DeliveryTimeLimits } from '../../../load/lib/thresholds.ts';
import { describeBasis, failureSeverity, requirementById, type Requirement } from '../../../schemas/requirements.ts';
import { percentile, type DeliveryTimeFigures, type ExchangeSeverity, type ExchangeSummary, type RunResult, type ThresholdVerdict } from './results.ts';

/** The async timeout when none is given (--async-timeout's default). */
export const DEFAULT_ASYNC_TIMEOUT_MS = 30_000;

/** The metric a delivery-time threshold verdict names; one per delivery type. */
export const DELIVERY_TIME_METRIC = 'dxs_delivery_time';

export const DELIVERY_TIME_KEY_PREFIX = 'delivery time ';

/** The key of a delivery type's samples beside the endpoints' in a comparison with a baseline. */
export function deliveryTimeKey(deliveryType: string): string {
  return `${DELIVERY_TIME_KEY_PREFIX}(${deliveryType})`;
}

/**
 * The bases of the rules when the catalog cannot be read: the collector of `dxs load k8s` is a
 * bundle of the merge alone (cli/commands/load/collector.ts). They mirror schemas/requirements.json.
 */
const FALLBACK_BASES: Record<ExchangeRule, Pick<Requirement, 'level' | 'basis'>> = {
  'FLOW-04': { level: 'MUST', basis: 'spec' },
  'INB-05': { level: 'MUST', basis: 'spec' },
  'INB-07': { level: 'MUST', basis: 'spec' },
  'INB-18': { level: 'SECURITY', basis: 'invariant' },
  'INB-20': { level: 'SECURITY', basis: 'invariant' },
  'INB-21': { level: 'SECURITY', basis: 'invariant' },
  'XCH-01': { level: 'MUST', basis: 'hardening' },
  'XCH-02': { level: 'MUST', basis: 'hardening' },
  'XCH-03': { level: 'MUST', basis: 'hardening' },
  'XCH-04': { level: 'MUST', basis: 'hardening' },
  'XCH-05': { level: 'OBSERVE', basis: 'observe' },
};

function requirementOf(rule: ExchangeRule): Requirement | undefined {
  try {
    return requirementById(rule);
  } catch {
    return undefined;
  }
}

function grade(rule: ExchangeRule, strict: boolean): { severity: ExchangeSeverity; basis: string } {
  const requirement = requirementOf(rule);
  const severity = failureSeverity(requirement ?? FALLBACK_BASES[rule], strict);
  const basis = describeBasis(requirement) ?? (requirement?.basis === 'observe' ? `Basis: the spec leaves it open: ${requirement.statement}` : `Basis: ${FALLBACK_BASES[rule].basis}`);
  return { severity, basis };
}

export interface ExchangeSettings {
  asyncTimeoutMs: number;
  /** --strict: a broken hardening rule fails the run, as dxs test --strict fails a hardening check. */
  strict?: boolean;
  deliveryLimits?: DeliveryTimeLimits;
  /** The run's end (epoch ms); the last event's completion when not given. */
  runEnd?: number;
  /** How the final read went: when it could not finish, the sends left not judged carry its reason. */
  finalRead?: FinalReadSummary;
}

function figuresOf(deliveryTimes: Record<string, number[]>): DeliveryTimeFigures[] {
  return Object.entries(deliveryTimes)
    .map(([deliveryType, samples]) => ({ deliveryType, count: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99), max: samples[samples.length - 1] ?? 0 }))
    .sort((a, b) => a.deliveryType.localeCompare(b.deliveryType));
}

/** The delivery-time thresholds of the file, judged on the samples (like k6, no samples is no verdict against). */
export function deliveryVerdicts(figures: readonly DeliveryTimeFigures[], limits: DeliveryTimeLimits | undefined): ThresholdVerdict[] {
  const verdicts: ThresholdVerdict[] = [];
  for (const item of figures) {
    const limit = deliveryTimeLimit(limits, item.deliveryType);
    for (const name of ['p50', 'p95', 'p99'] as const) {
      const bound = limit[name];
      if (bound === undefined) continue;
      verdicts.push({ metric: `${DELIVERY_TIME_METRIC}{deliveryType:${item.deliveryType}}`, expression: `p(${name.slice(1)})<${bound}`, ok: item.count === 0 || item[name] < bound, actual: item.count === 0 ? undefined : item[name] });
    }
  }
  return verdicts;
}

/** Judges a history: the summary for the report, and the delivery samples per type. */
export function judgeExchange(events: readonly ExchangeEvent[], settings: ExchangeSettings): { summary: ExchangeSummary; deliveryTimes: Record<string, number[]> } {
  const result = checkExchange({ events, asyncTimeoutMs: settings.asyncTimeoutMs, runEnd: settings.runEnd });
  const grades = new Map(EXCHANGE_RULES.map((rule) => [rule, grade(rule, settings.strict === true)]));
  const count = (...rules: ExchangeRule[]): number => rules.reduce((total, rule) => total + result.counts[rule], 0);
  const rules = EXCHANGE_RULES.map((id) => ({ id, count: result.counts[id], ...(grades.get(id) as { severity: ExchangeSeverity; basis: string }) }));
  const summary: ExchangeSummary = {
    events: result.events,
    asyncTimeoutMs: settings.asyncTimeoutMs,
    strict: settings.strict === true,
    sent: result.sent,
    delivered: result.delivered,
    lost: result.lost,
    duplicated: count('XCH-01', 'XCH-02'),
    misrouted: count('INB-18', 'INB-20', 'INB-21'),
    backAfterHandled: count('INB-07'),
    vanished: count('INB-05'),
    notJudged: result.notJudged,
    // What stopped the final read is what a user can mend; the checker's own reason follows from it.
    notJudgedReasons: result.notJudged > 0 && settings.finalRead?.reason !== undefined ? { [settings.finalRead.reason]: result.notJudged } : result.notJudgedReasons,
    notSubject: result.notSubject,
    untimedDeliveries: result.untimedDeliveries,
    rules,
    violations: result.violations.map((violation) => ({ ...violation, severity: (grades.get(violation.rule) as { severity: ExchangeSeverity }).severity })),
    deliveryTime: figuresOf(result.deliveryTimes),
    arrivedByFinalRead: Object.values(result.finalReadDeliveryTimes).reduce((sum, samples) => sum + samples.length, 0),
    deliveryTimeFinalRead: figuresOf(result.finalReadDeliveryTimes),
    ...(settings.finalRead === undefined ? {} : { finalRead: settings.finalRead }),
    // --strict: a send not judged is a hole in the proof, which a strict run does not pass over.
    passed: rules.every((rule) => rule.count === 0 || rule.severity !== 'failure') && !(settings.strict === true && result.notJudged > 0),
  };
  return { summary, deliveryTimes: result.deliveryTimes };
}

/**
 * Judges a script's history into its result: the exchange summary, the delivery-time verdicts
 * among its thresholds, and its delivery samples beside the endpoints' (for --baseline). True when
 * the result failed here (a failing rule broken or a delivery-time threshold crossed).
 */
export function attachExchange(result: RunResult, events: readonly ExchangeEvent[], settings: ExchangeSettings, samples?: Map<string, number[]>): boolean {
  if (events.length === 0) return false;
  const { summary, deliveryTimes } = judgeExchange(events, settings);
  result.exchange = summary;
  const verdicts = deliveryVerdicts(summary.deliveryTime, settings.deliveryLimits);
  result.thresholds.push(...verdicts);
  if (samples !== undefined) for (const [deliveryType, values] of Object.entries(deliveryTimes)) samples.set(deliveryTimeKey(deliveryType), values);
  const failed = !summary.passed || verdicts.some((verdict) => !verdict.ok);
  if (failed) result.passed = false;
  return failed;
}

const TOTALLED = ['sent', 'delivered', 'lost', 'duplicated', 'misrouted', 'backAfterHandled', 'vanished', 'notJudged'] as const;

/** summary.json's `exchange`: the scripts' exchanges added up (each script's own is in its result), or undefined without a history. */
export function exchangeTotals(results: readonly RunResult[]): (Record<(typeof TOTALLED)[number], number> & { passed: boolean; scripts: string[]; rules: Record<string, number> }) | undefined {
  const judged = results.filter((result) => result.exchange !== undefined);
  if (judged.length === 0) return undefined;
  const totals = Object.fromEntries(TOTALLED.map((name) => [name, judged.reduce((sum, result) => sum + (result.exchange as ExchangeSummary)[name], 0)])) as Record<(typeof TOTALLED)[number], number>;
  const rules: Record<string, number> = {};
  for (const result of judged) for (const rule of (result.exchange as ExchangeSummary).rules) rules[rule.id] = (rules[rule.id] ?? 0) + rule.count;
  return { passed: judged.every((result) => result.exchange?.passed), scripts: judged.map((result) => result.script), ...totals, rules };
}

const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;

function deliveryText(figures: readonly DeliveryTimeFigures[]): string {
  return figures.map((item) => `${item.deliveryType} p50 ${Math.round(item.p50)} ms, p95 ${Math.round(item.p95)} ms, p99 ${Math.round(item.p99)} ms (${item.count})`).join('; ');
}

function untimedText(untimed: number): string {
  return `${plural(untimed, 'delivery', 'deliveries')} not timed (the recipient had not looked within ${DELIVERY_TIME_RESOLUTION_MS / 1000} s, or a tenth of the time, before the list that showed it)`;
}

/** "12 invoices not judged: the target was unreachable during the final read", or undefined when every send was judged. */
export function notJudgedHeadline(summary: ExchangeSummary): string | undefined {
  if (summary.notJudged === 0) return undefined;
  const reasons = Object.entries(summary.notJudgedReasons).sort((a, b) => b[1] - a[1]);
  const first = reasons[0]?.[0] ?? 'no reason recorded';
  return `${plural(summary.notJudged, 'invoice')} not judged: ${first}${reasons.length > 1 ? ` (and ${reasons.slice(1).map(([reason, count]) => `${count}: ${reason}`).join('; ')})` : ''}${summary.strict ? ' (--strict: the run fails)' : ''}`;
}

function finalReadText(finalRead: FinalReadSummary | undefined, arrived: number): string {
  return finalRead === undefined ? '' : `; ${finalReadSentence(finalRead, arrived)}`;
}

function finalReadSentence(finalRead: FinalReadSummary, arrived: number): string {
  return `final read ${finalRead.status}: ${finalRead.found} of ${finalRead.awaited} awaited found, ${plural(finalRead.readers, 'inbox', 'inboxes')} read, ${plural(finalRead.calls, 'call')} in ${(finalRead.milliseconds / 1000).toFixed(1)} s${arrived > 0 ? `, ${arrived} arrived by the final read (not in the delivery time)` : ''}${walksText(finalRead.walks)}${transientText(finalRead.transient)}`;
}

/** The deployment's transport the final read met (issue 57): retried, never the target's answer, never hidden. */
function transientText(transient: Record<string, number> | undefined): string {
  if (transient === undefined) return '';
  return `; sent again after the deployment's transport: ${Object.entries(transient).map(([what, times]) => `${what} x${times}`).join(', ')}`;
}

/** The walks with sequenceNo (issue 58): how many reached their end, why others did not, and each one's budget. */
function walksText(walks: FinalReadWalks | undefined): string {
  if (walks === undefined) return '';
  const notComplete = Object.entries(walks.notComplete);
  const count = walks.complete + notComplete.reduce((sum, [, times]) => sum + times, 0);
  if (count === 0) return '';
  return `, ${plural(count, 'walk')} with sequenceNo (${walks.complete} complete${notComplete.map(([reason, times]) => `; ${times} not: ${reason}`).join('')}; budget ${walks.budget.calls} lists and ${Math.round(walks.budget.milliseconds / 1000)} s each)`;
}

/** The console lines of one script's exchange: the sends not judged first, the counts, then each broken rule with its first violation. */
export function exchangeLines(summary: ExchangeSummary): string[] {
  const headline = notJudgedHeadline(summary);
  const lines = [...(headline === undefined ? [] : [`  exchange: ${headline}`]),`  exchange: ${summary.passed ? 'passed' : 'FAILED'} - ${summary.sent} sent, ${summary.delivered} delivered, ${summary.lost} lost, ${summary.notJudged} not judged; ${summary.duplicated} duplicated, ${summary.misrouted} misrouted, ${summary.backAfterHandled} back after handled, ${summary.vanished} gone before marked` +
    (summary.deliveryTime.length === 0 ? '' : `; delivery time ${deliveryText(summary.deliveryTime)}`) +
    (summary.untimedDeliveries > 0 ? `; ${untimedText(summary.untimedDeliveries)}` : '') +
    finalReadText(summary.finalRead, summary.arrivedByFinalRead ?? 0)];
  for (const rule of summary.rules) {
    if (rule.count === 0) continue;
    const first = summary.violations.find((violation) => violation.rule === rule.id);
    const label = rule.severity === 'failure' ? 'failed' : rule.severity === 'warning' ? 'warning (hardening)' : 'observed';
    lines.push(`  exchange ${label} ${plural(rule.count, 'time')}: ${rule.id}${first === undefined ? '' : `: ${first.summary}`}. ${rule.basis}${first?.reproduce === undefined ? '' : ` (reproduce: ${first.reproduce})`}`);
  }
  return lines;
}

const SEVERITY_CLASS: Record<ExchangeSeverity, string> = { failure: 'fail', warning: 'warn', info: 'muted' };

function reasonsText(reasons: Record<string, number>): string {
  return Object.entries(reasons).map(([reason, count]) => `${count} ${reason}`).join('; ');
}

/** One script's part of the "Exchange integrity" section. */
function exchangeBlock(script: string, summary: ExchangeSummary, escapeHtml: (text: string) => string): string {
  const figures = [
    ['sent', summary.sent], ['delivered', summary.delivered], ['lost', summary.lost], ['duplicated', summary.duplicated],
    ['misrouted', summary.misrouted], ['back after handled', summary.backAfterHandled], ['gone before marked', summary.vanished], ['not judged', summary.notJudged],
  ] as const;
  const ruleRows = summary.rules
    .map((rule) => `<tr><td class="name">${escapeHtml(rule.id)}</td><td class="${rule.count > 0 ? SEVERITY_CLASS[rule.severity] : ''}">${rule.count}</td><td class="name">${escapeHtml(rule.severity)}</td><td class="name">${escapeHtml(rule.basis)}</td></tr>`)
    .join('\n');
  // The deliveries the final read found are an upper bound, kept in rows of their own.
  const deliveryRows = [...summary.deliveryTime.map((item) => ({ item, label: item.deliveryType })), ...(summary.deliveryTimeFinalRead ?? []).map((item) => ({ item, label: `${item.deliveryType}, arrived by the final read (not judged by deliveryTime)` }))]
    .map(({ item, label }) => `<tr><td class="name">${escapeHtml(label)}</td><td>${item.count}</td><td>${Math.round(item.p50)}</td><td>${Math.round(item.p95)}</td><td>${Math.round(item.p99)}</td><td>${Math.round(item.max)}</td></tr>`)
    .join('\n');
  const violations = summary.violations
    .map((violation) => `<details><summary class="${SEVERITY_CLASS[violation.severity]}">${escapeHtml(violation.rule)}: ${escapeHtml(violation.summary)}</summary>${violation.reproduce === undefined ? '' : `<p>Re-check it against the target: <a href="${escapeHtml(violation.reproduce)}">${escapeHtml(violation.reproduce)}</a> (<code>DXS_API_KEY=... sh ${escapeHtml(violation.reproduce)}</code>; the run's companies must still exist: --keep-data)</p>`}<pre>${escapeHtml(JSON.stringify(violation.evidence, null, 2))}</pre></details>`)
    .join('\n');
  const shown = summary.violations.length;
  const total = summary.rules.reduce((sum, rule) => sum + rule.count, 0);
  return `<h3 id="exchange-${escapeHtml(script)}">${escapeHtml(script)} <span class="badge ${summary.passed ? 'pass' : 'fail'}">${summary.passed ? 'exchange passed' : 'exchange failed'}</span></h3>
<table><thead><tr>${figures.map(([name]) => `<th>${escapeHtml(name)}</th>`).join('')}</tr></thead><tbody><tr>${figures.map(([name, value]) => `<td class="${value > 0 && ['lost', 'misrouted', 'back after handled', 'gone before marked'].includes(name) ? 'fail' : ''}">${value}</td>`).join('')}</tr></tbody></table>
<p class="muted">${summary.events} events; async timeout ${summary.asyncTimeoutMs} ms${summary.strict ? '; --strict: hardening rules fail' : ''}.${summary.notJudged > 0 ? ` Not judged: ${escapeHtml(reasonsText(summary.notJudgedReasons))}.` : ''}${Object.keys(summary.notSubject).length > 0 ? ` Not subject to the loss rule: ${escapeHtml(reasonsText(summary.notSubject))}.` : ''}</p>
${summary.untimedDeliveries > 0 ? `<p class="muted">${escapeHtml(untimedText(summary.untimedDeliveries))}.</p>` : ''}
${summary.finalRead === undefined ? '' : `<p class="${summary.finalRead.status === 'done' ? 'muted' : 'warn'}">${escapeHtml(`The ${finalReadSentence(summary.finalRead, summary.arrivedByFinalRead ?? 0)}`)}${summary.finalRead.reason === undefined ? '' : ` (${escapeHtml(summary.finalRead.reason)})`}.</p>`}
${deliveryRows === '' ? '' : `<table><thead><tr><th class="name">delivery type</th><th>timed</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr></thead><tbody>${deliveryRows}</tbody></table>`}
<table><thead><tr><th class="name">rule</th><th>violations</th><th class="name">counts as</th><th class="name">basis</th></tr></thead><tbody>${ruleRows}</tbody></table>
${violations === '' ? '' : `<p>${shown < total ? `The first ${shown} of ${total} violations` : 'Each violation'}, with the smallest evidence (the send, the answers that lacked the document or showed it to another company):</p>\n${violations}`}`;
}

/** The sends not judged, at the top of summary.html and index.html: a passed run never hides them. */
export function notJudgedBanner(results: readonly RunResult[], escapeHtml: (text: string) => string): string {
  return results
    .flatMap((result) => {
      const headline = result.exchange === undefined ? undefined : notJudgedHeadline(result.exchange);
      return headline === undefined ? [] : [`<p class="warn" id="not-judged-${escapeHtml(result.script)}"><strong>${escapeHtml(result.script)}: ${escapeHtml(headline)}.</strong> Not proven delivered nor lost: see <a href="summary.html#exchange-${escapeHtml(result.script)}">Exchange integrity</a>.</p>`];
    })
    .join('\n');
}

/** The "Exchange integrity" section of summary.html, or nothing when no script recorded a history. */
export function exchangeSection(results: readonly RunResult[], escapeHtml: (text: string) => string): string {
  const judged = results.filter((result) => result.exchange !== undefined);
  if (judged.length === 0) return '';
  const passed = judged.every((result) => result.exchange?.passed);
  return `<h2 id="exchange">Exchange integrity <span class="badge ${passed ? 'pass' : 'fail'}">${passed ? 'passed' : 'failed'}</span></h2>
<p class="muted">The history of the document flows judged as a whole once k6 ended: every invoice the target accepted arrives in its recipient's incoming list within the async timeout (FLOW-04), stays until marked (INB-05), does not come back once marked and fetched (INB-07), shows to no other company (INB-18, INB-20, INB-21), once (XCH-01, XCH-02), with SequenceNos that name one document each (XCH-03, XCH-04); outbound statuses that go back are recorded (XCH-05). A list proves an absence only when it was invoked after what it lacks was known complete, was whole (Total no more than the entries listed) and every entry in it was downloaded; a send no such list follows is not judged. Spec and invariant rules fail the run, hardening rules warn (fail with --strict), observations inform. Delivery time: from the accepted send to the first list of the recipient that showed the document, for the deliveries the recipient watched (its last whole list that lacked the document came at most a second, or a tenth of the time, before the one that showed it). Once k6 has ended, the final read waits for each invoice its recipient had not downloaded (until it is seen or its async timeout ran out) and reads every inbox of the run whole; its calls join the history, and the invoices it found are counted apart, as arrived by the final read.</p>
${judged.map((result) => exchangeBlock(result.script, result.exchange as ExchangeSummary, escapeHtml)).join('\n')}`;
}
