// `dxs load` runs each script as one module: esbuild bundles it with what it imports (the shared
// checks, the fixture readers, the schema validators), so that k6 links no imports while the test
// runs. Every read of an imported name goes through the module's bindings in k6's interpreter;
// bench/load-overhead.ts measured the bundle at several points of throughput less overhead than
// the sources. Started by hand, the sources still run as they are (load/README.md).
import { existsSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from './k6.ts';

// Without the validators bundle (no `npm run build`), load/lib/schema.ts's require() fails at run
// time as it does from the sources, and the run says that the schema checks were skipped.
const validatorsWhenBuilt = (validators: string): Plugin => ({
  name: 'dxs-validators',
  setup(esbuild) {
    esbuild.onResolve({ filter: /generated\/k6\/validators\.js$/ }, (args) => (existsSync(validators) ? undefined : { path: args.path, external: true }));
  },
});

/** Writes `script` and its imports as one ES module to `outfile`. */
export async function bundleScript(script: string, outfile: string, validators: string): Promise<void> {
  await build({
    entryPoints: [script],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    external: ['k6', 'k6/*'],
    // The files the scripts open are found from here (load/lib/settings.ts), wherever the bundle is.
    define: { DXS_PROJECT_ROOT: JSON.stringify(PROJECT_ROOT) },
    plugins: [validatorsWhenBuilt(validators)],
    logLevel: 'silent',
  });
}
