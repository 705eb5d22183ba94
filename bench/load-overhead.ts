// What our k6 scaffolding costs: in one run against one sandbox, the requests per second of the
// client-tokens script (checks through lib/checks.ts, tags, sampled schema checks) beside a bare
// k6 script that only makes the same HTTP call, with the same VUs and duration. Target: the
// overhead stays under 15% of the bare throughput. Also prints the sandbox's own rate under k6
// (the bare figure). Other work on the machine moves req/s a lot from run to run, so the scripts
// take turns for DXS_BENCH_ROUNDS rounds, each round in another order, and the overhead is the
// median of the rounds' own overheads (each script against the bare run of its round, which drifts
// with the machine's load alike); the sandbox's CPU
// time per request (it runs in this process) and k6's (sampled from /proc while the scenario runs,
// so k6's start, the VUs' init and setup() are left out) are printed too: they move much less
// with that noise than req/s. A third script, the floor, is the bare call plus only what the
// issue asks of every request: the endpoint in k6's name tag, the status rule (responseCallback) and the
// per-endpoint thresholds; no checks, no shared modules. Its overhead is what no script with those
// thresholds can go under. Prints, never asserts. Traffic goes to 127.0.0.1 only, bounded in time and count.
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { startSandbox } from '../sandbox/index.ts';
import { findK6, k6Version } from '../cli/commands/load/k6.ts';
import { DEFAULT_THRESHOLDS_FILE, runScript } from '../cli/commands/load/run.ts';
import { buildThresholds, validateThresholdsFile } from '../load/lib/thresholds.ts';
import { DEFAULT_CHECK_INTERVAL, DEFAULT_SCHEMA_SAMPLE } from '../load/lib/run-settings.ts';
import { writeFixturePack } from '../fixtures/pack.ts';
import { newRunPrefix } from '../fixtures/run-prefix.ts';
import { processCpu } from './process-cpu.ts';

const VUS = Number(process.env.DXS_BENCH_VUS ?? 10);
const DURATION = process.env.DXS_BENCH_DURATION ?? '5s';
const ROUNDS = Math.max(1, Math.min(10, Number(process.env.DXS_BENCH_ROUNDS ?? 5)));
// Unset: the defaults of dxs load (--check-interval, --schema-sample).
const CHECK_INTERVAL = process.env.DXS_BENCH_CHECK_INTERVAL === undefined ? undefined : Number(process.env.DXS_BENCH_CHECK_INTERVAL);
const SCHEMA_SAMPLE = process.env.DXS_BENCH_SCHEMA_SAMPLE === undefined ? undefined : Number(process.env.DXS_BENCH_SCHEMA_SAMPLE);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

interface Measured {
  perSecond: number;
  requests: number;
  exitCode: number;
  /** CPU time of this process (the sandbox, mostly) per request of the run, in microseconds. */
  sandboxMicroseconds: number;
  /** CPU time of k6 per request while the scenario ran (its first second left out), in microseconds; NaN without /proc. */
  k6Microseconds: number;
}

/** CPU time of this process's children (k6) so far, in microseconds; undefined without /proc. */
function childrenCpu(): number | undefined {
  let children: string[];
  try {
    children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return undefined;
  }
  let total = 0;
  for (const pid of children) {
    const cpu = processCpu(Number(pid));
    if (cpu === undefined) return undefined;
    total += cpu;
  }
  return children.length > 0 ? total : undefined;
}

/** Samples k6's CPU time every 250 ms while it runs: [time in ms, CPU in µs]. */
function sampleK6Cpu(): () => Array<[number, number]> {
  const samples: Array<[number, number]> = [];
  const timer = setInterval(() => {
    const cpu = childrenCpu();
    if (cpu !== undefined) samples.push([Date.now(), cpu]);
  }, 250);
  return () => {
    clearInterval(timer);
    return samples;
  };
}

/** k6 CPU per request between the samples inside the scenario (its first second and last half second left out). */
function steadyCpuPerRequest(samples: Array<[number, number]>, times: number[], first: number, last: number): number {
  const start = samples.find(([time]) => time >= first + 1000);
  const end = [...samples].reverse().find(([time]) => time <= last - 500);
  if (start === undefined || end === undefined || end[0] <= start[0]) return NaN;
  const requests = times.filter((time) => time >= start[0] && time < end[0]).length;
  return requests > 0 ? (end[1] - start[1]) / requests : NaN;
}

