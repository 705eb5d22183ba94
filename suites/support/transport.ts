// The deployment's transport in the suites (issue 57). The client (client.ts) sends a repeatable
// call again when the deployment answered 502, 504 or 503 without Retry-After, or lost the call;
// any other call is not repeated, and its test fails with TransportFailure. Playwright's config
// allows one retry, and this guard decides whether a test may use it: only when every error of
// its attempt was a TransportFailure. A test whose attempt failed on a check of its own is not run
// again (noteAttempt); were it run again, its retry fails at once, and the reporter keeps the first
// attempt's failure as its verdict (report/attempts.ts), so no retry can hide a real failure.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TestInfo } from '@playwright/test';
import type { TransientAnswer } from '../../lib/transient.ts';
import { isTransportFailure, transientAnswersFile, transportRetriesFile } from '../../report/transport.ts';
import type { RunContext } from './run-context.ts';

export { NOT_RUN_AGAIN } from '../../report/transport.ts';

function append(file: string, line: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${line}\n`);
  } catch {
    // The report then undercounts; the call itself was handled.
  }
}

/** Appends a transient answer to the run's file (every process of the run: workers, the run's setup, the cleanup). */
export function recordTransient(context: Pick<RunContext, 'reportDir' | 'runPrefix'>, answer: TransientAnswer): void {
  append(transientAnswersFile(context), JSON.stringify(answer));
}

/** Whether an attempt failed on the transport alone: it failed, and every error it met was a TransportFailure. */
export function failedOnTransportAlone(info: Pick<TestInfo, 'status' | 'expectedStatus' | 'errors'>): boolean {
  if (info.status === info.expectedStatus || info.status === 'skipped' || info.status === 'interrupted') return false;
  return info.errors.length > 0 && info.errors.every((error) => isTransportFailure(error.message ?? error.value));
}

/**
 * After an attempt: when it failed on the transport alone, it may run again. When it failed on
 * anything else, Playwright is told not to run it again at all (the flag its own matchers set for a
 * failure no retry can change); a version of Playwright without that flag runs the retry, which the
 * guard then fails at once, as mayRunAgain() says.
 */
export function noteAttempt(context: Pick<RunContext, 'reportDir' | 'runPrefix'>, info: Pick<TestInfo, 'status' | 'expectedStatus' | 'errors' | 'testId' | 'retry'>): void {
  if (failedOnTransportAlone(info)) append(transportRetriesFile(context), `${info.testId} ${info.retry}`);
  else if (info.status !== info.expectedStatus && info.status !== 'skipped') (info as { _hasNonRetriableError?: boolean })._hasNonRetriableError = true;
}

/** Before a retry: whether the attempt before it failed on the transport alone. */
export function mayRunAgain(context: Pick<RunContext, 'reportDir' | 'runPrefix'>, info: Pick<TestInfo, 'testId' | 'retry'>): boolean {
  if (info.retry === 0) return true;
  let text: string;
  try {
    text = readFileSync(transportRetriesFile(context), 'utf8');
  } catch {
    return false;
  }
  return text.split('\n').includes(`${info.testId} ${info.retry - 1}`);
}
