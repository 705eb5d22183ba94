// The program of the collector Job that `dxs load k8s --results-pvc` writes: `dxs load merge` and
// nothing else. `dxs load k8s` bundles this module with esbuild into one file, dxs-merge.mjs,
// that any image with Node 20 or later runs from a ConfigMap: no checkout of dxs and no npm install in
// the cluster. Usage: node dxs-merge.mjs DIR-or-FILE... --out DIR [--script NAME] [--runners N]
// (--runners: the TestRun's parallelism; a runner whose raw points are missing is exit 2;
// --async-timeout SECONDS: the runners', for the exchange checker).
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../lib/config.ts';
import { mergeRunners } from './merge.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' }, script: { type: 'string' }, runners: { type: 'string' }, 'async-timeout': { type: 'string' } }, allowPositionals: true });
  if (values.out === undefined) throw new ConfigError('--out DIR is required');
  const runners = values.runners === undefined ? undefined : Number(values.runners);
  if (runners !== undefined && !(Number.isInteger(runners) && runners > 0)) throw new ConfigError(`--runners ${values.runners}: a whole number of at least 1`);
  const asyncTimeout = values['async-timeout'] === undefined ? undefined : Number(values['async-timeout']);
  if (asyncTimeout !== undefined && !(asyncTimeout > 0)) throw new ConfigError(`--async-timeout ${values['async-timeout']}: a number of seconds above 0`);
  return mergeRunners(positionals, { out: values.out, script: values.script, runners, asyncTimeoutMs: asyncTimeout === undefined ? undefined : asyncTimeout * 1000 });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const expected = error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    console.error(`dxs load merge: ${expected ? (error as Error).message : ((error as Error).stack ?? String(error))}`);
    process.exit(2);
  },
);
