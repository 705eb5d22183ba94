// A test's attempts (issue 57): Playwright runs a test again after a failure; which attempt is its
// verdict, and when it is flaky or blocked by the deployment's transport. Pure, for the reporter.
import type { TransientAnswer } from '../lib/transient.ts';
import { stableIdOf } from './baseline.ts';
import type { Results, TestRecord } from './results.ts';
import { BLOCKED_ANNOTATION, describeCause, formatCause, type RootCause } from './root-causes.ts';
import { transportCauseOf, type FlakyTest } from './transport.ts';

/** One attempt of a test as the reporter saw it. */
export interface Attempt {
  record: TestRecord;
  /** Every error of the attempt was a TransportFailure. */
  transportFailed: boolean;
  /** The attempt was a retry the guard refused: the attempt before it failed on its own. */
  refused: boolean;
  /** The transient answers its calls met. */
  transient: TransientAnswer[];
}

function transportRootCause(failure: string | undefined): RootCause {
  return { prerequisite: 'transport', requirement: 'transport', message: transportCauseOf(failure ?? 'the deployment\'s transport failed the test') };
}

/**
 * The record of a test from its attempts (Playwright's retries):
 *   - a retry the guard refused: the attempt before it is the verdict (a real failure stays failed);
 *   - the last attempt failed on the transport alone: blocked, its root cause said once;
 *   - an attempt failed on the transport and the last one passed: flaky, with every transient answer met;
 *   - otherwise the last attempt, as it came.
 */
export function settleAttempts(attempts: readonly Attempt[]): TestRecord {
  const last = attempts[attempts.length - 1];
  const transient = attempts.flatMap((attempt) => attempt.transient);
  const extra = { ...(attempts.length > 1 ? { attempts: attempts.length } : {}), ...(transient.length > 0 ? { transient } : {}) };
  if (last.refused && attempts.length > 1) {
    const before = [...attempts].reverse().find((attempt) => !attempt.refused) ?? attempts[0];
    return { ...before.record, ...extra };
  }
  if (last.transportFailed) {
    const cause = transportRootCause(last.record.failure);
    return {
      ...last.record,
      ...extra,
      verdict: 'blocked',
      failure: `blocked: ${describeCause(cause)}`,
      annotations: [...last.record.annotations, { type: BLOCKED_ANNOTATION, description: formatCause(cause) }],
      requirementVerdicts: Object.fromEntries(Object.keys(last.record.requirementVerdicts).map((id) => [id, 'blocked'])),
      reproduce: undefined,
    };
  }
  const failedBefore = attempts.slice(0, -1).find((attempt) => attempt.transportFailed);
  if (failedBefore !== undefined && ['passed', 'warning', 'info'].includes(last.record.verdict)) {
    return { ...last.record, ...extra, verdict: 'flaky', flakyBecause: transportCauseOf(failedBefore.record.failure ?? '') };
  }
  return { ...last.record, ...extra };
}

/** The flaky tests of a run, each with the transient answers it met. */
export function flakyTests(tests: readonly TestRecord[]): FlakyTest[] {
  return tests.filter((test) => test.verdict === 'flaky').map((test) => ({ test: [test.file, ...test.titlePath].join(' › '), attempts: test.attempts ?? 2, ...(test.flakyBecause === undefined ? {} : { because: test.flakyBecause }), answers: test.transient ?? [] }));
}

/** A test flaky in some runs of a history: how often, and in which (their places, from 1, oldest first). */
export interface FlakyAcrossRuns {
  /** file › title path */
  stableId: string;
  runs: number[];
  /** Runs the test ran in at all. */
  ranIn: number;
}

/** The tests flaky in any of the runs (oldest first), the most often flaky first: `dxs report history` marks them. */
export function flakyAcrossRuns(runs: readonly Pick<Results, 'tests'>[]): FlakyAcrossRuns[] {
  const byTest = new Map<string, FlakyAcrossRuns>();
  runs.forEach((run, index) => {
    for (const test of run.tests) {
      const stableId = stableIdOf(test);
      const entry = byTest.get(stableId) ?? { stableId, runs: [], ranIn: 0 };
      if (test.verdict !== 'skipped') entry.ranIn++;
      if (test.verdict === 'flaky') entry.runs.push(index + 1);
      byTest.set(stableId, entry);
    }
  });
  return [...byTest.values()].filter((entry) => entry.runs.length > 0).sort((a, b) => b.runs.length - a.runs.length || a.stableId.localeCompare(b.stableId));
}
