// Where the commands find the tools they run besides Node: k6 (dxs load), Schemathesis (dxs fuzz),
// Chromium (the certificate's PDF). A clone keeps them in its .tools/ (scripts/setup.sh); an
// installed package has no such folder of its own, so `dxs setup` installs into a user cache
// folder, the way Playwright keeps its browsers in ~/.cache/ms-playwright, and both are looked at.
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const PROJECT_ROOT = new URL('../', import.meta.url).pathname.replace(/\/$/, '');

/** `dxs setup`'s folder: DXS_CACHE_DIR, else $XDG_CACHE_HOME/dxs, else ~/.cache/dxs. */
export function userToolsDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.DXS_CACHE_DIR !== undefined && env.DXS_CACHE_DIR !== '') return env.DXS_CACHE_DIR;
  if (env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '') return join(env.XDG_CACHE_HOME, 'dxs');
  return join(home, '.cache', 'dxs');
}

/** One place a tool may be: where it was looked for (a flag, a variable, a folder) and the path there, if any. */
export interface ToolCandidate {
  source: string;
  path: string | undefined;
  /** Given by the user (a flag or a variable): a wrong path there is an error, not a reason to look further. */
  explicit: boolean;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** k6, in order: --k6, K6_BIN, PATH, the clone's .tools/bin/k6, then dxs setup's. */
export function k6Candidates(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, projectK6: string = join(PROJECT_ROOT, '.tools', 'bin', 'k6')): ToolCandidate[] {
  return [
    { source: '--k6', path: explicit, explicit: true },
    { source: 'K6_BIN', path: env.K6_BIN || undefined, explicit: true },
    { source: 'PATH', path: onPath('k6', env), explicit: false },
    { source: '.tools/bin/k6', path: projectK6, explicit: false },
    { source: 'dxs setup', path: join(userToolsDir(env), 'bin', 'k6'), explicit: false },
  ];
}

/** Schemathesis, in order: --schemathesis, the clone's .tools/venv, dxs setup's venv, then PATH. */
export function schemathesisCandidates(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, projectRoot: string = PROJECT_ROOT): ToolCandidate[] {
  if (explicit !== undefined) return [{ source: '--schemathesis', path: explicit, explicit: true }];
  return [
    { source: '.tools/venv', path: join(projectRoot, '.tools', 'venv', 'bin', 'schemathesis'), explicit: false },
    { source: 'dxs setup', path: join(userToolsDir(env), 'venv', 'bin', 'schemathesis'), explicit: false },
    { source: 'PATH', path: onPath('schemathesis', env), explicit: false },
  ];
}

/** Chromium for the certificate's PDF: DXS_CHROMIUM, else Debian's package. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.DXS_CHROMIUM ?? '/usr/bin/chromium';
}
