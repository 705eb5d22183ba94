// The GitLab recipe (examples/ci/gitlab-ci.yml) is run, not only parsed: gitlab-ci-local runs its
// conformance job in this machine's shell against a sandbox on a free port, as a GitLab runner
// would with the CI/CD variables set. The project is a throwaway git repository holding this
// checkout's files; --shell-isolation copies its tracked files into a build folder per run (never
// node_modules or .tools: the job's own `scripts/setup.sh --only node` installs them, and GitLab's
// cache, simulated, brings node_modules back to the next run) and keeps the cache and artifacts
// between the runs. --force-shell-executor runs the job without its image. Every run is narrowed
// to four token tests through DXS_AREA and DXS_GREP, variables the recipe hands to dxs untouched,
// as it would any DXS_* variable of a project. Which jobs a push, a schedule, a release tag and
// DXS_LOAD=true start is read from --list-json (which also validates the file against GitLab's schema).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.ts';
import { FAULT_EXPECTATIONS } from '../faults/expectations.ts';
import { ROOT } from '../runner/helpers.ts';

const RECIPE = 'examples/ci/gitlab-ci.yml';
const JOB = 'dxs-conformance';
const GITLAB_CI_LOCAL = join(ROOT, 'node_modules', '.bin', 'gitlab-ci-local');
/** A fault of the tokens area that breaks no shared prerequisite: a token is created without ErpId, so TOK-04 fails. */
const FAULT = 'token-erpid-optional';
const FAULT_REQUIREMENT = FAULT_EXPECTATIONS[FAULT].requirement;

const rsyncMissing = spawnSync('rsync', ['--version']).status === 0 ? undefined : 'rsync is absent (gitlab-ci-local needs it): scripts/setup.sh --dev installs it';

interface JobRun {
  code: number | null;
  /** stdout and stderr as they came. */
  output: string;
  stdout: string;
}

let project = '';
let clean: RunningSandbox | undefined;

function git(args: string[]): void {
  const result = spawnSync('git', ['-c', 'user.name=dxs', '-c', 'user.email=dxs@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: project, encoding: 'utf8' });
  assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
}

/** A git repository holding this checkout's files (uncommitted ones too), as a GitLab runner's clone would. */
function makeProject(): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const source = join(ROOT, file);
    if (!existsSync(source)) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(project, file)), { recursive: true });
    cpSync(source, join(project, file), { preserveTimestamps: true });
  }
  git(['init', '-q']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'snapshot']);
  git(['remote', 'add', 'origin', 'https://gitlab.example.com/acme/dxs.git']);
  git(['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main']);
}

/** Runs gitlab-ci-local on the recipe in the project with these CI/CD variables. */
function gitlabCiLocal(variables: Record<string, string>, args: string[]): Promise<JobRun> {
  const all = [
    '--file', RECIPE, '--home', join(project, '.gitlab-ci-local-home'), '--no-color',
    ...Object.entries(variables).flatMap(([name, value]) => ['--variable', `${name}=${value}`]),
    ...args,
  ];
  // The job sees only what a runner would give it: none of this process's DXS_* or npm settings.
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('DXS_') || name.toLowerCase().startsWith('npm_')) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(GITLAB_CI_LOCAL, all, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stdout });
    });
  });
}

/** Runs the conformance job once; its CI/CD variables point dxs at `sandbox` (or at nothing). */
function runJob(sandbox: RunningSandbox | undefined): Promise<JobRun> {
  const variables: Record<string, string> = { DXS_AREA: 'tokens', DXS_GREP: '@TOK-0[1-4]', DXS_WORKERS: '1' };
  if (sandbox !== undefined) {
    Object.assign(variables, { DXS_BASE_URL: sandbox.baseUrl, DXS_API_KEY: sandbox.apiKey, DXS_API_KEY_WITHOUT_DELETE: sandbox.apiKeyWithoutDelete });
  }
  return gitlabCiLocal(variables, ['--force-shell-executor', '--shell-isolation', '--no-artifacts-to-source', '--max-job-name-padding', '0', JOB]);
}

