// The suite proves itself (issue 6): `dxs test` against a sandbox with each fault must fail, in the
// test expected for that fault; against the clean sandbox and each variant it must pass. Runs go
// through the CLI as a user would, a few at once, each bounded in time; the table is printed.
// DXS_KILL_TABLE=name,name runs a subset (clean, variant or fault names, or faults / variants;
// none skips the table); DXS_KILL_TABLE_KEEP=1 keeps each run's report directory;
// DXS_KILL_TABLE_CONCURRENCY sets how many runs go at once (3: Playwright's start dominates the
// short fault runs, so a third run fills the cores while the other two start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../sandbox/index.ts';
import { BASE_VARIANTS, FAULTS } from '../../sandbox/faults.ts';
import { loadRequirements, requirementById } from '../../schemas/requirements.ts';
import { catalogClaims, describeUnbacked } from '../../report/catalog-claims.ts';
import type { Results } from '../../report/results.ts';
import { pool, runDxs } from '../runner/helpers.ts';
import { FAULT_EXPECTATIONS, LOAD_CLEAN_RUNS, LOAD_FAULT_EXPECTATIONS, LOAD_ONLY_FAULTS, VARIANT_AREAS } from './expectations.ts';
import { findK6 } from '../../cli/commands/load/k6.ts';

/** Bounds, not assertions: a run that takes longer is killed and reported as such. */
const AREA_RUN_TIMEOUT_MS = 180_000;
const FULL_RUN_TIMEOUT_MS = 420_000;
const FAULT_ASYNC_TIMEOUT_SECONDS = 10;
/** DXS_KILL_TABLE_WHOLE_AREAS=1: fault runs take every test of their areas (slower; shows faults caught only elsewhere). */
const WHOLE_AREAS = process.env.DXS_KILL_TABLE_WHOLE_AREAS === '1';
const CONCURRENCY = Math.max(1, Number(process.env.DXS_KILL_TABLE_CONCURRENCY ?? 3));

interface Job {
  kind: 'clean' | 'variant' | 'fault';
  name: string;
  areas: string[] | 'all';
  faults: string[];
  variants: string[];
  destructive: boolean;
  /** Faults: the catalog ID whose test must fail. */
  requirement?: string;
  /** Faults: the sandbox's step delay, when not the default. */
  asyncDelayMs?: number;
  /** Faults that break a shared prerequisite: it must be named as a root cause. */
  prerequisite?: string;
  /** Faults whose catching requirement rests on hardening: judged with --strict (issue 21). */
  strict?: boolean;
}

interface Outcome {
  job: Job;
  exit: number | null;
  ok: boolean;
  /** Why the row is not ok, or what caught the fault. */
  note: string;
  seconds: number;
  /** Faults: the tests (file › title) that failed with the expected ID. */
  catchers?: string[];
  /** The clean run: the verdict of each test (file › title). */
  verdicts?: Map<string, string>;
}

const testKey = (entry: { file: string; title: string }): string => `${entry.file} › ${entry.title}`;

function jobs(): Job[] {
  // The clean and variant runs take the destructive tests too: a test that catches a fault proves
  // something only if it passes against the clean sandbox, and a variant may reach the deletes.
  const all: Job[] = [{ kind: 'clean', name: 'clean', areas: 'all', faults: [], variants: [], destructive: true }];
  for (const name of Object.keys(BASE_VARIANTS)) {
    // camel is the default casing: the clean run already is the camel run.
    if (name === 'camel') continue;
    all.push({ kind: 'variant', name, areas: VARIANT_AREAS[name], faults: [], variants: [name], destructive: true });
  }
  for (const [name, expectation] of Object.entries(FAULT_EXPECTATIONS)) {
    all.push({ kind: 'fault', name, areas: expectation.areas, faults: [name], variants: [], destructive: expectation.destructive ?? false, requirement: expectation.requirement, asyncDelayMs: expectation.asyncDelayMs, prerequisite: expectation.prerequisite, strict: requirementById(expectation.requirement)?.basis === 'hardening' });
  }
  const only = process.env.DXS_KILL_TABLE?.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (only === undefined || only.length === 0) return all;
  // "faults" and "variants" stand for every job of that kind.
  return all.filter((job) => only.includes(job.name) || (only.includes('faults') && job.kind === 'fault') || (only.includes('variants') && job.kind !== 'fault'));
}

