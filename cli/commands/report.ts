// dxs report merge DIR... --out DIR: one report (results.json, index.html, junit.xml) from the
// report directories of several shards (dxs test --shard I/N).
// dxs report diff OLD NEW --out DIR: what changed between two runs (index.html, diff.json).
// dxs report history DIR: one page with the counts of the runs under DIR over time, a trend per target.
import type { Command } from 'commander';
import { existsSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { secrets } from '../../lib/redact.ts';
import { applyBaseline, diffRuns, exitCodeWithBaseline, stableIdOf, type BaselineInput } from '../../report/baseline.ts';
import { flakyAcrossRuns } from '../../report/attempts.ts';
import { baselineLines, loadBaselineInput } from '../../report/baseline-cli.ts';
import { ConfigError } from '../../lib/config.ts';
import { historyGroupOf, historyKindOf, renderDiffPage, renderHistoryPage, type HistoryKind, type HistoryPoint, type RunRef } from '../../report/compare-html.ts';
import { mergeResults } from '../../report/merge.ts';
import { mergeTrafficAndScripts } from '../../report/har.ts';
import { exitCodeOf, type Results } from '../../report/results.ts';
import { displayPath, readResults, writeReport } from '../../report/write.ts';

export function runMerge(directories: readonly string[], out: string, judged: { baseline?: string; expectFailures?: string } = {}): number {
  const parts: Results[] = [];
  let judge: BaselineInput | undefined;
  try {
    // Read before the merged report is written: --out may be the baseline's own directory.
    judge = loadBaselineInput(judged.baseline, judged.expectFailures);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`dxs report merge: ${error.message}`);
    return 2;
  }
  for (const directory of directories) {
    const path = join(resolve(directory), 'results.json');
    if (!existsSync(path)) {
      console.error(`dxs report merge: ${path} does not exist (expected the report directory of a dxs test run)`);
      return 2;
    }
    try {
      parts.push(readResults(path));
    } catch (error) {
      console.error(`dxs report merge: ${(error as Error).message}`);
      return 2;
    }
  }
  const merged = mergeResults(parts);
  // Shards are judged against a baseline as one run, once merged: a shard alone lacks the others' tests.
  if (judge !== undefined) merged.baseline = applyBaseline(merged, judge);
  writeReport(resolve(out), merged);
  mergeTrafficAndScripts(directories.map((directory) => resolve(directory)), resolve(out), merged.run.version);
  const { summary } = merged;
  console.error(`dxs report merge: ${parts.length} reports, ${summary.total} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info, ${summary.skipped} skipped${summary.blocked ? `, ${summary.blocked} blocked` : ''}`);
  console.error(`report: ${displayPath(join(resolve(out), 'index.html'))}`);
  if (merged.baseline !== undefined) {
    console.error(baselineLines(merged.baseline).join('\n').replaceAll('dxs test:', 'dxs report merge:'));
    return exitCodeWithBaseline(merged);
  }
  return exitCodeOf(merged);
}

/** A run named by its report directory or its results.json, or the reason it cannot be read. */
function readRun(argument: string, pageDirectory: string): RunRef | string {
  let path = resolve(argument);
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, 'results.json');
  if (!existsSync(path)) return `${displayPath(path)} does not exist (expected a results.json or the report directory of a dxs test run)`;
  try {
    const results = readResults(path);
    const page = join(dirname(path), 'index.html');
    return { results, source: argument, href: existsSync(page) ? relative(pageDirectory, page) : undefined };
  } catch (error) {
    return (error as Error).message;
  }
}

const summaryOf = (run: RunRef): object => ({ source: run.source, target: run.results.run.target, startedAt: run.results.run.startedAt, status: run.results.run.status, summary: run.results.summary });

export function runDiff(before: string, after: string, out: string): number {
  const directory = resolve(out);
  const runs = [readRun(before, directory), readRun(after, directory)];
  for (const run of runs) {
    if (typeof run === 'string') {
      console.error(`dxs report diff: ${run}`);
      return 2;
    }
  }
  const [old, current] = runs as RunRef[];
  const diff = diffRuns(old.results, current.results);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'diff.json'), secrets.redactText(`${JSON.stringify({ format: 'dxs-diff/1', old: summaryOf(old), new: summaryOf(current), ...diff }, null, 1)}\n`));
  writeFileSync(join(directory, 'index.html'), secrets.redactText(renderDiffPage(old, current, diff)));
  console.error(
    `dxs report diff: ${diff.newFailures.length} new failures, ${diff.fixed.length} fixed, ${diff.stillFailing.length} still failing, ${diff.newTests.length} new tests, ${diff.removedTests.length} removed, ${diff.requirementChanges.length} requirement verdicts changed`,
  );
  for (const entry of diff.newFailures) console.error(`  new failure: ${entry.stableId} [${entry.requirements.join(', ')}]`);
  console.error(`report: ${displayPath(join(directory, 'index.html'))}`);
  return diff.newFailures.length > 0 ? 1 : 0;
}

/** The runs under a reports directory, oldest first: each subdirectory with a results.json (symlinks such as latest skipped). */
function runsUnder(directory: string, pageDirectory: string): RunRef[] {
  const runs: RunRef[] = [];
  for (const entry of readdirSync(directory).sort()) {
    const path = join(directory, entry);
    if (lstatSync(path).isSymbolicLink() || !statSync(path).isDirectory() || !existsSync(join(path, 'results.json'))) continue;
    const run = readRun(path, pageDirectory);
    if (typeof run === 'string') console.error(`dxs report history: skipped: ${run}`);
    else runs.push({ ...run, source: entry });
  }
  return runs.sort((a, b) => a.results.run.startedAt.localeCompare(b.results.run.startedAt));
}

