// The record of a client-check run as a dxs results.json (format dxs-results/1), so junit.xml, the
// certificate and `dxs report` read it as they read a run of dxs test: one "test" per exercised
// client requirement, none for a requirement the client never exercised. The `client` section
// adds what only a client run has: the command, the provocations, the flows tried, the traffic.
import type { CheckRecord, Exchange } from '../lib/run-record.ts';
import { addCoverage, summarise, type Results, type RunStatus, type TestRecord } from '../report/results.ts';
import { CLIENT_AREAS } from '../schemas/client-requirements.ts';
import { describeCall, type GradedCall } from './graded-call.ts';
import { PROVOCATIONS } from './provocations.ts';
import { refusalOf, type Refusal } from './refusals.ts';
import { quoteSentence } from './spec-quote.ts';
import type { RequirementOutcome } from './verdicts.ts';

export interface CallSummary {
  seq: number;
  method: string;
  path: string;
  endpoint: string;
  status?: number;
  provocation?: string;
  /** Milliseconds after the first call. */
  atMs: number;
  durationMs: number;
  /** Why the grading sandbox refused the call, and whether the judge found the same fault (judged). */
  refusal?: Refusal & { judged: boolean };
}

export interface ClientSection {
  /** The command the client ran as, its secrets redacted; absent with --serve. */
  command?: string;
  serve: boolean;
  /** The client's exit code, or the signal that ended it. */
  exit?: { code: number | null; signal: string | null; timedOut: boolean };
  provocations: Array<{ name: string; description: string; calls: number[] }>;
  /** required: the flows --require-flows names; missing: those of them the client did not try (a failure). */
  flows: { tried: string[]; notTried: string[]; required: string[]; missing: string[] };
  notExercised: string[];
  calls: CallSummary[];
  /** The client's last lines of output (redacted), kept for the page of a run that was not judged whole. */
  lastOutput?: string[];
}

export interface ClientResults extends Results {
  client: ClientSection;
}

/** At most this many calls are kept per requirement to show what broke it. */
const EXCHANGES_PER_REQUIREMENT = 5;

export function exchangeOf(call: GradedCall, baseUrl: string): Exchange {
  const origin = baseUrl.replace(/\/v1\/api$/, '');
  const requestBody = call.body ?? call.bodyText ?? (call.parts !== undefined ? `multipart parts: ${call.parts.map((part) => `${part.name}${part.filename !== undefined ? ` (file "${part.filename}", ${part.size} bytes)` : ''}`).join(', ')}` : undefined);
  return {
    title: describeCall(call),
    endpoint: call.endpoint,
    request: { method: call.method, url: `${origin}${call.url}`, headers: call.headers, body: requestBody },
    response: call.answer === undefined ? undefined : { status: call.answer.status, headers: call.answer.headers, body: call.answer.body, size: call.answer.size },
    error: call.error,
    sentAt: new Date(call.startedAt).toISOString(),
    durationMs: call.finishedAt - call.startedAt,
  };
}

