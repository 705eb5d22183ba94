// The pages that compare runs: the baseline section at the top of a run's index.html, the page of
// dxs report diff and the page of dxs report history. Self-contained like index.html (inline CSS
// and SVG, no scripts, nothing fetched), so they work offline as CI artefacts.
import type { BaselineSection, ComparedTest, ExpectedFailure, RequirementChange, RunDiff } from './baseline.ts';
import { escapeHtml } from './escape-html.ts';
import { lineChart } from './line-chart.ts';
import type { Results } from './results.ts';

/** Table rules that keep long values (ids, failure lines) inside the page width. */
const TABLE_CSS = `
table.compare{table-layout:fixed;width:100%;border-collapse:collapse;background:#fff;margin:6px 0}
table.compare th,table.compare td{border:1px solid #e1e4e8;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
table.compare th{background:#eef0f3}
.tag{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;color:#fff;background:#6e7781;white-space:nowrap}
.tag.new{background:#cf222e}.tag.known{background:#8250df}.tag.fixed{background:#1a7f37}.tag.expired{background:#9a6700}
.tag.failed,.tag.blocked{background:#cf222e}.tag.passed{background:#1a7f37}.tag.warning{background:#bf8700}.tag.info{background:#0969da}.tag.skipped,.tag.not-exercised{background:#8c959f}
.compare-verdict{padding:12px 16px;border-radius:6px;color:#fff;margin:12px 0}.compare-verdict.passed{background:#1a7f37}.compare-verdict.failed{background:#cf222e}
`;

