// A slow target that works (issue 14): `dxs test` against the sandbox with 1 s per background step
// (--async-delay 1000) behind a proxy that adds 80 ms to every call, at 2 workers and at 8. Such a
// run waits on the target, not on the cores, so the default against a remote target is 8 workers.
// Prints the figures, never asserts. DXS_BENCH_SLOW_WORKERS=2,8 (the worker counts),
// DXS_BENCH_SLOW_LATENCY_MS=80, DXS_BENCH_SLOW_STEP_MS=1000. Traffic stays on 127.0.0.1.
import { createServer, request as httpRequest, Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { startSandbox } from '../sandbox/index.ts';
import { runDxsTest } from './run-dxs-test.ts';

const latencyMs = Number(process.env.DXS_BENCH_SLOW_LATENCY_MS ?? 80);
const stepMs = Number(process.env.DXS_BENCH_SLOW_STEP_MS ?? 1000);
const workerCounts = (process.env.DXS_BENCH_SLOW_WORKERS ?? '2,8').split(',').map(Number).filter((count) => count > 0);
const KILL_AFTER_MS = 600_000;

const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', asyncDelayMs: stepMs });
const upstream = new URL(sandbox.baseUrl);
const agent = new Agent({ keepAlive: true });
// The Host header is passed on, so the sandbox's absolute Locations point at the proxy.
const proxy = createServer((incoming, outgoing) => {
  setTimeout(() => {
    const forwarded = httpRequest({ host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers, agent }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  }, latencyMs);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;

console.log(`dxs test against the sandbox with ${stepMs} ms per background step and ${latencyMs} ms added to every call`);
for (const workers of workerCounts) {
  const args = ['--base-url', baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete, '--workers', String(workers)];
  const { seconds, code, results } = await runDxsTest(args, { killAfterMs: KILL_AFTER_MS, name: 'slow' });
  const summary = results?.summary;
  const detail = summary === undefined ? 'no results.json' : `${summary.total} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.blocked ?? 0} blocked`;
  console.log(`  workers ${String(workers).padStart(2)}: ${seconds.toFixed(1).padStart(6)} s, exit ${code ?? '-'} (${detail})`);
}
proxy.close();
agent.destroy();
await sandbox.close();
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end`);
