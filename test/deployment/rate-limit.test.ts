// dxs behind a gateway that limits the rate (issue 31): a 429, or a 503 with Retry-After, is the
// gateway's answer, never the target's verdict. Proven through the CLI, as a user runs it, against
// the sandbox variants rate-limit (a token bucket answering 429 with Retry-After: 1) and
// maintenance-503. Runs are slow by design (they wait for the gateway), so each one serves several
// assertions; no assertion is on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RETRY_AFTER_SECONDS, isGatewayAnswer, MAX_RETRY_AFTER_SECONDS, retryAfterSeconds } from '../../lib/gateway.ts';
import { requirementVerdicts, testVerdict, type Results } from '../../report/results.ts';
import { formatCause } from '../../report/root-causes.ts';
import { gatewayLine, summariseGatewayAnswers } from '../../report/rate-limits.ts';
import { runDxs } from '../runner/helpers.ts';
import { buildSandbox } from '../../sandbox/index.ts';
import { API_PREFIX } from '../../lib/defaults.ts';

/** Bounds, not assertions: a run killed at its bound fails on its exit code. */
const FULL_RUN_TIMEOUT_MS = 900_000;
const AREA_RUN_TIMEOUT_MS = 300_000;
const hasK6 = existsSync(join(new URL('../../', import.meta.url).pathname, '.tools', 'bin', 'k6'));
const hasSchemathesis = existsSync(join(new URL('../../', import.meta.url).pathname, '.tools', 'venv', 'bin', 'schemathesis'));

function withDirectory(prefix: string, work: (directory: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const directory = mkdtempSync(join(tmpdir(), prefix));
    try {
      await work(directory);
    } catch (error) {
      // A failed run's report (its HAR, its output) is what explains it: kept, and named.
      (error as Error).message += `\n(the run's report is kept in ${directory})`;
      throw error;
    }
    rmSync(directory, { recursive: true, force: true });
  };
}

function readResults(directory: string): Results {
  return JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
}

/**
 * Every check that passed or failed judged an answer of the target, never the gateway's: its
 * recorded answer (where the report keeps the exchanges) is no 429, and its actual value names none.
 * Observations (info) may: OBS-01 records the limit a burst meets.
 */
function judgedGatewayAnswers(results: Results): string[] {
  const found: string[] = [];
  for (const entry of results.tests) {
    for (const check of entry.checks) {
      if (check.verdict === 'info') continue;
      const exchange = check.exchange === undefined ? undefined : entry.exchanges?.[check.exchange];
      const status = exchange?.response?.status;
      if (status === 429 || (status === 503 && exchange?.response?.headers['retry-after'] !== undefined) || /^429\b|answered 429/.test(check.actual)) {
        found.push(`${entry.file} › ${entry.title}: ${check.requirement} ${check.check} judged ${status ?? check.actual}`);
      }
    }
  }
  return found;
}

/** The calls of the OBS-01 burst (suites/contract/observations.spec.ts), which hands its 429s back on purpose. */
const OBSERVED_BURST_CALLS = 20;

/**
 * Answers 429 that reached the suites (the coverage counts each call's answer as the client returned
 * it, after its waits), outside the OBS-01 burst: every check judges one of these answers.
 */
function coveredGatewayAnswers(results: Results): string[] {
  return Object.entries(results.coverage)
    .filter(([endpoint, byStatus]) => byStatus['429'] !== undefined && !(endpoint === 'GET /companies/status' && byStatus['429'] <= OBSERVED_BURST_CALLS))
    .map(([endpoint, byStatus]) => `${endpoint}: ${byStatus['429']}x 429`);
}

