// Our HTML reports in a real browser: a conformance run against a faulty sandbox and a short load
// run are made, then Chromium opens their pages by file:// URL, as a person who received the
// report directory would, and checks that what matters is visible. Full-page screenshots are
// saved in each report directory (screenshots/*.png) so a person can look at them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../../lib/defaults.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { k6Binary, NO_K6 } from '../load/helpers.ts';
import { ROOT, runDxs, startRecordingProxy, type CliResult } from '../runner/helpers.ts';
import { chromiumMissing, expand, launchBrowser, openReport, saveScreenshot, shows } from './browser.ts';

interface Exchange {
  title: string;
  request: { method: string; url: string };
  response?: { status: number };
}
interface TestRecord {
  title: string;
  area: string;
  verdict: string;
  requirements: string[];
  requirementVerdicts: Record<string, string>;
  checks: Array<{ requirement: string; verdict: string }>;
  exchanges?: Exchange[];
}
interface LoadSummary {
  results: Array<{ script: string; passed: boolean; requests: number; endpoints: Array<{ endpoint: string }> }>;
}

/**
 * The runs are kept under reports/browser-checks/ (git-ignored) so a person can open them after
 * `npm test`; each run has its own directory, as other runs of the suite may share the tree.
 */
function runDirectory(): string {
  const base = process.env.DXS_BROWSER_REPORTS ?? join(ROOT, 'reports', 'browser-checks');
  mkdirSync(base, { recursive: true });
  const hourAgo = Date.now() - 3_600_000;
  for (const entry of readdirSync(base)) {
    const path = join(base, entry);
    if (entry.startsWith('run-') && statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
  }
  return mkdtempSync(join(base, 'run-'));
}

const describeCli = (result: CliResult): string => `exit ${result.code}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`;

/** The page text with every <details> opened, so nothing hidden escapes the leak check. */
async function fullText(page: Page): Promise<string> {
  await page.evaluate(() => {
    for (const element of (globalThis as unknown as { document: { querySelectorAll(selector: string): Iterable<{ open: boolean }> } }).document.querySelectorAll('details')) element.open = true;
  });
  return page.locator('body').innerText();
}

/** How many lines the element's text takes as rendered (an ID broken at its hyphen takes two). */
function lineCount(locator: Locator): Promise<number> {
  return locator.evaluate((element) => {
    const range = (globalThis as unknown as { document: { createRange(): { selectNodeContents(node: unknown): void; getClientRects(): { length: number } } } }).document.createRange();
    range.selectNodeContents(element);
    return range.getClientRects().length;
  });
}

function assertNoSecret(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) assert.ok(!text.includes(secret), `${where} shows a secret (${secret.slice(0, 4)}...)`);
}

const skipReason = chromiumMissing();

