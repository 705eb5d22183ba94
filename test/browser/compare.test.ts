// The pages that compare runs, in Chromium: the baseline section at the top of index.html, the
// page of dxs report diff and the page of dxs report history. The runs are synthetic (written with
// writeReport), so the check takes seconds; the pages are made by the CLI, as a CI job would.
// Long observed values check that the observations table of index.html stays within the page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { applyBaseline } from '../../report/baseline.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';
import { writeReport } from '../../report/write.ts';
import { ROOT, runDxs, type CliResult } from '../runner/helpers.ts';
import { chromiumMissing, launchBrowser, openReport, saveScreenshot, shows } from './browser.ts';

/** An unbroken value far wider than the page: only overflow-wrap can fit it. */
const LONG_VALUE = `Location: https://staging.example/v1/api/documents/outgoing/${'0123456789abcdef'.repeat(30)}`;

function record(title: string, verdict: TestRecord['verdict'], requirement: string, observation?: string): TestRecord {
  return {
    id: `id-${title}`, title, file: 'contract/outbound.spec.ts', titlePath: ['outbound', title], area: 'outbound', requirements: [requirement], tags: ['@area:outbound', `@${requirement}`],
    status: verdict === 'failed' ? 'failed' : 'passed', verdict, durationMs: 3, annotations: [],
    checks: observation === undefined ? [] : [{ requirement: 'OUT-UPL-20', level: 'OBSERVE', verdict: 'info', check: 'observe', expected: '(not shown)', actual: observation }],
    requirementVerdicts: { [requirement]: verdict, ...(observation === undefined ? {} : { 'OUT-UPL-20': 'info' as const }) },
    failure: verdict === 'failed' ? `Error: ${requirement} (MUST) expected status 202; actual status 200` : undefined,
  };
}

function results(startedAt: string, tests: TestRecord[]): Results {
  const summary = summarise(tests);
  return {
    format: 'dxs-results/1',
    run: {
      target: 'https://staging.example/v1/api', embedded: false, profile: 'full', areas: ['outbound'], casing: 'any', destructive: false, version: '0.1.0',
      startedAt, finishedAt: startedAt, durationMs: 1000, status: summary.failed > 0 ? 'failed' : 'passed', shards: [],
    },
    summary,
    tests,
    coverage: {},
  };
}

const describeCli = (result: CliResult): string => `exit ${result.code}\n${result.stderr.slice(-3000)}`;

/** Whether the element's content fits its box horizontally (nothing runs off its right edge). */
function fitsWidth(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element.scrollWidth <= element.clientWidth);
}

function pageFitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth <= root.clientWidth;
  });
}

