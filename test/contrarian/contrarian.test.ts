// The contrarian sandbox (issue 21): where the spec is silent or ambiguous, the sandbox can make the
// other defensible choice, and every verdict must still be a pass. `dxs test --profile
// full-destructive` runs against the whole group, then each variant runs alone on the areas it
// touches; every run must end with 0 failed and 0 blocked tests, as a user would run it.
// DXS_CONTRARIAN=name,name runs a subset (`contrarian` for the group run, variant names; none skips
// the runs); DXS_CONTRARIAN_CONCURRENCY sets how many runs go at once (2); DXS_CONTRARIAN_KEEP=1
// keeps each run's report directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_VARIANTS, CONTRARIAN_VARIANTS, VARIANT_GROUPS, VARIANTS, checkNames, expandVariants } from '../../sandbox/faults.ts';
import { REQUIREMENT_AREAS } from '../../schemas/requirements.ts';
import type { Results } from '../../report/results.ts';
import { pool, ROOT, runDxs } from '../runner/helpers.ts';

/** Bounds, not assertions: a run that takes longer is killed and reported as such. */
const AREA_RUN_TIMEOUT_MS = 240_000;
const FULL_RUN_TIMEOUT_MS = 480_000;
const CONCURRENCY = Math.max(1, Number(process.env.DXS_CONTRARIAN_CONCURRENCY ?? 2));
const ONLY = process.env.DXS_CONTRARIAN?.split(',').map((name) => name.trim()).filter((name) => name !== '');
const SKIP = process.env.DXS_CONTRARIAN?.trim() === 'none' ? 'DXS_CONTRARIAN=none' : false;

interface Run {
  name: string;
  variants: string[];
  areas: readonly string[] | 'profile';
}

interface Outcome {
  run: Run;
  ok: boolean;
  note: string;
  seconds: number;
}

function selected(run: Run): boolean {
  return ONLY === undefined || ONLY.length === 0 || ONLY.includes(run.name);
}

async function dxsTest(run: Run): Promise<Outcome> {
  const started = Date.now();
  const directory = mkdtempSync(join(tmpdir(), `dxs-contrarian-${run.name}-`));
  const whole = run.areas === 'profile';
  // Two workers for the area runs too: they wait on background chains far more than they compute
  // (final-sent-for-pdf-paper alone: 110 s of wall time for 16 s of CPU with one worker, 40 s with two).
  const args = ['test', '--sandbox-variant', ...run.variants, '--report-dir', directory, '--workers', '2'];
  args.push(...(whole ? ['--profile', 'full-destructive'] : ['--area', ...run.areas, '--destructive']));
  const timeoutMs = whole ? FULL_RUN_TIMEOUT_MS : AREA_RUN_TIMEOUT_MS;
  const outcome = (ok: boolean, note: string): Outcome => ({ run, ok, note, seconds: (Date.now() - started) / 1000 });
  try {
    const result = await runDxs(args, { timeoutMs });
    if (result.code === null) return outcome(false, `no answer within ${timeoutMs / 1000} s: the run was killed`);
    const resultsFile = join(directory, 'results.json');
    if (!existsSync(resultsFile)) return outcome(false, `exit ${result.code}, no results.json (${result.stderr.trim().split('\n').pop() ?? ''})`);
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
    const { passed, failed, blocked, warning, info } = results.summary;
    const rejected = results.tests.filter((entry) => entry.verdict === 'failed' || entry.verdict === 'blocked');
    const counts = `${passed} passed, ${failed} failed, ${blocked} blocked, ${warning} warning, ${info} info`;
    if (result.code !== 0 || rejected.length > 0) {
      const why = rejected.map((entry) => `${entry.verdict}: ${entry.file} › ${entry.title}: ${(entry.failure ?? '').split('\n').slice(0, 3).join(' | ')}`);
      return outcome(false, `exit ${result.code}, ${counts}${why.length > 0 ? `\n    ${why.join('\n    ')}` : ` (${results.run.status}: ${results.run.message ?? ''})`}`);
    }
    return outcome(true, counts);
  } finally {
    if (process.env.DXS_CONTRARIAN_KEEP === undefined) rmSync(directory, { recursive: true, force: true });
    else console.log(`contrarian: ${run.name} report kept in ${directory}`);
  }
}

