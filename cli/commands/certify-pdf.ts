// certificate.pdf: certificate.html printed by Chromium through playwright-core, as the report
// checks drive it (test/browser). No browser build can be downloaded here, so Debian's chromium
// package is used (scripts/install-chromium.sh); DXS_CHROMIUM names another executable.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromiumPath } from '../tools.ts';

export const CHROMIUM = chromiumPath();

/** A4 less the certificate's 12 mm margins, in CSS pixels (96 per inch). */
const PRINTABLE_WIDTH_PX = Math.floor(((210 - 24) / 25.4) * 96);
const PRINTABLE_HEIGHT_PX = Math.floor(((297 - 24) / 25.4) * 96);

export class PdfUnavailable extends Error {}

/**
 * Prints the page to PDF on one A4 sheet: when the lists make it taller than a page, it is
 * scaled down to fit (never below Chromium's 0.1), since the certificate is one page.
 */
export async function printPdf(htmlFile: string, pdfFile: string): Promise<{ scale: number }> {
  if (!existsSync(CHROMIUM)) throw new PdfUnavailable(`${CHROMIUM} is absent: run bash scripts/install-chromium.sh, or set DXS_CHROMIUM`);
  // Loaded here: playwright-core is the largest module the CLI has, and only the PDF needs it.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    timeout: 60_000,
  });
  try {
    const context = await browser.newContext({ viewport: { width: PRINTABLE_WIDTH_PX, height: PRINTABLE_HEIGHT_PX } });
    // The certificate is self-contained: nothing may be fetched while it prints.
    await context.route(/^(https?|wss?):/, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(pathToFileURL(htmlFile).href, { timeout: 30_000 });
    await page.emulateMedia({ media: 'print' });
    // A string, evaluated in the page: this project's types have no DOM.
    const height = (await page.evaluate("document.querySelector('main').getBoundingClientRect().bottom")) as number;
    // A little room below the content: Chromium's page breaks round differently from the layout.
    const scale = Math.max(0.1, Math.min(1, (PRINTABLE_HEIGHT_PX - 8) / height));
    await page.pdf({ path: pdfFile, format: 'A4', printBackground: true, preferCSSPageSize: true, scale: Math.floor(scale * 100) / 100 });
    return { scale };
  } finally {
    await browser.close();
  }
}
