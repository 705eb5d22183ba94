// How many Playwright workers a run gets when --workers is not given (issue 27): from what the
// preflight measured of the target, not from its address. A worker spends each call partly on this
// machine's cores (building the request, checks, the sandbox when it is embedded) and partly
// waiting (the round trip, background work); while it waits another worker can use the cores. So
// the cores are kept busy by cores x (cpu + wait) / cpu workers, bounded by memory and by a
// requests-per-second cap when one is set. Pure: the caller measures and passes the figures in.

/** CPU time of one call on this machine, all processes of a run together (bench/slow-staging.ts: CPU seconds / calls). */
export const CPU_MS_PER_CALL = 20;
/** A Playwright worker's resident memory: about 210 MB at the end of a full run (bench/slow-staging.ts prints it). */
export const WORKER_MEMORY_MB = 210;
/** Past this, more workers add start-up cost and load on the target without finishing sooner. */
export const MAX_DEFAULT_WORKERS = 16;
export const MIN_DEFAULT_WORKERS = 2;
/**
 * A worker pays about 0.8 s of CPU to start before its first test, and a test against a slow target
 * takes a second or more (some wait seconds for background work): a narrow selection gets a worker
 * for every two tests (measured behind 80 ms: 19 token tests took 20 s with 16 workers, 9 s with 4).
 */
export const TESTS_PER_WORKER = 2;
/**
 * A round trip this short is this machine's own work (the embedded sandbox, a busy core), not
 * waiting: only the latency beyond it calls for more workers.
 */
export const LOCAL_LATENCY_MS = 15;
/** A registration this quick (the embedded sandbox takes about 30 ms) keeps no worker waiting. */
export const LOCAL_BACKGROUND_MS = 200;

export interface ConcurrencyInput {
  /** Round trip of a cheap call, as measured at the start (the quickest of a few probes). */
  latencyMs: number;
  /** How long one background step took, when it was measured; each poll waits roughly this long. */
  backgroundDelayMs?: number;
  /** The step was still running when the measure ended: it takes at least backgroundDelayMs. */
  backgroundAtLeast?: boolean;
  cores: number;
  /** Memory free for workers (the caller leaves a margin). */
  freeMemoryMb: number;
  /** A cap on requests per second (--max-rps): no more workers than can stay under it. */
  maxRps?: number;
  /** How many tests the run selected, when counted: a narrow selection needs fewer workers. */
  selectedTests?: number;
  cpuMsPerCall?: number;
  workerMemoryMb?: number;
}

export interface ConcurrencyChoice {
  workers: number;
  /** One sentence for the console and the report: the figures and the bound that decided. */
  reason: string;
}

export function chooseWorkers(input: ConcurrencyInput): ConcurrencyChoice {
  const cpu = input.cpuMsPerCall ?? CPU_MS_PER_CALL;
  const perWorker = input.workerMemoryMb ?? WORKER_MEMORY_MB;
  const latency = Math.max(0, input.latencyMs - LOCAL_LATENCY_MS);
  // Background work is waited for in polls between calls: a slow one idles a worker longer, but
  // early starts and paced polls (suites/support) keep most of that off the worker, so it counts a
  // tenth. A registration as quick as the embedded sandbox's is this machine's own work, as a short round trip is.
  const background = input.backgroundDelayMs === undefined ? 0 : Math.max(0, input.backgroundDelayMs - LOCAL_BACKGROUND_MS) / 10;
  const wait = latency + background;
  const cores = Math.max(1, input.cores);
  const byCpu = Math.ceil((cores * (cpu + wait)) / cpu);
  const byMemory = Math.max(1, Math.floor(input.freeMemoryMb / perWorker));
  // One worker makes at most 1000 / (cpu + latency) calls a second.
  const byRate = input.maxRps === undefined ? Infinity : Math.max(1, Math.floor((input.maxRps * (cpu + latency)) / 1000));
  const bounds: Array<[number, string]> = [
    [Math.max(MIN_DEFAULT_WORKERS, byCpu), `${cores} cores kept busy while each call waits ${Math.round(wait)} ms beyond this machine's own work (about ${cpu} ms of CPU a call)`],
    [MAX_DEFAULT_WORKERS, `at most ${MAX_DEFAULT_WORKERS} by default`],
    [byMemory, `memory: ${Math.round(input.freeMemoryMb)} MB free at ${perWorker} MB a worker`],
    [byRate, `--max-rps ${input.maxRps}`],
    [input.selectedTests === undefined ? Infinity : Math.max(MIN_DEFAULT_WORKERS, Math.ceil(input.selectedTests / TESTS_PER_WORKER)), `${input.selectedTests} tests selected, a worker for every ${TESTS_PER_WORKER} (each costs about 0.8 s of CPU to start)`],
  ];
  let [workers, decided] = bounds[0];
  for (const [bound, why] of bounds.slice(1)) {
    if (bound < workers) [workers, decided] = [bound, why];
  }
  const measured = `target latency ${Math.max(0, input.latencyMs).toFixed(0)} ms${input.backgroundDelayMs === undefined ? '' : `, background step ${input.backgroundAtLeast === true ? 'over ' : ''}${Math.round(input.backgroundDelayMs)} ms`}`;
  return { workers, reason: `${measured}: ${decided}` };
}

/** Runs work for each item, at most `limit` at a time, in the items' order of starting; resolves when all have ended. */
export async function forEachAtOnce<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/** A gate for work started from many places: at most `limit` run at once, the others start in the order they asked. */
export type AtOnce = <T>(work: () => Promise<T>) => Promise<T>;

export function atMostAtOnce(limit: number): AtOnce {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= Math.max(1, limit)) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      // The place passes straight to the next in line, so `running` never undercounts.
      const next = waiting.shift();
      if (next !== undefined) next();
      else running--;
    }
  };
}
