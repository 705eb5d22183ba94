// The default concurrency (lib/concurrency.ts), the sandbox's timing variants and the pace of polls:
// pure functions, checked on their figures (no clock involved).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atMostAtOnce, chooseWorkers, MAX_DEFAULT_WORKERS, MIN_DEFAULT_WORKERS, TESTS_PER_WORKER } from '../../lib/concurrency.ts';
import { checkNames } from '../../sandbox/faults.ts';
import { addedLatencyMs, variantStepDelayMs } from '../../sandbox/timing-variants.ts';
import { backgroundKind, nextPollWait, recordBackgroundWait } from '../../suites/support/timing.ts';

const machine = { cores: 2, freeMemoryMb: 8000 };

test('the default workers follow the measured latency, within cores, memory and --max-rps', () => {
  const local = chooseWorkers({ ...machine, latencyMs: 1 });
  assert.equal(local.workers, MIN_DEFAULT_WORKERS, 'a target that answers at once is CPU-bound: as many workers as before');
  const slow = chooseWorkers({ ...machine, latencyMs: 80 });
  assert.ok(slow.workers > local.workers, 'a target 80 ms away gets more workers');
  assert.match(slow.reason, /target latency 80 ms/);
  const slower = chooseWorkers({ ...machine, latencyMs: 400 });
  assert.ok(slower.workers >= slow.workers);
  assert.ok(slower.workers <= MAX_DEFAULT_WORKERS);
  const tight = chooseWorkers({ ...machine, latencyMs: 400, freeMemoryMb: 450 });
  assert.ok(tight.workers < slower.workers, 'memory bounds the workers');
  assert.match(tight.reason, /memory/);
  const capped = chooseWorkers({ ...machine, latencyMs: 80, maxRps: 10 });
  assert.ok(capped.workers < slow.workers, '--max-rps bounds the workers');
  assert.match(capped.reason, /--max-rps 10/);
  assert.ok(chooseWorkers({ ...machine, latencyMs: 80, backgroundDelayMs: 1000 }).workers >= slow.workers, 'slow background work never lowers the choice');
  assert.ok(chooseWorkers({ ...machine, latencyMs: 1, backgroundDelayMs: 1300 }).workers > local.workers, 'a target that answers at once but registers slowly gets more workers');
  assert.equal(chooseWorkers({ ...machine, latencyMs: 1, backgroundDelayMs: 30 }).workers, MIN_DEFAULT_WORKERS, 'a registration as quick as the embedded sandbox\'s keeps the choice');
  assert.match(chooseWorkers({ ...machine, latencyMs: 80, backgroundDelayMs: 1300 }).reason, /background step 1300 ms/);
  assert.match(chooseWorkers({ ...machine, latencyMs: 80, backgroundDelayMs: 1300, backgroundAtLeast: true }).reason, /background step over 1300 ms/);
  const narrow = chooseWorkers({ ...machine, latencyMs: 80, backgroundDelayMs: 1300, selectedTests: 19 });
  assert.equal(narrow.workers, Math.ceil(19 / TESTS_PER_WORKER), 'a narrow selection does not pay for a worker per test');
  assert.match(narrow.reason, /19 tests selected/);
  assert.equal(chooseWorkers({ ...machine, latencyMs: 80, selectedTests: 1 }).workers, MIN_DEFAULT_WORKERS);
  assert.equal(chooseWorkers({ ...machine, latencyMs: 80, backgroundDelayMs: 1300, selectedTests: 266 }).workers, MAX_DEFAULT_WORKERS, 'a whole profile is not capped by its size');
});

test('latency-<N>ms and async-<N>s / async-<N>ms are variant names the sandbox accepts', () => {
  assert.doesNotThrow(() => checkNames('variant', ['latency-80ms', 'async-1s', 'latency-5ms', 'async-250ms']));
  assert.throws(() => checkNames('variant', ['latency-80']), /unknown variant/);
  assert.throws(() => checkNames('fault', ['latency-80ms']), /unknown fault/);
  assert.equal(addedLatencyMs(['gzip', 'latency-80ms']), 80);
  assert.equal(addedLatencyMs(['gzip']), 0);
  assert.equal(variantStepDelayMs(['async-1s']), 1000);
  assert.equal(variantStepDelayMs(['async-250ms']), 250);
  assert.equal(variantStepDelayMs(['slow']), undefined);
});

test('polls back off within bounds, and once a completion was seen they sleep through most of it', () => {
  assert.equal(backgroundKind('company dxs-1 reaching Status Registered'), 'registration');
  assert.equal(backgroundKind('document 6f1c reaching the expected status'), 'document status');
  assert.equal(backgroundKind('the City just set in the company details'), 'other');
  const unpaced = Array.from({ length: 12 }, (_, waits) => nextPollWait('inbox delivery', 0, waits));
  assert.equal(unpaced[0], 50);
  assert.ok(unpaced.every((wait, index) => index === 0 || wait >= unpaced[index - 1]), 'the wait only grows');
  assert.ok(Math.max(...unpaced) <= 1000, 'the wait is bounded');
  recordBackgroundWait('provider A', 4000, true);
  const first = nextPollWait('provider A', 0, 0, 80);
  assert.ok(first > 3000 && first < 4000, `the first wait sleeps through most of the quickest completion (${first} ms)`);
  const later = Array.from({ length: 12 }, (_, waits) => nextPollWait('provider A', 4000, waits, 80));
  assert.ok(later.every((wait) => wait >= 50 && wait <= 1000), 'past it, the waits stay between 50 ms and 1 s');
  assert.equal(nextPollWait('other', 0, 0), 50, 'other waits are never paced by another kind');
});

test('a gate for work from many places: never more than its limit at once, each in the order it asked, a failure frees its place', async () => {
  const atOnce = atMostAtOnce(3);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const work = (index: number) =>
    atOnce(async () => {
      started.push(index);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5 + (index % 4)));
      running--;
      if (index % 5 === 0) throw new Error(`work ${index}`);
      return index;
    });
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => work(index)));
  assert.equal(most, 3);
  assert.deepEqual(started, Array.from({ length: 20 }, (_, index) => index));
  assert.equal(outcomes.filter((outcome) => outcome.status === 'rejected').length, 4);
  assert.equal(await atOnce(async () => 'after'), 'after', 'every place was given back');
});
