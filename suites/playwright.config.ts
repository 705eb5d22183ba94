// Playwright Test, API only (no browser). `dxs test` runs this config with the run context in
// DXS_RUN_CONTEXT; run directly (`npx playwright test -c suites/playwright.config.ts`) it falls
// back to the DXS_* variables and to a sandbox started by hand (`dxs sandbox`).
import { join, resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { runContext, RUN_CONTEXT_ENV } from './support/run-context.ts';

const context = runContext();
// Workers inherit the environment: without this, each would invent its own run prefix.
process.env[RUN_CONTEXT_ENV] ??= JSON.stringify(context);
const reportDir = resolve(context.reportDir);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Areas and --grep in one expression: Playwright matches it against the title and the tags. */
function selection(): RegExp | undefined {
  const parts: string[] = [];
  if (context.areas.length > 0) parts.push(`(?=[\\s\\S]*@area:(?:${context.areas.map(escapeRegExp).join('|')})(?![\\w-]))`);
  if (context.grep !== undefined && context.grep !== '') parts.push(`(?=[\\s\\S]*(?:${context.grep}))`);
  return parts.length > 0 ? new RegExp(`^${parts.join('')}`) : undefined;
}

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  forbidOnly: true,
  // A test that failed on the deployment's transport alone (a call lost, a 502 to a call not safe to
  // send again) runs again from its start, once, with fresh data; any other failure is not run again
  // (support/transport.ts), and the reporter keeps the first attempt's verdict.
  retries: 1,
  workers: 2,
  // Background work on a slow staging server is bounded by --async-timeout; a test gets room for a few such waits.
  timeout: Math.max(60_000, context.asyncTimeoutSeconds * 4_000),
  grep: selection(),
  grepInvert: context.destructive ? undefined : /@destructive/,
  outputDir: join(reportDir, 'test-results'),
  // Built code (the schemas' precompiled validators, 330 kB) is loaded as it is: Playwright would
  // otherwise transform it with babel in each worker that misses its cache.
  build: { external: ['**/generated/**'] },
  reporter: [
    ['list'],
    // Also queues the longest tests first (report/schedule.ts), in its preprocess().
    [new URL('../report/playwright-reporter.ts', import.meta.url).pathname],
    ['html', { outputFolder: join(reportDir, 'playwright'), open: 'never' }],
  ],
});