function failedWith(results: Results, requirement: string): { attributed: boolean; titles: string[]; keys: string[] } | undefined {
  // Attributed: the failure names the requirement, not only a fixture or a crash in the same test.
  const names = (entry: Results['tests'][number]) => (entry.failure ?? '').includes(requirement);
  // The tests whose failure names the ID come first: the table shows one of them.
  const failing = results.tests
    .filter((entry) => entry.verdict === 'failed' && entry.requirementVerdicts[requirement] === 'failed')
    .sort((left, right) => Number(names(right)) - Number(names(left)));
  if (failing.length === 0) return undefined;
  const attributed = names(failing[0]);
  return { attributed, titles: failing.map((entry) => entry.title), keys: failing.map(testKey) };
}

async function run(job: Job): Promise<Outcome> {
  const started = Date.now();
  const directory = mkdtempSync(join(tmpdir(), `dxs-kill-${job.name}-`));
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', faults: job.faults, variants: job.variants, asyncDelayMs: job.asyncDelayMs });
  const timeoutMs = job.areas === 'all' ? FULL_RUN_TIMEOUT_MS : AREA_RUN_TIMEOUT_MS;
  const args = [
    'test', '--base-url', sandbox.baseUrl, '--api-key', sandbox.apiKey, '--api-key-without-delete', sandbox.apiKeyWithoutDelete,
    // A run of whole areas waits on background chains more than it computes: two workers halve its wall time.
    // A fault run of a few tests (--grep) gains nothing from a second worker's start.
    '--report-dir', directory, '--workers', job.kind === 'fault' && job.prerequisite === undefined ? '1' : '2',
  ];
  if (job.areas !== 'all') args.push('--area', ...job.areas);
  if (job.destructive) args.push('--destructive');
  // A fault that breaks only a good practice is caught only where the run holds to good practice.
  if (job.strict === true) args.push('--strict');
  if (job.kind === 'fault') {
    // A fault that stops background work makes every wait run to the end; the sandbox needs far less.
    args.push('--async-timeout', String(FAULT_ASYNC_TIMEOUT_SECONDS));
    // Only the tests that carry the expected ID, unless the whole areas are asked for: Playwright's
    // start dominates a run, and the proof is that this test fails.
    // A prerequisite fault proves itself on the whole areas: the tests that need the prerequisite must end blocked.
    if (!WHOLE_AREAS && job.prerequisite === undefined) args.push('--grep', `@${job.requirement}(?![\\w-])`);
  }
  const outcome = (exit: number | null, ok: boolean, note: string, extra: Partial<Outcome> = {}): Outcome => ({ job, exit, ok, note, seconds: (Date.now() - started) / 1000, ...extra });
  try {
    const result = await runDxs(args, { timeoutMs });
    if (result.code === null) return outcome(null, false, `no answer within ${timeoutMs / 1000} s: the run was killed`);
    const resultsFile = join(directory, 'results.json');
    if (!existsSync(resultsFile)) return outcome(result.code, false, `no results.json (${result.stderr.trim().split('\n').pop() ?? ''})`);
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
    // Each failed test with the IDs its failure message names ("TOK-11 (SECURITY) ..."), or "setup" when none.
    const failedTitles = results.tests
      .filter((entry) => entry.verdict === 'failed')
      .map((entry) => `${entry.title} [${[...(entry.failure ?? '').matchAll(/([A-Z]{2,4}(?:-[A-Z]{2,4})?-\d{2}) \((?:MUST|SECURITY)\)/g)].map((match) => match[1]).join(',') || 'setup'}]`);
    if (job.kind !== 'fault') {
      const verdicts = new Map(results.tests.map((entry) => [testKey(entry), entry.verdict as string]));
      if (result.code === 0 && job.kind === 'clean') {
        // The whole catalog ran: every endpoint an ID names must be called by a test of that ID (issue 40).
        const claims = catalogClaims(results, loadRequirements());
        if (claims.unbacked.length > 0) return outcome(0, false, `the catalog claims endpoints its tests did not call: ${claims.unbacked.map(describeUnbacked).join('; ')}`);
        return outcome(0, true, `${results.summary.passed} passed, ${results.summary.warning} warning, ${results.summary.info} info, ${results.summary.skipped} skipped; ${claims.backed.length} catalog IDs backed by their tests' calls`, { verdicts });
      }
      if (result.code === 0) return outcome(0, true, `${results.summary.passed} passed, ${results.summary.warning} warning, ${results.summary.info} info, ${results.summary.skipped} skipped`, { verdicts });
      return outcome(result.code, false, failedTitles.length > 0 ? `rejected by: ${failedTitles.join('; ')}` : `run status ${results.run.status}: ${results.run.message ?? ''}`);
    }
    const requirement = job.requirement as string;
    const caught = failedWith(results, requirement);
    if (result.code !== 1) return outcome(result.code, false, `exit ${result.code}, expected 1 (${results.run.status}${results.run.message ? `: ${results.run.message}` : ''})`);
    if (caught === undefined) {
      return outcome(1, false, failedTitles.length > 0 ? `caught only elsewhere: ${failedTitles.join('; ')}` : 'no failed test');
    }
    if (job.prerequisite !== undefined) {
      const cause = results.rootCauses?.find((group) => group.prerequisite === job.prerequisite && group.requirement === requirement);
      if (cause === undefined) return outcome(1, false, `no root cause [${job.prerequisite}] ${requirement} (root causes: ${(results.rootCauses ?? []).map((group) => `[${group.prerequisite}] ${group.requirement}`).join(', ') || 'none'})`);
      return outcome(1, true, `${caught.titles[0]}; root cause [${job.prerequisite}] blocked ${cause.tests.length}`, { catchers: caught.keys });
    }
    return outcome(1, true, `${caught.attributed ? '' : '(unattributed) '}${caught.titles[0]}`, { catchers: caught.keys });
  } finally {
    await sandbox.close();
    if (process.env.DXS_KILL_TABLE_KEEP === undefined) rmSync(directory, { recursive: true, force: true });
    else console.log(`kill table: ${job.name} report kept in ${directory}`);
  }
}

