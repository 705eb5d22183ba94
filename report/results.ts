// results.json: the one record of a run that every other report file is rendered from (index.html,
// junit.xml), and that `dxs report merge` combines across shards. Verdicts are computed here.
import type { CheckRecord, Exchange, RequirementVerdict, Verdict } from '../lib/run-record.ts';
import type { TransientAnswer, TransportSummary } from './transport.ts';
import type { CleanupReport } from './cleanup.ts';
import type { ConnectionInfo } from './connection.ts';
import type { GatewaySummary } from './rate-limits.ts';
import { BLOCKED_ANNOTATION, blockedBy, rateLimitedBy, type RootCauseGroup } from './root-causes.ts';
import type { RunTiming } from './timing.ts';
import type { RunTimeline } from './timeline.ts';

export type { RequirementVerdict, Verdict };

export type TestStatus = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not run';

export interface TestRecord {
  id: string;
  title: string;
  file: string;
  /** The line of the test in its file, as Playwright located it (absent in results written before issue 60). */
  line?: number;
  /** describe blocks and title. */
  titlePath: string[];
  area: string;
  requirements: string[];
  tags: string[];
  status: TestStatus;
  verdict: Verdict;
  durationMs: number;
  /** The failure message (redacted), for failed tests. */
  failure?: string;
  /** Why the test was skipped. */
  skipReason?: string;
  annotations: Array<{ type: string; description?: string }>;
  checks: CheckRecord[];
  /** Per catalog ID tagged on the test. */
  requirementVerdicts: Record<string, Verdict>;
  /** The catalog endpoints ("METHOD /template") the test called, so the catalog's claims can be held to what was tried (report/catalog-claims.ts; absent before issue 40). */
  endpoints?: string[];
  /** The calls of failed tests and of tests with warnings, so the report can show request and response. */
  exchanges?: Exchange[];
  /** Failed and warning tests: the script of curl commands that makes the test's calls again (issue 43). */
  reproduce?: Reproduction;
  /** Attempts Playwright made of the test, when more than one (issue 57: run again after the deployment's transport failed it). */
  attempts?: number;
  /** The deployment's transient answers the test met, in every attempt (endpoint, status or cause, the head of the body, when). */
  transient?: TransientAnswer[];
  /** A flaky test: why its first attempt failed (the transport failure). */
  flakyBecause?: string;
}

export interface Reproduction {
  /** The script's path, relative to the report folder (reproduce/<test>.sh). */
  script?: string;
  /** The curl command of the call the check judged; its variables are set by the script's earlier lines. */
  call?: string;
  /** Why no script could be written. */
  error?: string;
}

export type RunStatus = 'passed' | 'failed' | 'interrupted' | 'unreachable' | 'error';

export interface RunInfo {
  target: string;
  embedded: boolean;
  profile: string;
  areas: string[];
  casing: string;
  destructive: boolean;
  /** Hardening checks failed the run instead of warning (--strict). */
  strict?: boolean;
  version: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  status: RunStatus;
  /** What went wrong with the run itself (unreachable target, interruption). */
  message?: string;
  shards: string[];
  /** Prefix of every id the run invented, and the seed of its generated data (from the prefix); absent before issue 22. */
  runPrefix?: string;
  seed?: number;
  /** Proxy, TLS files, --insecure and the server certificate (issue 31); absent before it. */
  connection?: ConnectionInfo;
}

export interface Summary {
  total: number;
  passed: number;
  failed: number;
  warning: number;
  info: number;
  skipped: number;
  /** Tests that ended at once because a prerequisite they need is broken (absent in results.json written before issue 14). */
  blocked: number;
  /** Tests that passed only when run again after the deployment's transport failed them (issue 57; absent before). */
  flaky?: number;
}

export interface Results {
  format: 'dxs-results/1';
  run: RunInfo;
  summary: Summary;
  tests: TestRecord[];
  /** "METHOD /template" -> status code -> count of calls. */
  coverage: Record<string, Record<string, number>>;
  /** What the run created and what its cleanup deleted or left (report/cleanup.ts). */
  cleanup?: CleanupReport;
  /** Set when the run was judged against a baseline or an expected-failures file (report/baseline.ts). */
  baseline?: BaselineSection;
  /** The broken prerequisites and the tests each blocked, largest first (absent when none). */
  rootCauses?: RootCauseGroup[];
  /** The deployment's transient answers (502, 504, 503 without Retry-After, lost calls) and the flaky tests (issue 57; absent when none). */
  transport?: TransportSummary;
  /** The gateway's answers (429, 503 with Retry-After) the run met, and how long it waited for them (issue 31; absent before). */
  gateway?: GatewaySummary;
  /** The concurrency chosen and why, and the time waited for the network and for background work (report/timing.ts). */
  timing?: RunTiming;
  /** Where the wall time went, worker by worker: start-up, fixtures, tests, idle, cleanup (report/timeline.ts; issue 42, absent before). */
  timeline?: RunTimeline;
  /** Set by --last-failed: the earlier run's failed and blocked tests, and which of them are fixed now (report/last-failed.ts). */
  lastFailed?: LastFailedSection;
}