test('Retry-After is read as seconds or an HTTP date, with a short default and a cap; a 503 is the gateway\'s only with Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterSeconds('2', now), 2);
  assert.equal(retryAfterSeconds('Thu, 01 Jan 2026 00:00:05 GMT', now), 5);
  assert.equal(retryAfterSeconds('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past: at once');
  assert.equal(retryAfterSeconds(undefined, now), DEFAULT_RETRY_AFTER_SECONDS);
  assert.equal(retryAfterSeconds('soon', now), DEFAULT_RETRY_AFTER_SECONDS);
  assert.equal(retryAfterSeconds('86400', now), MAX_RETRY_AFTER_SECONDS);
  assert.equal(isGatewayAnswer(429, {}), true);
  assert.equal(isGatewayAnswer(503, { 'Retry-After': '1' }), true);
  assert.equal(isGatewayAnswer(503, {}), false, 'a 503 without Retry-After stays a server error');
  assert.equal(isGatewayAnswer(400, { 'retry-after': '1' }), false);
  const summary = summariseGatewayAnswers([
    { endpoint: 'GET /companies/status', status: 429, retryAfter: '1', waitedMs: 1000, limit: '429 with Retry-After: 1' },
    { endpoint: 'GET /companies/status', status: 503, retryAfter: '1', waitedMs: 1000 },
    { endpoint: 'POST /companies/register', status: 429, waitedMs: 0, exhausted: true },
  ], { budgetSeconds: 2 });
  assert.deepEqual(summary.byStatus, { 429: 2, 503: 1 });
  assert.equal(summary.waitedMs, 2000);
  assert.equal(summary.exhausted, true);
  // A test the gateway stopped is blocked, whatever it did after (a caught error that failed it, a timeout).
  const annotations = [{ type: 'blocked', description: formatCause({ prerequisite: 'rate-limit', requirement: 'gateway', message: 'GET /companies/status answered 429 with Retry-After: 1' }) }];
  assert.equal(testVerdict('failed', [], annotations), 'blocked');
  assert.equal(testVerdict('timedOut', [], annotations), 'blocked');
  assert.deepEqual(requirementVerdicts(['TOK-01'], 'failed', [], annotations), { 'TOK-01': 'blocked' });
  assert.equal(testVerdict('failed', [], [{ type: 'blocked', description: formatCause({ prerequisite: 'registration', requirement: 'CMP-STA-06', message: 'x' }) }]), 'failed', 'other causes as before');
  assert.match(gatewayLine(summary) ?? '', /^gateway: 3 answers \(2x 429, 1x 503 with Retry-After\), waited 2\.0 s of a 2 s budget \(spent.*GET \/companies\/status 1x 429, 1x 503/);
});

test('the sandbox variants answer as a gateway does: 429 past the bucket, 503 with Retry-After one call in ten, each with a JSON string body', async () => {
  const limited = await buildSandbox({ variants: ['rate-limit'], rateLimit: 3 });
  try {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof limited.inject>> | undefined;
    for (let call = 0; call < 6; call++) {
      const answer = await limited.inject({ method: 'GET', url: `${API_PREFIX}/companies/status` });
      statuses.push(answer.statusCode);
      if (answer.statusCode === 429) refused ??= answer;
    }
    assert.deepEqual(statuses.slice(0, 3), [401, 401, 401], 'the burst passes to the API');
    assert.ok(refused !== undefined, `past the burst, 429: ${statuses.join(' ')}`);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(typeof JSON.parse(refused.body), 'string');
    assert.notEqual((await limited.inject({ method: 'GET', url: '/_sandbox/state' })).statusCode, 429, 'only calls of the API are limited');
  } finally {
    await limited.close();
  }
  const perAddress = await buildSandbox({ variants: ['rate-limit-per-address'], rateLimit: 3 });
  try {
    const from = async (remoteAddress: string) => {
      const answers = [];
      for (let call = 0; call < 4; call++) answers.push(await perAddress.inject({ method: 'GET', url: `${API_PREFIX}/companies/status`, remoteAddress }));
      return answers;
    };
    const first = await from('10.0.0.1');
    assert.deepEqual(first.map((answer) => answer.statusCode), [401, 401, 401, 429], 'the burst passes, then 429');
    assert.equal(first[3].headers['retry-after'], '1');
    assert.deepEqual(Object.keys(first[3].headers).filter((name) => /ratelimit/i.test(name)), [], 'no RateLimit header: the limit is not announced');
    assert.equal(typeof JSON.parse(first[3].body), 'string');
    assert.deepEqual((await from('10.0.0.2')).map((answer) => answer.statusCode), [401, 401, 401, 429], 'another address has a bucket of its own');
  } finally {
    await perAddress.close();
  }
  const maintenance = await buildSandbox({ variants: ['maintenance-503'] });
  try {
    const answers = [];
    for (let call = 0; call < 20; call++) answers.push(await maintenance.inject({ method: 'GET', url: `${API_PREFIX}/companies/status` }));
    const unavailable = answers.filter((answer) => answer.statusCode === 503);
    assert.equal(unavailable.length, 2);
    assert.equal(unavailable[0].headers['retry-after'], '1');
    assert.ok(Number.isFinite(Date.parse(String(unavailable[1].headers['retry-after']))), 'the second one as an HTTP date');
    assert.equal(typeof JSON.parse(unavailable[0].body), 'string');
  } finally {
    await maintenance.close();
  }
});

/** `dxs test --profile full-destructive` behind a gateway variant, default workers: it passes, nothing blocked, no check judges the gateway's answer. */
async function fullRunPassesBehind(variant: string, directory: string): Promise<{ run: Awaited<ReturnType<typeof runDxs>>; results: Results }> {
  const run = await runDxs(['test', '--profile', 'full-destructive', '--sandbox-variant', variant, '--report-dir', directory], { timeoutMs: FULL_RUN_TIMEOUT_MS });
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  const results = readResults(directory);
  assert.equal(results.summary.failed, 0);
  assert.equal(results.summary.blocked, 0);
  assert.deepEqual(judgedGatewayAnswers(results), []);
  return { run, results };
}

test('dxs test --profile full-destructive passes behind a rate limit: no check judges a 429, and the report counts the 429s and the wait', { timeout: FULL_RUN_TIMEOUT_MS + 60_000 }, withDirectory('dxs-rate-limit-', async (directory) => {
  const { run, results } = await fullRunPassesBehind('rate-limit', directory);
  assert.deepEqual(coveredGatewayAnswers(results), [], 'the client waited for every 429 and sent the call again');
  const gateway = results.gateway;
  assert.ok(gateway !== undefined && (gateway.byStatus['429'] ?? 0) > 0, `the run met the gateway's limit and says so: ${JSON.stringify(gateway)}`);
  assert.ok(gateway.waitedMs > 0 && Object.keys(gateway.byEndpoint).length > 0 && gateway.exhausted === false);
  assert.match(gateway.limit ?? '', /^429 with Retry-After: 1/);
  assert.match(run.stderr, /\ngateway: \d+ answers \(\d+x 429(, \d+ of them asked for by the probe of the limit, OBS-01)?\), waited [\d.]+ s of a 180 s budget; on /);
  assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /<property name="dxs.gateway.429" value="\d+"\/>/);
  assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /Rate limits and maintenance answers/);
  assert.deepEqual(readdirSync(directory).filter((name) => name.startsWith('.dxs-gateway-answers')), [], 'the workers\' shared file is removed');
}));

