// dxs load's configuration errors (exit 2), the k6-operator bundle, and the pure parts: profiles,
// thresholds, segments, and the merge arithmetic (percentiles, threshold judgement).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PROFILE_NAMES, buildScenario, durationSeconds } from '../../load/profiles/index.ts';
import { buildThresholds, validateThresholdsFile } from '../../load/lib/thresholds.ts';
import { settingsEnvironment } from '../../load/lib/run-settings.ts';
import { parseSegment, segmentArguments } from '../../cli/commands/load/segments.ts';
import { judge, parseMetricKey, percentile } from '../../cli/commands/load/results.ts';
import { exitCodeOf } from '../../cli/commands/load.ts';
import { findK6, K6NotFound } from '../../cli/commands/load/k6.ts';
import { NO_K6, ROOT, allText, dxs, k6Binary, tempDirectory } from './helpers.ts';

const k6 = k6Binary();

test('every profile builds a k6 scenario, and the overrides reach it', () => {
  for (const name of PROFILE_NAMES) {
    const scenario = buildScenario(name, {});
    assert.match(scenario.executor, /^(constant-vus|ramping-vus|constant-arrival-rate|ramping-arrival-rate)$/, name);
  }
  assert.deepEqual(buildScenario('smoke', { vus: 3, duration: '5s' }), { executor: 'constant-vus', vus: 3, duration: '5s', exec: 'default' });
  const soak = buildScenario('soak', { rate: 7, duration: '1h' });
  assert.equal(soak.rate, 7);
  assert.equal(soak.duration, '1h');
  const average = buildScenario('average', { rate: 40, duration: '100s' }) as unknown as { stages: Array<{ target: number; duration: string }> };
  assert.deepEqual(average.stages.map((stage) => stage.duration), ['20s', '70s', '10s']);
  assert.equal(Math.max(...average.stages.map((stage) => stage.target)), 40);
  assert.deepEqual(buildScenario('stress', { iterations: 10, vus: 2 }), { executor: 'shared-iterations', vus: 2, iterations: 10, maxDuration: '10m', exec: 'default' });
  assert.throws(() => buildScenario('nope', {}), /unknown profile nope/);
  assert.equal(durationSeconds('1h30m'), 5400);
  assert.throws(() => durationSeconds('ten seconds'), /not a duration/);
});