describe('comparison pages in a real browser', { skip: chromiumMissing() }, () => {
  let browser: Browser | undefined;
  const base = process.env.DXS_BROWSER_REPORTS ?? join(ROOT, 'reports', 'browser-checks');
  mkdirSync(base, { recursive: true });
  const directory = mkdtempSync(join(base, 'run-'));
  const runs = join(directory, 'runs');
  const diffDirectory = join(directory, 'diff');
  let diffRun: CliResult;
  let historyRun: CliResult;

  before(async () => {
    // Three runs of a staging: a known failure; the same with an observation; then a regression,
    // judged against the second run as its baseline.
    const first = results('2026-03-01T10:00:00.000Z', [record('upload answers 202', 'failed', 'OUT-UPL-01'), record('send answers 202', 'passed', 'OUT-SEND-01'), record('status lists history', 'passed', 'OUT-STA-06')]);
    const second = results('2026-03-02T10:00:00.000Z', [record('upload answers 202', 'failed', 'OUT-UPL-01', LONG_VALUE), record('send answers 202', 'passed', 'OUT-SEND-01'), record('status lists history', 'passed', 'OUT-STA-06')]);
    const third = results('2026-03-03T10:00:00.000Z', [record('upload answers 202', 'passed', 'OUT-UPL-01', LONG_VALUE), record('send answers 202', 'failed', 'OUT-SEND-01'), record('status lists history', 'passed', 'OUT-STA-06')]);
    third.baseline = applyBaseline(third, { baseline: { results: second, source: 'runs/2/results.json' } });
    writeReport(join(runs, '1'), first);
    writeReport(join(runs, '2'), second);
    writeReport(join(runs, '3'), third);
    let launched: Browser;
    [diffRun, historyRun, launched] = await Promise.all([
      runDxs(['report', 'diff', join(runs, '1'), join(runs, '3'), '--out', diffDirectory]),
      runDxs(['report', 'history', runs]),
      launchBrowser(),
    ]);
    browser = launched;
  }, { timeout: 120_000 });

  after(async () => {
    await browser?.close();
  });

  test('index.html of a run with a baseline shows the comparison first, and its observations table stays within the page', async (t) => {
    const { page, outside } = await openReport(browser as Browser, join(runs, '3', 'index.html'));
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(page, join(runs, '3'), 'index')}`);
      assert.equal(await page.locator('h2').first().innerText(), 'Against the baseline');
      const comparison = await page.locator('#baseline').boundingBox();
      const verdict = await page.locator('.verdict').boundingBox();
      assert.ok(comparison !== null && verdict !== null && comparison.y < verdict.y, 'the comparison is above the run verdict');
      assert.match(await page.locator('#baseline .compare-verdict').innerText(), /1 NEW FAILURE: 0 known, 1 fixed/);
      const newRow = page.locator('#baseline-new + table tr', { hasText: 'send answers 202' });
      assert.ok(await shows(newRow), 'the new failure is named');
      assert.ok(await shows(page.locator('#baseline-fixed + table tr', { hasText: 'upload answers 202' })), 'the fixed test is named');

      const observations = page.locator('h2#observations + table');
      assert.ok(await shows(observations.locator('td', { hasText: 'OUT-UPL-20' })), 'the observation is shown');
      assert.ok(await fitsWidth(observations), 'the observations table holds its long value');
      const table = await observations.boundingBox();
      const main = await page.locator('main').boundingBox();
      assert.ok(table !== null && main !== null && table.x + table.width <= main.x + main.width + 1, `the observations table ends within the page (${table?.x}+${table?.width} > ${main?.x}+${main?.width})`);
      assert.ok(await pageFitsWidth(page), 'nothing runs off the right edge of the page');
      assert.deepEqual(outside, []);
    } finally {
      await page.close();
    }
  });

  test('dxs report diff: the page names the new failure, the fixed test, the changed requirement verdicts, and links both runs', async (t) => {
    assert.equal(diffRun.code, 1, `a new failure makes the diff exit 1: ${describeCli(diffRun)}`);
    assert.ok(existsSync(join(diffDirectory, 'diff.json')), 'diff.json is written');
    const { page, outside } = await openReport(browser as Browser, join(diffDirectory, 'index.html'));
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(page, diffDirectory, 'diff')}`);
      assert.match(await page.locator('.compare-verdict').innerText(), /^1 NEW FAILURE: 1 fixed, 0 still failing/);
      assert.ok(await shows(page.locator('#new-failures + table tr', { hasText: 'send answers 202' })), 'the new failure is listed');
      assert.ok(await shows(page.locator('#fixed + table tr', { hasText: 'upload answers 202' })), 'the fixed test is listed');
      for (const id of ['OUT-SEND-01', 'OUT-UPL-01', 'OUT-UPL-20']) {
        assert.ok(await shows(page.locator('#requirements + table tr', { hasText: id })), `the changed verdict of ${id} is listed`);
      }
      for (const run of ['1', '3']) {
        const href = await page.locator('table.compare a', { hasText: new RegExp(`${run}$`) }).first().getAttribute('href');
        assert.ok(href !== null && existsSync(resolve(diffDirectory, href)), `the link to run ${run} leads to its index.html (${href})`);
      }
      assert.ok(await pageFitsWidth(page), 'nothing runs off the right edge of the page');
      assert.deepEqual(outside, []);
    } finally {
      await page.close();
    }
  });

  test('dxs report history: the chart plots the four counts of every run, marks the regression and links each run', async (t) => {
    assert.equal(historyRun.code, 0, describeCli(historyRun));
    const { page, outside } = await openReport(browser as Browser, join(runs, 'history.html'));
    try {
      t.diagnostic(`screenshot: ${await saveScreenshot(page, runs, 'history')}`);
      const chart = page.locator('svg');
      assert.ok(await shows(chart), 'the chart is drawn');
      for (const series of ['passed', 'failed', 'warning', 'blocked']) {
        assert.equal(await chart.locator(`g.series.${series} circle`).count(), 3, `${series}: one point per run`);
      }
      // The failed line of the three runs: 1, 1, 1; passed: 2, 2, 2. The regression is run 3 only.
      assert.equal(await chart.locator('g.regression').count(), 1);
      assert.match((await chart.locator('g.regression text').textContent()) ?? '', /1 new/);
      const rows = page.locator('table.compare tr.regression');
      assert.equal(await rows.count(), 1);
      assert.match(await rows.innerText(), /send answers 202/);
      // Each run is linked; following the third one opens its report.
      assert.equal(await page.locator('table.compare a').count(), 3);
      await page.locator('table.compare a', { hasText: /^3$/ }).click();
      await page.waitForURL(/\/3\/index\.html$/);
      assert.ok(await shows(page.locator('h1', { hasText: 'conformance report' })), 'the linked run opens');
      assert.deepEqual(outside, []);
    } finally {
      await page.close();
    }
  });
});
