// Root causes (issue 14). Many tests need the same few things of a target before their own check
// can run: a client token, a company reaching Registered, a document reaching a final status,
// provider A reaching Completed, an invoice arriving in an inbox. When one of them is broken, each
// test that needs it ends at once as blocked, carrying the root cause in an annotation; the report
// groups blocked tests by root cause and shows the causes first, since one cause fixed unblocks them all.
// Pure: the workers (suites/support/prerequisites.ts), the reporter and the renderers share it.
import { join } from 'node:path';

/**
 * What grouping needs of a test record (report/results.ts's TestRecord has these fields); stated
 * here so that root causes sit below the record of a run instead of importing it.
 */
export interface BlockableTest {
  file: string;
  title: string;
  verdict: string;
  skipReason?: string;
  annotations: Array<{ type: string; description?: string }>;
}

// rate-limit: not the target's own: its gateway kept answering 429 (or 503 with Retry-After) after the run's budget of waiting was spent (issue 31).
// transport: not the target's own either: the deployment kept answering 502, 504 or 503 without Retry-After, or lost the call, through every try and the test's run again (issue 57).
export type PrerequisiteName = 'client-token' | 'registration' | 'outbound-final' | 'provider-a' | 'inbox-delivery' | 'rate-limit' | 'transport';

/** What each prerequisite is, as the report names it. */
export const PREREQUISITES: Record<PrerequisiteName, string> = {
  'client-token': 'a client token for a registered company',
  registration: 'a company reaching Registered',
  'outbound-final': 'an outbound document reaching a final status (or resting in Sent or Sold)',
  'provider-a': 'provider A reaching Completed',
  'inbox-delivery': 'a delivered invoice arriving in an inbox',
  'rate-limit': 'rate limited by the target',
  transport: "the deployment's transport (502, 504, 503 without Retry-After, a call lost or past its bound)",
};

export const BLOCKED_ANNOTATION = 'blocked';

/**
 * Where workers leave the prerequisites they found broken, one formatted cause a line, so a worker
 * started later blocks at once instead of waiting again. Named after the run, so a reused report
 * directory never passes an earlier run's causes on; the reporter removes it at the end.
 */
export function brokenPrerequisitesFile(context: { reportDir: string; runPrefix: string }): string {
  return join(context.reportDir, `.dxs-broken-prerequisites-${context.runPrefix}`);
}

/** What a worker found of the target once for the run (suites/support/run-findings.ts), named after the run like the file above. */
export function runFindingsFile(context: { reportDir: string; runPrefix: string }): string {
  return join(context.reportDir, `.dxs-run-findings-${context.runPrefix}`);
}

/** The run finding whether the run's two keys are two integrators (suites/support/integrators.ts), made by one worker for all. */
export const INTEGRATORS_FINDING = 'integrators';

/** The lock of a finding one worker makes for all; removed with the findings. */
export function runFindingLockFile(context: { reportDir: string; runPrefix: string }, name: string): string {
  return `${runFindingsFile(context)}.${name}.lock`;
}

export interface RootCause {
  prerequisite: PrerequisiteName;
  /** The catalog ID the target broke. */
  requirement: string;
  /** What went wrong: the call, what came back. */
  message: string;
}

export interface RootCauseGroup extends RootCause {
  /** The blocked tests (file › title). */
  tests: string[];
}

/** One line: `[registration] CMP-STA-06: message`. Also the form of the file workers share. */
export function formatCause(cause: RootCause): string {
  return `[${cause.prerequisite}] ${cause.requirement}: ${cause.message.replace(/\s+/g, ' ')}`;
}

export function parseCause(text: string | undefined): RootCause | undefined {
  const match = /^\[([a-z-]+)\] (\S+): (.*)$/.exec(text ?? '');
  if (match === null || !(match[1] in PREREQUISITES)) return undefined;
  return { prerequisite: match[1] as PrerequisiteName, requirement: match[2], message: match[3] };
}

/** Blocked by the gateway (its 429s, or the deployment's transport): whatever the test did after, its verdict is blocked (report/results.ts). */
export function rateLimitedBy(test: Pick<BlockableTest, 'annotations'>): boolean {
  const prerequisite = blockedBy(test)?.prerequisite;
  return prerequisite === 'rate-limit' || prerequisite === 'transport';
}

export function blockedBy(test: Pick<BlockableTest, 'annotations'>): RootCause | undefined {
  return parseCause(test.annotations.find((annotation) => annotation.type === BLOCKED_ANNOTATION)?.description);
}

/** The blocked tests grouped by root cause (prerequisite and requirement), the largest group first. */
export function rootCausesOf(tests: readonly BlockableTest[]): RootCauseGroup[] {
  const groups = new Map<string, RootCauseGroup>();
  for (const test of tests) {
    if (test.verdict !== 'blocked') continue;
    const cause = blockedBy(test) ?? { prerequisite: 'registration', requirement: '?', message: test.skipReason ?? 'blocked' };
    // The deployment's transport: one cause per call it kept failing (the message names the call).
    const key = `${cause.prerequisite} ${cause.requirement}${cause.prerequisite === 'transport' ? ` ${cause.message}` : ''}`;
    const group = groups.get(key) ?? { ...cause, tests: [] };
    group.tests.push(`${test.file} › ${test.title}`);
    groups.set(key, group);
  }
  return [...groups.values()].sort((left, right) => right.tests.length - left.tests.length);
}

/** "1 root cause blocked 143 tests", or undefined when nothing was blocked. */
export function rootCauseHeadline(groups: readonly RootCauseGroup[]): string | undefined {
  if (groups.length === 0) return undefined;
  const blocked = groups.reduce((sum, group) => sum + group.tests.length, 0);
  return `${groups.length} root cause${groups.length === 1 ? '' : 's'} blocked ${blocked} test${blocked === 1 ? '' : 's'}`;
}

export function describeCause(cause: RootCause): string {
  if (cause.prerequisite === 'rate-limit') return `${PREREQUISITES[cause.prerequisite]}: ${cause.message}`;
  // Its message names the call and what the deployment did to it, every try: the cause itself.
  if (cause.prerequisite === 'transport') return cause.message;
  return `${PREREQUISITES[cause.prerequisite]} is broken (${cause.requirement}): ${cause.message}`;
}

export function describeGroup(group: RootCauseGroup): string {
  return `${group.tests.length} blocked: ${describeCause(group)}`;
}

/** The console's last lines of a run with blocked tests: the causes first, each on its own line. */
export function rootCauseLines(tests: readonly BlockableTest[]): string[] {
  const groups = rootCausesOf(tests);
  const headline = rootCauseHeadline(groups);
  if (headline === undefined) return [];
  return [`${headline}:`, ...groups.map((group) => `  ${describeGroup(group)}`)];
}
