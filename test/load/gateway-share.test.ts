// A load run measures its target, or says it could not (issue 57): the gateway's answers (429, 502,
// 503, 504) enter no latency figure nor a judged threshold, they are counted apart per endpoint, and
// when more than --max-gateway-share of an endpoint's calls were refused by the gateway the run
// exits 2, never a pass. Proven on raw points written here, and through the CLI behind the
// sandbox's rate-limit gateway in front of a slow token creation (tokens-slow-<N>ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyse } from '../../cli/commands/load/results.ts';
import { gatewayCounts, gatewayRefusalMessage, judgeGatewayShare } from '../../cli/commands/load/gateway-share.ts';
import { mergeRunners } from '../../cli/commands/load/merge.ts';
import { GATEWAY_WAITED_METRIC } from '../../lib/gateway.ts';
import { dxs, k6Binary, NO_K6, readSummary, tempDirectory } from './helpers.ts';

const TOKEN = 'POST /clienttokens/create';
const STATUS = 'GET /companies/status';

function point(metric: string, value: number, tags: Record<string, string>): string {
  return JSON.stringify({ type: 'Point', metric, data: { time: '2026-12-07T04:00:00Z', value, tags } });
}

/** One answer as k6 writes it: http_reqs, http_req_duration and http_req_failed under its name and status. */
function answer(endpoint: string, status: number, ms: number, failed = 0): string[] {
  const tags = { name: endpoint, status: String(status) };
  return [point('http_reqs', 1, tags), point('http_req_duration', ms, tags), point('http_req_failed', failed, tags)];
}

