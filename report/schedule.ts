// A run that ends with its longest chain (issue 42): the tests that wait on background work
// (a document followed through its statuses, an invoice into an inbox) start first, so that no
// worker begins one of them when the others are nearly done. The order comes from an earlier run's
// durations (--schedule-from, by default reports/latest) and, for the tests it does not time, from
// the tag @background-chain.
//
// Playwright (1.65) queues a project's tests in the order of its suite: files by name, then
// declaration, and hands each free worker the first test in the queue. It offers no order option,
// but a reporter's preprocess() is given that very suite before the queue is made from it; sorting
// its entries there reorders the queue, in the same workers (no project of its own, so no worker
// process is started again). Playwright keeps a file's tests together in the queue, so a file
// goes as early as its longest test, and within it the longest go first.
import { BACKGROUND_CHAIN_TAG, type ScheduledTest } from '../suites/support/run-context.ts';
import type { Results } from './results.ts';

/** Below this a test's place in the queue hardly changes when the run ends. */
const LONG_TEST_MS = 1000;
/** The schedule travels in the workers' environment (DXS_RUN_CONTEXT), whose strings Linux bounds at 128 kB. */
const MOST_SCHEDULED = 120;

/** The earlier run's tests that took long enough for their place to matter, longest first (at most MOST_SCHEDULED). */
export function scheduleOf(results: Pick<Results, 'tests'>): ScheduledTest[] {
  return results.tests
    .filter((test) => test.verdict !== 'skipped' && test.durationMs >= LONG_TEST_MS)
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, MOST_SCHEDULED)
    .map((test) => ({ file: test.file, titlePath: test.titlePath, durationMs: test.durationMs }));
}

/** A test as Playwright's suite holds it: enough to find it in a schedule. */
export interface SchedulableTest {
  tags: readonly string[];
}

/** A suite (root, project, file, describe block) whose entries() is the live list Playwright queues from. */
export interface SchedulableSuite<T extends SchedulableTest> {
  entries(): Array<SchedulableSuite<T> | T>;
}

const isSuite = <T extends SchedulableTest>(entry: SchedulableSuite<T> | T): entry is SchedulableSuite<T> => typeof (entry as SchedulableSuite<T>).entries === 'function';

/** What an entry weighs: its longest test, and the sum and count of its tests' weights. */
interface Weight {
  longest: number;
  total: number;
  tests: number;
}

export const scheduleKey = (file: string, titlePath: readonly string[]): string => [file, ...titlePath].join(' › ');

/**
 * Sorts the suite's entries in place, the longest first: a suite as long as its longest test, and of
 * two as long, the one whose tests are longer on average first (a file of four tagged tests before a
 * file of one tagged test and seven short ones, which would hold workers while long tests wait).
 * Entries of equal weight keep their order, so with no schedule and no tag nothing moves. A test the
 * earlier run did not time weighs as the longest it timed when it is tagged @background-chain.
 * Returns the tests that weigh anything, in their new order: those queued first.
 */
export function orderBySchedule<T extends SchedulableTest>(root: SchedulableSuite<T>, schedule: readonly ScheduledTest[], keyOf: (test: T) => string): T[] {
  const durations = new Map(schedule.map((test) => [scheduleKey(test.file, test.titlePath), test.durationMs]));
  const tagged = Math.max(LONG_TEST_MS, ...schedule.map((test) => test.durationMs));
  const weights = new Map<SchedulableSuite<T> | T, Weight>();
  const weigh = (entry: SchedulableSuite<T> | T): Weight => {
    let weight: Weight;
    if (isSuite(entry)) {
      const inner = entry.entries().map(weigh);
      weight = { longest: Math.max(0, ...inner.map((each) => each.longest)), total: inner.reduce((sum, each) => sum + each.total, 0), tests: inner.reduce((sum, each) => sum + each.tests, 0) };
    } else {
      const ms = durations.get(keyOf(entry)) ?? (entry.tags.includes(BACKGROUND_CHAIN_TAG) ? tagged : 0);
      weight = { longest: ms, total: ms, tests: 1 };
    }
    weights.set(entry, weight);
    return weight;
  };
  weigh(root);
  const none: Weight = { longest: 0, total: 0, tests: 1 };
  const mean = (weight: Weight): number => weight.total / Math.max(1, weight.tests);
  const first: T[] = [];
  const sort = (suite: SchedulableSuite<T>): void => {
    // Array.prototype.sort is stable: entries of equal weight keep Playwright's order.
    suite.entries().sort((a, b) => {
      const [left, right] = [weights.get(a) ?? none, weights.get(b) ?? none];
      return right.longest - left.longest || mean(right) - mean(left);
    });
    for (const entry of suite.entries()) {
      if (isSuite(entry)) sort(entry);
      else if ((weights.get(entry) ?? none).longest > 0) first.push(entry);
    }
  };
  sort(root);
  return first;
}