/** Requests per second of one scenario: its http_reqs points over the span of their times (setup excluded). */
async function scenarioRate(rawFile: string, scenario: string): Promise<{ requests: number; perSecond: number; times: number[]; first: number; last: number }> {
  const input = rawFile.endsWith('.gz') ? createReadStream(rawFile).pipe(createGunzip()) : createReadStream(rawFile);
  let requests = 0;
  const times: number[] = [];
  let first = Infinity;
  let last = -Infinity;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.includes('"http_reqs"') || !line.includes('"Point"')) continue;
    const entry = JSON.parse(line) as { data: { time: string; tags: Record<string, string> } };
    if (entry.data.tags.scenario !== scenario) continue;
    const time = Date.parse(entry.data.time);
    requests++;
    times.push(time);
    first = Math.min(first, time);
    last = Math.max(last, time);
  }
  return { requests, times, first, last, perSecond: last > first ? requests / ((last - first) / 1000) : 0 };
}

const TOKEN_ENDPOINT = 'POST /clienttokens/create';

/**
 * The bare script; with `floor`, also the endpoint in the name tag, the status rule and the thresholds our
 * client-tokens script has (the same thresholds file, the same endpoints).
 */
function bareScript(erpId: string, floor: boolean): string {
  const scenario = `{ executor: 'constant-vus', vus: Number(__ENV.DXS_VUS), duration: __ENV.DXS_DURATION }`;
  const thresholds = buildThresholds(validateThresholdsFile(JSON.parse(readFileSync(DEFAULT_THRESHOLDS_FILE, 'utf8'))), [TOKEN_ENDPOINT, 'POST /companies/register', 'GET /companies/status']);
  const options = floor ? `{ scenarios: { floor: ${scenario} }, thresholds: ${JSON.stringify(thresholds)} }` : `{ scenarios: { bare: ${scenario} } }`;
  const extra = floor ? `, tags: { name: '${TOKEN_ENDPOINT}' }, responseCallback: http.expectedStatuses(200)` : '';
  return `import http from 'k6/http';
export const options = ${options};
// The same body as ours: a token valid for the recommended 10 minutes.
const body = JSON.stringify({ ErpId: '${erpId}', ValidTo: new Date(Date.now() + 10 * 60000).toISOString() });
const params = { headers: { APIkey: __ENV.DXS_API_KEY, 'Content-Type': 'application/json' }${extra} };
export default function () {
  http.post(__ENV.DXS_BASE_URL + '/clienttokens/create', body, params);
}
`;
}

