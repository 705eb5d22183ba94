// index.html as a page one can find things in (issue 60), in Chromium: it opens with the failures and
// the blocked tests, and its bar filters every test card and row by verdict, area and requirement ID
// and searches their titles. The run is synthetic (writeReport), so the check takes seconds; among
// its verdicts is one the report does not know, which the bar must offer like the others.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { summarise, type Results, type TestRecord, type Verdict } from '../../report/results.ts';
import { writeReport } from '../../report/write.ts';
import { ROOT } from '../runner/helpers.ts';
import { chromiumMissing, launchBrowser, openReport, saveScreenshot, shows } from './browser.ts';

function record(title: string, verdict: string, area: string, requirements: string[]): TestRecord {
  return {
    id: `id-${title}`, title, file: `contract/${area}.spec.ts`, titlePath: [area, title], area, requirements, tags: [`@area:${area}`, ...requirements.map((id) => `@${id}`)],
    status: verdict === 'failed' ? 'failed' : verdict === 'skipped' ? 'skipped' : 'passed', verdict: verdict as Verdict, durationMs: 3, annotations: [], checks: [],
    requirementVerdicts: Object.fromEntries(requirements.map((id) => [id, verdict as Verdict])),
    failure: verdict === 'failed' ? `Error: ${requirements[0]} (MUST) expected status 200; actual status 500` : verdict === 'blocked' ? 'blocked: no client token (POST /clienttokens/create answered 500)' : undefined,
    skipReason: verdict === 'skipped' ? 'no API key without the DeleteRegistration role configured' : undefined,
  };
}

// Passed tests first, as Playwright may report them: the page must still open with the failure.
const TESTS = [
  record('a client token is handed out for a registered ErpId', 'passed', 'tokens', ['TOK-01']),
  record('an expired client token is refused', 'passed', 'tokens', ['TOK-11']),
  record('a revoked client token is refused', 'failed', 'tokens', ['TOK-12']),
  record('the company status lists its processes', 'passed', 'companies', ['COM-03']),
  record('a delete without the DeleteRegistration role is refused', 'skipped', 'companies', ['COM-20']),
  record('an upload answers 202 with a Location', 'blocked', 'outbound', ['OUT-UPL-01']),
  record('a send answers 200 with a Location', 'blocked', 'outbound', ['OUT-SEND-01', 'TOK-01']),
  record('the outbound list is paged', 'warning', 'outbound', ['OUT-LST-02']),
  record('the incoming list holds the invoice once', 'flaky', 'inbound', ['INB-04']),
];

function results(): Results {
  const summary = summarise(TESTS);
  return {
    format: 'dxs-results/1',
    run: {
      target: 'https://staging.example/v1/api', embedded: false, profile: 'full', areas: [], casing: 'any', destructive: false, version: '0.1.0',
      startedAt: '2026-03-01T10:00:00.000Z', finishedAt: '2026-03-01T10:01:00.000Z', durationMs: 60_000, status: 'failed', shards: [],
    },
    summary,
    tests: TESTS,
    coverage: {},
  };
}

/** The titles of the tests the list shows, in its order. */
async function listed(page: Page): Promise<string[]> {
  const rows = page.locator('#test-list tr[data-test]:visible td:first-child');
  return (await rows.allInnerTexts()).map((text) => text.replace(/^.* › /, ''));
}

const titles = (filter: (entry: TestRecord) => boolean): string[] => TESTS.filter(filter).map((entry) => entry.title);
const sameSet = (actual: string[], expected: string[], message: string): void => assert.deepEqual([...actual].sort(), [...expected].sort(), message);

