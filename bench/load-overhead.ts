// What our k6 scaffolding costs: in one run against one sandbox, the requests per second of the
// client-tokens script (checks through lib/checks.ts, tags, sampled schema checks) beside a bare
// k6 script that only makes the same HTTP call, with the same VUs and duration. Target: the
// overhead stays under 15% of the bare throughput. Also prints the sandbox's own rate under k6
// (the bare figure). Prints, never asserts. Traffic goes to 127.0.0.1 only, bounded in time.
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { startSandbox } from '../sandbox/index.ts';
import { findK6, k6Version } from '../cli/commands/load/k6.ts';
import { DEFAULT_THRESHOLDS_FILE, runScript } from '../cli/commands/load/run.ts';
import { writeFixturePack } from '../fixtures/pack.ts';
import { newRunPrefix } from '../fixtures/run-prefix.ts';

const VUS = Number(process.env.DXS_BENCH_VUS ?? 10);
const DURATION = process.env.DXS_BENCH_DURATION ?? '5s';

/** Requests per second of one scenario: its http_reqs points over the span of their times (setup excluded). */
async function scenarioRate(rawFile: string, scenario: string): Promise<{ requests: number; perSecond: number }> {
  const input = rawFile.endsWith('.gz') ? createReadStream(rawFile).pipe(createGunzip()) : createReadStream(rawFile);
  let requests = 0;
  let first = Infinity;
  let last = -Infinity;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.includes('"http_reqs"') || !line.includes('"Point"')) continue;
    const entry = JSON.parse(line) as { data: { time: string; tags: Record<string, string> } };
    if (entry.data.tags.scenario !== scenario) continue;
    const time = Date.parse(entry.data.time);
    requests++;
    first = Math.min(first, time);
    last = Math.max(last, time);
  }
  return { requests, perSecond: last > first ? requests / ((last - first) / 1000) : 0 };
}

function bareScript(erpId: string): string {
  return `import http from 'k6/http';
export const options = { scenarios: { bare: { executor: 'constant-vus', vus: Number(__ENV.DXS_VUS), duration: __ENV.DXS_DURATION } } };
const body = JSON.stringify({ ErpId: '${erpId}' });
const params = { headers: { APIkey: __ENV.DXS_API_KEY, 'Content-Type': 'application/json' } };
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
  writeFileSync(barePath, bareScript(erpId));
  const runPrefix = newRunPrefix();
  const fixturePack = join(work, 'fixtures.json');
  writeFixturePack(fixturePack, { runPrefix, counts: { companies: 10, users: 0, identifiers: 0, networkSetupRequests: 0, providerARegistrations: 1, sendDocuments: 0, lookups: 1 } });
  const settings = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, profile: 'smoke', vus: VUS, duration: DURATION, thresholdsFile: DEFAULT_THRESHOLDS_FILE, runPrefix, fixturePack };
  // Both scripts run the way dxs load runs them (same outputs: raw JSON, dashboard, summary), so
  // the difference is the script's own work: checks, tags, schema samples.
  const bareRun = await runScript({ k6, script: 'bare', scriptFile: barePath, settings, directory: join(work, 'bare'), inheritOutput: false });
  const bare = bareRun.rawFiles.length > 0 ? await scenarioRate(bareRun.rawFiles[0], 'bare') : { requests: 0, perSecond: 0 };
  const bareCode = bareRun.exitCode;
  const ours = await runScript({ k6, script: 'client-tokens', settings, directory: join(work, 'ours'), inheritOutput: false });
  const script = ours.rawFiles.length > 0 ? await scenarioRate(ours.rawFiles[0], 'smoke') : { requests: 0, perSecond: 0 };

  const overhead = bare.perSecond > 0 ? ((bare.perSecond - script.perSecond) / bare.perSecond) * 100 : NaN;
  console.log(`k6: ${k6Version(k6) ?? k6}; ${VUS} VUs for ${DURATION} each; POST /clienttokens/create on the embedded sandbox`);
  console.log(`bare k6 script (HTTP call only):        ${bare.perSecond.toFixed(0).padStart(7)} req/s (${bare.requests} requests, k6 exit ${bareCode})`);
  console.log(`dxs client-tokens script (with checks): ${script.perSecond.toFixed(0).padStart(7)} req/s (${script.requests} requests, k6 exit ${ours.exitCode})`);
  console.log(`overhead of our script: ${overhead.toFixed(1)}% of the bare throughput (target: under 15%)`);
  console.log(`sandbox under k6: ${bare.perSecond.toFixed(0)} req/s for POST /clienttokens/create (k6 and the sandbox share the machine's cores)`);
} finally {
  await sandbox.close();
}