const k6 = findK6();
const work = mkdtempSync(join(tmpdir(), 'dxs-bench-load-'));
const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
try {
  // The bare script needs a registered company, as our script's setup() makes its own.
  const erpId = `bench-${Date.now().toString(36)}`;
  const register = await fetch(`${sandbox.baseUrl}/companies/register`, {
    method: 'POST',
    headers: { APIkey: sandbox.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ErpId: erpId, ErpProduct: 'dxs bench', Name: 'Bench AB', Email: 'bench@bench.example', CountryCode: 'SE', OrgNo: '5560000001' }),
  });
  if (register.status !== 202) throw new Error(`registering the bench company answered ${register.status}`);
  await new Promise((resolve) => setTimeout(resolve, 500));

  const barePath = join(work, 'bare.js');
  writeFileSync(barePath, bareScript(erpId, false));
  const floorPath = join(work, 'floor.js');
  writeFileSync(floorPath, bareScript(erpId, true));
  const runPrefix = newRunPrefix();
  const fixturePack = join(work, 'fixtures.json');
  writeFixturePack(fixturePack, { runPrefix, counts: { companies: 10, users: 0, identifiers: 0, networkSetupRequests: 0, providerARegistrations: 1, sendDocuments: 0, lookups: 1 } });
  const settings = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, profile: 'smoke', vus: VUS, duration: DURATION, thresholdsFile: DEFAULT_THRESHOLDS_FILE, runPrefix, fixturePack, checkInterval: CHECK_INTERVAL, schemaSample: SCHEMA_SAMPLE };
  // Both scripts run the way dxs load runs them (same outputs: raw JSON, dashboard, summary), so
  // the difference is the script's own work: checks, tags, schema samples.
  const measure = async (label: string, round: number, scriptFile: string | undefined, scenario: string): Promise<Measured> => {
    const before = process.cpuUsage();
    const stopSampling = sampleK6Cpu();
    const run = await runScript({ k6, script: label, scriptFile, settings, directory: join(work, `${label}-${round}`), inheritOutput: false });
    const samples = stopSampling();
    const cpu = process.cpuUsage(before);
    const rate = run.rawFiles.length > 0 ? await scenarioRate(run.rawFiles[0], scenario) : { requests: 0, perSecond: 0, times: [], first: 0, last: 0 };
    return {
      requests: rate.requests,
      perSecond: rate.perSecond,
      exitCode: run.exitCode,
      sandboxMicroseconds: rate.requests > 0 ? (cpu.user + cpu.system) / rate.requests : NaN,
      k6Microseconds: steadyCpuPerRequest(samples, rate.times, rate.first, rate.last),
    };
  };
  const bareRuns: Measured[] = [];
  const floorRuns: Measured[] = [];
  const ourRuns: Measured[] = [];
  const turns: Array<() => Promise<void>> = [
    async () => void bareRuns.push(await measure('bare', bareRuns.length, barePath, 'bare')),
    async () => void floorRuns.push(await measure('floor', floorRuns.length, floorPath, 'floor')),
    async () => void ourRuns.push(await measure('client-tokens', ourRuns.length, undefined, 'smoke')),
  ];
  // Rotated each round, so that no script always runs first (or right after another one).
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < turns.length; turn++) await turns[(round + turn) % turns.length]();
  }
  const bare = median(bareRuns.map((run) => run.perSecond));
  const floor = median(floorRuns.map((run) => run.perSecond));
  const ours = median(ourRuns.map((run) => run.perSecond));
  const list = (runs: Measured[]): string => runs.map((run) => `${run.perSecond.toFixed(0)}${run.exitCode === 0 ? '' : ` (k6 exit ${run.exitCode})`}`).join(', ');
  const k6Cpu = (runs: Measured[]): string => {
    const known = runs.map((run) => run.k6Microseconds).filter((value) => Number.isFinite(value));
    return known.length === 0 ? 'n/a' : `${median(known).toFixed(0)} µs median (runs: ${known.map((value) => value.toFixed(0)).join(', ')})`;
  };
  /** Each round's overhead against that round's bare run, and their median. */
  const overheadOf = (runs: Measured[]): { median: number; rounds: string } => {
    const perRound = runs.map((run, round) => (bareRuns[round].perSecond > 0 ? ((bareRuns[round].perSecond - run.perSecond) / bareRuns[round].perSecond) * 100 : NaN));
    return { median: median(perRound), rounds: perRound.map((value) => `${value.toFixed(1)}%`).join(', ') };
  };
  const floorOverhead = overheadOf(floorRuns);
  const ourOverhead = overheadOf(ourRuns);
  const samples = `checks on a response every ${CHECK_INTERVAL ?? DEFAULT_CHECK_INTERVAL} ms per VU and endpoint${CHECK_INTERVAL === undefined ? ' (the default)' : ''}, schema on 1 in ${SCHEMA_SAMPLE ?? `${DEFAULT_SCHEMA_SAMPLE} (the default)`} of those`;
  console.log(`k6: ${k6Version(k6) ?? k6}; ${VUS} VUs for ${DURATION} per run, ${ROUNDS} rounds taking turns; POST /clienttokens/create on the embedded sandbox (${cpus().length} cores); ${samples}`);
  console.log(`bare k6 script (HTTP call only):        ${bare.toFixed(0).padStart(7)} req/s median (runs: ${list(bareRuns)})`);
  console.log(`floor (tag, status rule, thresholds):   ${floor.toFixed(0).padStart(7)} req/s median (runs: ${list(floorRuns)})`);
  console.log(`dxs client-tokens script (with checks): ${ours.toFixed(0).padStart(7)} req/s median (runs: ${list(ourRuns)})`);
  console.log(`k6 CPU per request, bare:  ${k6Cpu(bareRuns)}`);
  console.log(`k6 CPU per request, floor: ${k6Cpu(floorRuns)}`);
  console.log(`k6 CPU per request, ours:  ${k6Cpu(ourRuns)}`);
  console.log(`overhead of the floor: ${floorOverhead.median.toFixed(1)}% of the bare throughput, median of the rounds (rounds: ${floorOverhead.rounds})`);
  console.log(`overhead of our script: ${ourOverhead.median.toFixed(1)}% of the bare throughput, median of the rounds (rounds: ${ourOverhead.rounds}; target: under 15%)`);
  console.log(`sandbox under k6: ${bare.toFixed(0)} req/s for POST /clienttokens/create (k6 and the sandbox share the machine's cores); ` +
    `sandbox CPU ${median(bareRuns.map((run) => run.sandboxMicroseconds)).toFixed(0)} µs per request`);
} finally {
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}
