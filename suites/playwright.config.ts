// Playwright Test, API only (no browser). `dxs test` runs this config with the run context in
// DXS_RUN_CONTEXT; run directly (`npx playwright test -c suites/playwright.config.ts`) it falls
// back to the DXS_* variables and to a sandbox started by hand (`dxs sandbox`).
import { join, resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { runContext, RUN_CONTEXT_ENV } from './support/run-context.ts';
import { firstTestsPattern } from '../report/schedule.ts';

const context = runContext();
// Workers inherit the environment: without this, each would invent its own run prefix.
process.env[RUN_CONTEXT_ENV] ??= JSON.stringify(context);
const reportDir = resolve(context.reportDir);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Areas and --grep in one expression: Playwright matches it against the title and the tags. With
 * --schedule-from, `first` keeps only the earlier run's longest tests (true) or only the others (false).
 */
function selection(first?: boolean): RegExp | undefined {
  const parts: string[] = [];
  if (first !== undefined && context.firstTests !== undefined) parts.push(`(?${first ? '=' : '!'}[\\s\\S]*${firstTestsPattern(context.firstTests)})`);
  if (context.areas.length > 0) parts.push(`(?=[\\s\\S]*@area:(?:${context.areas.map(escapeRegExp).join('|')})(?![\\w-]))`);
  if (context.grep !== undefined && context.grep !== '') parts.push(`(?=[\\s\\S]*(?:${context.grep}))`);
  return parts.length > 0 ? new RegExp(`^${parts.join('')}`) : undefined;
}

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
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
    [new URL('../report/playwright-reporter.ts', import.meta.url).pathname],
    ['html', { outputFolder: join(reportDir, 'playwright'), open: 'never' }],
  ],
  // Playwright queues a project's tests before the next project's: the longest tests start first (report/schedule.ts).
  projects: context.firstTests !== undefined && context.firstTests.length > 0 ? [{ name: 'longest first', grep: selection(true) }, { name: 'the others', grep: selection(false) }] : undefined,
});
