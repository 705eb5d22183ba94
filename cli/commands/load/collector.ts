// The program of the collector Job that `dxs load k8s --results-pvc` writes: `dxs load merge` and
// nothing else. `dxs load k8s` bundles this module with esbuild into one file, dxs-merge.mjs,
// that any image with Node 20 or later runs from a ConfigMap: no checkout of dxs and no npm install in
// the cluster. Usage: node dxs-merge.mjs DIR-or-FILE... --out DIR [--script NAME]
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../lib/config.ts';
import { mergeRunners } from './merge.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' }, script: { type: 'string' } }, allowPositionals: true });
  if (values.out === undefined) throw new ConfigError('--out DIR is required');
  return mergeRunners(positionals, values.out, values.script ?? 'merged');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const expected = error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    console.error(`dxs load merge: ${expected ? (error as Error).message : ((error as Error).stack ?? String(error))}`);
    process.exit(2);
  },
);
