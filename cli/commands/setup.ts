// dxs setup: installs the tools an installed package cannot bring along into the user cache folder
// (cli/tools.ts), the way `npx playwright install` fetches browsers: k6 built with Go from the Go
// module proxy, Schemathesis (pinned) into a venv. The project's own install scripts do the work,
// so a clone's scripts/setup.sh and this command install the very same versions.
// Chromium needs root (Debian's package): it is named, not installed.
// Exit codes: 0 what was asked for is there, 1 an install failed, 2 usage.
import { Option, type Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath, isExecutable, k6Candidates, PROJECT_ROOT, schemathesisCandidates, userToolsDir } from '../tools.ts';

export const SETUP_TOOLS = ['k6', 'schemathesis'] as const;
export type SetupTool = (typeof SETUP_TOOLS)[number];

const SCRIPTS: Record<SetupTool, { script: string; boundMs: number }> = {
  // A Go build of k6 takes minutes on two cores; the bound only stops a hung build.
  k6: { script: 'install-k6.sh', boundMs: 30 * 60_000 },
  schemathesis: { script: 'install-schemathesis.sh', boundMs: 15 * 60_000 },
};

function installed(tool: SetupTool, env: NodeJS.ProcessEnv): boolean {
  const candidates = tool === 'k6' ? k6Candidates(undefined, env) : schemathesisCandidates(undefined, env);
  return candidates.some(({ path }) => path !== undefined && isExecutable(path));
}

export function runSetup(tools: readonly SetupTool[], env: NodeJS.ProcessEnv = process.env): number {
  const directory = userToolsDir(env);
  mkdirSync(directory, { recursive: true });
  console.error(`dxs setup: installing ${tools.join(', ')} into ${directory}`);
  let failed = 0;
  for (const tool of tools) {
    const { script, boundMs } = SCRIPTS[tool];
    const run = spawnSync('bash', [join(PROJECT_ROOT, 'scripts', script)], { env: { ...env, DXS_TOOLS_DIR: directory }, stdio: 'inherit', timeout: boundMs });
    if (run.status !== 0 || !installed(tool, env)) {
      console.error(`dxs setup: ${tool} is not installed${run.error !== undefined ? ` (${run.error.message})` : run.status !== 0 ? ` (${script} exited ${run.status ?? run.signal})` : ''}`);
      failed++;
    }
  }
  if (!existsSync(chromiumPath(env))) console.error("dxs setup: Chromium (the certificate's PDF) needs root: apt-get install chromium, or DXS_CHROMIUM=<a Chromium executable>");
  console.error(failed === 0 ? 'dxs setup: done; `dxs doctor` shows where each tool is' : `dxs setup: ${failed} of ${tools.length} not installed`);
  return failed === 0 ? 0 : 1;
}

export function registerSetupCommand(program: Command): void {
  const setup = program
    .command('setup')
    .description("install k6 (built with Go from the Go module proxy) and Schemathesis (into a venv) into the user cache folder: DXS_CACHE_DIR, else $XDG_CACHE_HOME/dxs, else ~/.cache/dxs")
    .addOption(new Option('--tool <NAME...>', 'only these tools').choices([...SETUP_TOOLS]));
  setup.addHelpText('after', '\nNeeds Go for k6 and Python 3.9+ for Schemathesis. Chromium for the certificate\'s PDF needs root: apt-get install chromium.\n\nExamples:\n  $ dxs setup\n  $ dxs setup --tool schemathesis\n\nExit codes: 0 installed, 1 an install failed, 2 usage.');
  setup.action((flags: { tool?: SetupTool[] }) => {
    process.exit(runSetup(flags.tool ?? [...SETUP_TOOLS]));
  });
}