describe('index.html: the failures first, a filter by verdict, area and requirement ID, and a search', { skip: chromiumMissing() }, () => {
  let browser: Browser | undefined;
  const base = process.env.DXS_BROWSER_REPORTS ?? join(ROOT, 'reports', 'browser-checks');
  mkdirSync(base, { recursive: true });
  const directory = mkdtempSync(join(base, 'run-'));

  before(async () => {
    writeReport(directory, results());
    browser = await launchBrowser();
  }, { timeout: 60_000 });

  after(async () => {
    await browser?.close();
  });

  test('the page opens with the failure and the blocked tests; the list puts them first', async (t) => {
    const { page, outside } = await openReport(browser as Browser, join(directory, 'index.html'));
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(page, directory, 'find')}`);
      const headings = await page.locator('main > h2').allInnerTexts();
      assert.match(headings[0], /^Failures \(1\)$/, headings.join(' | '));
      assert.match(headings[1], /^Blocked: a prerequisite broke \(2\)$/, headings.join(' | '));
      const card = await page.locator('.card.failed', { hasText: 'a revoked client token is refused' }).boundingBox();
      const meta = await page.locator('table.meta').boundingBox();
      assert.ok(card !== null && meta !== null && card.y < meta.y, 'the failure comes before the run\'s details');
      assert.ok(await shows(page.locator('h2#blocked + table tr', { hasText: 'no client token' })), 'a blocked test says what it waited for');
      const order = await listed(page);
      assert.deepEqual(order.slice(0, 3), ['a revoked client token is refused', 'an upload answers 202 with a Location', 'a send answers 200 with a Location']);
      assert.equal(await page.locator('#find-count').innerText(), `${TESTS.length} tests`);
      assert.deepEqual(outside, [], 'the page loads nothing from the network');
    } finally {
      await page.close();
    }
  });

  test('filtering by verdict, area or requirement ID hides every other test; the verdicts offered are those of the run, an unknown one too', async () => {
    const { page } = await openReport(browser as Browser, join(directory, 'index.html'));
    try {
      const offered = await page.locator('#find-verdict option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
      assert.deepEqual(offered.slice(1).sort(), [...new Set(TESTS.map((entry) => entry.verdict))].sort(), 'a choice per verdict of the run');
      assert.deepEqual(offered.slice(1, 3), ['failed', 'blocked'], 'the worst first');

      for (const verdict of ['failed', 'blocked', 'passed', 'flaky']) {
        await page.locator('#find-verdict').selectOption(verdict);
        sameSet(await listed(page), titles((entry) => entry.verdict === verdict), `verdict ${verdict}`);
      }
      await page.locator('#find-verdict').selectOption('failed');
      assert.equal(await page.locator('.card.warning[data-test]:visible').count(), 0, 'the warning card is hidden with the failed filter');
      assert.equal(await page.locator('.card.failed[data-test]:visible').count(), 1);
      assert.equal(await page.locator('#find-count').innerText(), `1 of ${TESTS.length} tests match`);

      await page.locator('#find button[type=reset]').click();
      await page.locator('#find-area').selectOption('outbound');
      sameSet(await listed(page), titles((entry) => entry.area === 'outbound'), 'area outbound');
      assert.equal(await page.locator('h2#blocked + table tr[data-test]:visible').count(), 2, 'the blocked rows of the area stay');
      assert.equal(await page.locator('.card.failed[data-test]:visible').count(), 0, 'the failure of another area is hidden');

      await page.locator('#find button[type=reset]').click();
      await page.locator('#find-requirement').fill('TOK-01');
      sameSet(await listed(page), titles((entry) => entry.requirements.includes('TOK-01')), 'requirement TOK-01');
      await page.locator('#find-requirement').fill('tok');
      sameSet(await listed(page), titles((entry) => entry.requirements.some((id) => id.startsWith('TOK-'))), 'every TOK requirement');

      await page.locator('#find-area').selectOption('outbound');
      sameSet(await listed(page), ['a send answers 200 with a Location'], 'area and requirement together');
      await page.locator('#find button[type=reset]').click();
      assert.equal((await listed(page)).length, TESTS.length, 'Clear shows every test again');
    } finally {
      await page.close();
    }
  });

  test('the search box finds a test by words of its title', async () => {
    const { page } = await openReport(browser as Browser, join(directory, 'index.html'));
    try {
      await page.locator('#find-text').fill('Revoked   TOKEN');
      assert.deepEqual(await listed(page), ['a revoked client token is refused']);
      assert.equal(await page.locator('.card.failed[data-test]:visible').count(), 1, 'its failure card stays');
      await page.locator('#find-text').fill('location');
      sameSet(await listed(page), titles((entry) => /location/i.test(entry.title)), 'location');
      await page.locator('#find-text').fill('no such words in any title');
      assert.deepEqual(await listed(page), []);
      assert.equal(await page.locator('#find-count').innerText(), `0 of ${TESTS.length} tests match`);
    } finally {
      await page.close();
    }
  });
});
