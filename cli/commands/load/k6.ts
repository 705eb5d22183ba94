// Finding k6: --k6 PATH, then K6_BIN, then PATH, then the project's .tools/bin/k6 (built by
// scripts/install-k6.sh). When none works the CLI says how to get it and exits 2.
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

export const PROJECT_ROOT = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
export const PROJECT_K6 = join(PROJECT_ROOT, '.tools', 'bin', 'k6');

export class K6NotFound extends Error {}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, 'k6');
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

const HOW_TO_GET = 'Build it with: bash scripts/install-k6.sh (or point K6_BIN or --k6 at a k6 binary)';

/** The k6 binary to use, or K6NotFound with the way to get one. */
export function findK6(explicit?: string, projectK6: string = PROJECT_K6): string {
  const candidates: Array<[string, string | undefined]> = [
    ['--k6', explicit],
    ['K6_BIN', process.env.K6_BIN || undefined],
    ['PATH', onPath()],
    ['.tools/bin/k6', existsSync(projectK6) ? projectK6 : undefined],
  ];
  for (const [source, path] of candidates) {
    if (path === undefined) continue;
    if (!isExecutable(path)) {
      if (source === '--k6' || source === 'K6_BIN') throw new K6NotFound(`k6 given by ${source} is not an executable file: ${path}. ${HOW_TO_GET}`);
      continue;
    }
    return path;
  }
  throw new K6NotFound(`k6 not found (looked at --k6, K6_BIN, PATH and .tools/bin/k6). ${HOW_TO_GET}`);
}

/** "k6 v2.2.0 (...)" or undefined when the binary does not run. */
export function k6Version(k6: string): string | undefined {
  const result = spawnSync(k6, ['version'], { encoding: 'utf8', timeout: 15_000 });
  return result.status === 0 ? result.stdout.split('\n')[0].trim() : undefined;
}
