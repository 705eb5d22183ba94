// The record of a run's calls and checks: each request and its answer (already redacted), and each
// check with its verdict. The suites write it (suites/support/log.ts), dxs client-check builds it
// from the traffic it graded (grading/), and the reports read it (report/): it lives below all three.

import type { NoResponseCause } from './no-response.ts';
import type { TransientAnswer } from './transient.ts';

// blocked: the test never reached its own check, a prerequisite it needs is broken (report/root-causes.ts).
// flaky: the test met the deployment's transport, was run again from its start, and passed then (issue 57).
export type Verdict = 'passed' | 'failed' | 'warning' | 'info' | 'skipped' | 'blocked' | 'flaky';
/** A requirement's verdict in a test: a flaky test proved its requirements as its passing attempt did. */
export type RequirementVerdict = Exclude<Verdict, 'flaky'>;

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  size: number;
}

export interface Exchange {
  /** "METHOD /path" as called, the title of its test.step. */
  title: string;
  /** "METHOD /template" of the catalog, e.g. GET /companies/details/{CompanyId}. */
  endpoint: string;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Why there was no response (lib/no-response.ts), with the time that passed: "connection reset by the target (ECONNRESET) after 0.4 s". */
  error?: string;
  cause?: NoResponseCause;
  /** When the request was sent (ISO), so a call still waiting when its test ended can say how long it waited. */
  sentAt?: string;
  durationMs: number;
  /** The gateway's answers (429, 503 with Retry-After) waited for before this call was answered (issue 31). */
  gatewayWaits?: Array<{ status: number; retryAfter?: string; waitedMs: number }>;
  /** The deployment's transient answers (502, 504, 503 without Retry-After, a reset, a call past its bound) this call met, each try (issue 57). */
  transient?: TransientAnswer[];
}

export interface CheckRecord {
  requirement: string;
  level: string;
  /** The catalog basis of the requirement (spec, invariant, hardening, observe), when graded. */
  basis?: string;
  verdict: Exclude<Verdict, 'skipped' | 'blocked' | 'flaky'>;
  check: string;
  expected: string;
  actual: string;
  /** Index into exchanges of the response the check looked at, if any. */
  exchange?: number;
}

export interface ExchangeLog {
  exchanges: Exchange[];
  checks: CheckRecord[];
}

export const LOG_ATTACHMENT = 'dxs-log';
/** The test's reproduce script (issue 43): where it was written and the failing call's curl line. */
export const REPRODUCE_ATTACHMENT = 'dxs-reproduce';
