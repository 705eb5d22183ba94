// Merges the results.json of several shards into one run: tests side by side, coverage summed,
// the run's status the worst of the shards'.
import { mergeCleanups } from './cleanup.ts';
import { rootCausesOf } from './root-causes.ts';
import { mergeTransportSummaries } from './transport.ts';
import { mergeGatewaySummaries } from './rate-limits.ts';
import { summarise, type Results, type RunStatus } from './results.ts';

const STATUS_ORDER: RunStatus[] = ['passed', 'failed', 'interrupted', 'error', 'unreachable'];

export function mergeResults(parts: readonly Results[]): Results {
  if (parts.length === 0) throw new Error('nothing to merge');
  const tests = new Map<string, Results['tests'][number]>();
  const coverage: Results['coverage'] = {};
  for (const part of parts) {
    for (const test of part.tests) {
      // A test that ran in one shard and was "not run" in another keeps the shard where it ran.
      const existing = tests.get(test.id);
      if (existing === undefined || existing.status === 'not run' || existing.status === 'skipped') tests.set(test.id, test);
    }
    for (const [endpoint, statuses] of Object.entries(part.coverage)) {
      const merged = (coverage[endpoint] ??= {});
      for (const [status, count] of Object.entries(statuses)) merged[status] = (merged[status] ?? 0) + count;
    }
  }
  const all = [...tests.values()];
  const summary = summarise(all);
  const started = Math.min(...parts.map((part) => Date.parse(part.run.startedAt)));
  const finished = Math.max(...parts.map((part) => Date.parse(part.run.finishedAt)));
  const partStatus = parts.map((part) => part.run.status).reduce((worst, status) => (STATUS_ORDER.indexOf(status) > STATUS_ORDER.indexOf(worst) ? status : worst), 'passed' as RunStatus);
  const status: RunStatus = summary.failed + summary.blocked > 0 && (partStatus === 'passed' || partStatus === 'failed') ? 'failed' : partStatus;
  const targets = [...new Set(parts.map((part) => part.run.target))];
  const messages = parts.map((part) => part.run.message).filter((message): message is string => message !== undefined);
  if (targets.length > 1) messages.unshift(`the shards ran against different targets: ${targets.join(', ')}`);
  const first = parts[0].run;
  return {
    format: 'dxs-results/1',
    run: {
      ...first,
      target: targets.join(', '),
      areas: [...new Set(parts.flatMap((part) => part.run.areas))],
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date(finished).toISOString(),
      durationMs: finished - started,
      status,
      message: messages.length > 0 ? messages.join('; ') : undefined,
      shards: parts.flatMap((part, index) => (part.run.shards.length > 0 ? part.run.shards : [`part ${index + 1}`])),
    },
    summary,
    tests: all,
    coverage,
    ...mergedCleanup(parts),
    rootCauses: summary.blocked > 0 ? rootCausesOf(all) : undefined,
    gateway: mergeGatewaySummaries(parts.map((part) => part.gateway)),
    transport: mergeTransportSummaries(parts.map((part) => part.transport)),
  };
}

/** Each shard cleaned up after itself: the merged report shows their cleanups together. */
function mergedCleanup(parts: readonly Results[]): Pick<Results, 'cleanup'> {
  const cleanups = parts.flatMap((part) => (part.cleanup === undefined ? [] : [part.cleanup]));
  return cleanups.length === 0 ? {} : { cleanup: mergeCleanups(cleanups) };
}
