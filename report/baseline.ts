// Comparing runs: which failures of a run are new, which are known (failed in a baseline run, or
// accepted in an expected-failures file) and which were fixed. dxs test --baseline and
// --expect-failures, dxs report diff and dxs report history all judge with this one module, so a
// CI job, a diff page and the history agree on what a regression is.
//
// How a test of one run is matched to a test of another (Playwright's own test id is a hash of
// project, file and title path, so it changes with a title):
//   1. the same stable id: the file and the title path ("security/auth.spec.ts › revoked and
//      expired tokens › a revoked client token is rejected");
//   2. else, among the tests still unmatched, the same file and the same requirement IDs of the
//      test's tags, where exactly one test on each side has them (a renamed title);
//   3. else, among the tests still unmatched, the same requirement IDs alone, where exactly one test
//      on each side has them (a test moved to another file).
// A test matched by none is new (or removed). The requirement IDs are the ones the tags name, not
// the ones checks served on the way: those vary with how far a test got.
import { ConfigError } from '../lib/config.ts';
import { exitCodeOf, requirementsOf, type BaselineSection, type ComparedTest, type ExpectedFailure, type Results, type TestRecord } from './results.ts';

// Their home is the record of a run (results.ts); importers of the comparison find them here too.
export type { BaselineSection, ComparedTest, ExpectedFailure };

export interface RequirementChange {
  id: string;
  before: string;
  after: string;
}

export interface RunDiff {
  newFailures: ComparedTest[];
  fixed: ComparedTest[];
  stillFailing: ComparedTest[];
  newTests: ComparedTest[];
  removedTests: ComparedTest[];
  requirementChanges: RequirementChange[];
}

/** A verdict that counts as a failure. 'blocked' (a test whose prerequisite failed) is one for display and comparison. */
export function isFailing(verdict: string): boolean {
  return verdict === 'failed' || verdict === 'blocked';
}

function ran(verdict: string): boolean {
  return verdict !== 'skipped';
}

export function stableIdOf(test: Pick<TestRecord, 'file' | 'titlePath'>): string {
  return [test.file, ...test.titlePath].join(' › ');
}

function tagRequirements(test: TestRecord): string[] {
  const fromTags = requirementsOf(test.tags ?? []);
  return [...new Set(fromTags.length > 0 ? fromTags : test.requirements)].sort();
}

function firstLine(text: string | undefined): string | undefined {
  return text?.split('\n').find((line) => line.trim() !== '')?.trim();
}

function compared(test: TestRecord, extra: Partial<ComparedTest> = {}): ComparedTest {
  const entry: ComparedTest = { id: test.id, stableId: stableIdOf(test), title: test.title, file: test.file, requirements: tagRequirements(test), verdict: test.verdict };
  const failure = isFailing(test.verdict) ? firstLine(test.failure) : undefined;
  if (failure !== undefined) entry.failure = failure;
  return { ...entry, ...extra };
}

export interface Matching {
  pairs: Array<{ before: TestRecord; after: TestRecord }>;
  added: TestRecord[];
  removed: TestRecord[];
}

/** Matches the tests of two runs by the rule at the top of this file. */
export function matchTests(before: readonly TestRecord[], after: readonly TestRecord[]): Matching {
  const pairs: Matching['pairs'] = [];
  let left = [...before];
  let right = [...after];
  const requirementsKey = (test: TestRecord): string | undefined => {
    const ids = tagRequirements(test);
    return ids.length > 0 ? ids.join(',') : undefined;
  };
  const keys: Array<(test: TestRecord) => string | undefined> = [
    stableIdOf,
    (test) => (requirementsKey(test) === undefined ? undefined : `${test.file}|${requirementsKey(test)}`),
    requirementsKey,
  ];
  for (const keyOf of keys) {
    const group = (tests: TestRecord[]): Map<string, TestRecord[]> => {
      const map = new Map<string, TestRecord[]>();
      for (const test of tests) {
        const key = keyOf(test);
        if (key !== undefined) map.set(key, [...(map.get(key) ?? []), test]);
      }
      return map;
    };
    const leftGroups = group(left);
    const matched = new Set<TestRecord>();
    for (const [key, rights] of group(right)) {
      const lefts = leftGroups.get(key);
      if (lefts === undefined || lefts.length !== 1 || rights.length !== 1) continue;
      pairs.push({ before: lefts[0], after: rights[0] });
      matched.add(lefts[0]).add(rights[0]);
    }
    left = left.filter((test) => !matched.has(test));
    right = right.filter((test) => !matched.has(test));
  }
  return { pairs, added: right, removed: left };
}

function pairEntry(pair: { before: TestRecord; after: TestRecord }): ComparedTest {
  const matchedAs = stableIdOf(pair.before);
  return compared(pair.after, { before: pair.before.verdict, ...(matchedAs !== stableIdOf(pair.after) ? { matchedAs } : {}) });
}