test('the gateway\'s answers are counted apart: no latency figure, no judged threshold takes them, and a refused share names its endpoint', async () => {
  const directory = tempDirectory('gateway-share');
  {
    const raw = join(directory, 'raw.json');
    const lines = [
      // The target: 20 slow answers. The gateway: 380 instant refusals, as nginx's limit_req gives them.
      ...Array.from({ length: 20 }, () => answer(TOKEN, 200, 1000)).flat(),
      ...Array.from({ length: 370 }, () => answer(TOKEN, 429, 1)).flat(),
      ...Array.from({ length: 10 }, () => answer(TOKEN, 502, 2, 1)).flat(),
      // Another endpoint whose 429s were all waited out and sent again: its calls reached the target.
      ...Array.from({ length: 10 }, () => answer(STATUS, 200, 30)).flat(),
      ...Array.from({ length: 3 }, () => answer(STATUS, 429, 1)).flat(),
      ...Array.from({ length: 3 }, () => point(GATEWAY_WAITED_METRIC, 1, { name: STATUS })),
    ];
    writeFileSync(raw, `${lines.join('\n')}\n`);
    const thresholds = new Map([
      [`http_req_duration{name:${TOKEN}}`, ['p(95)<800']],
      [`http_req_failed{name:${TOKEN}}`, ['rate<=0.01']],
    ]);
    const result = await analyse('client-tokens', [raw], thresholds);
    const token = result.endpoints.find((item) => item.endpoint === TOKEN);
    assert.ok(token !== undefined);
    assert.equal(token.requests, 400, 'every answer is counted as a request');
    assert.deepEqual(token.gateway, { 429: 370, 502: 10 });
    assert.equal(token.rateLimited, 370);
    assert.equal(token.failed, 0, 'the gateway\'s 502s are not the target\'s failures');
    assert.equal(token.latency.p50, 1000, 'the latency is the target\'s: the gateway\'s instant answers are left out');
    const latency = result.thresholds.find((verdict) => verdict.metric.startsWith('http_req_duration'));
    assert.equal(latency?.ok, false, `the p95 threshold judges the target's slow answers: ${JSON.stringify(latency)}`);
    assert.equal(latency?.actual, 1000);
    assert.equal(result.thresholds.find((verdict) => verdict.metric.startsWith('http_req_failed'))?.ok, true);

    const judgement = judgeGatewayShare(result, 5);
    assert.deepEqual(judgement.refused.map((item) => item.endpoint), [TOKEN], 'answers waited out and sent again are no refusal');
    const message = gatewayRefusalMessage(judgement) ?? '';
    assert.match(message, /^the gateway refused 95 % of POST \/clienttokens\/create \(380 of 400 calls; answers 370x 429, 10x 502\): the target was not loaded at the profile's rate .*lower the rate .* or raise the limit$/);
    assert.match(gatewayCounts(result) ?? '', /GET \/companies\/status: 3x 429, all waited out/);
    assert.equal(gatewayRefusalMessage(judgeGatewayShare(result, 96)), undefined, 'a share within --max-gateway-share is no refusal');
    // The pace dxs test keeps, offered: what the gateway let through over the run (30 target answers in 10 s).
    assert.match(gatewayRefusalMessage(judgeGatewayShare({ ...result, durationSeconds: 10 }, 5)) ?? '', /lower the rate \(--rate, --vus, or --max-rps 3: the gateway let about 3\.0 calls a second through\) or raise the limit$/);

    // dxs load merge (and the collector Job of dxs load k8s) judges the runners' points the same way.
    const errors: string[] = [];
    const merged = join(directory, 'merged');
    const code = await mergeRunners([raw], { out: merged, script: 'client-tokens' }, { log: () => {}, error: (line: string) => errors.push(line) });
    assert.equal(code, 2, errors.join('\n'));
    assert.ok(errors.some((line) => /^dxs load merge: \S+: the gateway refused 95 % of POST \/clienttokens\/create/.test(line)), errors.join('\n'));
    assert.equal(await mergeRunners([raw], { out: join(directory, 'merged-lenient'), script: 'client-tokens', maxGatewayShare: 96 }, { log: () => {}, error: () => {} }), 0);
  }
});

const k6 = k6Binary();

test('dxs load behind a fast rate-limiting gateway in front of a slow token creation exits 2 naming the refused share; without the gateway it passes', { skip: k6 === undefined ? NO_K6 : undefined, timeout: 400_000 }, async () => {
  const limited = tempDirectory('gateway-share-limited');
  const clean = tempDirectory('gateway-share-clean');
  {
    // 3 VUs against 2 calls a second, each let through taking 1 s: most calls meet the gateway.
    const run = await dxs(['load', '--script', 'client-tokens', '--profile', 'smoke', '--vus', '3', '--duration', '3s', '--sandbox-variant', 'rate-limit,tokens-slow-1000ms', '--report-dir', limited], { DXS_SANDBOX_RATE_LIMIT: '2' }, 300_000);
    assert.equal(run.code, 2, `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
    assert.match(run.stderr, /client-tokens: the gateway refused \d+ % of POST \/clienttokens\/create \(\d+ of \d+ calls; answers \d+x 429\): the target was not loaded at the profile's rate/);
    assert.match(run.stderr, /lower the rate \(--rate, --vus, or --max-rps( \d+: the gateway let about [\d.]+ calls a second through| under the gateway's limit)\) or raise the limit/);
    assert.match(run.stdout, /client-tokens: NOT MEASURED - /);
    assert.doesNotMatch(run.stderr, /k6 could not run/);
    const summary = readSummary(limited) as unknown as { results: Array<{ passed: boolean; gatewayRefused?: string }> };
    assert.equal(summary.results[0].passed, false);
    assert.match(summary.results[0].gatewayRefused ?? '', /POST \/clienttokens\/create/);
    assert.match(readFileSync(join(limited, 'summary.html'), 'utf8'), /target not loaded/);

    const passing = await dxs(['load', '--script', 'client-tokens', '--profile', 'smoke', '--duration', '2s', '--report-dir', clean], {}, 300_000);
    assert.equal(passing.code, 0, `${passing.stdout.slice(-2000)}\n${passing.stderr.slice(-2000)}`);
    assert.match(passing.stdout, /client-tokens: passed - /);
    assert.doesNotMatch(passing.stdout, /answered by the gateway/);
  }
});