function testOf(outcome: RequirementOutcome, calls: readonly GradedCall[], baseUrl: string): TestRecord {
  const { requirement, findings } = outcome;
  const verdict = outcome.verdict === 'not exercised' ? 'skipped' : outcome.verdict;
  const notable = findings.filter((finding) => finding.verdict !== 'passed');
  const shownSeqs = [...new Set(notable.map((finding) => finding.seq).filter((seq): seq is number => seq !== undefined))].slice(0, EXCHANGES_PER_REQUIREMENT);
  const shown = shownSeqs.map((seq) => calls.find((call) => call.seq === seq)).filter((call): call is GradedCall => call !== undefined);
  const passedCount = findings.length - notable.length;
  const checks: CheckRecord[] = notable.map((finding) => ({
    requirement: requirement.id, level: requirement.level, basis: requirement.basis, verdict: finding.verdict as CheckRecord['verdict'],
    check: finding.seq !== undefined ? `#${finding.seq}: ${finding.check}` : finding.check, expected: finding.expected, actual: finding.actual,
    exchange: finding.seq !== undefined && shownSeqs.includes(finding.seq) ? shownSeqs.indexOf(finding.seq) : undefined,
  }));
  if (passedCount > 0) checks.push({ requirement: requirement.id, level: requirement.level, basis: requirement.basis, verdict: 'passed', check: `${passedCount} judgement${passedCount === 1 ? '' : 's'} kept the rule`, expected: requirement.statement, actual: 'kept' });
  const failed = notable.filter((finding) => finding.verdict === 'failed');
  const basis = requirement.basis === 'spec' ? `Basis: the spec, ${quoteSentence(requirement.quote ?? '')}` : requirement.basis === 'hardening' ? 'Basis: hardening, a good practice the spec does not require (fails only with --strict)' : undefined;
  const failure = failed.length === 0 ? undefined : [
    `${requirement.id}: ${requirement.statement}`,
    ...(basis === undefined ? [] : [basis]),
    ...failed.slice(0, 10).map((finding) => `${finding.seq !== undefined ? `call #${finding.seq}` : 'traffic'}: ${finding.check}; expected ${finding.expected}, got ${finding.actual}`),
    ...(failed.length > 10 ? [`… and ${failed.length - 10} more`] : []),
  ].join('\n');
  return {
    id: requirement.id,
    title: `${requirement.id}: ${requirement.statement}`,
    file: 'client-check',
    titlePath: [requirement.area, `${requirement.id}: ${requirement.statement}`],
    area: requirement.area,
    requirements: [requirement.id],
    tags: [`@${requirement.id}`, `@area:${requirement.area}`],
    status: verdict === 'failed' ? 'failed' : 'passed',
    verdict,
    durationMs: 0,
    failure,
    annotations: notable.filter((finding) => finding.verdict === 'warning' || finding.verdict === 'info').map((finding) => ({ type: finding.verdict, description: `${requirement.id}: ${finding.check}: ${finding.actual}` })),
    checks,
    requirementVerdicts: { [requirement.id]: verdict },
    exchanges: shown.map((call) => exchangeOf(call, baseUrl)),
  };
}

export interface ClientRunInput {
  outcomes: readonly RequirementOutcome[];
  calls: readonly GradedCall[];
  baseUrl: string;
  version: string;
  startedAt: Date;
  finishedAt: Date;
  casing: string;
  strict: boolean;
  /** What kept the run from being judged whole (the command could not start, the timeout), if anything. */
  problem?: { status: RunStatus; message: string };
  client: Omit<ClientSection, 'notExercised' | 'calls' | 'provocations' | 'flows'> & { provocations: Record<string, number[]>; flows: { tried: string[]; notTried: string[] }; requiredFlows?: readonly string[] };
}

/** Whether the judge found against the client on the call the sandbox refused, under the requirement the refusal names. */
function refusalSummary(call: GradedCall, outcomes: readonly RequirementOutcome[]): CallSummary['refusal'] {
  const refusal = refusalOf(call);
  if (refusal === undefined) return undefined;
  const judged = refusal.requirement !== undefined && outcomes.some((outcome) => outcome.requirement.id === refusal.requirement && outcome.findings.some((finding) => finding.seq === call.seq && finding.verdict !== 'passed'));
  return { ...refusal, judged };
}

export function clientResults(input: ClientRunInput): ClientResults {
  const tests = input.outcomes.filter((outcome) => outcome.verdict !== 'not exercised').map((outcome) => testOf(outcome, input.calls, input.baseUrl));
  const summary = summarise(tests);
  const coverage: Results['coverage'] = {};
  addCoverage(coverage, input.calls.map((call) => exchangeOf(call, input.baseUrl)));
  const first = input.calls[0]?.startedAt ?? input.startedAt.getTime();
  const { requiredFlows = [], ...client } = input.client;
  const missing = requiredFlows.filter((flow) => !client.flows.tried.includes(flow));
  const status: RunStatus = summary.failed > 0 || missing.length > 0 ? 'failed' : input.problem?.status ?? 'passed';
  const messages = [...(missing.length > 0 ? [`required flow${missing.length === 1 ? '' : 's'} not tried: ${missing.join(', ')}`] : []), ...(input.problem === undefined ? [] : [input.problem.message])];
  return {
    format: 'dxs-results/1',
    run: {
      target: input.baseUrl,
      embedded: true,
      profile: 'client',
      areas: [...CLIENT_AREAS],
      casing: input.casing,
      destructive: false,
      strict: input.strict,
      version: input.version,
      startedAt: input.startedAt.toISOString(),
      finishedAt: input.finishedAt.toISOString(),
      durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
      status,
      message: messages.length === 0 ? undefined : messages.join('; '),
      shards: [],
    },
    summary,
    tests,
    coverage,
    client: {
      ...client,
      flows: { ...client.flows, required: [...requiredFlows], missing },
      provocations: Object.entries(client.provocations).map(([name, calls]) => ({ name, description: PROVOCATIONS[name] ?? '', calls })),
      notExercised: input.outcomes.filter((outcome) => outcome.verdict === 'not exercised').map((outcome) => outcome.requirement.id),
      calls: input.calls.map((call) => ({ seq: call.seq, method: call.method, path: call.path, endpoint: call.endpoint, status: call.answer?.status, provocation: call.provocation, atMs: call.startedAt - first, durationMs: call.finishedAt - call.startedAt, refusal: refusalSummary(call, input.outcomes) })),
    },
  };
}
