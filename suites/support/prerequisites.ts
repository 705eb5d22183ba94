// Shared prerequisites (issue 14): what many tests need of the target before their own check runs.
// Each is established once per worker, and its outcome kept: a broken one is also written to a
// file of the run (report/root-causes.ts), so every worker, even one started later, blocks at once
// instead of waiting out the async timeout again. A blocked test ends at once, skipped by
// Playwright (a failure would cost a new worker process per test) with a `blocked` annotation
// carrying the root cause; the reporter turns that into the verdict blocked.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test, type TestInfo } from '@playwright/test';
import { secrets } from '../../lib/redact.ts';
import { TRANSPORT_FAILURE } from '../../lib/transient.ts';
import { BLOCKED_ANNOTATION, brokenPrerequisitesFile, describeCause, formatCause, parseCause, PREREQUISITES, type PrerequisiteName, type RootCause } from '../../report/root-causes.ts';
import { describeBasis, requirementById } from '../../schemas/requirements.ts';
import { currentLog } from './log.ts';
import { runContext } from './run-context.ts';
import type { TestTime } from './timing.ts';

export type { PrerequisiteName, RootCause };

const known = new Map<PrerequisiteName, RootCause>();

/** Thrown inside worker fixtures (see settle): a test fixture turns it into a blocked test. */
export class PrerequisiteBroken extends Error {
  override readonly name: string = 'PrerequisiteBroken';
  readonly rootCause: RootCause;

  constructor(cause: RootCause) {
    super(describeCause(cause));
    this.rootCause = cause;
  }
}

/**
 * A call the target's gateway kept answering 429 (or 503 with Retry-After) after the run's budget
 * of waiting was spent (suites/support/gateway.ts): no check may judge that answer, so the test is
 * blocked. A PrerequisiteBroken, so that a worker fixture's settle() keeps it as its outcome.
 */
export class RateLimited extends PrerequisiteBroken {
  override readonly name: string = 'RateLimited';
  /** The last answer, e.g. "429 with Retry-After: 1". */
  readonly limit: string;

  constructor(cause: RootCause, limit: string) {
    super(cause);
    this.limit = limit;
  }
}

/**
 * A call the deployment's transport kept failing (lib/transient.ts): sent again as often as it is
 * repeatable, or not at all when it is not. No check may judge it: the test fails with this error,
 * and only such a failure lets Playwright run the test again from its start (transport.ts); inside
 * a worker fixture's settle() it is kept as the outcome, never recorded for the run (the next worker
 * makes its setup again). The message starts with TRANSPORT_FAILURE, by which the reporter knows it.
 */
export class TransportFailure extends PrerequisiteBroken {
  override readonly name: string = 'TransportFailure';

  /** `message` is the root cause, the same for every test that meets it; `detail` (the last try's words, with its timing) goes on the next line. */
  constructor(message: string, detail?: string) {
    super({ prerequisite: 'transport', requirement: 'transport', message });
    this.message = `${TRANSPORT_FAILURE} ${message}${detail === undefined ? '' : `\n${detail}`}`;
  }
}

/** The running test's attempt, when a test (not a worker fixture's setup) is running. */
function runningRetry(): number | undefined {
  if (settling > 0) return undefined;
  try {
    return test.info().retry;
  } catch {
    return undefined;
  }
}

/**
 * The error of a call the deployment's transport kept failing. On a test's first attempt it fails
 * the test, which then runs again from its start; on its run again it ends the test at once as
 * blocked, the root cause in its annotation (a failure would cost a new worker process again, for
 * a verdict that is blocked either way).
 */
export function transportFailed(message: string, detail?: string): TransportFailure {
  const retry = runningRetry();
  if (retry !== undefined && retry > 0) {
    const info = test.info();
    info.annotations.push({ type: BLOCKED_ANNOTATION, description: formatCause({ prerequisite: 'transport', requirement: 'transport', message }) });
    info.skip(true, `blocked: ${message}`);
  }
  return new TransportFailure(message, detail);
}

/** For a `.catch()` that gives up on a wait: any error gives `value`, but a lost call stays the lost call (never a TypeError further on). */
export function unlessTransport<T>(value: T): (error: unknown) => T {
  return (error) => {
    // Playwright's skip (a test ended as blocked, transportFailed) passes through too.
    if (error instanceof TransportFailure || (error instanceof Error && error.constructor.name === 'TestSkipError')) throw error;
    return value;
  };
}

