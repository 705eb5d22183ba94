// The statistics of `dxs load --baseline` (issue 23): is an endpoint's latency distribution in
// this run different from the baseline's, and by how much? Pure functions of the samples.
//
// - The change in p50, p95 and p99, relative and in milliseconds, with a bootstrap confidence
//   interval: both samples are resampled with replacement (seeded, a bounded number of times) and
//   the percentile taken of each resample; the interval is the 2.5th and 97.5th percentile of the
//   resampled changes. A resample's order statistics come from counting the drawn ranks of the
//   sorted sample, so one resample costs O(n) and no sort.
// - Mann-Whitney U on the whole distributions, normal approximation with the tie correction and a
//   continuity correction (the samples here are tens to millions of points).
// - The verdict: slower only when the two distributions differ significantly AND, for one of the
//   percentiles, the whole interval lies beyond the regression threshold (relative) and beyond
//   the floor in milliseconds (on a shared machine a millisecond endpoint drifts by tens of
//   percent from run to run, which is no regression), the distributions shifted the same way;
//   faster alike; too few samples below a count. A tail percentile is judged only with enough
//   samples beyond it (p95 from 200 samples, p99 from 1000), else it is shown, not judged.
import { mulberry32, type Random } from '../../../fixtures/random.ts';
import { percentile } from './results.ts';

export const PERCENTILES = [50, 95, 99] as const;
export type PercentileName = `p${(typeof PERCENTILES)[number]}`;

export interface CompareSettings {
  /** Relative change (0.1 = 10 %) an interval must lie beyond, per percentile. */
  threshold: number;
  /** Milliseconds an interval must lie beyond as well. */
  floorMs: number;
  /** Significance level of Mann-Whitney U (two-sided). */
  alpha: number;
  /** Bootstrap resamples. */
  resamples: number;
  /** Points resampled at most per side; a larger sample is bootstrapped on a seeded subsample (a wider, so cautious, interval). */
  maxBootstrapPoints: number;
  /** Fewer samples than this on either side: too few to tell. */
  minSamples: number;
  /**
   * A percentile is judged only with this many samples above it on each side (p95: 200 samples,
   * p99: 1000): below that its interval rests on the few largest values, which a busy machine moves.
   */
  minTailPoints: number;
  seed: number;
}

export const DEFAULT_COMPARE_SETTINGS: CompareSettings = {
  threshold: 0.1,
  floorMs: 1,
  alpha: 0.01,
  resamples: 1000,
  maxBootstrapPoints: 20_000,
  minSamples: 20,
  minTailPoints: 10,
  seed: 23,
};

export interface PercentileChange {
  name: PercentileName;
  baseline: number;
  current: number;
  /** (current - baseline) / baseline; Infinity when the baseline is 0 and the current is not. */
  relative: number;
  /** The 95 % bootstrap interval of the relative change. */
  relativeInterval: [number, number];
  /** The 95 % bootstrap interval of the change in milliseconds. */
  msInterval: [number, number];
  /** Whether the verdict looked at it: enough samples beyond it on both sides (minTailPoints). */
  judged: boolean;
}

export type Verdict = 'faster' | 'same' | 'slower' | 'too few samples';

export interface DistributionComparison {
  verdict: Verdict;
  baselineCount: number;
  currentCount: number;
  /** Empty when there are too few samples. */
  percentiles: PercentileChange[];
  mannWhitney?: { u: number; z: number; p: number };
  /** Why the verdict, in a sentence. */
  reason: string;
}

/** Standard normal CDF (Abramowitz and Stegun 26.2.17, error below 7.5e-8). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const density = Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI);
  const tail = density * t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return z >= 0 ? 1 - tail : tail;
}

/**
 * Mann-Whitney U of two ascending samples: U of the first, z and the two-sided p of the normal
 * approximation with the tie correction. The ranks come from merging the sorted samples.
 */
export function mannWhitneyU(first: readonly number[], second: readonly number[]): { u: number; z: number; p: number } {
  const n1 = first.length;
  const n2 = second.length;
  const total = n1 + n2;
  let rankSumFirst = 0;
  let tieTerm = 0;
  let i = 0;
  let j = 0;
  let rank = 1;
  while (i < n1 || j < n2) {
    const value = j >= n2 || (i < n1 && first[i] <= second[j]) ? first[i] : second[j];
    let inFirst = 0;
    let inSecond = 0;
    while (i < n1 && first[i] === value) {
      inFirst++;
      i++;
    }
    while (j < n2 && second[j] === value) {
      inSecond++;
      j++;
    }
    const ties = inFirst + inSecond;
    // Tied values share the mean of the ranks they span.
    rankSumFirst += inFirst * (rank + (ties - 1) / 2);
    tieTerm += ties ** 3 - ties;
    rank += ties;
  }
  const u = rankSumFirst - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = total < 2 ? 0 : ((n1 * n2) / 12) * (total + 1 - tieTerm / (total * (total - 1)));
  if (variance <= 0) return { u, z: 0, p: 1 };
  const difference = u - mean;
  const z = (Math.sign(difference) * Math.max(0, Math.abs(difference) - 0.5)) / Math.sqrt(variance);
  return { u, z, p: z === 0 ? 1 : Math.min(1, 2 * (1 - normalCdf(Math.abs(z)))) };
}

/** A seeded subsample of at most `size` points, ascending (every point when there are fewer). */
function subsample(sorted: readonly number[], size: number, random: Random): readonly number[] {
  if (sorted.length <= size) return sorted;
  const picked: number[] = [];
  for (let index = 0; index < size; index++) picked.push(sorted[Math.floor(random() * sorted.length)]);
  return picked.sort((a, b) => a - b);
}

