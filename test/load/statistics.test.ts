// The statistics of dxs load --baseline on known data: identical samples are the same, a 50 %
// shift is slower, five samples are too few to tell; Mann-Whitney U against hand-computed values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../fixtures/random.ts';
import { DEFAULT_COMPARE_SETTINGS, compareDistributions, mannWhitneyU, normalCdf } from '../../cli/commands/load/statistics.ts';

/** Latencies shaped like an endpoint's: a floor plus a long right tail (log-normal), ascending. */
function latencies(count: number, seed: number, scale = 1): number[] {
  const random = mulberry32(seed);
  const values: number[] = [];
  for (let index = 0; index < count; index++) {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    values.push(scale * (20 + 10 * Math.exp(0.5 * normal)));
  }
  return values.sort((a, b) => a - b);
}

test('Mann-Whitney U: the textbook case without ties, and U as the count of pairs with ties', () => {
  const separated = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
  assert.equal(separated.u, 0);
  // z = (0 - 12.5 + 0.5) / sqrt(25 * 11 / 12), p two-sided = 0.01219 (as scipy's asymptotic method with continuity).
  assert.ok(Math.abs(separated.z - -2.5067) < 1e-3, String(separated.z));
  assert.ok(Math.abs(separated.p - 0.01219) < 1e-4, String(separated.p));
  const first = [1, 2, 2, 3, 5, 5];
  const second = [2, 3, 4, 4, 5, 6, 7];
  let pairs = 0;
  for (const a of first) for (const b of second) pairs += a > b ? 1 : a === b ? 0.5 : 0;
  assert.equal(mannWhitneyU(first, second).u, pairs);
  assert.equal(mannWhitneyU(first, first).p, 1);
  assert.ok(Math.abs(normalCdf(1.96) - 0.975) < 1e-4);
});

test('identical samples are the same, and so are two draws of one distribution', () => {
  const sample = latencies(400, 1);
  const same = compareDistributions(sample, [...sample]);
  assert.equal(same.verdict, 'same', same.reason);
  assert.ok(same.percentiles.every((change) => change.relative === 0 && change.relativeInterval[0] <= 0 && change.relativeInterval[1] >= 0));
  const noise = compareDistributions(latencies(400, 2), latencies(400, 3));
  assert.equal(noise.verdict, 'same', noise.reason);
});

test('a 50 % shift is slower (with intervals around it), the other way faster; a 5 % shift stays under the 10 % threshold', () => {
  const baseline = latencies(400, 4);
  const slower = compareDistributions(baseline, latencies(400, 5, 1.5));
  assert.equal(slower.verdict, 'slower', slower.reason);
  const p50 = slower.percentiles.find((change) => change.name === 'p50')!;
  assert.ok(p50.relative > 0.4 && p50.relative < 0.6, String(p50.relative));
  assert.ok(p50.relativeInterval[0] > 0.1 && p50.relativeInterval[0] <= p50.relative && p50.relative <= p50.relativeInterval[1], JSON.stringify(p50));
  assert.ok(slower.mannWhitney !== undefined && slower.mannWhitney.p < 0.0001);
  assert.equal(compareDistributions(latencies(400, 5, 1.5), baseline).verdict, 'faster');
  assert.equal(compareDistributions(baseline, latencies(400, 6, 1.05)).verdict, 'same');
});

test('5 samples are too few to tell, and the counts are given', () => {
  const few = compareDistributions(latencies(5, 7), latencies(400, 8, 3));
  assert.equal(few.verdict, 'too few samples');
  assert.deepEqual([few.baselineCount, few.currentCount], [5, 400]);
  assert.match(few.reason, /5 in the baseline, 400 now \(at least 20/);
  assert.deepEqual(few.percentiles, []);
});

test('the bootstrap is seeded and bounded: the same input gives the same intervals, and a large sample is resampled on a subsample', () => {
  const baseline = latencies(50_000, 9);
  const current = latencies(50_000, 10, 1.2);
  const settings = { ...DEFAULT_COMPARE_SETTINGS, resamples: 200 };
  const first = compareDistributions(baseline, current, settings);
  const second = compareDistributions(baseline, current, settings);
  assert.deepEqual(first, second);
  assert.equal(first.verdict, 'slower', first.reason);
});
