// Usage errors and help, as a user meets them (issue 60): a mistyped option of any command is
// answered in three lines at most (what was wrong, the closest option when one is near, where the
// command's help is) with exit 2; and each command's help speaks of that command, not of dxs test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, runDxs, type CliResult } from '../runner/helpers.ts';

interface Node {
  path: string;
  options: string[];
  help: string;
}

const tree = JSON.parse(
  execFileSync(process.execPath, ['--import', 'tsx', '--import', join(ROOT, 'scripts', 'cli-tree.ts'), join(ROOT, 'cli', 'index.ts')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, COLUMNS: '100' } }),
) as Node[];

/** The command's own words after `dxs`. */
const wordsOf = (node: Node): string[] => node.path.split(' ').slice(1);

/** A long option of the command with its last letter dropped: unknown, and near the real one. */
function typoOf(node: Node): { typo: string; meant?: string } {
  const meant = node.options.find((option) => option.startsWith('--') && option !== '--help' && option !== '--version' && option.length > 6);
  return meant === undefined ? { typo: '--no-such-option' } : { typo: meant.slice(0, -1), meant };
}

async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) results.push(...(await Promise.all(items.slice(start, start + size).map(run))));
  return results;
}

test('a mistyped option of every command: at most three lines (the error, the closest option, the help to read) and exit 2', { timeout: 300_000 }, async () => {
  assert.ok(tree.length >= 20, `${tree.length} commands`);
  const runs = await inBatches(tree, 3, async (node) => ({ node, ...typoOf(node), result: await runDxs([...wordsOf(node), typoOf(node).typo], { timeoutMs: 60_000 }) }));
  const problems: string[] = [];
  for (const { node, typo, meant, result } of runs) {
    const lines = result.stderr.trimEnd().split('\n');
    const said = `${node.path} ${typo}: exit ${result.code}\n${result.stderr}`;
    if (result.code !== 2) problems.push(`exit ${result.code}, not 2: ${said}`);
    if (lines.length > 3) problems.push(`${lines.length} lines: ${said}`);
    if (!lines[0].startsWith(`${node.path}: `)) problems.push(`the first line does not name the command: ${said}`);
    if (lines.at(-1) !== `See ${node.path} --help.`) problems.push(`the last line does not point to the command's help: ${said}`);
    if (result.stdout !== '') problems.push(`stdout is not empty: ${node.path}: ${result.stdout.slice(0, 200)}`);
    // A required option the command checks first is as good an answer; an unknown one names the real option.
    if (meant !== undefined && lines[0].includes('unknown option') && !result.stderr.includes(`(Did you mean ${meant}?)`)) problems.push(`no suggestion of ${meant}: ${said}`);
  }
  assert.deepEqual(problems, []);
  const trace = runs.find((run) => run.node.path === 'dxs test');
  assert.ok(trace !== undefined && /^dxs test: unknown option '--[\w-]+'\n\(Did you mean --[\w-]+\?\)\nSee dxs test --help\.\n$/.test(trace.result.stderr), trace?.result.stderr);
});

test('an unknown command: the closest command and the help, in three lines, exit 2', async () => {
  const result: CliResult = await runDxs(['tset']);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, "dxs: unknown command 'tset'\n(Did you mean test?)\nSee dxs --help.\n");
});

test("each command's help is its own: dxs load's carries nothing of dxs test's, no help sends the reader to itself", async () => {
  const [load, fuzz, testHelp] = await Promise.all([runDxs(['load', '--help']), runDxs(['fuzz', '--help']), runDxs(['test', '--help'])]);
  for (const result of [load, fuzz, testHelp]) assert.equal(result.code, 0, result.stderr);
  for (const [name, help] of [['dxs load', load.stdout], ['dxs fuzz', fuzz.stdout]] as const) {
    // dxs test's alone: its workers, its destructive checks, its --casing.
    for (const own of ['"workers"', '--workers', 'Playwright', 'destructive checks', 'dxs test needs', 'strict-pascal', 'see dxs test --help']) {
      assert.ok(!help.includes(own), `${name} --help carries dxs test's "${own}"`);
    }
  }
  assert.match(testHelp.stdout, /--workers <N>/);
  assert.match(testHelp.stdout, /DeleteRegistration role for the destructive\s+checks/);
  for (const node of tree) {
    const help = node.help.replace(/\s+/g, ' ');
    assert.ok(!help.toLowerCase().includes(`see ${node.path} --help`), `${node.path} --help sends the reader to itself`);
    // dxs certify runs dxs test: its words are certify's too.
    if (node.path === 'dxs test' || node.path === 'dxs certify') continue;
    for (const own of ['"workers"', '401 checks of delete', 'destructive checks', 'strict-pascal']) assert.ok(!help.includes(own), `${node.path} --help carries dxs test's "${own}"`);
  }
});
