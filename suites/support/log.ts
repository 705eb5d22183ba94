// The exchange log of one test: every request and response (already redacted) and every check
// with its verdict. The `api` fixture attaches it to the test as `dxs-log` (JSON); our reporter
// reads it to build the failure details, the requirements matrix and the endpoint coverage.

import type { ExchangeLog } from '../../lib/run-record.ts';

// The record's types live in lib/run-record.ts, below the reports and dxs client-check that read them.
export { LOG_ATTACHMENT, type CheckRecord, type Exchange, type ExchangeLog, type RecordedRequest, type RecordedResponse, type Verdict } from '../../lib/run-record.ts';

export function newLog(): ExchangeLog {
  return { exchanges: [], checks: [] };
}

// Playwright runs one test at a time per worker, so the log of the running test can be found
// without threading it through every helper.
let current: ExchangeLog | undefined;

export function setCurrentLog(log: ExchangeLog | undefined): void {
  current = log;
}

export function currentLog(): ExchangeLog | undefined {
  return current;
}