/** Answers 429 "a handful" at most: what the run's pace met, the OBS-01 burst's (asked for) apart. */
const HANDFUL = 10;

test('behind a gateway that limits each client address (no RateLimit header), a full-destructive run with the default workers keeps one pace: a handful of 429s at most, nothing blocked', { timeout: FULL_RUN_TIMEOUT_MS + 60_000 }, withDirectory('dxs-rate-limit-per-address-', async (directory) => {
  const { results } = await fullRunPassesBehind('rate-limit-per-address', directory);
  const gateway = results.gateway;
  const met = (gateway?.byStatus['429'] ?? 0) - (gateway?.observed ?? 0);
  console.log(`per-address gateway, ${results.timing?.workers ?? '?'} workers: ${gateway?.byStatus['429'] ?? 0} answers 429, ${gateway?.observed ?? 0} of them asked for by OBS-01`);
  assert.ok(met <= HANDFUL, `${met} answers 429 met by the run's pace (more than ${HANDFUL}): ${JSON.stringify(gateway)}`);
  assert.equal(gateway?.exhausted ?? false, false);
}));

test('behind the same rate limit, a fault is still caught (register-200 fails CMP-REG-01)', { timeout: AREA_RUN_TIMEOUT_MS + 60_000 }, withDirectory('dxs-rate-limit-fault-', async (directory) => {
  const run = await runDxs(['test', '--area', 'companies', '--sandbox-variant', 'rate-limit', '--sandbox-fault', 'register-200', '--report-dir', directory], { timeoutMs: AREA_RUN_TIMEOUT_MS });
  assert.equal(run.code, 1, run.stderr.slice(-3000));
  const results = readResults(directory);
  assert.ok(results.tests.some((entry) => entry.verdict === 'failed' && entry.requirementVerdicts['CMP-REG-01'] === 'failed' && (entry.failure ?? '').includes('CMP-REG-01')), 'a CMP-REG-01 test failed on the fault');
  assert.deepEqual(judgedGatewayAnswers(results), []);
}));