function table(outcomes: readonly Outcome[]): string {
  const faults = outcomes.filter((outcome) => outcome.job.kind === 'fault');
  const others = outcomes.filter((outcome) => outcome.job.kind !== 'fault');
  const width = Math.max(...outcomes.map((outcome) => outcome.job.name.length), 8);
  const lines = [`${'fault'.padEnd(width)} | expected ID     | exit | caught? | seconds | test`];
  for (const { job, exit, ok, note, seconds } of faults) {
    const expected = `${job.requirement ?? ''}${job.strict === true ? ' (strict)' : ''}`;
    lines.push(`${job.name.padEnd(width)} | ${expected.padEnd(12)} | ${String(exit ?? '-').padEnd(4)} | ${(ok ? 'caught' : 'SURVIVED').padEnd(7)} | ${seconds.toFixed(0).padStart(7)} | ${note}`);
  }
  lines.push('', `${'variant'.padEnd(width)} | areas        | exit | accepted? | seconds | note`);
  for (const { job, exit, ok, note, seconds } of others) {
    const areas = job.areas === 'all' ? 'all' : job.areas.join(',');
    lines.push(`${job.name.padEnd(width)} | ${areas.slice(0, 12).padEnd(12)} | ${String(exit ?? '-').padEnd(4)} | ${(ok ? 'accepted' : 'REJECTED').padEnd(9)} | ${seconds.toFixed(0).padStart(7)} | ${note}`);
  }
  return lines.join('\n');
}