test('thresholds are built per endpoint, with an abort on an error-rate spike', () => {
  const file = validateThresholdsFile(JSON.parse(readFileSync(new URL('../../load/thresholds/default.json', import.meta.url), 'utf8')));
  const thresholds = buildThresholds({ ...file, endpoints: { 'POST /documents': { p95: 1500 } } }, ['POST /documents', 'GET /companies/status']);
  assert.ok(thresholds['http_req_duration{name:POST /documents}'].includes('p(95)<1500'));
  assert.ok(thresholds['http_req_duration{name:GET /companies/status}'].includes(`p(95)<${file.defaults!.p95}`));
  assert.ok(thresholds['http_req_duration{name:GET /companies/status}'].includes(`p(99)<${file.defaults!.p99}`));
  assert.ok(thresholds['http_req_failed{name:GET /companies/status}'].includes(`rate<=${file.defaults!.errorRate}`));
  assert.ok(thresholds['checks{name:POST /documents}'].length === 1);
  assert.deepEqual(thresholds.http_req_failed, [{ threshold: 'rate<0.5', abortOnFail: true, delayAbortEval: '10s' }]);
  assert.throws(() => validateThresholdsFile({ defaults: { p96: 1 } }), /unknown limit/);
  assert.throws(() => validateThresholdsFile({ limits: {} }), /unknown key "limits"/);
  assert.throws(() => validateThresholdsFile({ endpoints: { 'POST /clienttoken/create': { p95: 1 } } }), /endpoints\["POST \/clienttoken\/create"\]: unknown endpoint/);
  assert.throws(() => validateThresholdsFile({ k6: { 'http_req_duration{endpoint:POST /documents}': ['p(95)<100'] } }), /endpoint is in k6's name tag, write \{name:\.\.\.\}/);
  assert.doesNotThrow(() => validateThresholdsFile({ k6: { 'http_req_duration{name:POST /documents}': ['p(95)<100'] } }));
});

test('--segment I/N maps to k6 execution segments', () => {
  assert.deepEqual(segmentArguments(parseSegment('1/2')), ['--execution-segment', '0:1/2', '--execution-segment-sequence', '0,1/2,1']);
  assert.deepEqual(segmentArguments(parseSegment('2/2')), ['--execution-segment', '1/2:1', '--execution-segment-sequence', '0,1/2,1']);
  assert.deepEqual(segmentArguments(parseSegment('2/3')).slice(1, 2), ['1/3:2/3']);
  assert.deepEqual(segmentArguments(parseSegment('1/1')).slice(1, 2), ['0:1']);
  assert.throws(() => parseSegment('0/2'), /between 1 and N/);
  assert.throws(() => parseSegment('half'), /takes I\/N/);
});

test('merged thresholds are judged like k6 does', () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(sorted, 50), 5.5);
  assert.equal(percentile(sorted, 90), 9.1);
  assert.equal(percentile([], 95), 0);
  assert.deepEqual(parseMetricKey('http_req_duration{name:POST /documents,status:200}'), { name: 'http_req_duration', tags: { name: 'POST /documents', status: '200' } });
  assert.deepEqual(parseMetricKey('checks'), { name: 'checks', tags: {} });
  const series = { values: sorted, count: 10, sum: 55, nonZero: 10, min: 1, max: 10, last: 10 } as never;
  assert.deepEqual(judge('p(90)<9', series, 'trend', 1), { ok: false, actual: 9.1 });
  assert.deepEqual(judge('avg <= 5.5', series, 'trend', 1), { ok: true, actual: 5.5 });
  const rate = { values: [1, 1, 0, 1], count: 4, sum: 3, nonZero: 3, min: 0, max: 1, last: 1 } as never;
  assert.deepEqual(judge('rate>=0.75', rate, 'rate', 1), { ok: true, actual: 0.75 });
  assert.deepEqual(judge('rate==1.01', rate, 'rate', 1), { ok: false, actual: 0.75 });
  const counter = { values: [2, 3], count: 2, sum: 5, nonZero: 2, min: 2, max: 3, last: 3 } as never;
  assert.deepEqual(judge('count<5', counter, 'counter', 2), { ok: false, actual: 5 });
  assert.deepEqual(judge('rate>2', counter, 'counter', 2), { ok: true, actual: 2.5 });
  assert.equal(judge('nonsense', counter, 'counter', 2).ok, false);
  // As in k6, no samples means nothing to judge: the threshold passes.
  assert.deepEqual(judge('rate>=0.99', undefined, 'rate', 1), { ok: true, actual: undefined });
  assert.deepEqual([0, 99, 107, 1].map(exitCodeOf), [0, 1, 2, 2]);
});

test('the k6 environment carries the settings, and the API key only when asked', () => {
  const env = settingsEnvironment({ baseUrl: 'http://127.0.0.1:1/v1/api', apiKey: 'secret-key', profile: 'smoke', vus: 2 }, false);
  assert.deepEqual(env, { DXS_BASE_URL: 'http://127.0.0.1:1/v1/api', DXS_PROFILE: 'smoke', DXS_VUS: '2' });
  assert.equal(settingsEnvironment({ baseUrl: 'x', apiKey: 'secret-key', profile: 'smoke' }, true).DXS_API_KEY, 'secret-key');
});

