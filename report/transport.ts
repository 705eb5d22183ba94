// The deployment's transport in a run's record (issue 57): every transient answer a call met (a
// 502, a 504, a 503 without Retry-After, a reset, a call past its bound), from every process of the
// run (the workers, the run's setup, the cleanup), appended to one file of the run; summed up for
// the report by cause and endpoint, with the tests that passed only when run again (flaky).
// Also which tests may run again: only one whose failure was the transport (suites/support/transport.ts).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { transientKind, TRANSPORT_FAILURE, type TransientAnswer } from '../lib/transient.ts';

export type { TransientAnswer };

interface RunFiles {
  reportDir: string;
  runPrefix: string;
}

/** Where every process of the run appends the transient answers it met, one JSON a line. */
export function transientAnswersFile(context: RunFiles): string {
  return join(context.reportDir, `.dxs-transient-${context.runPrefix}`);
}

/** Where a test whose attempt failed on the transport alone is named (`<testId> <retry>`): only such a test runs again. */
export function transportRetriesFile(context: RunFiles): string {
  return join(context.reportDir, `.dxs-transport-retries-${context.runPrefix}`);
}

export function readTransientAnswers(file: string): TransientAnswer[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const answers: TransientAnswer[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      answers.push(JSON.parse(line) as TransientAnswer);
    } catch {
      // A line cut by a process that stopped mid-write says nothing.
    }
  }
  return answers;
}

/** The start of the error a refused retry fails with (suites/support/transport.ts); the reporter then keeps the attempt before. */
export const NOT_RUN_AGAIN = 'not run again:';

/** Whether a failure message is the deployment's transport (a TransportFailure of the suites). */
export function isTransportFailure(message: string | undefined): boolean {
  return message !== undefined && message.includes(TRANSPORT_FAILURE);
}

/** The root cause in a transport failure's message: what follows TRANSPORT_FAILURE, on its line. */
export function transportCauseOf(message: string): string {
  const at = message.indexOf(TRANSPORT_FAILURE);
  return (at < 0 ? message : message.slice(at + TRANSPORT_FAILURE.length)).split('\n')[0].trim();
}

/** The run's transient answers summed up, and its file removed (the run is over). */
export function takeTransportSummary(context: RunFiles, flaky: readonly FlakyTest[] = []): TransportSummary | undefined {
  const file = transientAnswersFile(context);
  const summary = summariseTransport(readTransientAnswers(file), flaky);
  rmSync(file, { force: true });
  return summary;
}

/** Calls of one endpoint that met one kind of transient answer. */
export interface TransportRow {
  endpoint: string;
  /** "502", "504", "503", "no answer (reset)", "no answer (timeout)"... */
  kind: string;
  /** Transient answers met. */
  answers: number;
  /** Of them, followed by sending the call again. */
  resent: number;
}

export interface FlakyTest {
  /** file › title path */
  test: string;
  attempts: number;
  /** Why an attempt failed: the transport failure, as its test met it. */
  because?: string;
  answers: TransientAnswer[];
}

/** The `transport` section of results.json (absent when the run met no transient answer). */
export interface TransportSummary {
  /** Transient answers met, in all. */
  answers: number;
  /** Of them, followed by sending the call again. */
  resent: number;
  byEndpoint: TransportRow[];
  /** Tests that passed only when run again from their start. */
  flaky: FlakyTest[];
}

export function summariseTransport(answers: readonly TransientAnswer[], flaky: readonly FlakyTest[]): TransportSummary | undefined {
  if (answers.length === 0 && flaky.length === 0) return undefined;
  const rows = new Map<string, TransportRow>();
  for (const answer of answers) {
    const kind = transientKind(answer);
    const key = `${answer.endpoint}\u0000${kind}`;
    const row = rows.get(key) ?? { endpoint: answer.endpoint, kind, answers: 0, resent: 0 };
    row.answers++;
    if (answer.resent) row.resent++;
    rows.set(key, row);
  }
  return {
    answers: answers.length,
    resent: answers.filter((answer) => answer.resent).length,
    byEndpoint: [...rows.values()].sort((a, b) => b.answers - a.answers || a.endpoint.localeCompare(b.endpoint)),
    flaky: [...flaky],
  };
}

/** One transient answer on a line: "POST /companies/register: 502 <html>… at 2026-12-07T10:00:00Z (try 1, sent again)". */
export function transientLine(answer: TransientAnswer): string {
  const head = answer.head === '' ? '' : ` ${answer.head}`;
  return `${answer.endpoint}: ${transientKind(answer)}${head} at ${answer.at} (try ${answer.attempt}${answer.resent ? ', sent again' : ''})`;
}

/** The console's lines: the transient answers in all, the calls sent again by cause, each flaky test. */
export function transportLines(summary: TransportSummary | undefined): string[] {
  if (summary === undefined) return [];
  const lines = [`transport: ${summary.answers} transient answer${summary.answers === 1 ? '' : 's'} of the deployment (502, 504, 503 without Retry-After, a call lost or past its bound), ${summary.resent} followed by sending the call again; no check judged them`];
  for (const row of summary.byEndpoint.slice(0, 10)) lines.push(`  ${row.endpoint}: ${row.answers} × ${row.kind}${row.resent > 0 ? `, ${row.resent} sent again` : ''}`);
  if (summary.byEndpoint.length > 10) lines.push(`  and ${summary.byEndpoint.length - 10} more`);
  for (const test of summary.flaky) {
    const met = test.answers.length === 0 ? '' : `; met ${test.answers.map(transientLine).join('; ')}`;
    lines.push(`flaky: ${test.test}: passed when run again (${test.attempts} attempts) after ${test.because ?? "the deployment's transport failed it"}${met}`);
  }
  return lines;
}


/** The shards' transport sections as one (dxs report merge): the rows added up, the flaky tests of all. */
export function mergeTransportSummaries(parts: ReadonlyArray<TransportSummary | undefined>): TransportSummary | undefined {
  const present = parts.filter((part): part is TransportSummary => part !== undefined);
  if (present.length === 0) return undefined;
  const rows = new Map<string, TransportRow>();
  for (const row of present.flatMap((part) => part.byEndpoint)) {
    const key = `${row.endpoint}\u0000${row.kind}`;
    const merged = rows.get(key) ?? { ...row, answers: 0, resent: 0 };
    merged.answers += row.answers;
    merged.resent += row.resent;
    rows.set(key, merged);
  }
  return {
    answers: present.reduce((sum, part) => sum + part.answers, 0),
    resent: present.reduce((sum, part) => sum + part.resent, 0),
    byEndpoint: [...rows.values()].sort((a, b) => b.answers - a.answers || a.endpoint.localeCompare(b.endpoint)),
    flaky: present.flatMap((part) => part.flaky),
  };
}
