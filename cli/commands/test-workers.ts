// How many Playwright workers a dxs test run gets (issue 27): --workers when given, otherwise from
// what the start measured of the target, not from its address (a local gateway can be slow and a
// remote one fast). The latency probes and one timed registration run side by side; a narrow
// selection is counted only when the target calls for more workers than a CPU-bound one gets.
import { availableParallelism, freemem } from 'node:os';
import { createFixtures } from '../../fixtures/generators.ts';
import { measureBackgroundDelay, type BackgroundProbe, type BackgroundProbeInput } from '../../lib/background-delay.ts';
import { chooseWorkers, MIN_DEFAULT_WORKERS, type ConcurrencyChoice } from '../../lib/concurrency.ts';
import { measureLatency, type Target } from '../../lib/target.ts';
import { appendJournal } from '../../suites/support/journal.ts';
import type { RunContext } from '../../suites/support/run-context.ts';

/** The longest the background probe may delay the start: a longer registration is known to be at least this long. */
const BACKGROUND_PROBE_MS = 3000;

export interface WorkerChoiceInput {
  /** --workers, which decides alone. */
  workers?: number;
  /** Every area some profile runs: a run with fewer is narrow. */
  everyArea: readonly string[];
  /** The tests the run selects, as Playwright lists them; undefined when the listing failed. */
  countSelectedTests: () => Promise<number | undefined>;
  /** The run's pace, which the probe's calls take their slots from. */
  pace?: BackgroundProbeInput['pace'];
}

function choose(latencyMs: number, maxRps: number | undefined, background?: Pick<BackgroundProbe, 'delayMs' | 'atLeast'>, selectedTests?: number): ConcurrencyChoice {
  // Half of what is free: the target (the embedded sandbox), the runner and the rest of the machine need theirs.
  return chooseWorkers({ latencyMs, backgroundDelayMs: background?.delayMs, backgroundAtLeast: background?.atLeast, cores: availableParallelism(), freeMemoryMb: freemem() / 2 ** 20 / 2, maxRps, selectedTests });
}

function fromMeasures(latencyMs: number | undefined, maxRps: number | undefined, background: BackgroundProbe | undefined, selectedTests?: number): ConcurrencyChoice {
  if (latencyMs === undefined) return { workers: MIN_DEFAULT_WORKERS, reason: `the target's latency could not be measured: ${MIN_DEFAULT_WORKERS}, as for a CPU-bound target` };
  const chosen = choose(latencyMs, maxRps, background, selectedTests);
  return background === undefined || background.delayMs !== undefined ? chosen : { ...chosen, reason: `${chosen.reason}; background work ${background.note}` };
}

/** Whether the run selects less than a whole profile: fewer areas than there are, a --grep or a shard. */
function narrowed(context: RunContext, everyArea: readonly string[]): boolean {
  return (context.grep !== undefined && context.grep !== '') || context.shard !== undefined || context.areas.length < new Set(everyArea).size;
}

/**
 * One registration, timed (lib/background-delay.ts). Its company has the run's prefix and is
 * journaled, so the cleanup deletes it with the run's others. Not for a run narrowed by --grep (a
 * handful of tests gets few workers anyway).
 */
async function probeBackground(context: RunContext, target: Target, latency: Promise<number | undefined>, pace: BackgroundProbeInput['pace']): Promise<BackgroundProbe | undefined> {
  if (context.grep !== undefined && context.grep !== '') return undefined;
  if (target.apiKey === undefined || target.apiKey === '') return undefined;
  const company = createFixtures({ seed: context.seed * 1000 + 999, runPrefix: `${context.runPrefix}-probe` }).company('SE');
  let latencyMs: number | undefined;
  void latency.then((value) => {
    latencyMs = value;
  });
  return measureBackgroundDelay({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    connection: target.connection,
    company: { ...company },
    onRegistered: () => appendJournal(context.reportDir, { at: new Date().toISOString(), runPrefix: context.runPrefix, kind: 'company', key: 'apiKey', ErpId: company.ErpId, OrgNo: company.OrgNo, CountryCode: company.CountryCode, Name: company.Name }),
    deadlineMs: Math.min(BACKGROUND_PROBE_MS, context.asyncTimeoutSeconds * 1000),
    minPauseMs: context.maxRps === undefined ? undefined : 1000 / context.maxRps,
    pace,
    // Once a longer registration could not add a worker, waiting for its end only delays the run.
    decided: (atLeastMs) => latencyMs !== undefined && choose(latencyMs, context.maxRps, { delayMs: atLeastMs }).workers === choose(latencyMs, context.maxRps, { delayMs: BACKGROUND_PROBE_MS }).workers,
  });
}

/** Measures the target (its latency on target.latencyMs) and chooses; the reason is one sentence for the console and the report. */
export async function chooseRunWorkers(context: RunContext, target: Target, input: WorkerChoiceInput): Promise<ConcurrencyChoice> {
  const latency = measureLatency(target.baseUrl, target.connection).catch(() => undefined);
  const [latencyMs, background] = await Promise.all([latency, input.workers === undefined ? probeBackground(context, target, latency, input.pace) : undefined]);
  target.latencyMs = latencyMs;
  if (input.workers !== undefined) return { workers: input.workers, reason: 'set by --workers' };
  const chosen = fromMeasures(latencyMs, context.maxRps, background);
  // Only when the target calls for more workers than a CPU-bound one gets: a narrow selection
  // would pay each one's start for a few tests. Counting costs a runner's start, so not otherwise.
  if (chosen.workers <= MIN_DEFAULT_WORKERS || !narrowed(context, input.everyArea)) return chosen;
  const selectedTests = await input.countSelectedTests();
  return selectedTests === undefined ? chosen : fromMeasures(latencyMs, context.maxRps, background, selectedTests);
}
