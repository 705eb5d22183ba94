// A run that starts its longest tests first (issue 42, --schedule-from): from an earlier run's
// results.json, the tests that took longest (those that follow background work through its
// states), at most one per worker, so that no worker starts one of them when the others are done.
//
// Playwright (1.65) queues tests in the order of their files (by name) and of their declaration,
// and offers no order of its own; the one lever is its projects: the tests of a first project are
// queued before those of a second. The chosen tests go into the first, the others into the second,
// by two complementary title filters, so every test runs exactly once and checks what it checked.
// The price: a worker moving from one project to the other is a new process (its start, and its
// companies registered again), once per chosen test at most.
import type { FirstTest } from '../suites/support/run-context.ts';
import type { Results } from './results.ts';

export type { FirstTest };

/** Below this a test is not worth a worker's restart. */
const LONG_TEST_MS = 1000;

/** The earlier run's longest tests, longest first: at most one per worker, each at least a quarter of the longest. */
export function longestTests(results: Pick<Results, 'tests'>, workers: number): FirstTest[] {
  const ran = results.tests.filter((test) => test.verdict !== 'skipped' && test.durationMs > 0).sort((a, b) => b.durationMs - a.durationMs);
  const longest = ran[0]?.durationMs ?? 0;
  return ran
    .filter((test) => test.durationMs >= Math.max(LONG_TEST_MS, longest / 4))
    .slice(0, Math.max(0, workers))
    .map((test) => ({ file: test.file, title: test.title, durationMs: test.durationMs }));
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The lookahead that tells the chosen tests from the others in Playwright's filter title (the
 * project, the file, the describe blocks and their tags, the title, its tags, joined by spaces).
 */
export function firstTestsPattern(tests: readonly FirstTest[]): string {
  return `(?:${tests.map((test) => `${escapeRegExp(test.file)} [\\s\\S]*${escapeRegExp(test.title)}(?: @|$)`).join('|')})`;
}