/** The jobs a pipeline with these variables would run (GitLab's schema is checked on the way). */
async function jobsOf(variables: Record<string, string>): Promise<string[]> {
  const run = await gitlabCiLocal(variables, ['--list-json']);
  assert.equal(run.code, 0, tail(run));
  // The listing follows any warning (one says that CI_PIPELINE_SOURCE is a predefined variable).
  return (JSON.parse(run.stdout.slice(run.stdout.search(/^\[/m))) as Array<{ name: string; when: string }>).filter((job) => job.when !== 'never').map((job) => job.name).sort();
}

const state = (...path: string[]): string => join(project, '.gitlab-ci-local', ...path);
/** What GitLab would keep of the job: its artifacts, and the last green run in the cache. */
const artifact = (file: string): string => state('artifacts', JOB, 'reports', 'ci', file);
const cachedBaseline = (): string => state('cache', 'dxs-last-green-main', '.dxs-last-green', 'results.json');
const tail = (run: JobRun): string => `exit ${run.code}\n${run.output.slice(-4000)}`;

before(async () => {
  if (rsyncMissing !== undefined) return;
  project = mkdtempSync(join(tmpdir(), 'dxs-gitlab-'));
  makeProject();
  clean = await startSandbox({ port: 0, host: '127.0.0.1' });
});

after(async () => {
  await clean?.close();
  if (project !== '') rmSync(project, { recursive: true, force: true });
});

test('each job runs when the recipe says: conformance on a push, load with DXS_LOAD, fuzz on a schedule, certify on a tag', { skip: rsyncMissing }, async () => {
  assert.deepEqual(await jobsOf({}), [JOB]);
  assert.deepEqual(await jobsOf({ DXS_LOAD: 'true' }), [JOB, 'dxs-k6', 'dxs-load-smoke']);
  assert.deepEqual(await jobsOf({ CI_PIPELINE_SOURCE: 'schedule' }), ['dxs-fuzz']);
  assert.deepEqual(await jobsOf({ CI_COMMIT_TAG: 'v1.0.0' }), ['dxs-certify']);
});

test('the conformance job passes against a conforming target, publishes junit.xml and keeps the run as the last green one', { skip: rsyncMissing }, async () => {
  const run = await runJob(clean);
  assert.equal(run.code, 0, tail(run));
  assert.match(run.output, /no baseline yet/);
  assert.match(run.output, /dxs test: PASSED/);
  assert.match(readFileSync(artifact('junit.xml'), 'utf8'), /<testsuites[^>]*failures="0"/);
  assert.ok(existsSync(artifact('index.html')), 'the report folder is an artifact');
  const kept = JSON.parse(readFileSync(cachedBaseline(), 'utf8')) as { summary: { failed: number } };
  assert.equal(kept.summary.failed, 0);
});

test('a second run restores the first one from the cache and is judged against it', { skip: rsyncMissing }, async () => {
  const run = await runJob(clean);
  assert.equal(run.code, 0, tail(run));
  assert.match(run.output, /baseline: the last green run/);
  assert.match(run.output, /against the baseline: 0 new failures, 0 known, 0 fixed/);
  assert.match(run.output, /schedule: the longest tests first/);
  const results = JSON.parse(readFileSync(artifact('results.json'), 'utf8')) as { baseline?: { newFailures: unknown[] } };
  assert.deepEqual(results.baseline?.newFailures, [], 'results.json holds the comparison with the baseline');
});

test('against a faulty target the job fails on the new failure, junit.xml is still published, and the last green run stays', { skip: rsyncMissing }, async () => {
  const before = readFileSync(cachedBaseline(), 'utf8');
  const faulty = await startSandbox({ port: 0, host: '127.0.0.1', faults: [FAULT] });
  try {
    const run = await runJob(faulty);
    assert.notEqual(run.code, 0, tail(run));
    assert.match(run.output, new RegExp(`new failure:.*${FAULT_REQUIREMENT}`));
    const junit = readFileSync(artifact('junit.xml'), 'utf8');
    assert.match(junit, /<failure/);
    assert.match(junit, new RegExp(FAULT_REQUIREMENT));
    assert.equal(readFileSync(cachedBaseline(), 'utf8'), before, 'a red run never becomes the baseline');
  } finally {
    await faulty.close();
  }
});

test('without DXS_BASE_URL the job stops at once with exit 2 instead of testing the embedded sandbox', { skip: rsyncMissing }, async () => {
  const run = await runJob(undefined);
  assert.notEqual(run.code, 0, tail(run));
  assert.match(run.output, /set the CI\/CD variable DXS_BASE_URL/);
  assert.match(run.output, /FAIL 2\b/, 'gitlab-ci-local shows the exit code');
  assert.doesNotMatch(run.output, /dxs test:/);
});
