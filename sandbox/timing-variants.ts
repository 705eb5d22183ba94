// Variants that change how fast the sandbox answers, not what it answers (issue 27): a staging
// behind a network (`latency-<N>ms`: every answer N ms later) and background work that takes
// seconds (`async-<N>s` or `async-<N>ms`: each background step), and background work that takes
// several steps per state (`steps-<N>`, issue 36: each status of a document, a registration, an
// activation or a deletion N steps after the one before, a registration showing Processing on its
// way), as a staging whose workers poll a queue does. All are legitimate: the spec promises no
// speed, and "Transitions and further values: not shown". The names are patterns, so faults.ts
// lists the usual ones and accepts these.

/** Each background step of the sandbox, unless a variant or --async-delay says otherwise. */
export const DEFAULT_ASYNC_DELAY_MS = 20;

const LATENCY = /^latency-(\d{1,5})ms$/;
const ASYNC = /^async-(\d{1,4})(s|ms)$/;
const STEPS = /^steps-(\d{1,2})$/;
const SLOW_TOKENS = /^tokens-slow-(\d{1,5})ms$/;
/** Bounds that keep a mistyped name from making a sandbox that never answers. */
const MAX_LATENCY_MS = 60_000;
const MAX_STEP_MS = 600_000;

export function isTimingVariant(name: string): boolean {
  return latencyOf(name) !== undefined || stepDelayOf(name) !== undefined || stepsOf(name) !== undefined || slowTokensOf(name) !== undefined;
}

function slowTokensOf(name: string): number | undefined {
  const match = SLOW_TOKENS.exec(name);
  if (match === null) return undefined;
  const ms = Number(match[1]);
  return ms <= MAX_LATENCY_MS ? ms : undefined;
}

/** How much later each client token creation answers (the largest named), 0 without a tokens-slow variant. */
export function tokenCreationDelayMs(variants: Iterable<string>): number {
  let delay = 0;
  for (const name of variants) delay = Math.max(delay, slowTokensOf(name) ?? 0);
  return delay;
}

function latencyOf(name: string): number | undefined {
  const match = LATENCY.exec(name);
  if (match === null) return undefined;
  const ms = Number(match[1]);
  return ms <= MAX_LATENCY_MS ? ms : undefined;
}

function stepDelayOf(name: string): number | undefined {
  const match = ASYNC.exec(name);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (match[2] === 's' ? 1000 : 1);
  return ms <= MAX_STEP_MS ? ms : undefined;
}

function stepsOf(name: string): number | undefined {
  const match = STEPS.exec(name);
  return match === null || Number(match[1]) < 1 ? undefined : Number(match[1]);
}

/** How many background steps each state takes (the largest named), 1 without a steps variant. */
export function variantStepsPerState(variants: Iterable<string>): number {
  let steps = 1;
  for (const name of variants) steps = Math.max(steps, stepsOf(name) ?? 1);
  return steps;
}

/** The latency every answer gets (the largest named), 0 without a latency variant. */
export function addedLatencyMs(variants: Iterable<string>): number {
  let latency = 0;
  for (const name of variants) latency = Math.max(latency, latencyOf(name) ?? 0);
  return latency;
}

/** The background step the variants ask for (the largest named), undefined without an async variant. */
export function variantStepDelayMs(variants: Iterable<string>): number | undefined {
  let step: number | undefined;
  for (const name of variants) {
    const ms = stepDelayOf(name);
    if (ms !== undefined) step = Math.max(step ?? 0, ms);
  }
  return step;
}
