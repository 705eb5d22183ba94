// Every pointer resolves (issue 60): each fault of the sandbox says in one line what it breaks, in
// `dxs sandbox --help` and in docs/sandbox.md, and the sandbox's start line names the faults and
// variants it runs with, so a log shows whether the target was the clean reference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkNames, FAULTS } from '../../sandbox/faults.ts';
import { ROOT, runDxs } from '../runner/helpers.ts';

test('every fault has a description of one line, in dxs sandbox --help and in the table of docs/sandbox.md', async () => {
  const faults = Object.entries(FAULTS);
  assert.ok(faults.length >= 40, `${faults.length} faults`);
  const help = await runDxs(['sandbox', '--help']);
  assert.equal(help.code, 0, help.stderr);
  const helpLines = new Set(help.stdout.split('\n').map((line) => line.trim().replace(/\s{2,}/, '  ')));
  const docs = readFileSync(join(ROOT, 'docs', 'sandbox.md'), 'utf8');
  const missing: string[] = [];
  for (const [name, description] of faults) {
    if (description.trim() === '' || /\n/.test(description)) missing.push(`${name}: no description of one line`);
    if (!helpLines.has(`${name}  ${description}`)) missing.push(`${name}: not in dxs sandbox --help with its description`);
    if (!docs.includes(`| \`${name}\` | ${description.replaceAll('|', '\\|')} |`)) missing.push(`${name}: not in docs/sandbox.md's table (npx tsx scripts/docs-options.ts writes it)`);
  }
  assert.deepEqual(missing, []);
});

test('the start line of dxs sandbox names its faults and variants, "none" when it is the clean one', async () => {
  const startLine = async (args: string[]): Promise<string> => {
    const run = await runDxs(['sandbox', '--port', '0', ...args], {
      timeoutMs: 60_000,
      onOutput: (output, child) => {
        if (output.includes('\n')) child.kill('SIGTERM');
      },
    });
    return run.stdout.split('\n')[0];
  };
  const [faulty, clean] = await Promise.all([startLine(['--fault', 'revoked-token-accepted', 'never-registered', '--variant', 'pascal', 'contrarian']), startLine([])]);
  assert.match(faulty, /^dxs sandbox listening on http:\/\/127\.0\.0\.1:\d+\/v1\/api \(API keys: .*\); faults: revoked-token-accepted, never-registered; variants: pascal, contrarian \(\d+ variants\)$/);
  assert.match(clean, /; faults: none; variants: none$/);
});

test('a mistyped fault or variant is answered with the name meant and where the list is, not with every name', () => {
  for (const [kind, name, meant] of [['fault', 'revokd-token-accepted', 'revoked-token-accepted'], ['fault', 'token-create500', 'token-create-500'], ['variant', 'contrarians', 'contrarian'], ['variant', 'pascl', 'pascal']] as const) {
    assert.throws(() => checkNames(kind, [name]), (error: Error) => error.message === `unknown ${kind} "${name}" (did you mean ${meant}?); every ${kind}: dxs sandbox --help`, `${kind} ${name}`);
  }
  assert.throws(() => checkNames('fault', ['nope']), (error: Error) => error.message === 'unknown fault "nope"; every fault: dxs sandbox --help');
});
