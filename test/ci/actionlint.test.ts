// The GitHub recipe (examples/ci/github-actions.yml) passes actionlint: workflow syntax, expressions
// and their types, the inputs and outputs of the actions it uses, job dependencies, and the shell of
// its run steps through shellcheck when that is on PATH (scripts/setup.sh --dev installs both).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

const ACTIONLINT = join(ROOT, '.tools', 'bin', 'actionlint');
const RECIPE = join(ROOT, 'examples', 'ci', 'github-actions.yml');
const missing = existsSync(ACTIONLINT) ? undefined : `${ACTIONLINT} is absent: run bash scripts/install-actionlint.sh (scripts/setup.sh --dev does it in CI)`;

function actionlint(args: string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync(ACTIONLINT, ['-no-color', ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

test('the GitHub Actions recipe passes actionlint', { skip: missing }, () => {
  const { status, output } = actionlint([RECIPE]);
  assert.equal(status, 0, output);
});

test('actionlint catches a broken copy of the recipe, so the check above is not empty', { skip: missing }, () => {
  const broken = readFileSync(RECIPE, 'utf8').replace('restore-keys: |', 'restore-key: |').replace("needs: conformance", 'needs: conformanse');
  const { status, output } = actionlint(['-'], broken);
  assert.equal(status, 1, output);
  assert.match(output, /restore-key/);
  assert.match(output, /conformanse/);
});
