// Every command and every option that `--help` prints is documented in docs/ (all pages
// together): the command tree is read from commander itself (scripts/cli-tree.ts), so a new
// option without its documentation fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

function markdownUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? markdownUnder(path) : entry.endsWith('.md') ? [path] : [];
  });
}

const tree = JSON.parse(
  execFileSync(process.execPath, ['--import', 'tsx', '--import', join(ROOT, 'scripts', 'cli-tree.ts'), join(ROOT, 'cli', 'index.ts')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }),
) as Array<{ path: string; options: string[] }>;
const pages = markdownUnder(join(ROOT, 'docs'));
const docs = pages.map((page) => readFileSync(page, 'utf8')).join('\n');

test('the command tree is read whole', () => {
  assert.ok(tree.length >= 20, `${tree.length} commands`);
  assert.ok(tree.some((node) => node.path === 'dxs certify verify'));
});

test('every command that --help prints has its documentation in docs/', () => {
  const missing = tree.filter((node) => node.path !== 'dxs' && !docs.includes(node.path)).map((node) => node.path);
  assert.deepEqual(missing, [], `not in ${pages.map((page) => relative(ROOT, page)).join(', ')}`);
});

test('every option that --help prints is in docs/, spelled as --help spells it', () => {
  const missing = tree.flatMap((node) => node.options.filter((option) => !new RegExp(`${option}(?![\\w-])`).test(docs)).map((option) => `${node.path} ${option}`));
  assert.deepEqual(missing, []);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  let inFence = false;
  const anchors = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6} (.*)$/.exec(line);
    if (heading !== null) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

test('every link of the README and of docs/ to a file of the project, and to a heading in it, resolves', () => {
  const broken: string[] = [];
  for (const page of [join(ROOT, 'README.md'), ...pages]) {
    for (const match of readFileSync(page, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1];
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const path = file === '' ? page : join(page, '..', file);
      let ok: boolean;
      try {
        ok = statSync(path).isFile() || statSync(path).isDirectory();
      } catch {
        ok = false;
      }
      if (ok && anchor !== undefined && path.endsWith('.md')) ok = anchorsOf(path).has(anchor);
      if (!ok) broken.push(`${relative(ROOT, page)}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});