describe('reports in a real browser', { skip: skipReason }, () => {
  let browser: Browser | undefined;
  const runs = runDirectory();
  const conformance = join(runs, 'conformance');
  const load = join(runs, 'load');
  const k6 = k6Binary();
  let secrets: string[] = [];
  let loadRun: CliResult | undefined;

  before(async () => {
    // A failing conformance run: a sandbox that still accepts revoked tokens, a few tests of two
    // areas (the failure, a pass and the observations of the tokens area), behind a proxy that
    // learns every token handed out, to look for each one in the pages.
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', faults: ['revoked-token-accepted'] });
    const proxy = await startRecordingProxy(sandbox.baseUrl);
    try {
      const [conformanceRun, loadResult, launched] = await Promise.all([
        runDxs(
          [
            'test', '--base-url', proxy.baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete,
            '--area', 'tokens,security', '--grep', 'a revoked client token|is recorded|@TOK-01', '--report-dir', conformance,
          ],
          { timeoutMs: 240_000 },
        ),
        k6 === undefined
          ? Promise.resolve(undefined)
          : runDxs(['load', '--script', 'client-tokens', '--profile', 'smoke', '--duration', '3s', '--report-dir', load, '--k6', k6], { timeoutMs: 180_000 }),
        launchBrowser(),
      ]);
      browser = launched;
      loadRun = loadResult;
      assert.equal(conformanceRun.code, 1, `the faulty sandbox fails the run: ${describeCli(conformanceRun)}`);
      const tokens = new Set<string>();
      for (const body of proxy.bodies) for (const match of body.matchAll(/"token"\s*:\s*"([^"]+)"/gi)) tokens.add(match[1]);
      assert.ok(tokens.size > 0, 'the run received tokens');
      secrets = [sandbox.apiKey, sandbox.apiKeyWithoutDelete, ...tokens];
    } finally {
      await proxy.close();
      await sandbox.close();
    }
  }, { timeout: 300_000 });

  after(async () => {
    await browser?.close();
  });

  test('conformance index.html shows the verdict, the matrix by area, a failure with its request and response, and the observations', async (t) => {
    const results = JSON.parse(readFileSync(join(conformance, 'results.json'), 'utf8')) as { tests: TestRecord[] };
    const { page, outside } = await openReport(browser as Browser, join(conformance, 'index.html'));
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(page, conformance, 'index')}`);

      const verdict = page.locator('.verdict');
      assert.ok(await shows(verdict), 'the verdict is visible');
      assert.match(await verdict.innerText(), /FAILED/);

      // The matrix: one <details> per area, each with its table of requirements; the failed
      // requirement's row says so.
      for (const area of ['tokens', 'security']) {
        const section = page.locator('details').filter({ has: page.locator(':scope > summary', { hasText: new RegExp(`^\\s*${area}\\b`) }) });
        assert.ok(await shows(section.locator(':scope > summary')), `the ${area} row of the matrix is visible`);
        await expand(section);
        assert.ok(await shows(section.locator('table.matrix tr:has(td)')), `the ${area} requirements are visible`);
      }
      const failedIds = results.tests.flatMap((record) => Object.entries(record.requirementVerdicts).filter(([, verdict]) => verdict === 'failed').map(([id]) => id));
      assert.ok(failedIds.length > 0, 'a requirement failed');
      for (const id of failedIds) {
        const row = page.locator('table.matrix tr', { has: page.locator('td:first-child', { hasText: new RegExp(`^${id}$`) }) });
        assert.ok(await shows(row.locator('.badge.failed')), `the matrix shows ${id} failed`);
      }

      // The failure: its title, and the request (method and path) and the response (status) of
      // its last exchange, the call that broke the requirement.
      const failed = results.tests.find((record) => record.verdict === 'failed');
      assert.ok(failed !== undefined, 'results.json holds the failure');
      const card = page.locator('.card.failed').filter({ hasText: failed.title });
      assert.ok(await shows(card), 'the failure card is visible');
      const exchange = (failed.exchanges ?? []).at(-1);
      assert.ok(exchange?.response !== undefined, 'the failure carries an exchange with a response');
      await expand(card.locator('details').first());
      const path = new URL(exchange.request.url).pathname.replace(/^\/v1\/api/, '');
      const requestBlock = card.locator('pre').filter({ hasText: new RegExp(`^${exchange.request.method} \\S*${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });
      assert.ok(await shows(requestBlock), `the request ${exchange.request.method} ${path} is visible`);
      assert.ok(await shows(card.locator('pre').filter({ hasText: new RegExp(`^${exchange.response.status}\\n`) })), `the response status ${exchange.response.status} is visible`);
      await card.screenshot({ path: join(conformance, 'screenshots', 'failure-card.png') });

      // Observations: the section, with the ID of each info check of the run.
      assert.ok(await shows(page.locator('h2#observations')), 'the observations heading is visible');
      const observed = results.tests.flatMap((record) => record.checks.filter((check) => check.verdict === 'info').map((check) => check.requirement));
      assert.ok(observed.length > 0, 'the run recorded observations');
      const observations = page.locator('h2#observations + table');
      for (const id of observed) {
        const cell = observations.locator('td:first-child', { hasText: id });
        assert.ok(await shows(cell), `observation ${id} is visible`);
        assert.equal(await lineCount(cell), 1, `observation ${id}: the ID reads on one line`);
      }

      assert.ok(await shows(page.locator('h2#coverage')), 'the endpoint coverage is visible');
      const text = await fullText(page);
      assert.match(text, /\[REDACTED\]/, 'credentials show as [REDACTED]');
      assertNoSecret(text, secrets, 'index.html');
      assert.deepEqual(outside, [], 'the page loads nothing from the network');
    } finally {
      await page.close();
    }
  });

  test('conformance index.html draws the timeline of the run: a row per worker, a titled bar per test, the legend and the critical path', async (t) => {
    const results = JSON.parse(readFileSync(join(conformance, 'results.json'), 'utf8')) as { tests: TestRecord[]; timeline?: { rows: Array<{ worker: number | 'run' | 'setup'; events: Array<{ kind: string; name: string }> }> } };
    const rows = results.timeline?.rows ?? [];
    const workers = rows.filter((row) => typeof row.worker === 'number');
    assert.ok(workers.length > 0, 'results.json holds a timeline with worker rows');
    const { page, outside } = await openReport(browser as Browser, join(conformance, 'index.html'));
    try {
      const figure = page.locator('h2#timeline + figure');
      assert.ok(await shows(figure.locator('svg')), 'the timeline is visible');
      await figure.scrollIntoViewIfNeeded();
      await figure.screenshot({ path: join(conformance, 'screenshots', 'timeline.png') });
      t.diagnostic(`screenshot: ${join(conformance, 'screenshots', 'timeline.png')}`);
      // A row per worker of the run, and one for dxs itself, each drawn with its bars.
      for (const row of workers) {
        const drawn = figure.locator(`g.timeline-row[data-worker="${row.worker}"]`);
        assert.equal(await drawn.count(), 1, `worker ${row.worker} has its row`);
        const box = await drawn.boundingBox();
        assert.ok(box !== null && box.width > 100 && box.height > 5, `worker ${row.worker}'s row is drawn (${JSON.stringify(box)})`);
        assert.equal(await drawn.locator('rect.bar').count(), row.events.length, `worker ${row.worker}: a bar per phase`);
      }
      assert.equal(await figure.locator('g.timeline-row').count(), rows.length, 'no row beyond the workers, dxs and the run setup');
      // Every test bar's tooltip names a test of the run; the ones that ran are all there.
      const titles = await figure.locator('rect.bar.test > title').allTextContents();
      const names = new Set(results.tests.map((record) => record.title));
      assert.ok(titles.length > 0 && titles.every((title) => [...names].some((name) => title.includes(name))), `each test bar names its test: ${titles.slice(0, 3).join(' | ')}`);
      assert.ok(await shows(figure.locator('g.legend-fixture')), 'the legend is visible');
      assert.match(await figure.locator('#critical-path').innerText(), /^Critical path \(★\): worker \d+, the chain that ended last .* of the wall time/);
      assert.deepEqual(outside, [], 'the page loads nothing from the network');
    } finally {
      await page.close();
    }
  });

  test('the Playwright report renders the test titles and the failure with its steps', async (t) => {
    const results = JSON.parse(readFileSync(join(conformance, 'results.json'), 'utf8')) as { tests: TestRecord[] };
    const { page, outside } = await openReport(browser as Browser, join(conformance, 'playwright', 'index.html'));
    try {
      // A JS app: the titles appear once it has unpacked its embedded data.
      for (const record of results.tests) assert.ok(await shows(page.getByText(record.title)), `the title "${record.title}" is rendered`);
      t.diagnostic(`screenshot: ${await saveScreenshot(page, conformance, 'playwright')}`);

      const failed = results.tests.find((record) => record.verdict === 'failed') as TestRecord;
      await page.getByText(failed.title).first().click();
      assert.ok(await shows(page.getByText(/Error: TOK-11/)), 'the failed test shows its error');
      const exchange = (failed.exchanges ?? []).at(-1) as Exchange;
      assert.ok(await shows(page.getByText(exchange.title, { exact: true })), `the step ${exchange.title} is listed`);
      const log = page.getByText('dxs-log', { exact: true });
      if (await shows(log)) await log.click();
      t.diagnostic(`screenshot: ${await saveScreenshot(page, conformance, 'playwright-failure')}`);
      assertNoSecret(await page.locator('body').innerText(), secrets, 'the Playwright report');
      assert.deepEqual(outside, [], 'the Playwright report loads nothing from the network');
    } finally {
      await page.close();
    }
  });

  test('the load report shows throughput, p95 and the threshold verdicts, and links the k6 dashboard', { skip: k6 === undefined ? NO_K6 : false }, async (t) => {
    assert.ok(loadRun !== undefined && (loadRun.code === 0 || loadRun.code === 1), `the load run completed: ${loadRun === undefined ? 'not run' : describeCli(loadRun)}`);
    const summary = JSON.parse(readFileSync(join(load, 'summary.json'), 'utf8')) as LoadSummary;
    const verdictText = (passed: boolean): string => (passed ? 'thresholds passed' : 'thresholds failed');

    const index = await openReport(browser as Browser, join(load, 'index.html'));
    let dashboardHref: string | null;
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(index.page, load, 'index')}`);
      for (const result of summary.results) {
        const row = index.page.locator('tr', { hasText: result.script });
        assert.ok(await shows(row.getByText(verdictText(result.passed))), `${result.script}: the threshold verdict is visible`);
      }
      const dashboard = index.page.locator('a[href$="dashboard.html"]').first();
      assert.ok(await shows(dashboard), 'the k6 dashboard export is linked');
      dashboardHref = await dashboard.getAttribute('href');
      assert.ok(await shows(index.page.locator('a[href="summary.html"]')), 'the summary page is linked');
      assertNoSecret(await index.page.locator('body').innerText(), [SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE], 'the load index');
      assert.deepEqual(index.outside, []);
    } finally {
      await index.page.close();
    }

    const page = (await openReport(browser as Browser, join(load, 'summary.html'))).page;
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(page, load, 'summary')}`);
      for (const result of summary.results) {
        const section = page.locator(`h2#${result.script}`);
        assert.ok(await shows(section.getByText(verdictText(result.passed))), `${result.script}: the threshold verdict is visible`);
        assert.ok(await shows(page.getByText(`${result.requests} requests`)), `${result.script}: the request count ${result.requests} is visible`);
        const table = page.locator(`h2#${result.script} ~ table`).first();
        for (const heading of ['requests', 'req/s', 'p95 ms']) assert.ok(await shows(table.locator('th', { hasText: heading })), `the ${heading} column is visible`);
        for (const { endpoint } of result.endpoints) {
          const cells = await table.locator('tr', { hasText: endpoint }).first().locator('td').allInnerTexts();
          // endpoint, requests, req/s, p50, p90, p95: each figure a number.
          assert.ok(cells.slice(1, 6).every((cell) => /^\d+(\.\d+)?$/.test(cell.trim())), `${endpoint}: figures are shown (${cells.join(' | ')})`);
          assert.match(cells.at(-1) ?? '', /[✓✗]/, `${endpoint}: its threshold verdicts are shown`);
        }
      }
      assertNoSecret(await page.locator('body').innerText(), [SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE], 'the load summary');
    } finally {
      await page.close();
    }

    // k6's dashboard export is a self-contained JS app: it must draw its charts offline.
    const dashboard = await openReport(browser as Browser, join(load, dashboardHref as string));
    try {
      const rendered = await shows(dashboard.page.locator('svg, canvas'));
      t.diagnostic(`k6 dashboard ${rendered ? 'renders' : 'does not render'} offline; requests beyond file: ${dashboard.outside.length === 0 ? 'none' : dashboard.outside.join(', ')}`);
      assert.ok(rendered, 'the k6 dashboard draws its charts offline');
      assert.ok(await shows(dashboard.page.getByText(/Request Duration/)), 'the k6 dashboard shows request durations');
      t.diagnostic(`screenshot: ${await saveScreenshot(dashboard.page, load, 'k6-dashboard')}`);
    } finally {
      await dashboard.page.close();
    }
  });
});
