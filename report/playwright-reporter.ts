// Our Playwright reporter: turns each test's result and its exchange log into results.json,
// index.html and junit.xml in the report directory. It runs in Playwright's runner process, so it
// re-registers the keys (from the run context) and the tokens the workers saw (the secrets file).
// onEnd is called for interrupted runs too (SIGINT, global timeout), so the report is always written.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FullResult, Reporter, Suite, TestCase, TestResult, TestStep } from '@playwright/test/reporter';
import { describeUnanswered } from '../lib/no-response.ts';
import { secrets } from '../lib/redact.ts';
import { LOG_ATTACHMENT, REPRODUCE_ATTACHMENT, type Exchange, type ExchangeLog } from '../lib/run-record.ts';
import { runContext } from '../suites/support/run-context.ts';
import {
  addCoverage, areaOf, requirementsOf, requirementVerdicts, runStatus, summarise, testVerdict,
  type Reproduction, type Results, type TestRecord, type TestStatus,
} from './results.ts';
import { takeGatewaySummary } from './rate-limits.ts';
import { blockedBy, brokenPrerequisitesFile, describeCause, INTEGRATORS_FINDING, rootCausesOf, runFindingLockFile, runFindingsFile } from './root-causes.ts';
import { loadSecretsFile, writeReport } from './write.ts';
import { layoutTimeline, type RecordedTest } from './timeline.ts';
import { HAR_FILE, harEntry, harOf, type HarEntry } from './har.ts';
import { orderBySchedule, scheduleKey } from './schedule.ts';
import { flakyTests, settleAttempts, type Attempt } from './attempts.ts';
import { isTransportFailure, NOT_RUN_AGAIN, readTransientAnswers, summariseTransport, transientAnswersFile } from './transport.ts';

const SUITES_ROOT = new URL('../suites/', import.meta.url).pathname;

function readLog(result: TestResult): ExchangeLog {
  const attachment = result.attachments.find((candidate) => candidate.name === LOG_ATTACHMENT && candidate.body !== undefined);
  if (attachment?.body === undefined) return { exchanges: [], checks: [] };
  try {
    return JSON.parse(attachment.body.toString()) as ExchangeLog;
  } catch {
    return { exchanges: [], checks: [] };
  }
}

/**
 * A call still waiting when its test ended carries no cause of its own (the client never saw its
 * end): it gets one here, from when it was sent and when the test ended.
 */
export function explainUnanswered(exchanges: Exchange[], result: Pick<TestResult, 'startTime' | 'duration'>): void {
  const ended = result.startTime.getTime() + result.duration;
  for (const exchange of exchanges) {
    if (exchange.response !== undefined || exchange.error !== undefined || exchange.sentAt === undefined) continue;
    const waited = Math.max(0, ended - Date.parse(exchange.sentAt));
    const unanswered = describeUnanswered(waited);
    exchange.error = unanswered.text;
    exchange.cause = unanswered.cause;
    exchange.durationMs = waited;
  }
}

/** "POST /companies/register: connection reset by the target (ECONNRESET) after 0.4 s", one a call that got no response. */
export function noResponseLines(exchanges: readonly Exchange[]): string[] {
  return exchanges.filter((exchange) => exchange.response === undefined && exchange.error !== undefined).map((exchange) => `${exchange.title}: no response from the target: ${exchange.error}`);
}

/** The reproduce script the test's fixture wrote (suites/support/replay.ts), if any. */
function readReproduction(result: TestResult | undefined): Reproduction | undefined {
  const attachment = result?.attachments.find((candidate) => candidate.name === REPRODUCE_ATTACHMENT && candidate.body !== undefined);
  if (attachment?.body === undefined) return undefined;
  try {
    return JSON.parse(attachment.body.toString()) as Reproduction;
  } catch {
    return undefined;
  }
}

