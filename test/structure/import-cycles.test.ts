// Layers import downwards only (CONTRIBUTING.md): lib/ at the bottom, the record of a run below
// its renderers. dpdm finds every cycle, type-only imports included, since a type cycle ties two
// files together as much as a value cycle does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';

const root = new URL('../..', import.meta.url).pathname;
const FOLDERS = ['bin', 'cli', 'grading', 'examples', 'lib', 'report', 'sandbox', 'schemas', 'suites', 'fixtures', 'load', 'scripts', 'bench', 'test'];

async function cyclesIn(context: string, patterns: string[]): Promise<{ files: number; cycles: string[][] }> {
  const tree = await parseDependencyTree(patterns, {
    context,
    cwd: context,
    transform: false,
    skipDynamicImports: false,
    exclude: /node_modules|\/generated\//,
  });
  const own = Object.keys(tree).filter((file) => !file.includes('node_modules'));
  return { files: own.length, cycles: parseCircular(tree) };
}

test('no import cycle anywhere in the tree', async () => {
  const patterns = FOLDERS.flatMap((folder) => [`${folder}/**/*.ts`, `${folder}/**/*.js`, `${folder}/**/*.mjs`]);
  const { files, cycles } = await cyclesIn(root, patterns);
  // A pattern that silently matched nothing would pass vacuously.
  assert.ok(files > 150, `only ${files} files analysed`);
  assert.deepEqual(cycles.map((cycle) => cycle.join(' -> ')), []);
});

test('the record of a run imports no renderer, directly or through another file', async () => {
  const MODEL = ['report/results.ts', 'report/baseline.ts', 'report/root-causes.ts', 'report/cleanup.ts', 'report/certificate-facts.ts', 'report/manifest.ts', 'report/timeline.ts'];
  const RENDERERS = ['report/html.ts', 'report/compare-html.ts', 'report/cleanup-html.ts', 'report/escape-html.ts', 'report/junit.ts', 'report/certificate.ts', 'report/timeline-html.ts'];
  const tree = await parseDependencyTree(MODEL, { context: root, cwd: root, transform: false, skipDynamicImports: false });
  for (const file of MODEL) {
    const reached = new Set<string>();
    const visit = (from: string): void => {
      for (const dependency of tree[from] ?? []) {
        if (dependency.id === null || reached.has(dependency.id)) continue;
        reached.add(dependency.id);
        visit(dependency.id);
      }
    };
    visit(file);
    assert.deepEqual(RENDERERS.filter((renderer) => reached.has(renderer)), [], `${file} reaches a renderer`);
  }
});

test('the checker sees a cycle of type-only imports', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-cycles-'));
  try {
    writeFileSync(join(directory, 'a.ts'), "import type { B } from './b.ts';\nexport interface A { b?: B }\n");
    writeFileSync(join(directory, 'b.ts'), "import type { A } from './a.ts';\nexport interface B { a?: A }\n");
    const { cycles } = await cyclesIn(directory, ['*.ts']);
    assert.equal(cycles.length, 1);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