/**
 * The percentiles of one resample with replacement of an ascending sample: n ranks drawn, counted,
 * and the order statistics around each percentile's position read off the cumulative counts
 * (k6's interpolation between the two closest ranks, as the report uses).
 */
function resampledPercentiles(sorted: readonly number[], random: Random, counts: Uint32Array): number[] {
  const n = sorted.length;
  counts.fill(0);
  for (let draw = 0; draw < n; draw++) counts[Math.floor(random() * n)]++;
  const wanted = PERCENTILES.flatMap((p) => {
    const position = ((n - 1) * p) / 100;
    const lower = Math.floor(position);
    return [lower, Math.min(n - 1, lower + 1)];
  });
  const values = new Array<number>(wanted.length);
  let seen = 0;
  let next = 0;
  const order = wanted.map((rank, index) => ({ rank, index })).sort((a, b) => a.rank - b.rank);
  for (let index = 0; index < n && next < order.length; index++) {
    seen += counts[index];
    while (next < order.length && order[next].rank < seen) values[order[next++].index] = sorted[index];
  }
  return PERCENTILES.map((p, index) => {
    const position = ((n - 1) * p) / 100;
    const fraction = position - Math.floor(position);
    return values[2 * index] + (values[2 * index + 1] - values[2 * index]) * fraction;
  });
}

function relativeChange(baseline: number, current: number): number {
  if (baseline === 0) return current === 0 ? 0 : Infinity;
  return (current - baseline) / baseline;
}

function interval(values: number[]): [number, number] {
  values.sort((a, b) => a - b);
  return [percentile(values, 2.5), percentile(values, 97.5)];
}

/** Compares two ascending latency samples of one endpoint. */
export function compareDistributions(baseline: readonly number[], current: readonly number[], settings: CompareSettings = DEFAULT_COMPARE_SETTINGS): DistributionComparison {
  const counts = { baselineCount: baseline.length, currentCount: current.length };
  if (baseline.length < settings.minSamples || current.length < settings.minSamples) {
    return {
      verdict: 'too few samples',
      ...counts,
      percentiles: [],
      reason: `too few samples to tell: ${baseline.length} in the baseline, ${current.length} now (at least ${settings.minSamples} each are needed)`,
    };
  }
  const random = mulberry32(settings.seed);
  const baselinePoints = subsample(baseline, settings.maxBootstrapPoints, random);
  const currentPoints = subsample(current, settings.maxBootstrapPoints, random);
  const baselineCounts = new Uint32Array(baselinePoints.length);
  const currentCounts = new Uint32Array(currentPoints.length);
  const relative = PERCENTILES.map(() => [] as number[]);
  const milliseconds = PERCENTILES.map(() => [] as number[]);
  for (let round = 0; round < settings.resamples; round++) {
    const before = resampledPercentiles(baselinePoints, random, baselineCounts);
    const after = resampledPercentiles(currentPoints, random, currentCounts);
    PERCENTILES.forEach((_, index) => {
      relative[index].push(relativeChange(before[index], after[index]));
      milliseconds[index].push(after[index] - before[index]);
    });
  }
  const percentiles = PERCENTILES.map((p, index): PercentileChange => {
    const base = percentile(baseline, p);
    const now = percentile(current, p);
    const tail = (count: number): number => count * (1 - p / 100);
    const judged = Math.min(tail(baseline.length), tail(current.length)) >= settings.minTailPoints;
    return { name: `p${p}`, baseline: base, current: now, relative: relativeChange(base, now), relativeInterval: interval(relative[index]), msInterval: interval(milliseconds[index]), judged };
  });
  const mannWhitney = mannWhitneyU(baseline, current);
  const significant = mannWhitney.p < settings.alpha;
  const beyond = (change: PercentileChange, direction: 1 | -1): boolean =>
    direction === 1
      ? change.relativeInterval[0] > settings.threshold && change.msInterval[0] > settings.floorMs
      : change.relativeInterval[1] < -settings.threshold && change.msInterval[1] < -settings.floorMs;
  // U counts the pairs where the baseline is the larger: a slower run makes it small (z < 0).
  const slower = mannWhitney.z < 0 ? percentiles.filter((change) => change.judged && beyond(change, 1)) : [];
  const faster = mannWhitney.z > 0 ? percentiles.filter((change) => change.judged && beyond(change, -1)) : [];
  const limits = `${Math.round(settings.threshold * 100)} % and ${settings.floorMs} ms`;
  const test = `Mann-Whitney p = ${formatP(mannWhitney.p)}`;
  if (significant && slower.length > 0) {
    return { verdict: 'slower', ...counts, percentiles, mannWhitney, reason: `${slower.map((change) => change.name).join(', ')} slower by more than ${limits} (the whole 95 % interval), and the distributions differ (${test})` };
  }
  if (significant && faster.length > 0) {
    return { verdict: 'faster', ...counts, percentiles, mannWhitney, reason: `${faster.map((change) => change.name).join(', ')} faster by more than ${limits} (the whole 95 % interval), and the distributions differ (${test})` };
  }
  const why = !significant ? `the distributions do not differ significantly (${test}, alpha ${settings.alpha})` : `no percentile moved by more than ${limits} with confidence (${test})`;
  return { verdict: 'same', ...counts, percentiles, mannWhitney, reason: why };
}

export function formatP(p: number): string {
  return p < 0.0001 ? '< 0.0001' : p.toFixed(4);
}