function failureMessage(result: TestResult, exchanges: readonly Exchange[]): string | undefined {
  if (result.errors.length === 0) return undefined;
  // Playwright colours its messages for terminals; a report wants plain text.
  const strip = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');
  const message = result.errors.map((error) => strip(error.message ?? error.value ?? 'error')).join('\n\n');
  // A test timeout's message says nothing of the call it was waiting for: name it and why.
  const unexplained = noResponseLines(exchanges).filter((line) => !message.includes(line));
  return unexplained.length === 0 ? message : `${message}\n\n${unexplained.join('\n')}`;
}

/** A fixture shorter than this is drawn as part of its test: a bar per client created would hide the waits. */
const FIXTURE_SHOWN_MS = 20;

/** The fixtures a test's setup waited for (the outermost fixture steps), from its run start. */
export function fixtureSpans(steps: readonly TestStep[], runStartMs: number): RecordedTest['fixtures'] {
  const spans: Array<{ name: string; startMs: number; endMs: number }> = [];
  const visit = (step: TestStep): void => {
    if (step.category === 'fixture') {
      if (step.duration >= FIXTURE_SHOWN_MS) {
        const startMs = step.startTime.getTime() - runStartMs;
        spans.push({ name: /"(.*)"/.exec(step.title)?.[1] ?? step.title.replace(/^fixture:?\s*/i, ''), startMs, endMs: startMs + step.duration });
      }
      return;
    }
    // Fixtures are set up in the before hooks; those torn down after the test are part of its time.
    if (step.category === 'hook' && /after/i.test(step.title)) return;
    for (const inner of step.steps) visit(inner);
  };
  for (const step of steps) visit(step);
  return spans;
}

/**
 * When a test ended, from its run start: the end of its last step (its after hooks). Playwright's
 * duration leaves out the worker fixtures the test waited for (they run on their own clock), so a
 * test that first needs a company would end, by its duration alone, before its body ran.
 */
export function testEndMs(result: Pick<TestResult, 'startTime' | 'duration' | 'steps'>, runStartMs: number): number {
  const startMs = result.startTime.getTime() - runStartMs;
  let endMs = startMs + Math.max(0, result.duration);
  for (const step of result.steps) endMs = Math.max(endMs, step.startTime.getTime() - runStartMs + Math.max(0, step.duration));
  return endMs;
}

export default class DxsReporter implements Reporter {
  private suite: Suite | undefined;
  private readonly records = new Map<string, TestRecord>();
  /** Each test's attempts so far (Playwright's retries): its record is settled from them (report/attempts.ts). */
  private readonly attempts = new Map<string, Attempt[]>();
  private readonly coverage: Results['coverage'] = {};
  private readonly started = Date.now();
  /** Calls that got no response at all, each with its cause: a target that went away mid-run shows here. */
  private readonly noResponses: string[] = [];
  private readonly errors: string[] = [];
  /** Each test's place in the run's timeline (report/timeline.ts); with retries the last result. */
  private readonly timed = new Map<string, RecordedTest>();
  private beganAt = Date.now();
  /** Every call of every test, for traffic.har. */
  private readonly traffic: HarEntry[] = [];
  /** Each test's place in Playwright's file order: the report lists the tests so, whatever order they ran in. */
  private readonly fileOrder = new Map<string, number>();
  /** The tests queued first (file › titles), longest first. */
  private scheduledFirst: string[] = [];

  printsToStdio(): boolean {
    return false;
  }

  private titlePathOf(test: TestCase): string[] {
    // titlePath() is root, project, file, describe blocks..., title.
    return test.titlePath().slice(3).filter((part) => part !== '');
  }

  private scheduleKeyOf(test: TestCase): string {
    return scheduleKey(relative(SUITES_ROOT, test.location.file), this.titlePathOf(test));
  }

