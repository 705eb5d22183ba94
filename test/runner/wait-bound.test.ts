// A wait inside a test ends before the test's own time does (issue 36): a prerequisite awaited
// there is then blocked with that cause instead of being cut by Playwright's timeout, which would
// read as a failure of the target. Pure figures (suites/support/timing.ts waitBound), no clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestTimeRanOut, SetupFailed } from '../../suites/support/companies.ts';
import { waitBound } from '../../suites/support/timing.ts';

const ASYNC_MS = 30_000;

test('outside a test, and early in one, a wait gets the whole async timeout', () => {
  assert.deepEqual(waitBound(ASYNC_MS, undefined, 1_000), { ms: ASYNC_MS, byTest: false }, 'a worker fixture or dxs fuzz: the async timeout alone');
  assert.deepEqual(waitBound(ASYNC_MS, { timeoutMs: 120_000, startedAt: 0 }, 1_000), { ms: ASYNC_MS, byTest: false });
  assert.deepEqual(waitBound(ASYNC_MS, { timeoutMs: 0, startedAt: 0 }, 500_000), { ms: ASYNC_MS, byTest: false }, 'a test without a timeout');
});

test('late in a test, the wait ends before the test does, with a reserve for its checks, and says the test bounds it', () => {
  // 120 s of test, 80 s gone: 40 s left, less a reserve of 15 % (18 s): 22 s, under the async timeout.
  const late = waitBound(ASYNC_MS, { timeoutMs: 120_000, startedAt: 0 }, 80_000);
  assert.equal(late.byTest, true);
  assert.equal(late.ms, 22_000);
  // A short test keeps at least 5 s.
  assert.deepEqual(waitBound(ASYNC_MS, { timeoutMs: 20_000, startedAt: 0 }, 5_000), { ms: 10_000, byTest: true });
  // Past the reserve: no wait at all, never a negative one.
  assert.deepEqual(waitBound(ASYNC_MS, { timeoutMs: 120_000, startedAt: 0 }, 119_000), { ms: 0, byTest: true });
});

test('a wait cut by the test\'s time is a SetupFailed of its own kind, so the prerequisite helpers block the test with it and record nothing for the run', () => {
  const cut = new TestTimeRanOut('company x reaching Status Registered: not reached before the test\'s own time ran out');
  assert.ok(cut instanceof SetupFailed, 'the callers that catch SetupFailed still catch it');
  assert.equal(cut.name, 'TestTimeRanOut');
});
