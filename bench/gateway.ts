// Behind a shared gateway (issue 36): `dxs test --profile full-destructive` against the embedded
// sandbox behind --sandbox-variant rate-limit-per-address (15 requests a second for the client
// address, 429 with Retry-After: 1, no RateLimit header), with the default workers and with as
// many as a slow staging gets (14). Prints the calls, the answers 429 (apart: those the OBS-01
// burst asks for on purpose), the tests blocked, and the wall time against calls ÷ limit, the
// least a run of that many calls can take behind the limit. Never asserts. Traffic stays on 127.0.0.1.
// DXS_BENCH_GATEWAY_WORKERS=default,14 (a list; "default" leaves --workers out), DXS_BENCH_GATEWAY_ARGS.
import { loadavg } from 'node:os';
import { DEFAULT_SANDBOX_RATE_LIMIT } from '../sandbox/gateway.ts';
import { runDxsTest } from './run-dxs-test.ts';

const KILL_AFTER_MS = 900_000;
const workerCounts = (process.env.DXS_BENCH_GATEWAY_WORKERS ?? 'default,14').split(',').map((value) => value.trim()).filter(Boolean);
const extra = (process.env.DXS_BENCH_GATEWAY_ARGS ?? '').split(' ').filter(Boolean);
const limit = DEFAULT_SANDBOX_RATE_LIMIT;

console.log(`dxs test --profile full-destructive --sandbox-variant rate-limit-per-address (${limit} requests/s per client address)${extra.length > 0 ? ` ${extra.join(' ')}` : ''}`);
for (const workers of workerCounts) {
  const load = loadavg()[0];
  const args = ['--profile', 'full-destructive', '--sandbox-variant', 'rate-limit-per-address', ...(workers === 'default' ? [] : ['--workers', workers]), ...extra];
  const { seconds, code, results } = await runDxsTest(args, { killAfterMs: KILL_AFTER_MS, name: 'gateway' });
  const summary = results?.summary;
  const gateway = results?.gateway;
  // The tests' calls, the cleanup's deletes; the background probe's few calls are not counted.
  const calls = (results?.timing?.calls ?? 0) + (results?.cleanup?.deleted.length ?? 0) + (results?.cleanup?.left.length ?? 0);
  const floor = calls / limit;
  const limited = gateway?.byStatus['429'] ?? 0;
  const observed = gateway?.observed ?? 0;
  console.log(`${workers === 'default' ? 'default workers' : `--workers ${workers}`} (${results?.timing?.workers ?? '?'} workers), load average ${load.toFixed(1)} at its start:`);
  console.log(`  ${summary === undefined ? 'no results.json' : `${summary.total} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.blocked ?? 0} blocked`}; exit ${code ?? 'killed'}`);
  console.log(`  ${calls} calls; ${limited} answered 429 (${observed} of them asked for by the OBS-01 burst, ${limited - observed} met by the run's pace); waited ${((gateway?.waitedMs ?? 0) / 1000).toFixed(1)} s for them`);
  console.log(`  wall ${seconds.toFixed(1)} s against calls ÷ limit ${floor.toFixed(1)} s: ${floor > 0 ? (seconds / floor).toFixed(2) : '-'}x`);
}
console.log(`machine: load average ${loadavg()[0].toFixed(1)} at the end (other processes share the cores: compare runs made at like load)`);
