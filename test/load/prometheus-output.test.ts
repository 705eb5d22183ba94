// dxs load --out experimental-prometheus-rw against a real Prometheus (Debian's package, started
// here on 127.0.0.1 with its remote-write receiver on): the run's requests arrive per endpoint,
// under the name tag our scripts give each request, configured by k6's own variable
// (K6_PROMETHEUS_RW_SERVER_URL). And --dashboard with it: the run still ends when k6 does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dxs, k6Binary, NO_K6 } from './helpers.ts';
import { checkOutput, dashboardEnvironment, dashboardPort, DEFAULT_DASHBOARD_PORT, outputArguments, outputEnvironment } from '../../cli/commands/load/outputs.ts';

const PROMETHEUS = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
const k6 = k6Binary();
const skip = PROMETHEUS === '' ? "Debian's prometheus is not installed (scripts/setup.sh --dev installs it)" : k6 === undefined ? NO_K6 : false;
const READY_BOUND_MS = 30_000;
const scratch = mkdtempSync(join(tmpdir(), 'dxs-prometheus-'));
let prometheus: ChildProcess | undefined;
let base = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function untilReady(): Promise<void> {
  const deadline = Date.now() + READY_BOUND_MS;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`Prometheus was not ready within ${READY_BOUND_MS} ms`);
}

before(async () => {
  if (skip !== false) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // No scrape targets: what it holds is what k6 wrote to it.
  writeFileSync(join(scratch, 'prometheus.yml'), 'global:\n  scrape_interval: 1m\nscrape_configs: []\n');
  prometheus = spawn(PROMETHEUS, [`--config.file=${join(scratch, 'prometheus.yml')}`, `--storage.tsdb.path=${join(scratch, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver'], { stdio: 'ignore' });
  await untilReady();
});

after(() => {
  prometheus?.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

test("dxs load --out experimental-prometheus-rw: Prometheus holds the run's requests per endpoint, as the report counts them", { skip, timeout: 240_000 }, async () => {
  const reportDir = join(scratch, 'report');
  const dashboardPort = await freePort();
  const run = await dxs(
    ['load', '--script', 'client-tokens', '--duration', '5s', '--iterations', '40', '--out', 'experimental-prometheus-rw', '--dashboard', String(dashboardPort), '--report-dir', reportDir],
    { K6_PROMETHEUS_RW_SERVER_URL: `${base}/api/v1/write`, K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s' },
    180_000,
  );
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  const summary = JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as { results: Array<{ endpoints: Array<{ endpoint: string; requests: number }> }> };
  const reported = new Map(summary.results[0].endpoints.map((entry) => [entry.endpoint, entry.requests]));
  const query = new URLSearchParams({ query: 'sum by (name) (k6_http_reqs_total)' });
  const answer = (await (await fetch(`${base}/api/v1/query?${query}`, { signal: AbortSignal.timeout(10_000) })).json()) as { status: string; data: { result: Array<{ metric: { name?: string }; value: [number, string] }> } };
  assert.equal(answer.status, 'success');
  const stored = new Map(answer.data.result.map((series) => [series.metric.name ?? '(no name tag)', Number(series.value[1])]));
  assert.ok(stored.size > 0, 'Prometheus holds the run');
  assert.ok(stored.has('POST /clienttokens/create'), [...stored.keys()].join(', '));
  // Every endpoint of the report, with the count the report gives it.
  for (const [endpoint, requests] of reported) assert.equal(stored.get(endpoint), requests, `${endpoint}: ${JSON.stringify([...stored])}`);
});

test('dxs load --out refuses an output it does not pass to k6, before k6 runs', { timeout: 60_000 }, async () => {
  const run = await dxs(['load', '--script', 'client-tokens', '--out', 'statsd', '--report-dir', join(scratch, 'refused')], {}, 60_000);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /--out statsd: not an output dxs passes to k6 \(known: experimental-prometheus-rw, influxdb, opentelemetry, csv, json\)/);
});

test("k6's variables of the outputs asked for reach k6, no others; the live dashboard listens on 127.0.0.1 only", () => {
  const env = { K6_PROMETHEUS_RW_SERVER_URL: 'http://127.0.0.1:9090/api/v1/write', K6_INFLUXDB_ORGANIZATION: 'acme', K6_VUS: '500', PATH: '/bin' };
  assert.deepEqual(outputEnvironment(['experimental-prometheus-rw'], env), { K6_PROMETHEUS_RW_SERVER_URL: 'http://127.0.0.1:9090/api/v1/write' });
  assert.deepEqual(outputEnvironment(['influxdb=http://127.0.0.1:8086/k6', 'csv=points.csv'], env), { K6_INFLUXDB_ORGANIZATION: 'acme' });
  assert.deepEqual(outputArguments(['csv=points.csv', 'json=points.json']), ['--out', 'csv=points.csv', '--out', 'json=points.json']);
  assert.throws(() => checkOutput('cloud'), /not an output dxs passes to k6/);
  assert.equal(dashboardPort(undefined), undefined);
  assert.equal(dashboardPort(true), DEFAULT_DASHBOARD_PORT);
  assert.equal(dashboardPort('5700'), 5700);
  assert.throws(() => dashboardPort('0'), /a port is a whole number/);
  const served = dashboardEnvironment(5700, 'dashboard.html', '1s');
  assert.equal(served.K6_WEB_DASHBOARD_HOST, '127.0.0.1');
  assert.equal(served.K6_WEB_DASHBOARD_PORT, '5700');
  assert.equal(served.K6_WEB_DASHBOARD_EXPORT, 'dashboard.html');
  // Without --dashboard no port is bound, and the export is written all the same.
  assert.equal(dashboardEnvironment(undefined, 'dashboard.html', '1s').K6_WEB_DASHBOARD_PORT, '-1');
});
