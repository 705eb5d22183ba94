// Progress off a terminal (issue 60): k6's own output goes to k6.log when stdout is no TTY, so a CI
// log would show nothing until a script ends, and many CI systems kill a job that prints nothing for
// ten minutes. While k6 runs, dxs asks k6's REST API (bound to 127.0.0.1 for this run) for the
// figures so far and prints one line every PROGRESS_INTERVAL_MS: elapsed, iterations, requests,
// failed checks. k6's REST API gives the checks metric as a ratio only; the failed ones are the
// scripts' own counter (load/lib/observe.ts).
import { createServer } from 'node:net';

/** Under k6's own non-interactive interval (1 s) would flood a long run's log; over 10 s a CI log looks stalled. */
export const PROGRESS_INTERVAL_MS = 5000;
/** How long one read of k6's REST API may take before the line is printed with what was known. */
const READ_TIMEOUT_MS = 2000;
/** load/lib/observe.ts's FAILED_CHECKS_METRIC. */
const FAILED_CHECKS_METRIC = 'dxs_checks_failed';

export interface ProgressFigures {
  iterations: number;
  requests: number;
  failedChecks: number;
}

/** "send-and-poll: running 10.0 s: 57 iterations, 342 requests, 0 failed checks". */
export function progressLine(script: string, elapsedMs: number, figures: ProgressFigures | undefined): string {
  const head = `${script}: running ${(elapsedMs / 1000).toFixed(1)} s`;
  if (figures === undefined) return `${head}: k6 is starting (init and setup)`;
  const plural = (count: number, one: string): string => `${count} ${one}${count === 1 ? '' : 's'}`;
  return `${head}: ${plural(figures.iterations, 'iteration')}, ${plural(figures.requests, 'request')}, ${plural(figures.failedChecks, 'failed check')}`;
}

/** The figures of k6's GET /v1/metrics answer (JSON:API), or undefined when it holds none of them. */
export function figuresOf(answer: unknown): ProgressFigures | undefined {
  const data = (answer as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  const count = (id: string): number | undefined => {
    const metric = data.find((item) => (item as { id?: unknown }).id === id) as { attributes?: { sample?: { count?: unknown } } } | undefined;
    const value = metric?.attributes?.sample?.count;
    return typeof value === 'number' ? value : undefined;
  };
  const iterations = count('iterations');
  const requests = count('http_reqs');
  // Before the first iteration ends and the first request is made, k6 lists neither metric.
  if (iterations === undefined && requests === undefined) return undefined;
  return { iterations: iterations ?? 0, requests: requests ?? 0, failedChecks: count(FAILED_CHECKS_METRIC) ?? 0 };
}

/**
 * A port on 127.0.0.1 for k6's REST API, free when asked: drawn below Linux's ephemeral range
 * (32768 and up), where the run's own connections and the servers of tests (port 0) take theirs.
 */
export async function freeApiPort(random: () => number = Math.random): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 20000 + Math.floor(random() * 12000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port on 127.0.0.1 for k6 REST API');
}

async function readFigures(address: string): Promise<ProgressFigures | undefined> {
  try {
    const response = await fetch(`http://${address}/v1/metrics`, { signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    return response.ok ? figuresOf(await response.json()) : undefined;
  } catch {
    // k6 not listening yet (init), or busy: the line says what was known.
    return undefined;
  }
}

/**
 * Prints a progress line for `script` every `intervalMs` until stopped, the elapsed time counted from
 * the call (k6's start). The figures are the latest k6 gave; a read that fails keeps the ones before.
 */
export function watchProgress(script: string, address: string, print: (line: string) => void, intervalMs: number = PROGRESS_INTERVAL_MS): { stop(): void } {
  const started = Date.now();
  let known: ProgressFigures | undefined;
  let stopped = false;
  let reading = false;
  const timer = setInterval(() => {
    // A read still under way (k6 busy) does not hold the next line back.
    if (reading) {
      print(progressLine(script, Date.now() - started, known));
      return;
    }
    reading = true;
    void readFigures(address).then((figures) => {
      reading = false;
      if (stopped) return;
      known = figures ?? known;
      print(progressLine(script, Date.now() - started, known));
    });
  }, intervalMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
