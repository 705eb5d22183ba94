// Build step: the fixture files too large to commit (the over-1 MB icon) or too costly to make
// in a test (the compressed bombs of the hostile suite), and a default fixture
// pack for k6 scripts started by hand, go to fixtures/generated/ (git-ignored). Tests do not need
// this step: the loader makes a missing file on first use. `dxs load` writes its own pack per run.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeGeneratedFiles } from '../../fixtures/files.ts';
import { writeHostileBodies } from '../../fixtures/hostile.ts';
import { DEFAULT_PACK_PATH, writeFixturePack } from '../../fixtures/pack.ts';
import { newRunPrefix } from '../../fixtures/run-prefix.ts';

export default async function buildFixtures(): Promise<void> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const report = (path: string) => console.log(`build: fixtures: ${relative(root, path)} (${statSync(path).size} bytes)`);
  writeGeneratedFiles().forEach(report);
  writeHostileBodies().forEach(report);
  const seed = Number(process.env.DXS_SEED ?? 1);
  writeFixturePack(DEFAULT_PACK_PATH, { seed: Number.isInteger(seed) ? seed : 1, runPrefix: newRunPrefix() });
  report(DEFAULT_PACK_PATH);
}