/** A test --last-failed ran again: how it ended before and now. */
export interface RerunTest {
  id: string;
  /** The file and the title path. */
  stableId: string;
  requirements: string[];
  before: Verdict;
  /** Absent when the test did not run this time (renamed, removed, or the run stopped). */
  now?: Verdict;
}

export interface LastFailedSection {
  /** The report the failed and blocked tests were read from, as the user named it. */
  source: string;
  /** Ran without failing or being blocked. */
  fixed: RerunTest[];
  /** Failed or were blocked again. */
  stillFailing: RerunTest[];
  /** Not run this time: not fixed either. */
  notRun: RerunTest[];
}

// The baseline section's entries: how the run's failures compare to what was known (computed by report/baseline.ts).

/** A test as the comparison reports it. */
export interface ComparedTest {
  /** Playwright's test id in the run it comes from. */
  id: string;
  /** The file and the title path: the id an expected-failures file names a test by. */
  stableId: string;
  title: string;
  file: string;
  requirements: string[];
  verdict: string;
  /** The verdict of the matched test in the earlier run, if there was one. */
  before?: string;
  /** The stable id of the matched test when it differs (a renamed or moved test). */
  matchedAs?: string;
  /** The first line of the failure message. */
  failure?: string;
  /** Why a failure counts as known, or what made it new. */
  reason?: string;
}

export interface ExpectedFailure {
  /** A catalog ID: a failure of this requirement is accepted, in any test. */
  requirement?: string;
  /** A stable id (file › title path) or a Playwright test id: this test's failure is accepted. */
  test?: string;
  reason: string;
  /** YYYY-MM-DD (or an ISO date-time): from the day after, the entry no longer accepts anything. */
  expires?: string;
}

/** The `baseline` section of results.json: how the run's failures compare to what was known. */
export interface BaselineSection {
  baseline?: { source: string; target: string; startedAt: string; failed: number; total: number };
  expectedFailures?: { source: string; entries: number };
  /** Failures that make the run fail (exit 1). */
  newFailures: ComparedTest[];
  /** Failures that were in the baseline or are accepted by an entry that has not expired. */
  known: ComparedTest[];
  /** Tests that failed in the baseline and ran without failing now. */
  fixed: ComparedTest[];
  /** Entries past their expiry date that matched a failure of this run (which is therefore new). */
  expired: ExpectedFailure[];
  /** Entries that matched no failure of this run: fixed, or not run; candidates for removal. */
  unused: ExpectedFailure[];
}

/** Severity order for combining verdicts: the worst wins. */
const ORDER: Verdict[] = ['skipped', 'passed', 'info', 'warning', 'flaky', 'blocked', 'failed'];

/** A verdict's rank in that order: higher is worse; -1 for one the order does not hold. */
export const severity = (verdict: Verdict): number => ORDER.indexOf(verdict);

export function worst<V extends Verdict>(verdicts: Iterable<V>): V | undefined {
  let result: V | undefined;
  for (const verdict of verdicts) if (result === undefined || ORDER.indexOf(verdict) > ORDER.indexOf(result)) result = verdict;
  return result;
}

export const REQUIREMENT_TAG = /^@([A-Z]{2,4}(?:-[A-Z]{2,4})?-\d{2})$/;
export const AREA_TAG = /^@area:(.+)$/;

export function requirementsOf(tags: readonly string[]): string[] {
  return tags.map((tag) => REQUIREMENT_TAG.exec(tag)?.[1]).filter((id): id is string => id !== undefined);
}

export function areaOf(tags: readonly string[]): string {
  for (const tag of tags) {
    const match = AREA_TAG.exec(tag);
    if (match !== null) return match[1];
  }
  return 'unknown';
}

function isFailure(status: TestStatus): boolean {
  return status === 'failed' || status === 'timedOut';
}

