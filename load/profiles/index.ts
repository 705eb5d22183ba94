// Workload profiles: each turns the overrides (--vus, --rate, --duration, --iterations) into one
// k6 scenario running the script's flow. Kept apart from the flows, so every script runs under
// every profile. Arrival-rate profiles (average, spike, soak, breakpoint) keep the request rate
// independent of the target's speed (an open model); the VU profiles (smoke, stress) set the
// concurrency instead (a closed model).
//
// Pure module, shared by k6 (building the options) and the CLI (validating --profile).

export interface ProfileOverrides {
  vus?: number;
  rate?: number;
  duration?: string;
  iterations?: number;
}

export type Scenario = Record<string, unknown> & { executor: string };

interface Profile {
  description: string;
  build(overrides: ProfileOverrides): Scenario;
}

/** "90s", "2m", "1h30m", "500ms" -> seconds. */
export function durationSeconds(duration: string): number {
  const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  let total = 0;
  let consumed = '';
  for (const match of duration.matchAll(pattern)) {
    total += Number(match[1]) * units[match[2]];
    consumed += match[0];
  }
  if (consumed !== duration || total <= 0) throw new Error(`not a duration: ${duration} (use forms like 30s, 5m, 1h30m)`);
  return total;
}

/** A fraction of a duration, in whole seconds (at least 1), written the way k6 reads it. */
function part(duration: string, fraction: number): string {
  return `${Math.max(1, Math.round(durationSeconds(duration) * fraction))}s`;
}

function arrivalVus(overrides: ProfileOverrides, rate: number): { preAllocatedVUs: number; maxVUs: number } {
  // Enough VUs for ~200 ms per iteration at the peak rate, unless --vus caps them.
  const maxVUs = overrides.vus ?? Math.max(10, Math.ceil(rate * 0.5));
  return { preAllocatedVUs: Math.max(1, Math.min(maxVUs, Math.ceil(rate / 5))), maxVUs };
}

/** An open-model scenario: the rate follows the stages (fractions of the duration), whatever the target's speed. */
function rampingArrival(o: ProfileOverrides, peak: number, startRate: number, duration: string, stages: Array<[number, number]>): Scenario {
  return {
    executor: 'ramping-arrival-rate',
    startRate,
    timeUnit: '1s',
    ...arrivalVus(o, peak),
    stages: stages.map(([target, fraction]) => ({ target, duration: part(duration, fraction) })),
  };
}

export const PROFILES: Record<string, Profile> = {
  smoke: {
    description: 'few VUs for a short while: does the flow work at all (default 1 VU, 10s)',
    build: (o) => ({ executor: 'constant-vus', vus: o.vus ?? 1, duration: o.duration ?? '10s' }),
  },
  average: {
    description: 'ramp to the usual rate, hold it, ramp down (default 10 it/s, 2m)',
    build: (o) => {
      const rate = o.rate ?? 10;
      return rampingArrival(o, rate, 0, o.duration ?? '2m', [[rate, 0.2], [rate, 0.7], [0, 0.1]]);
    },
  },
  stress: {
    description: 'ramp the VUs to well above the usual concurrency and hold (default 20 VUs, 5m)',
    build: (o) => {
      const vus = o.vus ?? 20;
      const duration = o.duration ?? '5m';
      return {
        executor: 'ramping-vus',
        startVUs: 0,
        stages: [[Math.ceil(vus / 2), 0.2], [vus, 0.2], [vus, 0.5], [0, 0.1]].map(([target, fraction]) => ({ target, duration: part(duration, fraction) })),
        gracefulRampDown: '5s',
      };
    },
  },
  spike: {
    description: 'a sudden burst to 10x the base rate and back (default base 5 it/s, 1m)',
    build: (o) => {
      const base = o.rate ?? 5;
      return rampingArrival(o, base * 10, base, o.duration ?? '1m', [[base, 0.3], [base * 10, 0.05], [base * 10, 0.2], [base, 0.05], [base, 0.4]]);
    },
  },
  soak: {
    description: 'a steady moderate rate for a long time, to show leaks and drift (default 5 it/s, 30m)',
    build: (o) => {
      const rate = o.rate ?? 5;
      return { executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: o.duration ?? '30m', ...arrivalVus(o, rate) };
    },
  },
  breakpoint: {
    description: 'a rate rising linearly until the target breaks; abortOnFail stops it on an error-rate spike (default up to 500 it/s over 10m)',
    build: (o) => {
      const rate = o.rate ?? 500;
      return rampingArrival(o, rate, 1, o.duration ?? '10m', [[rate, 1]]);
    },
  },
};

export const PROFILE_NAMES = Object.keys(PROFILES);

/**
 * The scenario of a profile. --iterations turns any profile into a fixed count of iterations
 * shared by the VUs (bounded by the duration), so a run, or a set of segmented runs, is countable.
 */
export function buildScenario(profile: string, overrides: ProfileOverrides, exec = 'default'): Scenario {
  const chosen = PROFILES[profile];
  if (chosen === undefined) throw new Error(`unknown profile ${profile}; choose one of ${PROFILE_NAMES.join(', ')}`);
  if (overrides.iterations !== undefined) {
    return {
      executor: 'shared-iterations',
      vus: overrides.vus ?? 1,
      iterations: overrides.iterations,
      maxDuration: overrides.duration ?? '10m',
      exec,
    };
  }
  return { ...chosen.build(overrides), exec };
}
