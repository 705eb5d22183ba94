// Issue 23: dxs load --baseline says whether an endpoint got slower, and only when it did. Smoke
// runs of register-and-poll against the embedded sandbox: the same build twice is no regression;
// the sandbox variant that answers token creation 50 ms later is slower on that endpoint alone,
// with its interval; a run of five iterations is too few to tell. Then the history page of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndpointComparison } from '../../cli/commands/load/compare.ts';
import { NO_K6, dxs, k6Binary, tempDirectory } from './helpers.ts';

const k6 = k6Binary();
const TOKEN = 'POST /clienttokens/create';

function comparisonOf(directory: string): { endpoints: EndpointComparison[]; regression: boolean } {
  const summary = JSON.parse(readFileSync(join(directory, 'summary.json'), 'utf8')) as { comparison?: { endpoints: EndpointComparison[]; regression: boolean } };
  assert.ok(summary.comparison !== undefined, 'summary.json holds the comparison');
  return summary.comparison;
}

async function smoke(label: string, extra: string[]): Promise<{ directory: string; code: number; output: string }> {
  const directory = tempDirectory(label);
  const run = await dxs(['load', '--script', 'register-and-poll', '--profile', 'smoke', '--report-dir', directory, ...extra]);
  return { directory, code: run.code, output: run.stdout + run.stderr };
}

test('dxs load --baseline: the same build is no regression, a 50 ms slower token creation is slower there alone, five iterations are too few; dxs load report history plots them', { skip: k6 === undefined ? NO_K6 : false, timeout: 600_000 }, async (t) => {
  const baseline = await smoke('baseline', []);
  assert.equal(baseline.code, 0, baseline.output);
  const directories = [baseline.directory];

  await t.test('two runs of the same build: no endpoint slower, exit 0', async () => {
    const same = await smoke('same', ['--baseline', baseline.directory]);
    directories.push(same.directory);
    assert.equal(same.code, 0, same.output);
    const comparison = comparisonOf(same.directory);
    assert.equal(comparison.endpoints.length, 3, 'register, token and status compared');
    assert.deepEqual(comparison.endpoints.filter((item) => item.verdict === 'slower').map((item) => `${item.endpoint}: ${item.reason}`), []);
    assert.equal(comparison.regression, false);
    assert.match(same.output, /^baseline: no endpoint is slower$/m);
  });

  await t.test('a sandbox that answers token creation 50 ms later: that endpoint alone is slower, with its interval, exit 1', async () => {
    const delayed = await smoke('delayed', ['--baseline', baseline.directory, '--sandbox-variant', 'delay-token-create-50ms']);
    directories.push(delayed.directory);
    assert.equal(delayed.code, 1, delayed.output);
    const comparison = comparisonOf(delayed.directory);
    const verdicts = Object.fromEntries(comparison.endpoints.map((item) => [item.endpoint, item.verdict]));
    assert.deepEqual(verdicts, { 'GET /companies/status': verdicts['GET /companies/status'] === 'faster' ? 'faster' : 'same', [TOKEN]: 'slower', 'POST /companies/register': verdicts['POST /companies/register'] === 'faster' ? 'faster' : 'same' });
    const p50 = comparison.endpoints.find((item) => item.endpoint === TOKEN)!.percentiles.find((change) => change.name === 'p50')!;
    // 50 ms on an answer of about a millisecond: the whole interval far above the 10 % threshold and the 1 ms floor.
    assert.ok(p50.msInterval[0] > 40 && p50.msInterval[1] < 80, JSON.stringify(p50));
    assert.ok(p50.relativeInterval[0] > 0.1 && p50.relativeInterval[0] <= p50.relative && p50.relative <= p50.relativeInterval[1]);
    assert.match(delayed.output, new RegExp(`^ +SLOWER +register-and-poll ${TOKEN}: n \\d+ -> \\d+; p50 [\\d.]+ -> [\\d.]+ ms \\+\\d+% \\[\\+\\d+%, \\+\\d+%\\]`, 'm'));
    assert.match(delayed.output, /^baseline: REGRESSION: register-and-poll POST \/clienttokens\/create slower$/m);
    const summary = readFileSync(join(delayed.directory, 'summary.html'), 'utf8');
    assert.equal(summary.match(/<svg [^>]*class="ecdf"/g)?.length, 3, 'an overlay plot per endpoint');
    assert.doesNotMatch(summary, /<script|https?:\/\/(?!127\.0\.0\.1)[^"'\s<]*\.(js|css)/, 'readable offline');
    assert.match(readFileSync(join(delayed.directory, 'index.html'), 'utf8'), /Against the baseline: register-and-poll POST \/clienttokens\/create slower/);
  });

  await t.test('five iterations: too few samples to tell, with the counts, and no guess (exit 0)', async () => {
    const few = await smoke('few', ['--iterations', '5', '--baseline', baseline.directory]);
    assert.equal(few.code, 0, few.output);
    for (const item of comparisonOf(few.directory).endpoints) {
      assert.equal(item.verdict, 'too few samples', item.endpoint);
      assert.equal(item.currentCount < 20, true);
      assert.deepEqual(item.percentiles, []);
    }
    assert.match(few.output, new RegExp(`TOO FEW SAMPLES \\(\\d+ / 5\\) register-and-poll ${TOKEN}`));
  });

  await t.test('a baseline folder without raw points is a configuration error (exit 2)', async () => {
    const empty = tempDirectory('empty-baseline');
    const run = await dxs(['load', '--script', 'register-and-poll', '--baseline', empty, '--report-dir', tempDirectory('bad-baseline')], {}, 60_000);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /--baseline .*no raw k6 output/);
  });

  await t.test('dxs load report history: p95 per endpoint over the runs, inline SVG', async () => {
    const out = tempDirectory('history');
    const run = await dxs(['load', 'report', 'history', ...directories, '--out', out], {}, 60_000);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const page = readFileSync(join(out, 'load-history.html'), 'utf8');
    assert.match(page, new RegExp(`<svg[\\s\\S]*register-and-poll ${TOKEN}`));
    assert.equal(page.match(/<tr><td>\d+<\/td>/g)?.length, directories.length);
    const json = JSON.parse(readFileSync(join(out, 'load-history.json'), 'utf8')) as { p95: Array<{ key: string; values: number[] }> };
    const token = json.p95.find((series) => series.key === `register-and-poll ${TOKEN}`)!;
    assert.ok(token.values[2] > token.values[0] + 40, `the delayed run's token p95 stands out: ${token.values.join(', ')}`);
  });
});
