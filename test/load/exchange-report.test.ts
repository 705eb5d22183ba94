// The exchange in dxs load's report (issue 35), without k6: the history read from raw points, the
// rules graded by their basis (a failing rule fails the result, a hardening rule warns), the
// delivery-time threshold, the Exchange integrity section and console lines, the comparison with
// a baseline, and the thresholds file's deliveryTime key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyse, type RunResult } from '../../cli/commands/load/results.ts';
import { attachExchange, deliveryTimeKey, exchangeLines, exchangeSection, exchangeTotals } from '../../cli/commands/load/exchange.ts';
import { compareRuns } from '../../cli/commands/load/compare.ts';
import { runnersAsyncTimeoutMs } from '../../cli/commands/load/merge.ts';
import { indexHtml, summaryHtml, summaryLine, warningCount } from '../../cli/commands/load/report.ts';
import { DEFAULT_COMPARE_SETTINGS } from '../../cli/commands/load/statistics.ts';
import { encodeEvent, EXCHANGE_METRIC, type ExchangeEvent } from '../../lib/exchange-history.ts';
import { validateThresholdsFile } from '../../load/lib/thresholds.ts';
import { tempDirectory } from './helpers.ts';

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function emptyResult(): RunResult {
  return { script: 'inbox', runners: 1, durationSeconds: 10, iterations: 1, requests: 1, endpoints: [], checks: [], thresholds: [], passed: true };
}

const sent: ExchangeEvent = { op: 'send', actor: 'A', invoked: 0, completed: 10, status: 202, recipient: 'B', deliveryType: 'Electronic', documentId: 'd1', erpDocumentId: 'm1' };
const delivered: ExchangeEvent[] = [
  sent,
  { op: 'list', actor: 'B', invoked: 200, completed: 210, status: 200, total: 1, ids: ['in1'], sequenceNos: [1] },
  { op: 'fetch', actor: 'B', invoked: 220, completed: 230, status: 200, id: 'in1', marker: 'm1' },
];
const lost: ExchangeEvent[] = [sent, { op: 'list', actor: 'B', invoked: 5000, completed: 5010, status: 200, total: 0, ids: [], sequenceNos: [] }];