  /** Before Playwright queues the tests: the longest first (report/schedule.ts). */
  async preprocess({ suite }: { suite: Suite }): Promise<void> {
    suite.allTests().forEach((test, index) => this.fileOrder.set(test.id, index));
    const schedule = runContext().schedule;
    if (schedule === undefined) return;
    this.scheduledFirst = orderBySchedule<TestCase>(suite, schedule, (test) => this.scheduleKeyOf(test)).map((test) => this.scheduleKeyOf(test));
  }

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite;
    runContext();
    this.beganAt = Date.now();
  }

  /** The run's start: the dxs command's, which the timeline's offsets count from. */
  private runStart(): number {
    return Math.min(this.started, Date.parse(runContext().startedAt) || this.started);
  }

  private record(test: TestCase, result: TestResult | undefined, statusOverride?: TestStatus): TestRecord {
    const tags = test.tags;
    const log = result === undefined ? { exchanges: [], checks: [] } : readLog(result);
    if (result !== undefined) explainUnanswered(log.exchanges, result);
    // The IDs of the tags, and any other ID a check served on the way.
    const requirements = [...new Set([...requirementsOf(tags), ...log.checks.map((check) => check.requirement)])];
    const annotations = (result?.annotations ?? test.annotations).map(({ type, description }) => ({ type, description }));
    const status: TestStatus = statusOverride ?? (result?.status as TestStatus | undefined) ?? 'not run';
    const verdict = testVerdict(status, log.checks, annotations);
    const skip = annotations.find((annotation) => annotation.type === 'skip' || annotation.type === 'fixme');
    const cause = verdict === 'blocked' ? blockedBy({ annotations }) : undefined;
    return {
      id: test.id,
      title: test.title,
      file: relative(SUITES_ROOT, test.location.file),
      line: test.location.line,
      titlePath: this.titlePathOf(test),
      area: areaOf(tags),
      requirements,
      tags,
      status,
      verdict,
      durationMs: result?.duration ?? 0,
      failure: verdict === 'failed' && result !== undefined ? failureMessage(result, log.exchanges) : cause !== undefined ? `blocked: ${describeCause(cause)}` : undefined,
      skipReason: verdict === 'skipped' ? (skip?.description ?? (status === 'interrupted' || status === 'not run' ? 'the run was interrupted before this test ran' : 'skipped without a reason')) : undefined,
      annotations,
      checks: log.checks,
      requirementVerdicts: requirementVerdicts(requirements, status, log.checks, annotations),
      endpoints: [...new Set(log.exchanges.map((exchange) => exchange.endpoint))].sort(),
      exchanges: verdict === 'failed' || verdict === 'warning' || verdict === 'blocked' ? log.exchanges : undefined,
      reproduce: verdict === 'failed' || verdict === 'warning' ? readReproduction(result) : undefined,
    };
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // With retries the attempts settle the record (report/attempts.ts); coverage counts every call that was made.
    const attemptRecord = this.record(test, result);
    const messages = result.errors.map((error) => error.message ?? error.value ?? '');
    const attempts = this.attempts.get(test.id) ?? [];
    attempts.push({
      record: attemptRecord,
      transportFailed: attemptRecord.verdict === 'failed' && messages.length > 0 && messages.every(isTransportFailure),
      refused: messages.some((message) => message.includes(NOT_RUN_AGAIN)),
      transient: readLog(result).exchanges.flatMap((exchange) => exchange.transient ?? []),
    });
    this.attempts.set(test.id, attempts);
    const record = settleAttempts(attempts);
    this.records.set(test.id, record);
    const runStart = this.runStart();
    const startMs = result.startTime.getTime() - runStart;
    this.timed.set(test.id, {
      testId: test.id,
      name: record.titlePath.join(' › '),
      verdict: record.verdict,
      worker: result.parallelIndex,
      process: result.workerIndex,
      startMs,
      endMs: testEndMs(result, runStart),
      fixtures: fixtureSpans(result.steps, runStart),
    });
    const log = readLog(result);
    const exchanges = log.exchanges;
    explainUnanswered(exchanges, result);
    const owner = { test: [record.file, ...record.titlePath].join(' › '), testId: test.id, requirements: record.requirements, verdict: record.verdict };
    exchanges.forEach((exchange, index) => {
      const checked = [...new Set(log.checks.filter((check) => check.exchange === index).map((check) => check.requirement))];
      this.traffic.push(harEntry(exchange, { ...owner, ...(checked.length === 0 ? {} : { checked }) }));
    });
    // An earlier attempt's calls carry the test's verdict as its attempts settled it (a flaky test's first calls too).
    if (attempts.length > 1) for (const entry of this.traffic) if (entry._dxs.testId === test.id) entry._dxs.verdict = record.verdict;
    addCoverage(this.coverage, exchanges);
    this.noResponses.push(...noResponseLines(exchanges));
  }

  /** Errors outside any test: a suite that does not load, a broken worker fixture, no test found. */
  onError(error: { message?: string; value?: string }): void {
    this.errors.push((error.message ?? error.value ?? 'error').replace(/\u001b\[[0-9;]*m/g, '').split('\n')[0]);
  }

  onEnd(result: FullResult): void {
    const context = runContext();
    loadSecretsFile(context.secretsFile);
    rmSync(brokenPrerequisitesFile(context), { force: true });
    rmSync(runFindingsFile(context), { force: true });
    // A worker stopped while it learnt whether the keys are two integrators leaves its lock.
    rmSync(runFindingLockFile(context, INTEGRATORS_FINDING), { force: true });
    const interrupted = result.status === 'interrupted' || result.status === 'timedout';
    const tests: TestRecord[] = [];
    const inFileOrder = [...(this.suite?.allTests() ?? [])].sort((a, b) => (this.fileOrder.get(a.id) ?? 0) - (this.fileOrder.get(b.id) ?? 0));
    for (const test of inFileOrder) tests.push(this.records.get(test.id) ?? this.record(test, undefined, 'not run'));
    const summary = summarise(tests);
    let status = runStatus(summary, interrupted);
    const messages: string[] = [];
    if (interrupted) messages.push(result.status === 'timedout' ? 'the global time limit was reached' : 'the run was interrupted');
    if (this.noResponses.length > 0) {
      // The first few causes in the console's last line; every one is in the report beside its test.
      const shown = this.noResponses.slice(0, 3).join('; ');
      const more = this.noResponses.length > 3 ? `; and ${this.noResponses.length - 3} more` : '';
      messages.push(`${this.noResponses.length} call(s) got no response from the target (it may have stopped answering mid-run): ${shown}${more}`);
    }
    if (this.errors.length > 0) {
      messages.push(...this.errors);
      if (status === 'passed') status = 'error';
    }
    const results: Results = {
      format: 'dxs-results/1',
      run: {
        target: context.baseUrl,
        embedded: context.embedded,
        profile: context.profile,
        areas: context.areas,
        casing: context.casing,
        destructive: context.destructive,
        strict: context.strict === true,
        version: context.version,
        startedAt: context.startedAt,
        finishedAt: new Date().toISOString(),
        durationMs: Date.now() - this.runStart(),
        status,
        message: messages.length > 0 ? messages.join('; ') : undefined,
        shards: context.shard !== undefined ? [context.shard] : [],
        runPrefix: context.runPrefix,
        seed: context.seed,
      },
      summary,
      tests,
      coverage: this.coverage,
      rootCauses: summary.blocked > 0 ? rootCausesOf(tests) : undefined,
      transport: summariseTransport(readTransientAnswers(transientAnswersFile(context)), flakyTests(tests)),
      gateway: takeGatewaySummary(context),
      timeline: { ...layoutTimeline({ beganMs: this.beganAt - this.runStart(), endedMs: Date.now() - this.runStart(), tests: [...this.timed.values()] }), ...(this.scheduledFirst.length > 0 ? { scheduledFirst: this.scheduledFirst } : {}) },
    };
    writeReport(context.reportDir, results, secrets);
    // Redacted once more as a whole, as every report file is: a token a later answer revealed.
    mkdirSync(context.reportDir, { recursive: true });
    writeFileSync(join(context.reportDir, HAR_FILE), `${secrets.redactText(JSON.stringify(harOf(this.traffic, context.version, 'dxs test: every call of every test; keys and tokens are [REDACTED]'), null, 1))}\n`);
  }
}
