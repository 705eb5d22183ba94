// Generates what the repository does not hold: each step is a module under scripts/build/
// with a default export, run in order. Steps are idempotent.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const directory = new URL('./build/', import.meta.url).pathname;
const steps = existsSync(directory) ? readdirSync(directory).filter((name) => name.endsWith('.ts')).sort() : [];
for (const step of steps) {
  const started = Date.now();
  const module = (await import(pathToFileURL(join(directory, step)).href)) as { default: () => Promise<void> | void };
  await module.default();
  console.log(`build: ${step} done in ${Date.now() - started} ms`);
}