/** Per catalog ID, the verdict of a run: the worst of the tests that ran it, skipped when none ran it. */
export function requirementVerdictsOf(results: Pick<Results, 'tests'>): Map<string, string> {
  const ORDER = ['skipped', 'passed', 'info', 'warning', 'blocked', 'failed'];
  const byId = new Map<string, string[]>();
  for (const test of results.tests) {
    for (const [id, verdict] of Object.entries(test.requirementVerdicts)) byId.set(id, [...(byId.get(id) ?? []), verdict]);
  }
  const result = new Map<string, string>();
  for (const [id, verdicts] of byId) {
    const ranVerdicts = verdicts.filter(ran);
    result.set(id, ranVerdicts.length === 0 ? 'skipped' : ranVerdicts.reduce((worst, verdict) => (ORDER.indexOf(verdict) > ORDER.indexOf(worst) ? verdict : worst)));
  }
  return result;
}

/** What changed from one run to the next. */
export function diffRuns(before: Pick<Results, 'tests'>, after: Pick<Results, 'tests'>): RunDiff {
  const { pairs, added, removed } = matchTests(before.tests, after.tests);
  const diff: RunDiff = { newFailures: [], fixed: [], stillFailing: [], newTests: added.map((test) => compared(test)), removedTests: removed.map((test) => compared(test)), requirementChanges: [] };
  for (const pair of pairs) {
    const wasFailing = isFailing(pair.before.verdict);
    if (isFailing(pair.after.verdict)) (wasFailing ? diff.stillFailing : diff.newFailures).push(pairEntry(pair));
    else if (wasFailing && ran(pair.after.verdict)) diff.fixed.push(pairEntry(pair));
  }
  // A new test that fails is a failure the earlier run did not have.
  diff.newFailures.push(...added.filter((test) => isFailing(test.verdict)).map((test) => compared(test, { reason: 'a test the earlier run did not have' })));
  const beforeVerdicts = requirementVerdictsOf(before);
  const afterVerdicts = requirementVerdictsOf(after);
  for (const id of [...new Set([...beforeVerdicts.keys(), ...afterVerdicts.keys()])].sort()) {
    const was = beforeVerdicts.get(id) ?? 'not exercised';
    const now = afterVerdicts.get(id) ?? 'not exercised';
    if (was !== now) diff.requirementChanges.push({ id, before: was, after: now });
  }
  return diff;
}

// ---- expected failures -----------------------------------------------------------------------

function expiryOf(entry: ExpectedFailure): number | undefined {
  if (entry.expires === undefined) return undefined;
  // A bare date is valid for the whole of that day (UTC).
  return /^\d{4}-\d{2}-\d{2}$/.test(entry.expires) ? Date.parse(`${entry.expires}T23:59:59.999Z`) : Date.parse(entry.expires);
}

/**
 * Reads an expected-failures file: {"expectedFailures": [{"requirement": "TOK-11", "reason": "...",
 * "expires": "2026-12-31"}, {"test": "security/auth.spec.ts › ...", "reason": "..."}]}, or the bare array.
 */
