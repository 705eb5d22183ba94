// Finding k6: --k6 PATH, then K6_BIN, then PATH, then the project's .tools/bin/k6 (built by
// scripts/install-k6.sh), then dxs setup's user cache folder (cli/tools.ts). When none works the CLI
// says how to get it and exits 2.
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { isExecutable, k6Candidates, userToolsDir } from '../../tools.ts';

export const PROJECT_ROOT = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
export const PROJECT_K6 = join(PROJECT_ROOT, '.tools', 'bin', 'k6');

export class K6NotFound extends Error {}

const HOW_TO_GET = 'Build it with: dxs setup --tool k6 (into the user cache folder), or in a clone bash scripts/install-k6.sh (or point K6_BIN or --k6 at a k6 binary)';

/** The k6 binary to use, or K6NotFound with the way to get one. */
export function findK6(explicit?: string, projectK6: string = PROJECT_K6, env: NodeJS.ProcessEnv = process.env): string {
  for (const { source, path, explicit: given } of k6Candidates(explicit, env, projectK6)) {
    if (path === undefined) continue;
    if (!isExecutable(path)) {
      if (given) throw new K6NotFound(`k6 given by ${source} is not an executable file: ${path}. ${HOW_TO_GET}`);
      continue;
    }
    return path;
  }
  throw new K6NotFound(`k6 not found (looked at --k6, K6_BIN, PATH, .tools/bin/k6 and dxs setup's ${join(userToolsDir(env), 'bin')}). ${HOW_TO_GET}`);
}

/** "k6 v2.2.0 (...)" or undefined when the binary does not run. */
export function k6Version(k6: string): string | undefined {
  const result = spawnSync(k6, ['version'], { encoding: 'utf8', timeout: 15_000 });
  return result.status === 0 ? result.stdout.split('\n')[0].trim() : undefined;
}
