// dxs test and the deployment's transport (issue 57): the run's transient answers summed up once
// the cleanup is done (its deletes may meet them too), and the exit code of flaky tests.
import { rmSync } from 'node:fs';
import { secrets } from '../../lib/redact.ts';
import type { Results } from '../../report/results.ts';
import { flakyTests } from '../../report/attempts.ts';
import { takeTransportSummary, transportRetriesFile } from '../../report/transport.ts';

/** Sets results.transport from every transient answer of the run (tests, setup, cleanup) and removes the run's files. */
export function finishTransport(context: { reportDir: string; runPrefix: string }, results: Results): void {
  results.transport = takeTransportSummary(context, flakyTests(results.tests));
  rmSync(transportRetriesFile(context), { force: true });
}

/** A run whose only blemish is a flaky test exits 0, unless --fail-on-flaky (as Playwright's --fail-on-flaky-tests). */
export function transportExitCode(exit: 0 | 1 | 2, results: Pick<Results, 'summary'>, failOnFlaky: boolean): 0 | 1 | 2 {
  return exit === 0 && failOnFlaky && (results.summary.flaky ?? 0) > 0 ? 1 : exit;
}

/**
 * Keeps an unhandled rejection of the run's own work (a lost call nobody awaited) from ending the
 * process without a report: each is said at once, and close() adds them to the run's message (a
 * run that otherwise passed is an error: dxs's own work did not complete).
 */
export function watchStrayRejections(say: (line: string) => void): { close(results: Results): void } {
  const seen: string[] = [];
  const listener = (reason: unknown): void => {
    const text = secrets.redactText(String((reason as Error | undefined)?.message ?? reason)).split('\n')[0];
    seen.push(text);
    say(`dxs's own work failed outside any test: ${text}`);
  };
  process.on('unhandledRejection', listener);
  return {
    close(results) {
      process.off('unhandledRejection', listener);
      if (seen.length === 0) return;
      const line = `dxs's own work failed outside any test: ${seen.join('; ')}`;
      results.run.message = results.run.message === undefined ? line : `${results.run.message}; ${line}`;
      if (results.run.status === 'passed') results.run.status = 'error';
    },
  };
}