test('every contrarian variant says what it does, the spec sentence that allows it and its areas; the group holds known variants', () => {
  const names = Object.keys(CONTRARIAN_VARIANTS);
  assert.ok(names.length >= 30, `at least 30 contrarian variants (${names.length})`);
  const readme = readFileSync(join(ROOT, 'sandbox', 'README.md'), 'utf8');
  for (const [name, variant] of Object.entries(CONTRARIAN_VARIANTS)) {
    assert.ok(!(name in BASE_VARIANTS), `${name} is not also a base variant`);
    assert.ok(variant.description.length > 10, `${name} has a description`);
    assert.ok(variant.allowedBy.length > 10, `${name} names what allows it`);
    assert.ok(variant.areas.length > 0, `${name} names its areas`);
    for (const area of variant.areas) assert.ok((REQUIREMENT_AREAS as readonly string[]).includes(area), `${name}: ${area} is an area`);
    assert.ok(readme.includes(`| \`${name}\` |`), `sandbox/README.md lists ${name}`);
  }
  const group = VARIANT_GROUPS.contrarian;
  for (const name of group) assert.ok(name in VARIANTS, `the group's ${name} is a variant`);
  for (const [name, variant] of Object.entries(CONTRARIAN_VARIANTS)) {
    assert.equal(group.includes(name), variant.alone === undefined, `${name} is in the group unless it is marked alone`);
  }
  assert.deepEqual(expandVariants(['contrarian', 'slow']), [...group, 'slow']);
  assert.doesNotThrow(() => checkNames('variant', ['contrarian']));
  assert.throws(() => checkNames('variant', ['contrarians']), /unknown variant/);
});

test('dxs test --profile full-destructive passes against the whole contrarian sandbox', { timeout: FULL_RUN_TIMEOUT_MS + 60_000, skip: SKIP || !selected({ name: 'contrarian', variants: [], areas: 'profile' }) && 'not selected by DXS_CONTRARIAN' }, async () => {
  const outcome = await dxsTest({ name: 'contrarian', variants: ['contrarian'], areas: 'profile' });
  console.log(`contrarian group: ${outcome.ok ? 'passed' : 'NOT OK'} in ${outcome.seconds.toFixed(0)} s: ${outcome.note}`);
  assert.ok(outcome.ok, outcome.note);
});

test('each contrarian variant alone passes on the areas it touches', { timeout: 60 * 60_000, skip: SKIP }, async () => {
  const runs = Object.entries(CONTRARIAN_VARIANTS)
    // The access matrix (issue 40) knocks on every door the security area does. The group run (full-destructive)
    // takes it with every variant of the group; a variant that runs alone and touches security takes it here.
    .map(([name, variant]): Run => ({ name, variants: [name], areas: variant.alone !== undefined && variant.areas.includes('security') && !variant.areas.includes('access') ? [...variant.areas, 'access'] : variant.areas }))
    .filter(selected);
  let done = 0;
  const outcomes = await pool(runs, CONCURRENCY, async (run) => {
    const outcome = await dxsTest(run);
    // Progress on stderr, so a long table shows it is moving.
    console.error(`contrarian ${++done}/${runs.length}: ${run.name} ${outcome.ok ? 'ok' : 'NOT OK'} (${outcome.seconds.toFixed(0)} s)`);
    return outcome;
  });
  const width = Math.max(8, ...outcomes.map((outcome) => outcome.run.name.length));
  console.log(['', `${'variant'.padEnd(width)} | seconds | result`, ...outcomes.map((outcome) => `${outcome.run.name.padEnd(width)} | ${outcome.seconds.toFixed(0).padStart(7)} | ${outcome.ok ? '' : 'REJECTED '}${outcome.note}`)].join('\n'));
  const rejected = outcomes.filter((outcome) => !outcome.ok);
  assert.equal(rejected.length, 0, rejected.map((outcome) => `${outcome.run.name}: ${outcome.note}`).join('\n'));
});
