// Wall time of `dxs test --destructive` against the embedded sandbox with each broken-prerequisite
// fault (issue 14), and against the clean sandbox: target exit 1 in under 60 s on 2 cores for each
// fault, and the clean run no slower than before. Prints the figures, never asserts.
// DXS_BENCH_FAULTS=name,name runs a subset (clean stands for the clean sandbox); DXS_BENCH_KEEP=1 keeps the reports.
import { cpus, loadavg } from 'node:os';
import { runDxsTest } from './run-dxs-test.ts';

const RUNS = ['clean', 'token-answer-without-token', 'token-create-500', 'never-registered', 'stays-pending', 'providera-status-unlisted', 'inbox-never-receives'];
const only = (process.env.DXS_BENCH_FAULTS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
/** Bounded: a run that hangs is killed, and shows as exit -. */
const KILL_AFTER_MS = 300_000;

async function run(name: string): Promise<string> {
  const args = ['--destructive', ...(name === 'clean' ? [] : ['--sandbox-fault', name])];
  const { seconds, code, results, kept } = await runDxsTest(args, { killAfterMs: KILL_AFTER_MS, keep: process.env.DXS_BENCH_KEEP === '1', name });
  let detail = 'no results.json';
  if (results !== undefined) {
    const { passed, failed, skipped, blocked } = results.summary;
    const cause = results.rootCauses?.[0];
    detail = `${passed} passed, ${failed} failed, ${skipped} skipped, ${blocked ?? 0} blocked${cause !== undefined ? `; ${results.rootCauses?.length} root cause(s), first: [${cause.prerequisite}] ${cause.requirement}` : ''}`;
  }
  return `${name.padEnd(28)} | ${seconds.toFixed(1).padStart(6)} s | exit ${code ?? '-'} | ${detail}${kept !== undefined ? ` (report kept in ${kept})` : ''}`;
}

console.log('dxs test --destructive against the embedded sandbox (target: exit 1 in under 60 s per fault on 2 cores)');
console.log(`${'sandbox'.padEnd(28)} |  wall    | exit   | tests`);
for (const name of RUNS.filter((candidate) => only.length === 0 || only.includes(candidate))) console.log(await run(name));
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end (other work on the machine inflates the figures)`);
