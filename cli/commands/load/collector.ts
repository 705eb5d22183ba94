// The program of the collector Job that `dxs load k8s --results-pvc` writes: `dxs load merge` and
// nothing else. `dxs load k8s` bundles this module with esbuild into one file, dxs-merge.mjs,
// that any image with Node 20 or later runs from a ConfigMap: no checkout of dxs and no npm install in
// the cluster. Usage: node dxs-merge.mjs DIR-or-FILE... --out DIR [--script NAME] [--runners N]
// (--runners: the TestRun's parallelism; a runner whose raw points are missing is exit 2;
// --async-timeout SECONDS: the runners', for the exchange checker). With DXS_BASE_URL and
// DXS_API_KEY (the Job's environment, the key from the run's Secret) it makes the final read that
// the bare k6 runners could not (issue 41): an unreachable target is said, and leaves sends not judged.
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../lib/config.ts';
import { connectionFor } from '../../../lib/transport.ts';
import { secrets } from '../../../lib/redact.ts';
import { mergeRunners, type MergeOptions } from './merge.ts';

/** The final read's target from the Job's environment, or why there is none. */
function finalReadOf(env: NodeJS.ProcessEnv): MergeOptions['finalRead'] {
  const baseUrl = env.DXS_BASE_URL?.replace(/\/+$/, '');
  const apiKey = env.DXS_API_KEY;
  if (baseUrl === undefined || baseUrl === '' || apiKey === undefined || apiKey === '') return { problem: 'the collector had no DXS_BASE_URL and DXS_API_KEY, so it made no final read' };
  secrets.add(apiKey);
  return { target: { baseUrl, apiKey, connection: connectionFor(baseUrl, {}, env) } };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' }, script: { type: 'string' }, runners: { type: 'string' }, 'async-timeout': { type: 'string' } }, allowPositionals: true });
  if (values.out === undefined) throw new ConfigError('--out DIR is required');
  const runners = values.runners === undefined ? undefined : Number(values.runners);
  if (runners !== undefined && !(Number.isInteger(runners) && runners > 0)) throw new ConfigError(`--runners ${values.runners}: a whole number of at least 1`);
  const asyncTimeout = values['async-timeout'] === undefined ? undefined : Number(values['async-timeout']);
  if (asyncTimeout !== undefined && !(asyncTimeout > 0)) throw new ConfigError(`--async-timeout ${values['async-timeout']}: a number of seconds above 0`);
  return mergeRunners(positionals, { out: values.out, script: values.script, runners, asyncTimeoutMs: asyncTimeout === undefined ? undefined : asyncTimeout * 1000, finalRead: finalReadOf(process.env) });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const expected = error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    console.error(`dxs load merge: ${expected ? (error as Error).message : ((error as Error).stack ?? String(error))}`);
    process.exit(2);
  },
);
