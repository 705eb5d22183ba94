// Where the commands find their tools (cli/tools.ts) and what dxs doctor says of them, without
// installing anything: `dxs setup`'s k6 build takes minutes, so its folder is faked with a script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { k6Candidates, schemathesisCandidates, userToolsDir } from '../../cli/tools.ts';
import { findK6, K6NotFound } from '../../cli/commands/load/k6.ts';
import { checkTools, doctorText } from '../../cli/commands/doctor.ts';

const scratch = mkdtempSync(join(tmpdir(), 'dxs-tools-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\necho "k6 v0.0.0-fake"\n');
  chmodSync(path, 0o755);
  return path;
}

test("dxs setup's folder: DXS_CACHE_DIR, else $XDG_CACHE_HOME/dxs, else ~/.cache/dxs", () => {
  assert.equal(userToolsDir({ DXS_CACHE_DIR: '/c/dxs', XDG_CACHE_HOME: '/x' }, '/home/u'), '/c/dxs');
  assert.equal(userToolsDir({ XDG_CACHE_HOME: '/x' }, '/home/u'), '/x/dxs');
  assert.equal(userToolsDir({ XDG_CACHE_HOME: '' }, '/home/u'), '/home/u/.cache/dxs');
});

test("k6 is looked for at --k6, K6_BIN, PATH, the clone's .tools/bin, then dxs setup's folder", () => {
  const env = { PATH: '/nowhere', DXS_CACHE_DIR: join(scratch, 'order') };
  assert.deepEqual(k6Candidates('/given/k6', env, '/clone/.tools/bin/k6').map((candidate) => candidate.source), ['--k6', 'K6_BIN', 'PATH', '.tools/bin/k6', 'dxs setup']);
  assert.equal(k6Candidates(undefined, env).at(-1)?.path, join(scratch, 'order', 'bin', 'k6'));
});

test("an installed package with no .tools/ finds the k6 that dxs setup built, and a clone's own comes first", () => {
  const cache = join(scratch, 'cache');
  const env = { PATH: '/nowhere', DXS_CACHE_DIR: cache };
  assert.throws(() => findK6(undefined, '/nonexistent/.tools/bin/k6', env), (error: Error) => error instanceof K6NotFound && /dxs setup --tool k6/.test(error.message));
  const setupK6 = executable(join(cache, 'bin', 'k6'));
  assert.equal(findK6(undefined, '/nonexistent/.tools/bin/k6', env), setupK6);
  const cloneK6 = executable(join(scratch, 'clone', '.tools', 'bin', 'k6'));
  assert.equal(findK6(undefined, cloneK6, env), cloneK6);
  // Given by the user, a wrong path is said, not passed over for another k6.
  assert.throws(() => findK6('/nonexistent/k6', cloneK6, env), /given by --k6/);
});

test("Schemathesis: the clone's .tools/venv, then dxs setup's venv, then PATH; --schemathesis alone when given", () => {
  const env = { PATH: '/nowhere', DXS_CACHE_DIR: join(scratch, 'venvs') };
  assert.deepEqual(schemathesisCandidates(undefined, env, '/clone').map(({ source, path }) => [source, path]), [
    ['.tools/venv', '/clone/.tools/venv/bin/schemathesis'],
    ['dxs setup', join(scratch, 'venvs', 'venv', 'bin', 'schemathesis')],
    ['PATH', undefined],
  ]);
  assert.deepEqual(schemathesisCandidates('/given/schemathesis', env).map(({ source }) => source), ['--schemathesis']);
});

test('dxs doctor names, per command, the missing tool and the command that installs it', () => {
  const env = { PATH: '/nowhere', DXS_CACHE_DIR: join(scratch, 'empty'), DXS_CHROMIUM: '/nonexistent/chromium' };
  const checks = checkTools(env);
  const byTool = new Map(checks.map((check) => [check.tool.split(' ')[0], check]));
  assert.ok(byTool.get("Playwright's")?.found !== undefined, 'the test runner is a dependency');
  assert.equal(byTool.get('Chromium')?.found, undefined);
  const text = doctorText(checks, '0.0.0', env);
  assert.match(text, /spec: document-exchange-api\.md sha256 [0-9a-f]{64}/);
  assert.match(text, /dxs certify, client-check --certify: Chromium[^\n]*\n {2}MISSING[^\n]*\n {2}install: apt-get install chromium/);
  assert.match(text, /dxs load: k6\n/);
  assert.match(text, /dxs fuzz: Schemathesis\n/);
  assert.match(text, /missing: `dxs setup` installs k6 and Schemathesis into /);
});