export function runHistory(reports: string, out: string | undefined): number {
  const directory = resolve(reports);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    console.error(`dxs report history: ${displayPath(directory)} is not a directory`);
    return 2;
  }
  const pageDirectory = resolve(out ?? reports);
  const runs = runsUnder(directory, pageDirectory);
  if (runs.length === 0) {
    console.error(`dxs report history: no report directory with a results.json under ${displayPath(directory)}`);
    return 2;
  }
  // Each run is compared with the full run before it of the same target: a run that never reached its
  // target, or a --last-failed one that ran only the earlier failures, is no reference, nor judged as one.
  const points: HistoryPoint[] = [];
  runs.forEach((run, index) => {
    const kind = historyKindOf(run.results);
    const group = historyGroupOf(run.results);
    const previous = points.findLast((point) => point.kind === 'full' && point.group === group);
    const newFailures = kind !== 'full' || previous === undefined ? [] : diffRuns(previous.run.results, run.results).newFailures;
    points.push({ run, newFailures, kind, group, number: index + 1 });
  });
  mkdirSync(pageDirectory, { recursive: true });
  const history = points.map((point) => ({ ...summaryOf(point.run), href: point.run.href, kind: point.kind, group: point.group, newFailures: point.newFailures.map((entry) => entry.stableId), flaky: point.run.results.tests.filter((test) => test.verdict === 'flaky').map(stableIdOf) }));
  // A test flaky in runs of the history (issue 57), by the runs' numbers as the page gives them.
  const flaky = flakyAcrossRuns(runs.map((run) => run.results));
  writeFileSync(join(pageDirectory, 'history.json'), secrets.redactText(`${JSON.stringify({ format: 'dxs-history/1', runs: history, flaky }, null, 1)}\n`));
  writeFileSync(join(pageDirectory, 'history.html'), secrets.redactText(renderHistoryPage(points, displayPath(directory))));
  const count = (kind: HistoryKind): number => points.filter((point) => point.kind === kind).length;
  const targets = new Set(points.filter((point) => point.kind !== 'unreached').map((point) => point.group)).size;
  const apart = [
    count('unreached') > 0 ? `${count('unreached')} that never reached ${count('unreached') === 1 ? 'its' : 'their'} target left out of the trend` : '',
    count('last-failed') > 0 ? `${count('last-failed')} --last-failed marked, not plotted` : '',
  ].filter((part) => part !== '');
  console.error(`dxs report history: ${runs.length} runs of ${targets} target${targets === 1 ? '' : 's'}, ${points.filter((point) => point.newFailures.length > 0).length} regressions${apart.length > 0 ? `; ${apart.join('; ')}` : ''}${flaky.length > 0 ? `; ${flaky.length} test${flaky.length === 1 ? '' : 's'} flaky` : ''}`);
  for (const entry of flaky) console.error(`  flaky: ${entry.stableId}: in ${entry.runs.length} of ${entry.ranIn} runs (${entry.runs.map((run) => `#${run}`).join(', ')})`);
  console.error(`report: ${displayPath(join(pageDirectory, 'history.html'))}`);
  return 0;
}

export function registerReportCommand(program: Command): void {
  const report = program.command('report').description('work with report directories of dxs test');
  const merge = report
    .command('merge')
    .description('merge the reports of several shards into one (results.json, index.html, junit.xml)')
    .argument('<dirs...>', 'report directories of the shards')
    .requiredOption('--out <dir>', 'where to write the merged report')
    .option('--baseline <path>', 'judge the merged run against an earlier results.json or report directory, as dxs test --baseline does')
    .option('--expect-failures <file>', 'JSON file of accepted failures, as dxs test --expect-failures')
    .addHelpText('after', '\nExample:\n  $ dxs report merge reports/shard-1 reports/shard-2 --out reports/merged --baseline reports/last-green\n\nExit codes: 0 no test failed (with --baseline or --expect-failures: no new failure), 1 a test failed, 2 a directory is missing or a shard could not run.')
    .action((dirs: string[], options: { out: string; baseline?: string; expectFailures?: string }) => {
      process.exit(runMerge(dirs, options.out, options));
    });
  const diff = report
    .command('diff')
    .description('compare two runs: new failures, fixed, still failing, new or removed tests, requirement verdicts that changed (index.html, diff.json)')
    .argument('<old>', 'report directory or results.json of the earlier run')
    .argument('<new>', 'report directory or results.json of the later run')
    .requiredOption('--out <dir>', 'where to write index.html and diff.json')
    .addHelpText('after', '\nExample:\n  $ dxs report diff reports/ci-previous reports/ci --out reports/diff\n\nTests are matched by file and title path, then by their requirement IDs.\nExit codes: 0 no new failure, 1 the new run has a failure the old one did not, 2 a run cannot be read.')
    .action((before: string, after: string, options: { out: string }) => {
      process.exit(runDiff(before, after, options.out));
    });
  const history = report
    .command('history')
    .description('one page per reports directory: for each target, the passed, failed, warning and blocked counts of its runs over time, regressions marked; runs that never reached their target left out of the trend, --last-failed runs marked')
    .argument('<dir>', 'directory holding report directories (e.g. reports/)')
    .option('--out <dir>', 'where to write history.html and history.json (default: the reports directory)')
    .addHelpText('after', '\nExample:\n  $ dxs report history reports\n\nA regression is a run with a failure the full run of its target before it did not have.\nExit codes: 0 the page was written, 2 no run found.')
    .action((dir: string, options: { out?: string }) => {
      process.exit(runHistory(dir, options.out));
    });
}
