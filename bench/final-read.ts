// What the final read of a load run costs (issue 41) on a clean embedded sandbox: `dxs load --script
// inbox --profile average` (DXS_BENCH_DURATION, default 2m; DXS_BENCH_RATE, default the profile's
// 10 it/s), DXS_BENCH_ROUNDS runs (default 1). Prints, per run, the final read's own time (from
// summary.json: the wait for what k6 left unseen, and the whole read of each inbox), its calls,
// how many sends it waited for and found, and the sends not judged; then the wall time of the
// whole command beside k6's part. Target: at most 3 s beyond the run. Prints, never asserts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DURATION = process.env.DXS_BENCH_DURATION ?? '2m';
const RATE = process.env.DXS_BENCH_RATE;
const ROUNDS = Math.max(1, Number(process.env.DXS_BENCH_ROUNDS ?? 1));
const ROOT = new URL('../', import.meta.url).pathname;

interface Summary {
  results: Array<{ script: string; durationSeconds: number; exchange?: { sent: number; notJudged: number; arrivedByFinalRead?: number; finalRead?: { status: string; awaited: number; found: number; readers: number; calls: number; milliseconds: number } } }>;
}

for (let round = 1; round <= ROUNDS; round++) {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-bench-final-read-'));
  try {
    const started = Date.now();
    const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'dxs.js'), 'load', '--script', 'inbox', '--profile', 'average', '--duration', DURATION, ...(RATE === undefined ? [] : ['--rate', RATE]), '--report-dir', directory], { cwd: ROOT, encoding: 'utf8', timeout: 30 * 60_000 });
    const wall = (Date.now() - started) / 1000;
    const summary = JSON.parse(readFileSync(join(directory, 'summary.json'), 'utf8')) as Summary;
    const result = summary.results[0];
    const read = result?.exchange?.finalRead;
    if (read === undefined) {
      console.log(`round ${round}: exit ${run.status}, no final read in summary.json\n${run.stderr}`);
      continue;
    }
    console.log(`round ${round}: average ${DURATION}${RATE === undefined ? '' : ` at ${RATE} it/s`}: exit ${run.status}; ${result.exchange?.sent} sent, ${result.exchange?.notJudged} not judged; final read ${read.status} in ${(read.milliseconds / 1000).toFixed(2)} s: ${read.calls} calls, ${read.readers} inboxes, ${read.found} of ${read.awaited} awaited found (${result.exchange?.arrivedByFinalRead ?? 0} arrived by the final read); k6's points span ${result.durationSeconds.toFixed(1)} s, the whole command ${wall.toFixed(1)} s`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