test('analyse reads the history from the raw points beside the requests', async () => {
  const directory = tempDirectory('exchange-raw');
  const raw = join(directory, 'raw.json');
  const lines = [
    { type: 'Metric', metric: EXCHANGE_METRIC, data: { type: 'counter' } },
    ...delivered.map((event) => ({ type: 'Point', metric: EXCHANGE_METRIC, data: { time: '2026-11-27T23:00:00Z', value: 1, tags: { op: event.op }, metadata: encodeEvent(event) } })),
    { type: 'Point', metric: EXCHANGE_METRIC, data: { time: '2026-11-27T23:00:00Z', value: 1, tags: { op: 'unknown' }, metadata: { actor: 'A' } } },
  ];
  writeFileSync(raw, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const exchange: ExchangeEvent[] = [];
  await analyse('inbox', [raw], new Map(), { exchange });
  assert.deepEqual(exchange, delivered);
});

test('a lost invoice fails the result under FLOW-04 with the spec sentence; the console and the page say so', () => {
  const result = emptyResult();
  assert.equal(attachExchange(result, lost, { asyncTimeoutMs: 1000 }), true);
  assert.equal(result.passed, false);
  const summary = result.exchange!;
  assert.equal(summary.lost, 1);
  assert.equal(summary.passed, false);
  const rule = summary.rules.find((item) => item.id === 'FLOW-04')!;
  assert.equal(rule.severity, 'failure');
  assert.match(rule.basis, /^Basis: the spec says/);
  assert.equal(summary.violations[0].severity, 'failure');
  const lines = exchangeLines(summary).join('\n');
  assert.match(lines, /exchange: FAILED - 1 sent, 0 delivered, 1 lost/);
  assert.match(lines, /exchange failed 1 time: FLOW-04: A sent m1/);
  const html = summaryHtml({ title: 't', target: 'x', profile: 'smoke', startedAt: new Date(0), results: [result], artifacts: [], notes: [] });
  assert.match(html, /<h2 id="exchange">Exchange integrity <span class="badge fail">failed/);
  assert.match(html, /exchange failed<\/span><\/h2>/, 'the script\'s badge says the exchange failed it, not its thresholds');
  assert.match(summaryLine(result, 'index.html'), /FAILED[\s\S]*exchange: FAILED/);
  const totals = exchangeTotals([result, emptyResult()]);
  assert.deepEqual([totals?.passed, totals?.scripts, totals?.sent, totals?.lost, totals?.rules['FLOW-04']], [false, ['inbox'], 1, 1, 1]);
});

test('a hardening rule broken warns and the result passes (fails with --strict); a run without a history has no section', () => {
  const twice: ExchangeEvent[] = [...delivered, { op: 'list', actor: 'B', invoked: 300, completed: 310, status: 200, total: 2, ids: ['in1', 'in1'], sequenceNos: [1, 1] }];
  const result = emptyResult();
  assert.equal(attachExchange(result, twice, { asyncTimeoutMs: 1000 }), false);
  assert.equal(result.passed, true);
  assert.equal(result.exchange?.duplicated, 1);
  assert.equal(result.exchange?.rules.find((item) => item.id === 'XCH-02')?.severity, 'warning');
  assert.match(exchangeLines(result.exchange!).join('\n'), /exchange warning \(hardening\) 1 time: XCH-02/);
  const strict = emptyResult();
  assert.equal(attachExchange(strict, twice, { asyncTimeoutMs: 1000, strict: true }), true, '--strict: a hardening rule broken fails');
  assert.equal(strict.exchange?.rules.find((item) => item.id === 'XCH-02')?.severity, 'failure');
  const none = emptyResult();
  assert.equal(attachExchange(none, [], { asyncTimeoutMs: 1000 }), false);
  assert.equal(none.exchange, undefined);
  assert.equal(exchangeSection([none], escapeHtml), '');
});

test('the delivery time is judged against the thresholds file, per delivery type', () => {
  const slow = emptyResult();
  assert.equal(attachExchange(slow, delivered, { asyncTimeoutMs: 1000, deliveryLimits: { p95: 100 } }), true);
  assert.deepEqual(slow.exchange?.deliveryTime.map((item) => [item.deliveryType, item.count, item.p95]), [['Electronic', 1, 200]]);
  assert.deepEqual(slow.thresholds.map((verdict) => [verdict.metric, verdict.expression, verdict.ok, verdict.actual]), [['dxs_delivery_time{deliveryType:Electronic}', 'p(95)<100', false, 200]]);
  assert.equal(slow.passed, false);
  const typed = emptyResult();
  assert.equal(attachExchange(typed, delivered, { asyncTimeoutMs: 1000, deliveryLimits: { p95: 100, types: { Electronic: { p95: 500 } } } }), false);
  assert.equal(typed.passed, true);
});

test('--baseline compares the delivery time of each delivery type as it compares an endpoint', () => {
  const samples = (values: number[]): Map<string, number[]> => new Map([[deliveryTimeKey('Electronic'), values]]);
  const baseline = new Map([['inbox', { result: emptyResult(), samples: samples(Array.from({ length: 200 }, (_, index) => 100 + (index % 10))) }]]);
  const current = [{ result: emptyResult(), samples: samples(Array.from({ length: 200 }, (_, index) => 400 + (index % 10))) }];
  const comparison = compareRuns('before', baseline, current, DEFAULT_COMPARE_SETTINGS);
  assert.deepEqual(comparison.endpoints.map((item) => [item.endpoint, item.verdict]), [['delivery time (Electronic)', 'slower']]);
  assert.equal(comparison.regression, true);
});

test('the thresholds file takes deliveryTime limits and refuses unknown ones', () => {
  assert.deepEqual(validateThresholdsFile({ deliveryTime: { p95: 1000, types: { PDF: { p99: 5000 } } } }).deliveryTime, { p95: 1000, types: { PDF: { p99: 5000 } } });
  assert.throws(() => validateThresholdsFile({ deliveryTime: { p90: 1 } }), /deliveryTime\.p90: unknown limit/);
  assert.throws(() => validateThresholdsFile({ deliveryTime: { p95: -1 } }), /deliveryTime\.p95 must be a number/);
  assert.throws(() => validateThresholdsFile({ deliveryTime: { types: { PDF: { types: {} } } } }), /deliveryTime\.types\.PDF\.types: unknown limit/);
});

test('dxs load merge takes the async timeout the --segment runners judged with, from their summary.json', () => {
  const runners = [1, 2].map((index) => {
    const directory = tempDirectory(`exchange-runner-${index}`);
    mkdirSync(join(directory, 'inbox'));
    writeFileSync(join(directory, 'summary.json'), JSON.stringify({ results: [{ script: 'inbox', exchange: { asyncTimeoutMs: index * 1000 } }] }));
    return join(directory, 'inbox', 'raw.json.gz');
  });
  assert.equal(runnersAsyncTimeoutMs(runners, 'inbox'), 2000, 'the longest of the runners');
  assert.equal(runnersAsyncTimeoutMs(runners, 'send-and-poll'), undefined);
  assert.equal(runnersAsyncTimeoutMs([join(tempDirectory('exchange-bare'), 'raw.json.gz')], 'inbox'), undefined, 'a k6-operator runner has no summary.json');
});

test('index.html shows a script\'s warnings beside its verdict, linking to summary.html: an invoice received twice (XCH-01) and a hardening check of the contract', () => {
  const result = emptyResult();
  const twice: ExchangeEvent[] = [...delivered, { op: 'list', actor: 'B', invoked: 300, completed: 310, status: 200, total: 2, ids: ['in1', 'in2'], sequenceNos: [1, 2] }, { op: 'fetch', actor: 'B', invoked: 320, completed: 330, status: 200, id: 'in2', marker: 'm1' }];
  assert.equal(attachExchange(result, twice, { asyncTimeoutMs: 1000 }), false);
  result.warnings = [{ name: 'a hardening check [SEC-HDR-01]', endpoint: 'GET /documents/incoming', passes: 3, fails: 2 }];
  assert.equal(warningCount(result), 3);
  const input = { title: 't', target: 'http://127.0.0.1:1/v1/api', profile: 'smoke', startedAt: new Date(0), results: [result], artifacts: [{ script: 'inbox', rawFiles: [], summaryExports: [] }], notes: [] };
  const index = indexHtml(tempDirectory('exchange-index'), input);
  assert.match(index, /thresholds passed<\/span> <a class="badge warn" href="summary\.html#inbox">3 warnings<\/a>/);
  assert.ok(summaryHtml(input).includes('3 warnings'));
  const clean = emptyResult();
  assert.equal(attachExchange(clean, delivered, { asyncTimeoutMs: 1000 }), false);
  assert.equal(warningCount(clean), 0);
  assert.doesNotMatch(indexHtml(tempDirectory('exchange-index-clean'), { ...input, results: [clean] }), /warning/);
});
