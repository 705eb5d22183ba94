// dxs as an integrator installs it (issue 44): `npm pack` of the project, installed globally into an
// empty prefix outside the repository (its dependencies from the registry, through the local npm
// cache), then run from an empty folder: dxs test against the embedded sandbox, dxs certify naming
// the spec's digest, and dxs doctor. The reports land in that folder, not in the package, and none
// of them names a path of the machine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256 } from '../../report/manifest.ts';
import { SPEC_PATH } from '../../schemas/requirements.ts';
import { reportTexts, ROOT, type CliResult } from '../runner/helpers.ts';
import { machinePathsFound } from '../runner/machine-paths.ts';

const INSTALL_BOUND_MS = 4 * 60_000;
const RUN_BOUND_MS = 4 * 60_000;
const scratch = mkdtempSync(join(tmpdir(), 'dxs-package-'));
const prefix = join(scratch, 'prefix');
const work = join(scratch, 'work');
const packageName = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const installed = join(prefix, 'lib', 'node_modules', packageName.name);
let tarball = '';
let contents: string[] = [];
let install: CliResult = { code: null, stdout: '', stderr: '' };

/** The caller's environment without what would point the installed dxs back at the repository or at npm test's own npm. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('DXS_') || name.startsWith('npm_') || name === 'NODE_OPTIONS' || name === 'INIT_CWD') continue;
    env[name] = value;
  }
  // Node and the system's tools, not the repository's .tools/bin nor node_modules/.bin.
  env.PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
  return { ...env, CI: '1', FORCE_COLOR: '0', XDG_CACHE_HOME: join(scratch, 'cache'), ...extra };
}

function run(command: string, args: string[], cwd: string, boundMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const dxs = (args: string[]) => run(join(prefix, 'bin', 'dxs'), args, work, RUN_BOUND_MS);

before(async () => {
  mkdirSync(work, { recursive: true });
  // Without prepack's build: scripts/setup.sh built the generated artefacts already, and building
  // them again would rewrite files that tests running beside this one read.
  const pack = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', scratch], ROOT, INSTALL_BOUND_MS);
  assert.equal(pack.code, 0, pack.stderr);
  tarball = join(scratch, `${packageName.name}-${packageName.version}.tgz`);
  contents = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter((line) => line !== '');
  install = await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], scratch, INSTALL_BOUND_MS);
});

after(() => rmSync(scratch, { recursive: true, force: true }));

test('npm pack holds what the commands need at run time: the spec and the generated artefacts, no tests, no benches', () => {
  assert.ok(contents.length > 100, `${contents.length} files`);
  for (const file of ['package/bin/dxs.js', 'package/cli/index.ts', 'package/spec/document-exchange-api.md', 'package/generated/k6/validators.js', 'package/fixtures/generated/pack.json', 'package/suites/playwright.config.ts', 'package/scripts/install-k6.sh', 'package/scripts/install-schemathesis.sh']) {
    assert.ok(contents.includes(file), `${file} is in the package`);
  }
  // A release packs from a clone where nothing was built: prepack builds the generated artefacts first.
  assert.equal((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.prepack, 'tsx scripts/build.ts');
  const unwanted = contents.filter((file) => /^package\/(test|bench|\.ci|reports|node_modules|\.tools)\//.test(file));
  assert.deepEqual(unwanted, []);
});

test('installed from its tarball, dxs test --area tokens passes against the embedded sandbox from an empty folder, its report in that folder', { timeout: RUN_BOUND_MS + 30_000 }, async () => {
  assert.equal(install.code, 0, install.stderr.slice(-3000));
  const result = await dxs(['test', '--area', 'tokens']);
  assert.equal(result.code, 0, `${result.stdout.slice(-2000)}\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, /dxs test: PASSED: [1-9]\d* passed, 0 failed/);
  const reports = join(work, 'reports');
  const runs = readdirSync(reports).filter((name) => name !== 'latest');
  assert.equal(runs.length, 1, runs.join(', '));
  assert.ok(existsSync(join(reports, runs[0], 'results.json')));
  assert.ok(!existsSync(join(installed, 'reports')), 'nothing is written into the installed package');
  assert.deepEqual(machinePathsFound(reportTexts(join(reports, runs[0])), [installed, work]), []);
});

test("installed, dxs certify names the spec's digest, and its package names no path of the machine", { timeout: RUN_BOUND_MS + 30_000 }, async () => {
  assert.equal(install.code, 0, install.stderr.slice(-3000));
  // No base URL: the subject is dxs's own reference sandbox, and no deployment is named.
  const result = await dxs(['certify', '--profile', 'inbox', '--report-dir', join(work, 'certificate')]);
  // Without Chromium the package is written without its PDF and the command exits 2.
  assert.ok(result.code === 0 || (result.code === 2 && /certificate\.pdf not written/.test(result.stderr)), result.stderr.slice(-3000));
  assert.match(result.stderr, /CONFORMS to profile inbox/);
  const facts = JSON.parse(readFileSync(join(work, 'certificate', 'certificate.json'), 'utf8')) as { spec: { file: string; sha256: string } };
  assert.deepEqual(facts.spec, { file: 'document-exchange-api.md', sha256: sha256(readFileSync(SPEC_PATH)) });
  const texts = reportTexts(join(work, 'certificate'));
  for (const file of texts.keys()) if (file.endsWith('.pdf')) texts.delete(file);
  assert.deepEqual(machinePathsFound(texts, [installed, work]), []);
});

test('installed, dxs doctor names per command the tool it needs and the spec it certifies against', { timeout: 60_000 }, async () => {
  assert.equal(install.code, 0, install.stderr.slice(-3000));
  const result = await dxs(['doctor']);
  assert.ok(result.code === 0 || result.code === 1, result.stderr);
  assert.match(result.stdout, new RegExp(`spec: document-exchange-api\\.md sha256 ${sha256(readFileSync(SPEC_PATH))}`));
  assert.match(result.stdout, /dxs test, certify, client-check: Playwright's test runner \(@playwright\/test\)\n {2}found: /);
  for (const tool of ['dxs load: k6', 'dxs fuzz: Schemathesis', "dxs certify, client-check --certify: Chromium (the certificate's PDF)"]) assert.ok(result.stdout.includes(tool), tool);
  // This package has no .tools/ of its own: what is missing says how to install it.
  if (result.code === 1) assert.match(result.stdout, /install: dxs setup --tool (k6|schemathesis)|install: apt-get install chromium/);
});