function readShared(): void {
  let text: string;
  try {
    text = readFileSync(brokenPrerequisitesFile(runContext()), 'utf8');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    const cause = parseCause(line);
    // The first worker to find a prerequisite broken names its cause.
    if (cause !== undefined && !known.has(cause.prerequisite)) known.set(cause.prerequisite, cause);
  }
}

/** The root cause of a prerequisite already found broken in this run, by this worker or another. */
export function brokenPrerequisite(name: PrerequisiteName): RootCause | undefined {
  if (!known.has(name)) readShared();
  return known.get(name);
}

/** Records a prerequisite found broken, for this worker and every other; returns the cause that counts. */
export function recordBroken(cause: RootCause): RootCause {
  const earlier = brokenPrerequisite(cause.prerequisite);
  if (earlier !== undefined) return earlier;
  const redacted: RootCause = { ...cause, message: secrets.redactText(cause.message).replace(/\s+/g, ' ').slice(0, 600) };
  known.set(cause.prerequisite, redacted);
  const file = brokenPrerequisitesFile(runContext());
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${formatCause(redacted)}\n`);
  } catch {
    // Other workers then find it out themselves, once each: slower, never wrong.
  }
  return redacted;
}

/** Worker fixtures set up inside settle(); there no test can be skipped, so broken() throws instead. */
let settling = 0;

/** Whether a worker fixture is being set up (settle), where no test can be skipped. */
export function settingUp(): boolean {
  return settling > 0;
}

/**
 * Ends the running test at once as blocked (inside a worker fixture's setup: throws PrerequisiteBroken).
 * A test that names the broken requirement itself fails on it instead: the matrix shows that
 * requirement failed, and what it blocked apart.
 */
export function broken(cause: RootCause): never {
  // The deployment's transport, kept by a worker fixture: the test fails on it and may run again (transport.ts).
  if (cause.prerequisite === 'transport') throw transportFailed(cause.message);
  if (settling > 0) throw new PrerequisiteBroken(cause);
  const info = test.info();
  if (info.tags.includes(`@${cause.requirement}`)) {
    const requirement = requirementById(cause.requirement);
    const level = requirement?.level ?? 'MUST';
    currentLog()?.checks.push({ requirement: cause.requirement, level, basis: requirement?.basis, verdict: 'failed', check: PREREQUISITES[cause.prerequisite], expected: 'reached within the async timeout', actual: cause.message });
    const basis = describeBasis(requirement);
    throw new Error(`${cause.requirement} (${level}) ${requirement?.statement ?? ''}${basis === undefined ? '' : `\n${basis}`}\n  ✗ ${describeCause(cause)}`);
  }
  info.annotations.push({ type: BLOCKED_ANNOTATION, description: formatCause(cause) });
  info.skip(true, `blocked: ${describeCause(cause)}`);
  throw new PrerequisiteBroken(cause);
}

let testStarted: { info: TestInfo; at: number } | undefined;

/** When a test begins (its api fixture, which every test that calls the target sets up first). */
export function recordTestStarted(info: TestInfo): void {
  testStarted = { info, at: Date.now() };
}

/** The running test's time, for a wait inside it; none inside a worker fixture, which has a timeout of its own. */
export function runningTestTime(): TestTime | undefined {
  if (settling > 0 || testStarted === undefined) return undefined;
  let info: TestInfo;
  try {
    info = test.info();
  } catch {
    return undefined;
  }
  return info === testStarted.info ? { timeoutMs: info.timeout, startedAt: testStarted.at } : undefined;
}

/** Before waiting for prerequisites: a test that needs one already found broken ends at once. */
export function requirePrerequisites(...names: PrerequisiteName[]): void {
  for (const name of names) {
    const cause = brokenPrerequisite(name);
    if (cause !== undefined) broken(cause);
  }
}

/** A worker fixture's outcome, kept for the whole worker: the value, or why it cannot be had. */
export type Outcome<T> = { value: T } | { cause: RootCause };

/** Sets up a worker fixture's value, keeping a broken prerequisite as its outcome instead of throwing. */
export async function settle<T>(setup: () => Promise<T>): Promise<Outcome<T>> {
  settling++;
  try {
    return { value: await setup() };
  } catch (error) {
    if (error instanceof PrerequisiteBroken) return { cause: error.rootCause };
    throw error;
  } finally {
    settling--;
  }
}

/** In a test fixture: the worker fixture's value, or the test ends at once as blocked. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if ('cause' in outcome) broken(outcome.cause);
  return outcome.value;
}