test('every fault has a description and an expectation naming a MUST or SECURITY requirement; every variant names its areas', () => {
  assert.ok(Object.keys(FAULTS).length >= 40, `at least 40 faults (${Object.keys(FAULTS).length})`);
  assert.deepEqual([...Object.keys(FAULT_EXPECTATIONS), ...Object.keys(LOAD_ONLY_FAULTS)].sort(), Object.keys(FAULTS).sort(), 'every fault has an expectation of dxs test, or is load-only with a reason, never both');
  for (const [name, reason] of Object.entries(LOAD_ONLY_FAULTS)) assert.ok(reason.length > 20, `${name} says why only dxs load catches it`);
  for (const [name, description] of Object.entries(FAULTS)) assert.ok(description.length > 10, `${name} has a description`);
  for (const [name, expectation] of Object.entries(FAULT_EXPECTATIONS)) {
    const requirement = requirementById(expectation.requirement);
    assert.ok(requirement !== undefined, `${name}: ${expectation.requirement} is in the catalog`);
    assert.ok(requirement.level === 'MUST' || requirement.level === 'SECURITY', `${name}: ${expectation.requirement} is MUST or SECURITY (${requirement.level})`);
    assert.ok(expectation.areas.length > 0, `${name} names its areas`);
  }
  assert.deepEqual(Object.keys(VARIANT_AREAS).sort(), Object.keys(BASE_VARIANTS).sort(), 'every variant names the areas it affects');
});

test('the kill figure: how many faults a default run catches, and how many only --strict does', () => {
  const strict = Object.entries(FAULT_EXPECTATIONS).filter(([, expectation]) => requirementById(expectation.requirement)?.basis === 'hardening');
  const all = Object.keys(FAULT_EXPECTATIONS).length;
  console.log(`kill figure: ${all - strict.length} of ${all} faults break a spec sentence or an invariant (caught by a default run); ${strict.length} break only a hardening rule (caught with --strict)${strict.length > 0 ? `: ${strict.map(([name]) => name).join(', ')}` : ''}`);
  assert.ok(all - strict.length > 0);
});

const SKIP = process.env.DXS_KILL_TABLE?.trim() === 'none' ? 'DXS_KILL_TABLE=none' : false;

test('the kill table: every fault is caught by its expected test, the clean sandbox and every variant pass', { timeout: 30 * 60_000, skip: SKIP }, async () => {
  const started = Date.now();
  const list = jobs();
  // The long full-profile runs first, so the short ones fill the gaps at the end.
  const ordered = [...list].sort((left, right) => Number(right.areas === 'all') - Number(left.areas === 'all'));
  let done = 0;
  const outcomes = await pool(ordered, CONCURRENCY, async (job) => {
    const outcome = await run(job);
    // Progress on stderr, so a long table shows it is moving.
    console.error(`kill table ${++done}/${list.length}: ${job.name} exit ${outcome.exit ?? '-'} ${outcome.ok ? 'ok' : 'NOT OK'} (${outcome.seconds.toFixed(0)} s)`);
    return outcome;
  });
  const sorted = list.map((job) => outcomes.find((outcome) => outcome.job === job) as Outcome);
  // A catch proves something only if the catching test passes against the clean sandbox (a test
  // that always fails would catch everything). Checked when the clean run is part of the table.
  const clean = sorted.find((outcome) => outcome.job.kind === 'clean')?.verdicts;
  let crossChecked = 0;
  if (clean !== undefined) {
    for (const outcome of sorted) {
      if (!outcome.ok || outcome.catchers === undefined) continue;
      crossChecked++;
      const failingClean = outcome.catchers.filter((key) => !['passed', 'warning', 'info'].includes(clean.get(key) ?? 'not run'));
      if (failingClean.length > 0) {
        outcome.ok = false;
        outcome.note = `caught by a test that does not pass against the clean sandbox: ${failingClean.map((key) => `${key} (${clean.get(key) ?? 'not run'})`).join('; ')}`;
      }
    }
  }
  const crossNote = clean === undefined ? 'catching tests not cross-checked: no clean run in this table' : `the catching tests of ${crossChecked} faults also pass against the clean sandbox`;
  console.log(`\nkill table (${list.length} runs, ${CONCURRENCY} at once, wall time ${((Date.now() - started) / 1000).toFixed(0)} s; ${crossNote})\n${table(sorted)}\n`);
  const survivors = sorted.filter((outcome) => outcome.job.kind === 'fault' && !outcome.ok);
  const rejected = sorted.filter((outcome) => outcome.job.kind !== 'fault' && !outcome.ok);
  assert.ok(
    survivors.length === 0 && rejected.length === 0,
    [
      ...survivors.map((outcome) => `fault ${outcome.job.name} survived (expected ${outcome.job.requirement} to fail): ${outcome.note}`),
      ...rejected.map((outcome) => `${outcome.job.kind} ${outcome.job.name} rejected: ${outcome.note}`),
    ].join('\n'),
  );
});

