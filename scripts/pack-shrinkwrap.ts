// The package carries the versions the project is tested with (issue 60): at prepack, npm-shrinkwrap.json
// is written from package-lock.json, and npm pack puts it into the tarball. npm follows a shrinkwrap
// where the package is the root of the install: `npm ci --omit=dev` in the unpacked package (what
// docs/install.md says) installs exactly the locked versions (npm 11 ignores the shrinkwrap of a
// tarball installed as a dependency, `npm install -g x.tgz`). The dev packages stay in it, flagged
// dev: npm ci checks the lock against the whole package.json, and --omit=dev leaves them out. At
// postpack it is removed again: left in the clone, it would replace package-lock.json for every npm
// command run there.
//
// Usage: tsx scripts/pack-shrinkwrap.ts write|remove
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHRINKWRAP_FILE = 'npm-shrinkwrap.json';

const mode = process.argv[2];
if (mode === 'write') {
  copyFileSync(join(ROOT, 'package-lock.json'), join(ROOT, SHRINKWRAP_FILE));
  console.log(`pack: ${SHRINKWRAP_FILE} written from package-lock.json`);
} else if (mode === 'remove') {
  rmSync(join(ROOT, SHRINKWRAP_FILE), { force: true });
} else {
  console.error('usage: tsx scripts/pack-shrinkwrap.ts write|remove');
  process.exit(2);
}
