// Runs the project's own tests with node's test runner. Node 20 does not expand globs in
// `--test`, so the files are found here. Arguments filter the files by substring.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;

function findTests(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const filters = process.argv.slice(2);
const files = findTests(join(root, 'test'))
  .filter((file) => filters.length === 0 || filters.some((filter) => relative(root, file).includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`run-tests: no test file matches ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.DXS_TEST_CONCURRENCY ?? '2';
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
  cwd: root,
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