test('a spent --rate-limit-budget blocks the tests that meet the gateway, "rate limited by the target", said once; exit 1', { timeout: AREA_RUN_TIMEOUT_MS + 60_000 }, withDirectory('dxs-rate-limit-budget-', async (directory) => {
  // A budget shorter than one Retry-After: the first answer of the gateway spends it. One pace for the run
  // then keeps every later call under the announced limit, so the answer has to meet a test: --workers
  // leaves out the background probe, whose registration would otherwise meet it first.
  const run = await runDxs(['test', '--area', 'tokens', '--sandbox-variant', 'rate-limit', '--rate-limit-budget', '0.5', '--workers', '2', '--report-dir', directory], { env: { DXS_SANDBOX_RATE_LIMIT: '1' }, timeoutMs: AREA_RUN_TIMEOUT_MS });
  assert.equal(run.code, 1, run.stderr.slice(-3000));
  const results = readResults(directory);
  assert.ok(results.summary.blocked > 0, `tests blocked (${JSON.stringify(results.summary)})`);
  assert.equal(results.summary.failed, 0, 'the gateway fails no test');
  assert.deepEqual(judgedGatewayAnswers(results), []);
  const causes = results.rootCauses ?? [];
  assert.equal(causes.length, 1, `one root cause: ${JSON.stringify(causes.map((cause) => cause.message))}`);
  assert.equal(causes[0].prerequisite, 'rate-limit');
  assert.match(causes[0].message, /answered 429 with Retry-After: 1 \(ratelimit-policy: 1;w=1\).*budget is 0.5 s/);
  assert.equal(results.gateway?.exhausted, true);
  // Once as the root cause (the cleanup may say on its own line why it left companies).
  const said = run.stderr.split('\n').filter((line) => line.includes('rate limited by the target') && !line.startsWith('dxs test: cleanup:'));
  assert.equal(said.length, 1, `said once on the console:\n${said.join('\n')}`);
  assert.match(said[0], /^ {2}\d+ blocked: rate limited by the target: /);
  assert.match(readFileSync(join(directory, 'junit.xml'), 'utf8'), /<error message="blocked: rate limited by the target: /);
}));

test('--max-rps keeps a run under a strict limit: few or no 429s', { timeout: AREA_RUN_TIMEOUT_MS + 60_000 }, withDirectory('dxs-max-rps-', async (directory) => {
  const run = await runDxs(['test', '--area', 'tokens', '--sandbox-variant', 'rate-limit', '--max-rps', '4', '--report-dir', directory], { env: { DXS_SANDBOX_RATE_LIMIT: '5' }, timeoutMs: AREA_RUN_TIMEOUT_MS });
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  const results = readResults(directory);
  const limited = results.gateway?.byStatus['429'] ?? 0;
  console.log(`--max-rps 4 under a limit of 5/s: ${limited} answers 429 (${results.gateway?.answers ?? 0} of the gateway in all)`);
  assert.equal(results.gateway?.maxRps, 4);
  // The OBS-01 burst asks for its 20 calls at once and may meet the bucket: a few, not a flood.
  assert.ok(limited <= 5, `${limited} answers 429 with --max-rps under the limit`);
  assert.match(run.stderr, /gateway: calls paced to 4\/s; /);
}));

test('maintenance answers (503 with Retry-After, in seconds and as a date) are waited out: no check judges them', { timeout: AREA_RUN_TIMEOUT_MS + 60_000 }, withDirectory('dxs-maintenance-', async (directory) => {
  const run = await runDxs(['test', '--area', 'tokens', '--sandbox-variant', 'maintenance-503', '--report-dir', directory], { timeoutMs: AREA_RUN_TIMEOUT_MS });
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  const results = readResults(directory);
  assert.ok((results.gateway?.byStatus['503'] ?? 0) > 0, `the run met the maintenance answers: ${JSON.stringify(results.gateway)}`);
  assert.deepEqual(judgedGatewayAnswers(results), []);
  assert.ok(!Object.values(results.coverage).some((byStatus) => byStatus['503'] !== undefined), 'no 503 reached a check');
  assert.match(run.stderr, /gateway: \d+ answers? \((\d+x 429, )?\d+x 503 with Retry-After\)/);
}));

test('dxs load --profile smoke passes behind a rate limit, its 429s counted apart', { timeout: AREA_RUN_TIMEOUT_MS + 60_000, skip: hasK6 ? false : 'no k6 in .tools/bin (scripts/setup.sh builds it)' }, withDirectory('dxs-rate-limit-load-', async (directory) => {
  const run = await runDxs(['load', '--profile', 'smoke', '--script', 'register-and-poll', '--sandbox-variant', 'rate-limit', '--report-dir', directory], { env: { DXS_SANDBOX_RATE_LIMIT: '5' }, timeoutMs: AREA_RUN_TIMEOUT_MS });
  assert.equal(run.code, 0, `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
  // The script's verdict line, not its progress lines ("register-and-poll: running 5.0 s: ...").
  const line = run.stdout.split('\n').find((candidate) => candidate.startsWith('register-and-poll:') && !candidate.startsWith('register-and-poll: running ')) ?? '';
  // Waited out and sent again, the gateway's answers let the calls reach the target: not a refused share (issue 57).
  assert.match(line, /passed - .* \d+ answered by the gateway \(.*\d+x 429, all waited out.*\), checks (\d+)\/\1,/);
  assert.match(readFileSync(join(directory, 'summary.html'), 'utf8'), /<th title="answers 429, 502, 503 and 504[^"]*">gateway<\/th>/);
}));

test('dxs fuzz behind a rate limit finds nothing in its 429s', { timeout: AREA_RUN_TIMEOUT_MS + 60_000, skip: hasSchemathesis ? false : 'no Schemathesis in .tools/venv (scripts/setup.sh installs it)' }, withDirectory('dxs-rate-limit-fuzz-', async (directory) => {
  const run = await runDxs(['fuzz', '--sandbox-variant', 'rate-limit', '--max-examples', '2', '--duration', '200', '--report-dir', directory], { env: { DXS_SANDBOX_RATE_LIMIT: '25' }, timeoutMs: AREA_RUN_TIMEOUT_MS });
  const output = readFileSync(join(directory, 'fuzz-output.txt'), 'utf8');
  assert.equal(run.code, 0, `${run.stderr.slice(-2000)}\n${output.slice(-3000)}`);
  assert.match(run.stderr, /--rate-limit auto/);
  // Bounded by --duration: what it fuzzed until then holds no finding, and none on a 429.
  assert.match(run.stderr, /dxs fuzz: 0 failure\(s\)/);
  assert.doesNotMatch(output, /got `429|\[429\]/);
}));