test('configuration errors exit 2 with a message, and the report says why nothing ran', { timeout: 120_000 }, async () => {
  const badThresholds = join(tempDirectory('config'), 'bad.json');
  writeFileSync(badThresholds, '{"defaults": {"p95": "fast"}}');
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['load', '--profile', 'nope'], {}, /--profile.*nope/],
    [['load', '--script', 'nope'], {}, /unknown script nope/],
    [['load', '--segment', '3/2'], {}, /between 1 and N/],
    [['load', '--duration', 'forever'], {}, /not a duration/],
    [['load', '--thresholds', badThresholds], {}, /p95 must be a number/],
    [['load', '--ssn-count', '500001'], {}, /at most 500000/],
    [['load', '--script', 'client-tokens'], { K6_BIN: '/nonexistent/k6' }, /K6_BIN is not an executable/],
  ];
  if (k6 !== undefined) cases.push([['load', '--script', 'client-tokens', '--base-url', 'http://127.0.0.1:9/v1/api', '--api-key', 'k'], {}, /unreachable/]);
  for (const [args, env, message] of cases) {
    const reportDir = join(tempDirectory('config'), 'report');
    const run = await dxs([...args, '--report-dir', reportDir], env, 60_000);
    assert.equal(run.code, 2, `${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, `${args.join(' ')}: a message, not a stack trace`);
    const summary = readFileSync(join(reportDir, 'summary.html'), 'utf8');
    assert.match(summary, /Not run: /, `${args.join(' ')}: the report says why nothing ran`);
    assert.match(summary.replace(/&quot;/g, '"'), message, `${args.join(' ')}: the report holds the message`);
    assert.match(readFileSync(join(reportDir, 'index.html'), 'utf8'), /dxs load - not run[\s\S]*Not run: /, `${args.join(' ')}: the index says why nothing ran`);
  }
});

test('the k6 side type-checks against k6\'s own types', { timeout: 120_000 }, () => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'load', 'tsconfig.json')], { encoding: 'utf8' });
});

test('k6 missing: the CLI says how to build it', { timeout: 60_000 }, async () => {
  const run = await dxs(['load', '--script', 'client-tokens', '--k6', '/nonexistent/k6', '--report-dir', join(tempDirectory('no-k6'), 'report')], {}, 60_000);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /not an executable.*bash scripts\/install-k6\.sh/);
  const saved = { PATH: process.env.PATH, K6_BIN: process.env.K6_BIN };
  try {
    process.env.PATH = '/nonexistent';
    delete process.env.K6_BIN;
    assert.throws(() => findK6(undefined, '/nonexistent/.tools/bin/k6'), (error: Error) => error instanceof K6NotFound && /bash scripts\/install-k6\.sh/.test(error.message));
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.K6_BIN !== undefined) process.env.K6_BIN = saved.K6_BIN;
  }
});

test('dxs load k8s writes an archive and a TestRun without the API key', { skip: k6 === undefined ? NO_K6 : false, timeout: 120_000 }, async () => {
  const out = tempDirectory('k8s');
  const run = await dxs(['load', 'k8s', '--script', 'lookup', '--parallelism', '3', '--profile', 'average', '--rate', '30', '--duration', '1m', '--base-url', 'https://staging.example/v1/api', '--results-pvc', 'dxs-results', '--out', out], { DXS_API_KEY: 'never-in-the-archive-42', K6_PROMETHEUS_RW_SERVER_URL: 'http://prometheus.monitoring:9090/api/v1/write' });
  assert.equal(run.code, 0, run.stderr);
  const manifest = readFileSync(join(out, 'testrun.yaml'), 'utf8');
  assert.match(manifest, /^apiVersion: k6\.io\/v1alpha1$/m);
  assert.match(manifest, /^kind: TestRun$/m);
  assert.match(manifest, /^ {2}parallelism: 3$/m);
  assert.match(manifest, /file: lookup\.tar/);
  assert.match(manifest, /secretKeyRef:/);
  assert.match(manifest, /^ {2}arguments: ".*--out json=\/results\/raw\.json\.gz .*--out experimental-prometheus-rw"$/m, 'the raw points go to the claim, the metrics to Prometheus');
  assert.match(manifest, /- name: K6_PROMETHEUS_RW_SERVER_URL\n\s+value: "http:\/\/prometheus\.monitoring:9090\/api\/v1\/write"/, 'the URL from the environment');
  assert.match(readFileSync(join(out, 'README.md'), 'utf8'), /kubectl create configmap dxs-load-lookup --from-file=lookup\.tar/);
  const metadata = JSON.parse(execFileSync('tar', ['xOf', join(out, 'lookup.tar'), 'metadata.json'], { encoding: 'utf8' })) as { env: Record<string, string>; options: { scenarios: Record<string, { executor: string }> } };
  assert.equal(metadata.env.DXS_PROFILE, 'average');
  assert.equal(metadata.env.DXS_API_KEY, undefined);
  assert.equal(metadata.options.scenarios.average.executor, 'ramping-arrival-rate');
  const files = allText(out).map((file) => basename(file.path)).sort();
  assert.deepEqual(files, ['README.md', 'collector.yaml', 'dxs-merge.mjs', 'fixtures.json', 'lookup.tar', 'results-pvc.yaml', 'results-reader.yaml', 'testrun.yaml']);
  for (const file of allText(out)) assert.ok(!file.text.includes('never-in-the-archive-42'), `${file.path} holds the API key`);
});

test('dxs load k8s refuses a claim that is no Kubernetes name and a Prometheus URL that is no URL', { timeout: 60_000 }, async () => {
  const out = tempDirectory('k8s-bad');
  for (const [flag, value, message] of [['--results-pvc', 'Results_Claim', /--results-pvc Results_Claim: not a Kubernetes object name/], ['--prometheus-url', 'prometheus:9090', /--prometheus-url prometheus:9090: give the remote-write endpoint/]] as const) {
    const run = await dxs(['load', 'k8s', '--script', 'lookup', flag, value, '--k6', '/nonexistent/k6', '--out', out], {}, 60_000);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
  }
});