function isBlocked(annotations: ReadonlyArray<{ type: string }>): boolean {
  return annotations.some((annotation) => annotation.type === BLOCKED_ANNOTATION);
}

export function testVerdict(status: TestStatus, checks: readonly CheckRecord[], annotations: ReadonlyArray<{ type: string; description?: string }>): Verdict {
  // A test the gateway stopped proves nothing either way, whatever it did after (a caught error, a timeout).
  if (status !== 'passed' && rateLimitedBy({ annotations: [...annotations] })) return 'blocked';
  // A call the deployment's transport lost ended the test as blocked; code that caught that end and went on proves nothing either.
  if (blockedBy({ annotations: [...annotations] })?.prerequisite === 'transport') return 'blocked';
  if (isFailure(status)) return 'failed';
  if (status !== 'passed') return isBlocked(annotations) ? 'blocked' : 'skipped';
  if (checks.some((check) => check.verdict === 'warning') || annotations.some((annotation) => annotation.type === 'warning')) return 'warning';
  if (checks.some((check) => check.verdict === 'info') || annotations.some((annotation) => annotation.type === 'info')) return 'info';
  return 'passed';
}

/**
 * The verdict of each catalog ID a test names. A failure the checks attribute to one ID fails
 * that ID; a failure no check claims (an exception, a broken setup) fails them all; an ID whose
 * checks never ran because another one failed first counts as skipped.
 */
/**
 * A test's annotation "<ID>: not reached: <why>": the checks of that requirement were not made, for
 * that reason (a URL the target gave that dxs does not follow, issue 57), while the test's other
 * requirements were judged. The requirement is skipped unless a check of its own failed or warned.
 */
export const NOT_REACHED_ANNOTATION = 'not reached';

export function requirementVerdicts(requirements: readonly string[], status: TestStatus, checks: readonly CheckRecord[], annotations: ReadonlyArray<{ type: string; description?: string }>): Record<string, RequirementVerdict> {
  const result: Record<string, RequirementVerdict> = {};
  const attributed = checks.some((check) => check.verdict === 'failed');
  for (const id of requirements) {
    const own = checks.filter((check) => check.requirement === id).map((check) => check.verdict as RequirementVerdict);
    const noted = annotations
      .filter((annotation) => (annotation.type === 'warning' || annotation.type === 'info') && annotation.description?.startsWith(`${id}:`))
      .map((annotation) => annotation.type as RequirementVerdict);
    if ((status === 'skipped' && isBlocked(annotations)) || (status !== 'passed' && rateLimitedBy({ annotations: [...annotations] })) || blockedBy({ annotations: [...annotations] })?.prerequisite === 'transport') result[id] = 'blocked';
    else if (status === 'skipped' || status === 'interrupted' || status === 'not run') result[id] = 'skipped';
    else if (isFailure(status)) result[id] = own.includes('failed') || !attributed ? 'failed' : (worst([...own, ...noted]) ?? 'skipped');
    else {
      const notReached = annotations.some((annotation) => annotation.type === NOT_REACHED_ANNOTATION && annotation.description?.startsWith(`${id}:`));
      result[id] = worst([...own, ...noted].filter((verdict) => verdict !== 'passed')) ?? (notReached ? 'skipped' : 'passed');
    }
  }
  return result;
}

export function summarise(tests: readonly TestRecord[]): Summary {
  const summary: Summary = { total: tests.length, passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0 };
  for (const test of tests) summary[test.verdict] = (summary[test.verdict] ?? 0) + 1;
  return summary;
}

export function runStatus(summary: Summary, interrupted: boolean): RunStatus {
  if (summary.failed > 0 || summary.blocked > 0) return 'failed';
  return interrupted ? 'interrupted' : 'passed';
}

export function addCoverage(coverage: Results['coverage'], exchanges: readonly Exchange[]): void {
  for (const exchange of exchanges) {
    const status = exchange.response !== undefined ? String(exchange.response.status) : 'no response';
    const byStatus = (coverage[exchange.endpoint] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
}

/** Exit code of dxs test for a run: 0 nothing failed, 1 a test failed, 2 the run itself could not be made. */
export function exitCodeOf(results: Pick<Results, 'run' | 'summary'>): 0 | 1 | 2 {
  // A broken prerequisite fails the run like a failed test: what it blocked was not proven.
  if (results.summary.failed > 0 || (results.summary.blocked ?? 0) > 0) return 1;
  if (results.run.status === 'unreachable' || results.run.status === 'error' || results.run.status === 'interrupted') return 2;
  return 0;
}
