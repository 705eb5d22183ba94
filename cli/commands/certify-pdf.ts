// certificate.pdf: certificate.html printed by Chromium through playwright-core, as the report
// checks drive it (test/browser). No browser build can be downloaded here, so Debian's chromium
// package is used (scripts/install-chromium.sh); DXS_CHROMIUM names another executable.
import { existsSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromiumPath } from '../tools.ts';

export const CHROMIUM = chromiumPath();

/** A4 less the certificate's 12 mm margins, in CSS pixels (96 per inch). */
const PRINTABLE_WIDTH_PX = Math.floor(((210 - 24) / 25.4) * 96);
const PRINTABLE_HEIGHT_PX = Math.floor(((297 - 24) / 25.4) * 96);

export class PdfUnavailable extends Error {}

/**
 * Prints the page to PDF on one A4 sheet. Given renderings of the page from the most detailed to
 * the shortest (renderCertificate's levels), it writes to htmlFile and prints the first that fits
 * the page unscaled, so its text keeps a readable size; only the last is scaled down to fit
 * (never below Chromium's 0.1), since the certificate is one page.
 */
export async function printPdf(htmlFile: string, pdfFile: string, renderings: readonly string[] = []): Promise<{ scale: number; rendering: number }> {
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
    await page.emulateMedia({ media: 'print' });
    const last = Math.max(0, renderings.length - 1);
    for (let rendering = 0; ; rendering++) {
      if (renderings.length > 0) writeFileSync(htmlFile, renderings[rendering]);
      await page.goto(pathToFileURL(htmlFile).href, { timeout: 30_000 });
      // A string, evaluated in the page: this project's types have no DOM.
      const height = (await page.evaluate("document.querySelector('main').getBoundingClientRect().bottom")) as number;
      // A little room below the content: Chromium's page breaks round differently from the layout.
      const scale = Math.max(0.1, Math.min(1, (PRINTABLE_HEIGHT_PX - 8) / height));
      if (scale < 1 && rendering < last) continue;
      await page.pdf({ path: pdfFile, format: 'A4', printBackground: true, preferCSSPageSize: true, scale: Math.floor(scale * 100) / 100 });
      return { scale, rendering };
    }
  } finally {
    await browser.close();
  }
}
