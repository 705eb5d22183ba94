// dxs as an integrator installs it (issues 44, 60): `npm pack` of the project, run with its prepack and
// postpack in a copy of the packed files (the build and npm-shrinkwrap.json, as a fresh clone packs
// after scripts/setup.sh), unpacked outside any node_modules, its locked versions installed with
// `npm ci --omit=dev` (from the registry, through the local npm cache) and linked globally into an
// empty prefix, as docs/install.md says; then run from an empty folder: dxs test against the embedded
// sandbox, dxs certify naming the spec's digest, and dxs doctor. The install prints no EBADENGINE on
// the project's Node, the versions are the lock's, Playwright locates each test at its own line, the
// reports land in that folder, not in the package, and none of them names a path of the machine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
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
// Where the unpacked package lives: outside node_modules, so that Playwright compiles its suites itself.
const installed = join(scratch, 'lib', packageName.name);
let tarball = '';
let contents: string[] = [];
let install: CliResult = { code: null, stdout: '', stderr: '' };
let pack: CliResult = { code: null, stdout: '', stderr: '' };

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

/** `npm pack` with its lifecycle scripts, in a copy of the files it packs: the build runs there, not in the repository that tests beside this one read. */
async function packInCopy(): Promise<CliResult> {
  const listing = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', env: cleanEnv() });
  assert.equal(listing.status, 0, listing.stderr);
  const files = (JSON.parse(listing.stdout) as Array<{ files: Array<{ path: string }> }>)[0].files.map((file) => file.path);
  const copy = join(scratch, 'clone');
  for (const file of [...files, 'package-lock.json', 'scripts/pack-shrinkwrap.ts']) cpSync(join(ROOT, file), join(copy, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const result = await run('npm', ['pack', '--pack-destination', scratch], copy, INSTALL_BOUND_MS);
  assert.ok(!existsSync(join(copy, 'npm-shrinkwrap.json')), 'postpack removes the shrinkwrap from the folder it packed');
  return result;
}

before(async () => {
  mkdirSync(work, { recursive: true });
  pack = await packInCopy();
  assert.equal(pack.code, 0, pack.stderr);
  tarball = join(scratch, `${packageName.name}-${packageName.version}.tgz`);
  contents = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter((line) => line !== '');
  mkdirSync(installed, { recursive: true });
  assert.equal(spawnSync('tar', ['xzf', tarball, '-C', installed, '--strip-components', '1']).status, 0);
  const ci = await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], installed, INSTALL_BOUND_MS);
  const link = ci.code === 0 ? await run('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', installed], scratch, INSTALL_BOUND_MS) : ci;
  install = { code: ci.code === 0 ? link.code : ci.code, stdout: ci.stdout + link.stdout, stderr: ci.stderr + (link === ci ? '' : link.stderr) };
});

after(() => rmSync(scratch, { recursive: true, force: true }));

test('npm pack holds what the commands need at run time: the spec, the generated artefacts and the locked versions, no tests, no benches', () => {
  assert.ok(contents.length > 100, `${contents.length} files`);
  for (const file of ['package/bin/dxs.js', 'package/cli/index.ts', 'package/spec/document-exchange-api.md', 'package/generated/k6/validators.js', 'package/fixtures/generated/pack.json', 'package/suites/playwright.config.ts', 'package/scripts/install-k6.sh', 'package/scripts/install-schemathesis.sh', 'package/npm-shrinkwrap.json']) {
    assert.ok(contents.includes(file), `${file} is in the package`);
  }
  // A release packs from a clone where nothing was built: prepack builds the generated artefacts first.
  assert.match(pack.stdout, /build: 20-fixtures\.ts done/);
  // The shrinkwrap is the lock the project's tests ran with.
  assert.equal(readFileSync(join(installed, 'npm-shrinkwrap.json'), 'utf8'), readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  assert.ok(!existsSync(join(ROOT, 'npm-shrinkwrap.json')), 'no shrinkwrap left in the repository to replace package-lock.json');
  const unwanted = contents.filter((file) => /^package\/(test|bench|\.ci|reports|node_modules|\.tools)\//.test(file));
  assert.deepEqual(unwanted, []);
});

test("installed from its tarball on the project's Node: no EBADENGINE, and the versions of the lock", () => {
  assert.equal(install.code, 0, install.stderr.slice(-3000));
  assert.doesNotMatch(install.stdout + install.stderr, /EBADENGINE/);
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  for (const name of ['@playwright/test', 'fastify', 'tsx']) {
    const version = (JSON.parse(readFileSync(join(installed, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(version, lock.packages[`node_modules/${name}`].version, name);
  }
});

test('installed from its tarball, dxs test --area tokens passes against the embedded sandbox from an empty folder, its report in that folder, each test at its own line', { timeout: RUN_BOUND_MS + 30_000 }, async () => {
  assert.equal(install.code, 0, install.stderr.slice(-3000));
  const result = await dxs(['test', '--area', 'tokens']);
  assert.equal(result.code, 0, `${result.stdout.slice(-2000)}\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, /dxs test: PASSED: [1-9]\d* passed, 0 failed/);
  const reports = join(work, 'reports');
  const runs = readdirSync(reports).filter((name) => name !== 'latest');
  assert.equal(runs.length, 1, runs.join(', '));
  assert.ok(existsSync(join(reports, runs[0], 'results.json')));
  // Playwright compiled the suites it was given as they are: each test at its own line, not all at line 1 of a compiled file.
  const tokens = (JSON.parse(readFileSync(join(reports, runs[0], 'results.json'), 'utf8')) as { tests: Array<{ file: string; line?: number }> }).tests.filter((item) => item.file === 'contract/tokens.spec.ts');
  assert.ok(tokens.length > 1, 'tokens.spec.ts ran');
  assert.ok(tokens.every((item) => item.line !== undefined && item.line > 1), JSON.stringify(tokens.map((item) => item.line)));
  assert.ok(new Set(tokens.map((item) => item.line)).size === tokens.length, 'each test at its own line');
  assert.match(result.stdout, /tokens\.spec\.ts:([2-9]|\d{2,}):\d+/);
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

test("installed, a failing test's report names no path of the machine: the stack lines in Playwright's report are relative to the package", { timeout: RUN_BOUND_MS + 30_000 }, async () => {
  assert.equal(install.code, 0, install.stderr.slice(-3000));
  const reportDir = join(work, 'failing');
  const result = await dxs(['test', '--area', 'tokens', '--grep', 'token guards', '--sandbox-fault', 'token-create-201', '--report-dir', reportDir]);
  assert.equal(result.code, 1, `${result.stdout.slice(-2000)}\n${result.stderr.slice(-3000)}`);
  const texts = reportTexts(reportDir);
  const stackLines = [...texts.entries()].filter(([file, text]) => file.includes('playwright') && /at suites\/contract\/fault-guards\.spec\.ts:\d+:\d+/.test(text));
  assert.ok(stackLines.length > 0, "Playwright's report holds the failure's stack line, relative to the package");
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
