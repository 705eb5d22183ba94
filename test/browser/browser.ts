// The browser of the report checks: Debian's Chromium driven by playwright-core. No browser build
// can be downloaded here (never `playwright install`), so the distribution package is used, as
// scripts/install-chromium.sh installs it. Launch options, page bounds and screenshots live here.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser checks cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent: run bash scripts/install-chromium.sh (scripts/setup.sh does it in CI)`;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    timeout: 30_000,
  });
}

/** A bound on every wait of a page: a report that does not render fails within seconds. */
export const PAGE_TIMEOUT_MS = 8_000;

export interface ReportPage {
  page: Page;
  /** Every request the page made beyond file: and data: URLs (reports must work offline); each was aborted. */
  outside: string[];
}

/** Opens a report file by its file:// URL in a fresh context, with network requests refused and recorded. */
export async function openReport(browser: Browser, file: string): Promise<ReportPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const outside: string[] = [];
  await context.route(/^(https?|wss?):/, (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
  page.on('close', () => void context.close().catch(() => undefined));
  await page.goto(pathToFileURL(file).href);
  return { page, outside };
}

/** Saves a full-page PNG as <reportDirectory>/screenshots/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, reportDirectory: string, name: string): Promise<string> {
  const directory = join(reportDirectory, 'screenshots');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Opens a <details> element by clicking its summary, as a reader would, unless it is open already. */
export async function expand(details: Locator): Promise<void> {
  if (!(await details.evaluate((element) => (element as unknown as { open: boolean }).open))) await details.locator(':scope > summary').click();
}

/** Whether the locator's first match is rendered and visible (waits up to the page bound for it). */
export async function shows(locator: Locator): Promise<boolean> {
  try {
    await locator.first().waitFor({ state: 'visible' });
    return true;
  } catch {
    return false;
  }
}