export function parseExpectedFailures(text: string, source: string): ExpectedFailure[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`expected-failures file ${source} is not valid JSON: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { expectedFailures?: unknown } | null)?.expectedFailures;
  if (!Array.isArray(list)) throw new ConfigError(`expected-failures file ${source} must hold {"expectedFailures": [...]} or an array`);
  return list.map((raw: unknown, index) => {
    const where = `expected-failures file ${source}, entry ${index + 1}`;
    const entry = raw as Partial<Record<keyof ExpectedFailure, unknown>> | null;
    if (typeof entry !== 'object' || entry === null) throw new ConfigError(`${where}: expected an object`);
    const requirement = typeof entry.requirement === 'string' && entry.requirement !== '' ? entry.requirement : undefined;
    const test = typeof entry.test === 'string' && entry.test !== '' ? entry.test : undefined;
    if ((requirement === undefined) === (test === undefined)) throw new ConfigError(`${where}: name either "requirement" (a catalog ID) or "test" (a test id), not both`);
    if (typeof entry.reason !== 'string' || entry.reason.trim() === '') throw new ConfigError(`${where}: "reason" is required (why the failure is accepted)`);
    const result: ExpectedFailure = { ...(requirement !== undefined ? { requirement } : { test }), reason: entry.reason };
    if (entry.expires !== undefined) {
      if (typeof entry.expires !== 'string' || !Number.isFinite(expiryOf({ reason: '', expires: entry.expires }))) throw new ConfigError(`${where}: "expires" must be a date (YYYY-MM-DD), got ${JSON.stringify(entry.expires)}`);
      result.expires = entry.expires;
    }
    return result;
  });
}

function failedRequirements(test: TestRecord): string[] {
  const failed = Object.entries(test.requirementVerdicts).filter(([, verdict]) => isFailing(verdict)).map(([id]) => id);
  return failed.length > 0 ? failed : tagRequirements(test);
}

/** The entries that together accept the failure of a test: one naming the test, or one per failed requirement. */
function covering(test: TestRecord, entries: readonly ExpectedFailure[]): ExpectedFailure[] | undefined {
  const names = new Set([stableIdOf(test), test.id, test.titlePath.join(' › ')]);
  const byTest = entries.find((entry) => entry.test !== undefined && names.has(entry.test));
  if (byTest !== undefined) return [byTest];
  const byRequirement = failedRequirements(test).map((id) => entries.find((entry) => entry.requirement === id));
  return byRequirement.length > 0 && byRequirement.every((entry) => entry !== undefined) ? (byRequirement as ExpectedFailure[]) : undefined;
}

function describeEntries(entries: readonly ExpectedFailure[]): string {
  return [...new Set(entries.map((entry) => `${entry.reason}${entry.expires !== undefined ? ` (until ${entry.expires})` : ''}`))].join('; ');
}

export interface BaselineInput {
  baseline?: { results: Results; source: string };
  expected?: { entries: ExpectedFailure[]; source: string };
  now?: Date;
}

/**
 * Judges a run's failures against a baseline run and an expected-failures file. A failure is known
 * when the matched test failed in the baseline, or when entries that have not expired accept it.
 * A failure accepted only by an expired entry is new even if the baseline had it: otherwise a
 * baseline made while the entry was valid would keep it accepted for ever.
 */
export function applyBaseline(current: Results, input: BaselineInput): BaselineSection {
  const now = (input.now ?? new Date()).getTime();
  const entries = input.expected?.entries ?? [];
  const active = entries.filter((entry) => (expiryOf(entry) ?? Infinity) >= now);
  const lapsed = entries.filter((entry) => !active.includes(entry));
  const section: BaselineSection = { newFailures: [], known: [], fixed: [], expired: [], unused: [] };
  if (input.baseline !== undefined) {
    const { results, source } = input.baseline;
    section.baseline = { source, target: results.run.target, startedAt: results.run.startedAt, failed: results.tests.filter((test) => isFailing(test.verdict)).length, total: results.tests.length };
  }
  if (input.expected !== undefined) section.expectedFailures = { source: input.expected.source, entries: entries.length };
  const matching = matchTests(input.baseline?.results.tests ?? [], current.tests);
  const pairOf = new Map(matching.pairs.map((pair) => [pair.after, pair]));
  const used = new Set<ExpectedFailure>();
  const expired = new Set<ExpectedFailure>();
  for (const test of current.tests) {
    const pair = pairOf.get(test);
    const entry = pair !== undefined ? pairEntry(pair) : compared(test);
    if (!isFailing(test.verdict)) {
      if (pair !== undefined && isFailing(pair.before.verdict) && ran(test.verdict)) section.fixed.push(entry);
      continue;
    }
    const accepted = covering(test, active);
    const lapsedCover = accepted === undefined ? covering(test, lapsed) : undefined;
    if (accepted !== undefined) {
      accepted.forEach((item) => used.add(item));
      section.known.push({ ...entry, reason: `expected failure: ${describeEntries(accepted)}` });
    } else if (lapsedCover !== undefined) {
      lapsedCover.forEach((item) => expired.add(item));
      section.newFailures.push({ ...entry, reason: `its expected-failure entry expired: ${describeEntries(lapsedCover)}` });
    } else if (pair !== undefined && isFailing(pair.before.verdict)) {
      section.known.push({ ...entry, reason: 'failed in the baseline' });
    } else {
      const reason = input.baseline === undefined ? 'not in the expected failures' : pair === undefined ? 'not in the baseline' : `${pair.before.verdict} in the baseline`;
      section.newFailures.push({ ...entry, reason });
    }
  }
  section.expired = [...expired];
  section.unused = active.filter((entry) => !used.has(entry));
  return section;
}

/** Exit code of a run judged against a baseline: only new failures fail it; a run that could not be made still exits 2. */
export function exitCodeWithBaseline(results: Results): 0 | 1 | 2 {
  if (results.baseline === undefined) return exitCodeOf(results);
  const summary: Record<string, number> = { ...results.summary, failed: results.baseline.newFailures.length };
  if ('blocked' in summary) summary.blocked = 0;
  return exitCodeOf({ run: results.run, summary: summary as unknown as Results['summary'] });
}

/**
 * The run as junit.xml should see it: a known failure is a skipped case whose message says it is
 * known and why, so a CI that reads JUnit fails on new failures only, as the exit code does.
 */
export function junitView(results: Results): Results {
  if (results.baseline === undefined || results.baseline.known.length === 0) return results;
  const known = new Map(results.baseline.known.map((entry) => [entry.id, entry]));
  const summary: Record<string, number> = { ...results.summary };
  const tests = results.tests.map((test) => {
    const entry = known.get(test.id);
    if (entry === undefined || !isFailing(test.verdict)) return test;
    summary[test.verdict] = (summary[test.verdict] ?? 1) - 1;
    summary.skipped = (summary.skipped ?? 0) + 1;
    return { ...test, verdict: 'skipped' as const, skipReason: `known failure (${entry.reason ?? 'known'}): ${entry.failure ?? test.verdict}` };
  });
  return { ...results, tests, summary: summary as unknown as Results['summary'] };
}
