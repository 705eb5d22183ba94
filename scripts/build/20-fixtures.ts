// Build step: the fixture files too large to commit (the over-1 MB icon) go to fixtures/generated/.
// Tests do not need this step (the loader makes a missing file on first use); k6 scripts that
// open() files by path do.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { writeGeneratedFiles } from '../../fixtures/files.ts';

export default async function buildFixtures(): Promise<void> {
  const root = new URL('../../', import.meta.url).pathname;
  for (const path of writeGeneratedFiles()) console.log(`build: fixtures: ${relative(root, path)} (${statSync(path).size} bytes)`);
}
