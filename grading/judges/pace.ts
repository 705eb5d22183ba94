// Pace: Retry-After honoured, polling that does not hammer, retries after a 5xx.
import { type Finding, type GradedCall, type Judge } from '../graded-call.ts';
import { POLLED_CALLS } from './endpoints.ts';

/** Timers and schedulers fire a little early or late; a wait this much short of Retry-After still counts. */
const RETRY_TOLERANCE_MS = 200;
const MIN_MEDIAN_POLL_MS = 100;
const MIN_RETRY_GAP_MS = 100;

function retryAfterMs(value: string | undefined, answeredAt: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - answeredAt) : undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function nextCall(calls: readonly GradedCall[], after: GradedCall): GradedCall | undefined {
  return calls.find((call) => call.seq > after.seq && call.endpoint === after.endpoint);
}

export const judgePace: Judge = ({ calls }) => {
  const findings: Finding[] = [];
  for (const call of calls) {
    if (call.answer?.status === 429) {
      const wait = retryAfterMs(call.answer.headers['retry-after'], call.finishedAt);
      if (wait === undefined) continue;
      const next = nextCall(calls, call);
      const gap = next === undefined ? undefined : next.startedAt - call.finishedAt;
      findings.push({
        id: 'CLI-PACE-01', verdict: gap !== undefined && gap >= wait - RETRY_TOLERANCE_MS ? 'passed' : 'failed', seq: next?.seq ?? call.seq, check: `after the 429 of call #${call.seq}, ${call.endpoint} waits for Retry-After`,
        expected: `the next ${call.endpoint} at least ${wait / 1000} s later`, actual: gap === undefined ? 'never called again: the flow was given up' : `called again after ${(gap / 1000).toFixed(2)} s`,
      });
    }
    if (call.answer !== undefined && call.answer.status >= 500) {
      const retries = calls.filter((candidate) => candidate.seq > call.seq && candidate.endpoint === call.endpoint);
      const first = retries[0];
      const gap = first === undefined ? undefined : first.startedAt - call.finishedAt;
      const recovered = retries.some((retry) => retry.answer !== undefined && retry.answer.status < 300);
      const ok = gap !== undefined && gap >= MIN_RETRY_GAP_MS && recovered;
      findings.push({
        id: 'CLI-PACE-04', verdict: ok ? 'passed' : 'failed', seq: first?.seq ?? call.seq, check: `after the ${call.answer.status} of call #${call.seq}, ${call.endpoint} is retried later`,
        expected: `a retry at least ${MIN_RETRY_GAP_MS} ms later that succeeds`, actual: gap === undefined ? 'never retried' : `retried after ${gap} ms${recovered ? '' : ', never with success'}`,
      });
    }
  }
  const polls = new Map<string, GradedCall[]>();
  for (const call of calls) {
    if (!POLLED_CALLS.has(call.endpoint)) continue;
    // Company status is one resource per company; the others one per path.
    const key = call.endpoint === 'GET /companies/status' ? `${call.endpoint}\n${call.headers.clienttoken ?? ''}` : `${call.method} ${call.path.replace(/^\/v1\/api/i, '')}`;
    polls.set(key, [...(polls.get(key) ?? []), call]);
  }
  for (const [key, list] of polls) {
    if (list.length < 2) continue;
    // The token names the company; the report shows no token.
    const resource = key.includes('\n') ? `${key.split('\n')[0]} of one company` : key;
    const intervals = list.slice(1).map((call, index) => call.startedAt - list[index].startedAt);
    const middle = median(intervals);
    findings.push({ id: 'CLI-PACE-02', verdict: 'info', seq: list[0].seq, check: `polling of ${resource}`, expected: 'rate limits: not shown', actual: `${list.length} polls, shortest interval ${Math.min(...intervals)} ms, median ${middle} ms` });
    if (list.length > 5) {
      findings.push({ id: 'CLI-PACE-03', verdict: middle >= MIN_MEDIAN_POLL_MS ? 'passed' : 'failed', seq: list[list.length - 1].seq, check: `polling of ${resource} leaves time between polls`, expected: `a median interval of at least ${MIN_MEDIAN_POLL_MS} ms`, actual: `${list.length} polls, median interval ${middle} ms` });
    }
  }
  return findings;
};
