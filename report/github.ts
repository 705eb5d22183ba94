// Under GitHub Actions (issue 43): each failure as an `::error` workflow command, so it shows as an
// annotation on the run's page, and the verdict table for the job summary (GITHUB_STEP_SUMMARY).
// Rendered from results.json, as every report is; the caller redacts what it prints.
import type { Requirement } from '../schemas/requirements.ts';
import type { Results, TestRecord } from './results.ts';

/** A workflow command's message: GitHub reads %, CR and LF as escapes there. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property (title=...): also ':' and ',', which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const stableIdOf = (test: Pick<TestRecord, 'file' | 'titlePath'>): string => [test.file, ...test.titlePath].join(' › ');

function failedRequirements(test: TestRecord): string[] {
  const failed = Object.entries(test.requirementVerdicts).filter(([, verdict]) => verdict === test.verdict).map(([id]) => id);
  return failed.length > 0 ? failed : test.requirements;
}

function basisOf(requirement: Requirement | undefined): string | undefined {
  if (requirement === undefined) return undefined;
  if (requirement.basis === 'spec' && requirement.quote !== undefined) return `The spec says: "${requirement.quote}"`;
  if (requirement.basis === 'invariant') return `Invariant ${requirement.invariant ?? ''}: ${requirement.rationale ?? requirement.statement}`;
  return requirement.statement;
}

/** What came back: the failed check's expected and actual, and the call it judged. */
function whatCameBack(test: TestRecord): string {
  const check = test.checks.find((candidate) => candidate.verdict === 'failed' || candidate.verdict === 'warning');
  const exchange = check?.exchange === undefined ? undefined : test.exchanges?.[check.exchange];
  const call = exchange === undefined ? '' : ` (${exchange.request.method} ${exchange.request.url} answered ${exchange.response?.status ?? 'nothing'})`;
  if (check !== undefined) return `Expected ${check.expected}; the target answered ${check.actual}${call}.`;
  return (test.failure ?? 'failed').split('\n').slice(0, 3).join('\n');
}

/** One `::error` (a failed or blocked test) or `::warning` (a warning) line per test. */
export function githubAnnotations(results: Results, catalog: readonly Requirement[]): string[] {
  const byId = new Map(catalog.map((requirement) => [requirement.id, requirement]));
  const lines: string[] = [];
  const run = results.run;
  if (run.status === 'unreachable' || run.status === 'error' || run.status === 'interrupted') {
    lines.push(`::error title=${escapeProperty(`dxs test: the run ${run.status === 'interrupted' ? 'was interrupted' : 'could not be made'}`)}::${escapeData(run.message ?? run.status)}`);
  }
  for (const test of results.tests) {
    if (test.verdict === 'flaky') {
      // Passed when run again after the deployment's transport failed it (issue 57): a warning on the deployment, not on the target.
      lines.push(`::warning title=${escapeProperty(`flaky ${stableIdOf(test)}`)}::${escapeData(`Passed when run again (${test.attempts ?? 2} attempts) after ${test.flakyBecause ?? "the deployment's transport failed it"}`)}`);
      continue;
    }
    if (test.verdict !== 'failed' && test.verdict !== 'blocked' && test.verdict !== 'warning') continue;
    const ids = failedRequirements(test);
    const title = `${ids.join(', ')} ${stableIdOf(test)}`;
    const message =
      test.verdict === 'blocked'
        ? `Blocked: ${test.failure ?? 'a prerequisite is broken'}`
        : [...ids.map((id) => basisOf(byId.get(id))).filter((text): text is string => text !== undefined), whatCameBack(test), ...(test.reproduce?.call === undefined ? [] : [`Reproduce with: ${test.reproduce.call}`])].join('\n');
    lines.push(`::${test.verdict === 'warning' ? 'warning' : 'error'} title=${escapeProperty(title)}::${escapeData(message)}`);
  }
  return lines;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The job summary: the verdict, the counts, and a row per failed, blocked or warning test. */
export function githubSummary(results: Results, reportPath: string): string {
  const { summary, run } = results;
  const verdict = run.status === 'passed' ? 'PASSED' : run.status === 'failed' ? 'FAILED' : run.status.toUpperCase();
  const rows = results.tests
    .filter((test) => test.verdict === 'failed' || test.verdict === 'blocked' || test.verdict === 'warning')
    .map((test) => `| ${test.verdict} | ${cell(failedRequirements(test).join(', '))} | ${cell(stableIdOf(test))} | ${cell(test.verdict === 'blocked' ? (test.failure ?? '') : whatCameBack(test)).slice(0, 300)} |`);
  return [
    `## dxs test: ${verdict}`,
    '',
    `Target ${run.target}, profile ${run.profile}${run.message === undefined ? '' : `: ${cell(run.message)}`}`,
    '',
    '| passed | failed | warning | info | skipped | blocked |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${summary.passed} | ${summary.failed} | ${summary.warning} | ${summary.info} | ${summary.skipped} | ${summary.blocked ?? 0} |`,
    '',
    ...(rows.length === 0 ? [] : ['| Verdict | Requirements | Test | What came back |', '| --- | --- | --- | --- |', ...rows, '']),
    `The report: ${reportPath} (index.html, junit.xml, traffic.har, reproduce/).`,
    '',
  ].join('\n');
}
