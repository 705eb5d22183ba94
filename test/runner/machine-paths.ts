// The paths of the machine a run happened on, which no report, certificate or manifest may carry:
// a hand-over document names files by their place in the package, never by where they lay.
import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { ROOT } from './helpers.ts';

/** The repository, the home folder and the temporary folder, each with a trailing slash (so that a bare "/tmp" in prose is not one), as given and resolved. */
export function machinePaths(extra: readonly string[] = []): string[] {
  const paths = new Set<string>();
  for (const path of [ROOT, homedir(), tmpdir(), ...extra]) {
    for (const form of [path, safeRealpath(path)]) {
      const trimmed = form.replace(/\/+$/, '');
      if (trimmed !== '') paths.add(`${trimmed}/`);
    }
  }
  return [...paths];
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** "file: path" for every text that holds one of the machine's paths. */
export function machinePathsFound(texts: ReadonlyMap<string, string>, extra: readonly string[] = []): string[] {
  const paths = machinePaths(extra);
  const found: string[] = [];
  for (const [file, text] of texts) for (const path of paths) if (text.includes(path)) found.push(`${file}: ${path}`);
  return found;
}
