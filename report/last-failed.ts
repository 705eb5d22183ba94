// dxs test --last-failed [DIR] (issue 43): the tests that failed or were blocked in an earlier
// report, run again through Playwright's own --last-failed (its last-run file, written here with
// their test ids, which stay the same from run to run for one file and title), and how each ends now.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../lib/config.ts';
import type { LastFailedSection, Results, RerunTest, TestRecord } from './results.ts';
import { displayPath, readResults } from './write.ts';

const LAST_RUN_FILE = 'last-failed.json';

export interface LastFailedInput {
  source: string;
  results: Results;
  /** The earlier run's failed and blocked tests. */
  tests: TestRecord[];
}

function failing(test: Pick<TestRecord, 'verdict'>): boolean {
  return test.verdict === 'failed' || test.verdict === 'blocked';
}

/** Reads the earlier report (a folder or its results.json); a missing or bad one is a configuration error. */
export function loadLastFailed(path: string | undefined): LastFailedInput | undefined {
  if (path === undefined) return undefined;
  let file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'results.json');
  if (!existsSync(file)) throw new ConfigError(`--last-failed ${path}: ${displayPath(file)} does not exist: no earlier run that ran tests (expected the report folder of a dxs test run, or its results.json)`);
  let results: Results;
  try {
    results = readResults(file);
  } catch (error) {
    throw new ConfigError(`--last-failed ${path}: ${(error as Error).message}`);
  }
  // A run stopped before its tests (a wrong key, a closed port) says nothing of what failed: saying
  // "nothing to run again" and exiting 0 would pass a CI that never ran a test.
  if (results.tests.length === 0) {
    throw new ConfigError(`--last-failed ${path}: that run ran no test (${results.run.status}${results.run.message === undefined ? '' : `: ${results.run.message}`}); run dxs test once before --last-failed`);
  }
  return { source: path, results, tests: results.tests.filter(failing) };
}

/** Playwright's last-run file naming the tests to run again; returns its path, for --last-failed-file. */
export function writeLastRunFile(reportDir: string, input: LastFailedInput): string {
  const file = join(reportDir, LAST_RUN_FILE);
  writeFileSync(file, `${JSON.stringify({ status: 'failed', failedTests: input.tests.map((test) => test.id) }, null, 1)}\n`);
  return file;
}

const stableIdOf = (test: Pick<TestRecord, 'file' | 'titlePath'>): string => [test.file, ...test.titlePath].join(' › ');

/** Each test run again, fixed or still failing (matched by Playwright's test id, else by file and title). */
export function judgeLastFailed(input: LastFailedInput, now: Results): LastFailedSection {
  const byId = new Map(now.tests.map((test) => [test.id, test]));
  const byStableId = new Map(now.tests.map((test) => [stableIdOf(test), test]));
  const section: LastFailedSection = { source: input.source, fixed: [], stillFailing: [], notRun: [] };
  for (const before of input.tests) {
    const after = byId.get(before.id) ?? byStableId.get(stableIdOf(before));
    const ran = after !== undefined && after.verdict !== 'skipped';
    const entry: RerunTest = { id: before.id, stableId: stableIdOf(before), requirements: before.requirements, before: before.verdict, now: ran ? after.verdict : undefined };
    if (!ran) section.notRun.push(entry);
    else if (failing(after)) section.stillFailing.push(entry);
    else section.fixed.push(entry);
  }
  return section;
}

/** Exit code of a --last-failed run: 0 only when every test is fixed. */
export function exitCodeOfLastFailed(section: LastFailedSection, code: 0 | 1 | 2): 0 | 1 | 2 {
  if (code === 2) return 2;
  return section.stillFailing.length > 0 || section.notRun.length > 0 ? 1 : 0;
}

/** What the console says after the summary: the count, then each test still failing or not run. */
export function lastFailedLines(section: LastFailedSection): string[] {
  const total = section.fixed.length + section.stillFailing.length + section.notRun.length;
  const lines = [`dxs test: --last-failed ${section.source}: ${section.fixed.length} of ${total} fixed, ${section.stillFailing.length} still failing${section.notRun.length > 0 ? `, ${section.notRun.length} not run` : ''}`];
  for (const test of section.fixed) lines.push(`  fixed: ${test.stableId} (${test.before} before, ${test.now} now)`);
  for (const test of section.stillFailing) lines.push(`  still failing: ${test.stableId} [${test.requirements.join(', ')}] (${test.now})`);
  for (const test of section.notRun) lines.push(`  not run: ${test.stableId}`);
  return lines;
}