const PAGE_CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d6dae0;padding-bottom:4px}
.muted{color:#57606a}nav a{margin-right:14px}
svg text{font:12px system-ui,sans-serif;fill:#1d232a}
${TABLE_CSS}`;

const tag = (kind: string): string => `<span class="tag ${escapeHtml(kind.replace(/\s/g, '-'))}">${escapeHtml(kind)}</span>`;

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

function testRows(entries: readonly ComparedTest[], note: (entry: ComparedTest) => string): string {
  if (entries.length === 0) return '<p class="muted">None.</p>';
  const rows = entries.map((entry) => {
    const change = entry.before !== undefined ? `${tag(entry.before)} → ${tag(entry.verdict)}` : tag(entry.verdict);
    const moved = entry.matchedAs !== undefined ? `<div class="muted">was: ${escapeHtml(entry.matchedAs)}</div>` : '';
    return `<tr><td>${escapeHtml(entry.stableId)}${moved}</td><td>${escapeHtml(entry.requirements.join(', '))}</td><td>${change}</td><td>${note(entry)}</td></tr>`;
  });
  return `<table class="compare"><colgroup><col style="width:38%"><col style="width:14%"><col style="width:14%"><col></colgroup><tr><th>Test</th><th>Requirements</th><th>Verdict</th><th>Why / failure</th></tr>${rows.join('')}</table>`;
}

const why = (entry: ComparedTest): string =>
  [entry.reason !== undefined ? escapeHtml(entry.reason) : '', entry.failure !== undefined ? `<div class="muted">${escapeHtml(entry.failure)}</div>` : ''].join('');

function entryRows(entries: readonly ExpectedFailure[]): string {
  const rows = entries.map((entry) => `<tr><td>${escapeHtml(entry.requirement ?? entry.test)}</td><td>${escapeHtml(entry.reason)}</td><td>${escapeHtml(entry.expires ?? '')}</td></tr>`);
  return `<table class="compare"><colgroup><col style="width:40%"><col><col style="width:14%"></colgroup><tr><th>Requirement or test</th><th>Reason</th><th>Expires</th></tr>${rows.join('')}</table>`;
}

/** The section index.html shows first when the run was judged against a baseline or expected failures. */
export function renderBaselineSection(section: BaselineSection): string {
  const fresh = section.newFailures.length;
  const headline =
    fresh === 0
      ? `NO NEW FAILURE: ${plural(section.known.length, 'known failure')}, ${section.fixed.length} fixed`
      : `${plural(fresh, 'NEW FAILURE')}: ${section.known.length} known, ${section.fixed.length} fixed`;
  const against = [
    section.baseline !== undefined
      ? `Baseline: ${escapeHtml(section.baseline.source)} (run of ${escapeHtml(section.baseline.startedAt)} against ${escapeHtml(section.baseline.target)}: ${section.baseline.failed} of ${section.baseline.total} tests failing)`
      : '',
    section.expectedFailures !== undefined ? `Expected failures: ${escapeHtml(section.expectedFailures.source)} (${section.expectedFailures.entries} ${section.expectedFailures.entries === 1 ? 'entry' : 'entries'})` : '',
  ].filter((line) => line !== '');
  return `<style>${TABLE_CSS}</style>
<section id="baseline"><h2>Against the baseline</h2>
<div class="compare-verdict ${fresh === 0 ? 'passed' : 'failed'}"><strong>${escapeHtml(headline)}</strong></div>
<p class="muted">${against.join('<br>')}<br>Only new failures fail the run (exit code and junit.xml); known failures are listed as known, and still below with their requests and responses.</p>
<h3 id="baseline-new">${tag('new')} New failures (${fresh})</h3>${testRows(section.newFailures, why)}
<h3 id="baseline-known">${tag('known')} Known failures (${section.known.length})</h3>${testRows(section.known, why)}
<h3 id="baseline-fixed">${tag('fixed')} Fixed since the baseline (${section.fixed.length})</h3>${testRows(section.fixed, why)}
${section.expired.length > 0 ? `<h3>${tag('expired')} Expired expected-failure entries (${section.expired.length})</h3>${entryRows(section.expired)}` : ''}
${section.unused.length > 0 ? `<h3>Expected-failure entries that matched no failure of this run (${section.unused.length})</h3><p class="muted">Fixed, or not run: candidates for removal.</p>${entryRows(section.unused)}` : ''}
</section>`;
}

/** The tag a failure card of index.html carries when the run was judged against a baseline: new or known, with the reason. */
export function baselineNote(section: BaselineSection | undefined, id: string): string {
  if (section === undefined) return '';
  const known = section.known.find((entry) => entry.id === id);
  const fresh = known === undefined ? section.newFailures.find((entry) => entry.id === id) : undefined;
  const entry = known ?? fresh;
  return entry === undefined ? '' : ` <span class="tag ${known !== undefined ? 'known' : 'new'}" title="${escapeHtml(entry.reason ?? '')}">${known !== undefined ? 'known' : 'new'}</span>`;
}

export interface RunRef {
  results: Results;
  /** How the run was named on the command line. */
  source: string;
  /** Link to the run's index.html from the page, when there is one. */
  href?: string;
}

function countsOf(results: Results): string {
  const { summary } = results;
  const blocked = (summary as { blocked?: number }).blocked ?? 0;
  return `${summary.total} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${blocked} blocked, ${summary.info} info, ${summary.skipped} skipped`;
}

function runRow(label: string, run: RunRef): string {
  const name = run.href !== undefined ? `<a href="${escapeHtml(run.href)}">${escapeHtml(run.source)}</a>` : escapeHtml(run.source);
  return `<tr><td>${label}</td><td>${name}</td><td>${escapeHtml(run.results.run.startedAt)}</td><td>${escapeHtml(run.results.run.target)}</td><td>${escapeHtml(countsOf(run.results))}</td></tr>`;
}

function requirementRows(changes: readonly RequirementChange[]): string {
  if (changes.length === 0) return '<p class="muted">None.</p>';
  const rows = changes.map((change) => `<tr><td>${escapeHtml(change.id)}</td><td>${tag(change.before)}</td><td>${tag(change.after)}</td></tr>`);
  return `<table class="compare"><tr><th>Requirement</th><th>Before</th><th>Now</th></tr>${rows.join('')}</table>`;
}

/** The page of dxs report diff. */
export function renderDiffPage(before: RunRef, after: RunRef, diff: RunDiff): string {
  const fresh = diff.newFailures.length;
  const headline = `${fresh === 0 ? 'NO NEW FAILURE' : plural(fresh, 'NEW FAILURE')}: ${diff.fixed.length} fixed, ${diff.stillFailing.length} still failing, ${diff.newTests.length} new tests, ${diff.removedTests.length} removed, ${plural(diff.requirementChanges.length, 'requirement verdict')} changed`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>dxs report diff: ${escapeHtml(headline)}</title><style>${PAGE_CSS}</style></head>
<body><main>
<h1>Document Exchange Service API: two runs compared</h1>
<div class="compare-verdict ${fresh === 0 ? 'passed' : 'failed'}"><strong>${escapeHtml(headline)}</strong></div>
<table class="compare"><colgroup><col style="width:6%"><col style="width:24%"><col style="width:16%"><col style="width:22%"><col></colgroup><tr><th></th><th>Report</th><th>Date</th><th>Target</th><th>Tests</th></tr>${runRow('old', before)}${runRow('new', after)}</table>
<nav><a href="#new-failures">New failures</a><a href="#fixed">Fixed</a><a href="#still-failing">Still failing</a><a href="#new-tests">New tests</a><a href="#removed-tests">Removed tests</a><a href="#requirements">Requirements</a></nav>
<h2 id="new-failures">${tag('new')} New failures (${fresh})</h2>${testRows(diff.newFailures, why)}
<h2 id="fixed">${tag('fixed')} Fixed (${diff.fixed.length})</h2>${testRows(diff.fixed, why)}
<h2 id="still-failing">Still failing (${diff.stillFailing.length})</h2>${testRows(diff.stillFailing, why)}
<h2 id="new-tests">New tests (${diff.newTests.length})</h2>${testRows(diff.newTests, why)}
<h2 id="removed-tests">Removed tests (${diff.removedTests.length})</h2>${testRows(diff.removedTests, why)}
<h2 id="requirements">Requirement verdicts that changed (${diff.requirementChanges.length})</h2>${requirementRows(diff.requirementChanges)}
<p class="muted">Generated by dxs report diff. Tests are matched by file and title path, then by their requirement IDs (see docs/test.md). Machine-readable: diff.json.</p>
</main></body></html>
`;
}

/** How a run counts in the history: a full run is a point of its target's trend; the others are listed apart. */
export type HistoryKind = 'full' | 'last-failed' | 'unreached';

export interface HistoryPoint {
  run: RunRef;
  /** Failures this run had that the full run before it, of the same target, did not. */
  newFailures: ComparedTest[];
  kind: HistoryKind;
  /** The target's trend it belongs to (historyGroupOf). */
  group: string;
  /** Its place among all the runs of the page, oldest first: the label of its point and row. */
  number: number;
}

/**
 * A run that ran no test never reached its target (or could not start): its zeros are no measure of
 * the target. A --last-failed run ran only the earlier failures: its counts are no full run's.
 */
export function historyKindOf(results: Results): HistoryKind {
  if (results.run.status === 'unreachable' || results.tests.length === 0) return 'unreached';
  return results.lastFailed !== undefined ? 'last-failed' : 'full';
}

/** Runs of the embedded sandbox share one trend whatever port each got. */
export const historyGroupOf = (results: Results): string => (results.run.embedded ? 'the embedded sandbox' : results.run.target);

const SERIES: Array<{ key: 'passed' | 'failed' | 'warning' | 'blocked'; colour: string }> = [
  { key: 'passed', colour: '#1a7f37' },
  { key: 'failed', colour: '#cf222e' },
  { key: 'warning', colour: '#bf8700' },
  { key: 'blocked', colour: '#8250df' },
];

const countOf = (results: Results, key: string): number => (results.summary as unknown as Record<string, number | undefined>)[key] ?? 0;

/** The regression's tests, the first few by name: a run that broke hundreds must not make the page tall. */
const SHOWN_NEW_FAILURES = 5;

function newFailuresText(point: HistoryPoint): string {
  const names = point.newFailures.map((entry) => entry.stableId);
  return names.length <= SHOWN_NEW_FAILURES ? names.join('; ') : `${names.slice(0, SHOWN_NEW_FAILURES).join('; ')}; and ${names.length - SHOWN_NEW_FAILURES} more`;
}

function historyChart(points: readonly HistoryPoint[]): string {
  return lineChart({
    series: SERIES.map((series) => ({ ...series, values: points.map((point) => countOf(point.run.results, series.key)) })),
    labels: points.map((point) => ({ text: String(point.number), href: point.run.href })),
    markers: points
      .map((point, index) => ({ index, label: `▲ ${point.newFailures.length} new`, title: `regression: ${newFailuresText(point)}`, count: point.newFailures.length }))
      .filter((marker) => marker.count > 0),
    ariaLabel: 'passed, failed, warning and blocked tests per run',
    pointTitle: (series, index, value) => `${points[index].run.results.run.startedAt}: ${value} ${series.key}`,
  });
}

const runName = (point: HistoryPoint): string => (point.run.href !== undefined ? `<a href="${escapeHtml(point.run.href)}">${escapeHtml(point.run.source)}</a>` : escapeHtml(point.run.source));

function runRows(points: readonly HistoryPoint[]): string {
  return points
    .map((point) => {
      const { results } = point.run;
      const counts = SERIES.map((series) => `<td>${countOf(results, series.key)}</td>`).join('');
      const note =
        point.kind === 'last-failed'
          ? `${tag('last-failed')} ran again only the failed and blocked tests of ${escapeHtml(results.lastFailed?.source ?? 'an earlier run')}: ${results.lastFailed?.fixed.length ?? 0} fixed, ${results.lastFailed?.stillFailing.length ?? 0} still failing; not a point of the trend`
          : point.newFailures.length === 0
            ? ''
            : `${tag('new')} ${escapeHtml(newFailuresText(point))}`;
      const classes = [point.newFailures.length > 0 ? 'regression' : '', point.kind === 'last-failed' ? 'last-failed' : ''].filter((name) => name !== '').join(' ');
      return `<tr${classes === '' ? '' : ` class="${classes}"`}><td>${point.number}</td><td>${runName(point)}</td><td>${escapeHtml(results.run.startedAt)}</td>${counts}<td>${note}</td></tr>`;
    })
    .join('');
}

function targetSection(group: string, points: readonly HistoryPoint[], index: number): string {
  const full = points.filter((point) => point.kind === 'full');
  const reruns = points.length - full.length;
  return `<section class="target" data-target="${escapeHtml(group)}"><h2 id="target-${index + 1}">${escapeHtml(group)}: ${plural(full.length, 'run')}${reruns > 0 ? `, ${reruns} --last-failed` : ''}</h2>
${full.length > 0 ? historyChart(full) : '<p class="muted">No full run: nothing to plot.</p>'}
<table class="compare"><colgroup><col style="width:4%"><col style="width:18%"><col style="width:15%"><col style="width:7.5%"><col style="width:7.5%"><col style="width:7.5%"><col style="width:7.5%"><col></colgroup><tr><th>#</th><th>Report</th><th>Date</th><th>passed</th><th>failed</th><th>warning</th><th>blocked</th><th>Regression: new failures</th></tr>${runRows(points)}</table></section>`;
}

function unreachedSection(points: readonly HistoryPoint[]): string {
  if (points.length === 0) return '';
  const rows = points.map((point) => {
    const { run } = point.run.results;
    return `<tr><td>${point.number}</td><td>${runName(point)}</td><td>${escapeHtml(run.startedAt)}</td><td>${escapeHtml(run.target)}</td><td>${escapeHtml(run.message ?? `${run.status}, no test ran`)}</td></tr>`;
  });
  return `<h2 id="unreached">Left out of the trend: ${plural(points.length, 'run')} that never reached ${points.length === 1 ? 'its' : 'their'} target</h2>
<p class="muted">They ran no test: their zeros say nothing of the target, and the run after one is compared with the full run before it.</p>
<table class="compare"><colgroup><col style="width:4%"><col style="width:18%"><col style="width:15%"><col style="width:22%"><col></colgroup><tr><th>#</th><th>Report</th><th>Date</th><th>Target</th><th>Why</th></tr>${rows.join('')}</table>`;
}

/** The page of dxs report history: per target, the counts of its full runs over time, each run linked, regressions marked; the rest listed apart. */
export function renderHistoryPage(points: readonly HistoryPoint[], source: string): string {
  const regressions = points.filter((point) => point.newFailures.length > 0).length;
  const groups = new Map<string, HistoryPoint[]>();
  for (const point of points) if (point.kind !== 'unreached') groups.set(point.group, [...(groups.get(point.group) ?? []), point]);
  const unreached = points.filter((point) => point.kind === 'unreached');
  const nav = [...groups.keys()].map((group, index) => `<a href="#target-${index + 1}">${escapeHtml(group)}</a>`).join('') + (unreached.length > 0 ? '<a href="#unreached">Left out</a>' : '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>dxs report history: ${plural(points.length, 'run')}</title><style>${PAGE_CSS}.tag.last-failed{background:#0969da}</style></head>
<body><main>
<h1>Document Exchange Service API: history of ${plural(points.length, 'run')}</h1>
<p class="muted">${escapeHtml(source)} · ${plural(groups.size, 'target')} · ${plural(regressions, 'regression')} (a run with a failure the full run of its target before it did not have)${unreached.length > 0 ? ` · ${plural(unreached.length, 'run')} that never reached ${unreached.length === 1 ? 'its' : 'their'} target, left out of the trend` : ''}.</p>
<nav>${nav}</nav>
${[...groups].map(([group, members], index) => targetSection(group, members, index)).join('\n')}
${unreachedSection(unreached)}
<p class="muted">Generated by dxs report history. Machine-readable: history.json.</p>
</main></body></html>
`;
}
