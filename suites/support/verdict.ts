// Verdicts. A check that fails counts by the basis of the requirement it serves (issue 21):
//   spec, invariant -> the test fails (basis and quote, request, response, expected and actual in the message);
//   hardening       -> a warning annotation, the test goes on (a failure with --strict);
//   observe         -> an info annotation: the spec is silent, we only record what the target did.
// A GUIDE requirement warns, whatever its basis: the guide is not the reference.
// Every outcome is also written to the exchange log, so the report can fill the matrix per ID.
import { expect, test } from '@playwright/test';
import { asWarning, casingIs, runChecks, type Check, type CheckOutcome } from '../../lib/checks.ts';
import { secrets } from '../../lib/redact.ts';
import { describeBasis, failureSeverity, requirementById, type Requirement } from '../../schemas/requirements.ts';
import { BLOCKED_ANNOTATION, rateLimitedBy } from '../../report/root-causes.ts';
import { NOT_REACHED_ANNOTATION } from '../../report/results.ts';
import type { ApiResponse } from './client.ts';
import { currentLog, type CheckRecord } from './log.ts';
import { runContext } from './run-context.ts';
import { step, testLocation } from './step.ts';

export type Level = 'MUST' | 'GUIDE' | 'SECURITY' | 'OBSERVE';

export interface CheckOptions {
  /** The catalog ID the checks serve (its level decides how a failure counts). */
  requirement: string;
  /** Overrides the catalog's level (rarely needed). */
  level?: Level;
  /** A failed MUST marks the test failed but lets it go on (expect.soft semantics). */
  soft?: boolean;
}

function levelOf(options: CheckOptions): Level {
  return options.level ?? (requirementById(options.requirement)?.level as Level | undefined) ?? 'MUST';
}

function verdictOf(outcome: CheckOutcome, level: Level, requirement: Requirement | undefined): CheckRecord['verdict'] {
  const severity = failureSeverity({ level, basis: requirement?.basis }, runContext().strict === true);
  // Where the spec is silent, whatever the target did is an observation, never a pass or a failure.
  if (severity === 'info') return 'info';
  if (outcome.ok) return 'passed';
  if (outcome.severity === 'info') return 'info';
  if (outcome.severity === 'warning' || severity === 'warning') return 'warning';
  return 'failed';
}


function describeExchange(response: ApiResponse): string {
  const { request, response: answer } = response.recorded;
  const lines = [`Request:  ${request.method} ${request.url}`];
  if (request.body !== undefined) lines.push(`          ${JSON.stringify(request.body).slice(0, 600)}`);
  if (answer !== undefined) {
    lines.push(`Response: ${answer.status}${answer.headers['content-type'] ? ` (${answer.headers['content-type']})` : ''}`);
    if (answer.headers.location !== undefined) lines.push(`          Location: ${answer.headers.location}`);
    if (answer.body !== undefined) lines.push(`          ${JSON.stringify(answer.body).slice(0, 600)}`);
  }
  return lines.join('\n');
}

function strictCasing(): 'pascal' | 'camel' | undefined {
  const mode = runContext().casing;
  return mode === 'strict-pascal' ? 'pascal' : mode === 'strict-camel' ? 'camel' : undefined;
}

/**
 * Runs checks on a response and records the verdict for the requirement (returned too). With --casing
 * strict-pascal or strict-camel, every JSON body is also held to that casing (CNV-05).
 */
export async function expectCheck(response: ApiResponse, checks: Check[], options: CheckOptions): Promise<readonly CheckRecord[]> {
  // A test the gateway blocked that went on (a caught error) judges nothing more.
  const rateLimited = test.info().annotations.find((annotation) => annotation.type === BLOCKED_ANNOTATION && rateLimitedBy({ annotations: [annotation] }));
  if (rateLimited !== undefined) test.info().skip(true, `blocked: ${rateLimited.description ?? 'rate limited by the target'}`);
  const level = levelOf(options);
  const requirement = requirementById(options.requirement);
  const casing = strictCasing();
  const all = casing !== undefined && response.json !== undefined && typeof response.json === 'object' ? [...checks, casingIs(casing)] : checks;
  const outcomes = runChecks(response, all);
  const records = outcomes.map(
    (outcome): CheckRecord => ({
      requirement: options.requirement,
      level,
      verdict: verdictOf(outcome, level, requirement),
      basis: requirement?.basis,
      check: outcome.check,
      expected: secrets.redactText(outcome.expected),
      actual: secrets.redactText(outcome.actual),
      exchange: response.exchange,
    }),
  );
  // A boxed step points a failure at the test's line that asked for the check, but captures a stack
  // to do so: only a failing check pays for it (issue 42).
  const failing = records.some((record) => record.verdict === 'failed');
  await test.step(
    `check ${options.requirement}`,
    async () => {
      const log = currentLog();
      log?.checks.push(...records);
      const statement = requirement?.statement ?? '';
      const basis = describeBasis(requirement);
      for (const record of records) {
        if (record.verdict === 'warning' || record.verdict === 'info') {
          test.info().annotations.push({ type: record.verdict, description: `${options.requirement}: expected ${record.expected}; the target answered ${record.actual}` });
        }
      }
      const failed = records.filter((record) => record.verdict === 'failed');
      if (failed.length === 0) return;
      const message = secrets.redactText(
        [
          `${options.requirement} (${level}) ${statement}`,
          ...(basis === undefined ? [] : [basis]),
          ...records.map((record) => `  ${record.verdict === 'failed' ? '✗' : '✓'} ${record.check}: expected ${record.expected}; actual ${record.actual}`),
          describeExchange(response),
        ].join('\n'),
      );
      if (options.soft) {
        expect.soft(false, message).toBe(true);
        return;
      }
      throw new Error(message);
    },
    failing ? { box: true } : { location: testLocation() },
  );
  return records;
}

/**
 * Marks a requirement of the running test not reached, saying why: its checks were not made (a URL
 * dxs does not follow, a body the deployment refused before the API), while the test's other
 * requirements are judged (report/results.ts requirementVerdicts).
 */
export function notReached(requirement: string, why: string): void {
  test.info().annotations.push({ type: NOT_REACHED_ANNOTATION, description: `${requirement}: not reached: ${why}` });
}

/**
 * Records what the target did where the spec is silent ("not shown"): never a failure, an info
 * verdict with the observation.
 */
export async function observe(requirement: string, observation: string, response?: ApiResponse): Promise<void> {
  const description = secrets.redactText(observation);
  await step(`observe ${requirement}`, async () => {
    currentLog()?.checks.push({ requirement, level: 'OBSERVE', verdict: 'info', check: 'observation', expected: 'not shown by the spec', actual: description, exchange: response?.exchange });
    test.info().annotations.push({ type: 'info', description: `${requirement}: ${description}` });
  });
}

/** Tags of a test: the area and the catalog IDs it checks (and @destructive where it deletes). */
export function tags(area: string, ...ids: string[]): string[] {
  return [`@area:${area}`, ...ids.map((id) => (id.startsWith('@') ? id : `@${id}`))];
}

export { asWarning };
