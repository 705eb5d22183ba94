// What the judges read: the recorded calls with their catalog endpoint and a few readers that
// take the spec's field names in any casing.
import { readField } from '../lib/casing.ts';
import { endpointOf } from '../report/endpoints.ts';
import { apiPath } from './recorder.ts';
import type { RecordedCall } from './traffic.ts';

export interface GradedCall extends RecordedCall {
  /** "METHOD /template" of the catalog, e.g. GET /companies/details/{CompanyId}. */
  endpoint: string;
}

export type FindingVerdict = 'passed' | 'failed' | 'warning' | 'info';

/** One judgement of one requirement, on one call or on the traffic as a whole. */
export interface Finding {
  id: string;
  /** failed means the rule was broken; how much that counts (failure, warning, info) is the catalog basis's to say. */
  verdict: FindingVerdict;
  check: string;
  expected: string;
  actual: string;
  /** The call that broke (or kept) the rule. */
  seq?: number;
}

export interface JudgeInput {
  calls: readonly GradedCall[];
  /** The key handed to the client that holds DeleteRegistration, and the one without it. */
  apiKey: string;
  apiKeyWithoutDelete: string;
}

export type Judge = (input: JudgeInput) => Finding[];

export function gradeCalls(calls: readonly RecordedCall[]): GradedCall[] {
  return calls.map((call) => ({ ...call, endpoint: endpointOf(call.method, apiPath(call.path)) }));
}

export function header(call: RecordedCall, name: string): string | undefined {
  const value = call.headers[name.toLowerCase()];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** A field by its dotted path ("Document.DocumentUri"), each name in any casing. */
export function fieldAt(body: unknown, path: string): unknown {
  let value = body;
  for (const name of path.split('.')) value = readField(value, name);
  return value;
}

export function succeeded(call: RecordedCall): boolean {
  return call.answer !== undefined && call.answer.status >= 200 && call.answer.status < 300;
}

/** Answered before the other call was sent: what the client could know when it sent it. */
export function before(earlier: RecordedCall, later: RecordedCall): boolean {
  return earlier.seq !== later.seq && earlier.finishedAt <= later.startedAt && earlier.answer !== undefined;
}

export function describeCall(call: RecordedCall): string {
  return `#${call.seq} ${call.method} ${call.url}`;
}

/** decodeURIComponent that keeps a malformed escape as it was sent instead of throwing. */
export function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function lastSegment(value: string): string {
  const path = value.split('?')[0].replace(/\/+$/, '');
  return decoded(path.slice(path.lastIndexOf('/') + 1));
}

export const same = (left: string, right: string): boolean => left.trim().toLowerCase() === right.trim().toLowerCase();