/** DXS_KILL_TABLE names the load rows "load:<fault>" (or "load:<clean run>"), or "load" for all of them. */
function loadRows<Row>(rows: Record<string, Row>): Array<[string, Row]> {
  const only = process.env.DXS_KILL_TABLE?.split(',').map((name) => name.trim()).filter((name) => name !== '');
  return Object.entries(rows).filter(([name]) => only === undefined || only.length === 0 || only.includes('load') || only.includes(`load:${name}`));
}

interface LoadSummary {
  results: Array<{ checks: Array<{ name: string; fails: number }>; exchange?: { notJudged?: number; rules: Array<{ id: string; count: number; severity: string }>; violations: Array<{ rule: string; summary: string; reproduce?: string; evidence?: Array<{ op: string; finalRead?: boolean }> }> } }>;
}

function loadSummary(directory: string): LoadSummary {
  const summaryFile = join(directory, 'summary.json');
  return existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) as LoadSummary : { results: [] };
}

function k6OrSkip(): string | false {
  try {
    findK6();
    return SKIP;
  } catch {
    return 'k6 is not built (scripts/setup.sh)';
  }
}

test('the kill table of dxs load: a smoke run fails on each fault, in a check or an exchange rule named after the expected ID; the clean sandbox and the contrarian group pass', { timeout: 10 * 60_000, skip: k6OrSkip() }, async () => {
  const rows = loadRows(LOAD_FAULT_EXPECTATIONS);
  const outcomes = await pool(rows, CONCURRENCY, async ([name, expectation]) => {
    const started = Date.now();
    const directory = mkdtempSync(join(tmpdir(), `dxs-kill-load-${name}-`));
    try {
      // A rule resting on hardening fails only with --strict, as in dxs test's table.
      const strict = requirementById(expectation.requirement)?.basis === 'hardening' ? ['--strict'] : [];
      const result = await runDxs(['load', '--script', expectation.script, '--profile', 'smoke', '--vus', '1', '--duration', '3s', ...(expectation.args ?? []), ...strict, '--sandbox-fault', expectation.fault ?? name, '--report-dir', directory], { timeoutMs: AREA_RUN_TIMEOUT_MS });
      const summary = loadSummary(directory);
      const failed = summary.results.flatMap((entry) => entry.checks).filter((check) => check.fails > 0);
      // A loss is proven by the send and the final read's answer that lacked it (issue 41).
      const proven = (violation: { evidence?: Array<{ op: string; finalRead?: boolean }> }): boolean => expectation.finalReadEvidence !== true || (violation.evidence?.some((event) => event.op === 'send') === true && violation.evidence.some((event) => event.op === 'list' && event.finalRead === true));
      // Each violation names the curl script that re-checks it, written in the report folder (issue 43).
      const scripted = (violation: { reproduce?: string }): boolean => violation.reproduce !== undefined && existsSync(join(directory, violation.reproduce));
      const exchange = summary.results.flatMap((entry) => entry.exchange?.violations.filter((violation) => violation.rule === expectation.requirement && proven(violation) && scripted(violation)) ?? []);
      const catcher = failed.find((check) => check.name.includes(expectation.requirement))?.name ?? (exchange.length > 0 ? `exchange ${exchange[0].rule}: ${exchange[0].summary}` : undefined);
      const notJudged = summary.results.reduce((sum, entry) => sum + (entry.exchange?.notJudged ?? 0), 0);
      const ok = result.code === 1 && catcher !== undefined && (expectation.noneNotJudged !== true || notJudged === 0);
      const broken = summary.results.flatMap((entry) => entry.exchange?.rules.filter((rule) => rule.count > 0).map((rule) => `${rule.id} ${rule.count}`) ?? []);
      const note = catcher === undefined ? `exit ${result.code}; failed checks: ${failed.map((check) => check.name).join('; ') || 'none'}; exchange rules broken: ${broken.join(', ') || 'none'}` : `${catcher}${expectation.noneNotJudged === true ? `; ${notJudged} not judged` : ''}`;
      return { name, expectation: { ...expectation, requirement: `${expectation.requirement}${strict.length > 0 ? ' (strict)' : ''}` }, ok, note, seconds: (Date.now() - started) / 1000, exit: result.code };
    } finally {
      if (process.env.DXS_KILL_TABLE_KEEP === undefined) rmSync(directory, { recursive: true, force: true });
    }
  });
  const width = Math.max(...outcomes.map((outcome) => outcome.name.length), 8);
  console.log(`\nkill table of dxs load (${outcomes.length} runs)\n${'fault'.padEnd(width)} | script            | expected ID     | exit | caught? | seconds | check\n${outcomes
    .map((outcome) => `${outcome.name.padEnd(width)} | ${outcome.expectation.script.padEnd(17)} | ${outcome.expectation.requirement.padEnd(15)} | ${String(outcome.exit ?? '-').padEnd(4)} | ${(outcome.ok ? 'caught' : 'SURVIVED').padEnd(7)} | ${outcome.seconds.toFixed(0).padStart(7)} | ${outcome.note}`)
    .join('\n')}\n`);
  const survivors = outcomes.filter((outcome) => !outcome.ok);
  const cleanRuns = await pool(loadRows(LOAD_CLEAN_RUNS), CONCURRENCY, async ([name, run]) => {
    const directory = mkdtempSync(join(tmpdir(), `dxs-kill-load-${name}-`));
    try {
      const variants = run.variants.length === 0 ? [] : ['--sandbox-variant', ...run.variants];
      const result = await runDxs(['load', '--script', run.script, '--profile', 'smoke', '--vus', '1', '--duration', '3s', ...(run.args ?? []), ...variants, '--report-dir', directory], { timeoutMs: AREA_RUN_TIMEOUT_MS });
      const results = loadSummary(directory).results;
      const broken = results.flatMap((entry) => entry.exchange?.rules.filter((rule) => rule.count > 0).map((rule) => `${rule.id} ${rule.count} (${rule.severity})`) ?? []);
      // After the final read a right target leaves no send unjudged (issue 41).
      const notJudged = results.reduce((sum, entry) => sum + (entry.exchange?.notJudged ?? 0), 0);
      console.log(`dxs load ${name}: exit ${result.code}; exchange rules broken: ${broken.join(', ') || 'none'}; ${notJudged} not judged`);
      return result.code === 0 && broken.length === 0 && notJudged === 0 ? undefined : `${name}: exit ${result.code}; exchange rules broken: ${broken.join(', ') || 'none'}; ${notJudged} not judged; ${result.stdout.split('\n').filter((line) => !/^[a-z-]+: running \d/.test(line) && /FAILED|failed|not judged/.test(line)).slice(0, 3).join(' / ')}`;
    } finally {
      if (process.env.DXS_KILL_TABLE_KEEP === undefined) rmSync(directory, { recursive: true, force: true });
    }
  });
  assert.deepEqual([...survivors.map((outcome) => `${outcome.name}: ${outcome.note}`), ...cleanRuns.filter((problem) => problem !== undefined)], []);
  // The same fault, caught by dxs test under the same ID: one verdict for one answer (a load-only fault has none in dxs test).
  for (const [name, expectation] of rows) if (!((expectation.fault ?? name) in LOAD_ONLY_FAULTS)) assert.equal(FAULT_EXPECTATIONS[expectation.fault ?? name]?.requirement, expectation.requirement, name);
});
