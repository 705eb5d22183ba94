// dxs report history over a reports folder that holds what a real one does (issue 60): runs of two
// targets, the embedded sandbox on a new port each time, a run that never reached its target and a
// --last-failed run. Each target gets its own trend; the unreached run is left out of it, saying so;
// the --last-failed run is marked and neither plotted nor taken as the reference of the next run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHistory } from '../../cli/commands/report.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';
import { writeReport } from '../../report/write.ts';

function record(title: string, verdict: 'passed' | 'failed'): TestRecord {
  return {
    id: `tokens.spec.ts#${title}`, title, file: 'contract/tokens.spec.ts', titlePath: ['tokens', title], area: 'tokens', requirements: ['TOK-01'], tags: ['@area:tokens', '@TOK-01'],
    status: verdict, verdict, durationMs: 1, annotations: [], checks: [], requirementVerdicts: { 'TOK-01': verdict },
    failure: verdict === 'failed' ? 'Error: TOK-01 (MUST) broken' : undefined,
  };
}

function run(startedAt: string, target: string, tests: TestRecord[], extra: { embedded?: boolean; status?: Results['run']['status']; message?: string; lastFailed?: Results['lastFailed'] } = {}): Results {
  const summary = summarise(tests);
  return {
    format: 'dxs-results/1',
    run: {
      target, embedded: extra.embedded ?? false, profile: 'full', areas: [], casing: 'any', destructive: false, version: '0.1.0',
      startedAt, finishedAt: startedAt, durationMs: 1000, status: extra.status ?? (summary.failed > 0 ? 'failed' : 'passed'), message: extra.message, shards: [],
    },
    summary,
    tests,
    coverage: {},
    lastFailed: extra.lastFailed,
  };
}

const STAGING = 'https://staging.example/v1/api';
const PRODUCTION = 'https://api.example/v1/api';
const all = (failing: string[]): TestRecord[] => ['a', 'b', 'c'].map((title) => record(title, failing.includes(title) ? 'failed' : 'passed'));

interface HistoryRun {
  source: string;
  kind: string;
  group: string;
  newFailures: string[];
}

test('dxs report history: a trend per target; the unreached run left out, saying so; the --last-failed run marked, no reference', (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-history-targets-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  writeReport(join(directory, '01-staging'), run('2026-01-01T00:00:00.000Z', STAGING, all(['a'])));
  writeReport(join(directory, '02-sandbox'), run('2026-01-01T01:00:00.000Z', 'http://127.0.0.1:40001/v1/api', all([]), { embedded: true }));
  writeReport(join(directory, '03-production'), run('2026-01-02T00:00:00.000Z', PRODUCTION, all([])));
  writeReport(join(directory, '04-staging-down'), run('2026-01-03T00:00:00.000Z', STAGING, [], { status: 'unreachable', message: 'the target did not answer: connect ECONNREFUSED' }));
  // Only "a" ran again, and is fixed: its counts are no full run's (1 passed, 0 failed).
  writeReport(join(directory, '05-staging-rerun'), run('2026-01-04T00:00:00.000Z', STAGING, [record('a', 'passed')], { lastFailed: { source: 'reports/01-staging', fixed: [{ id: 'a', stableId: 'a', requirements: ['TOK-01'], before: 'failed', now: 'passed' }], stillFailing: [], notRun: [] } }));
  // Against the rerun, "b" would be new and "c" would be a new test; against run 1 only "b" is new.
  writeReport(join(directory, '06-staging'), run('2026-01-05T00:00:00.000Z', STAGING, all(['b'])));
  writeReport(join(directory, '07-sandbox'), run('2026-01-05T01:00:00.000Z', 'http://127.0.0.1:40777/v1/api', all(['c']), { embedded: true }));
  // Production's first failure is its own regression, not staging's.
  writeReport(join(directory, '08-production'), run('2026-01-06T00:00:00.000Z', PRODUCTION, all(['a'])));

  const lines: string[] = [];
  t.mock.method(console, 'error', (line: string) => lines.push(line));
  assert.equal(runHistory(directory, undefined), 0);

  const history = JSON.parse(readFileSync(join(directory, 'history.json'), 'utf8')) as { runs: HistoryRun[] };
  assert.deepEqual(
    history.runs.map((entry) => [entry.source, entry.kind, entry.group, entry.newFailures.join(',')]),
    [
      ['01-staging', 'full', STAGING, ''],
      ['02-sandbox', 'full', 'the embedded sandbox', ''],
      ['03-production', 'full', PRODUCTION, ''],
      ['04-staging-down', 'unreached', STAGING, ''],
      ['05-staging-rerun', 'last-failed', STAGING, ''],
      ['06-staging', 'full', STAGING, 'contract/tokens.spec.ts › tokens › b'],
      ['07-sandbox', 'full', 'the embedded sandbox', 'contract/tokens.spec.ts › tokens › c'],
      ['08-production', 'full', PRODUCTION, 'contract/tokens.spec.ts › tokens › a'],
    ],
  );
  assert.match(lines[0], /^dxs report history: 8 runs of 3 targets, 3 regressions; 1 that never reached its target left out of the trend; 1 --last-failed marked, not plotted$/);

  const html = readFileSync(join(directory, 'history.html'), 'utf8');
  const sections = [...html.matchAll(/<section class="target" data-target="([^"]+)">([\s\S]*?)<\/section>/g)].map((match) => ({ target: match[1], body: match[2] }));
  assert.deepEqual(sections.map((section) => section.target), [STAGING, 'the embedded sandbox', PRODUCTION], 'a section per target, in the order they first ran');
  const staging = sections[0].body;
  // Staging's chart: its two full runs, four series each; neither the unreached run nor the rerun.
  assert.equal([...staging.matchAll(/<circle /g)].length, 2 * 4);
  assert.match(staging, /<tr class="last-failed">.*05-staging-rerun.*not a point of the trend/);
  assert.doesNotMatch(staging, /04-staging-down/);
  assert.equal([...sections[1].body.matchAll(/<circle /g)].length, 2 * 4, 'both sandbox runs in one trend, whatever their ports');
  const unreached = html.slice(html.indexOf('id="unreached"'));
  assert.match(html, /1 run that never reached its target, left out of the trend/);
  assert.match(unreached, /04-staging-down.*the target did not answer: connect ECONNREFUSED/);
});
