// dxs doctor: per command, the tool it needs beyond Node, where it was found and, when it was not,
// the command that installs it. It prints to the console only (paths of this machine included,
// which no report may carry), and names the spec the package certifies against by its digest.
// Exit codes: 0 every tool found, 1 one or more missing (`dxs doctor || dxs setup`).
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileSha256 } from '../../report/manifest.ts';
import { SPEC_PATH } from '../../schemas/requirements.ts';
import { chromiumPath, isExecutable, k6Candidates, PROJECT_ROOT, schemathesisCandidates, userToolsDir } from '../tools.ts';
import { k6Version } from './load/k6.ts';

export interface ToolCheck {
  /** The dxs commands that need it. */
  commands: string;
  tool: string;
  /** Where it was found (the path, and which place of the lookup), or undefined. */
  found?: { path: string; source: string; version?: string };
  /** The command that installs it, when it is missing. */
  install: string;
  /** What still works without it. */
  without: string;
}

function packageVersion(name: string): { path: string; version: string } | undefined {
  try {
    const file = createRequire(import.meta.url).resolve(`${name}/package.json`);
    return { path: dirname(file), version: (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version };
  } catch {
    return undefined;
  }
}

function firstExecutable(candidates: ReturnType<typeof k6Candidates>): { path: string; source: string } | undefined {
  for (const { source, path } of candidates) if (path !== undefined && isExecutable(path)) return { path, source };
  return undefined;
}

export function checkTools(env: NodeJS.ProcessEnv = process.env): ToolCheck[] {
  const playwright = packageVersion('@playwright/test');
  const k6 = firstExecutable(k6Candidates(undefined, env));
  const schemathesis = firstExecutable(schemathesisCandidates(undefined, env));
  const chromium = chromiumPath(env);
  return [
    {
      commands: 'test, certify, client-check',
      tool: "Playwright's test runner (@playwright/test)",
      found: playwright === undefined ? undefined : { path: playwright.path, source: 'a dependency of dxs', version: playwright.version },
      install: 'npm install (it is a dependency of dxs; reinstall the package)',
      without: 'nothing: dxs test cannot run',
    },
    {
      commands: 'load',
      tool: 'k6',
      found: k6 === undefined ? undefined : { ...k6, version: k6Version(k6.path) },
      install: `dxs setup --tool k6 (builds k6 with Go from the Go module proxy into ${join(userToolsDir(env), 'bin')}), or K6_BIN=<a k6 binary>`,
      without: 'dxs load exits 2',
    },
    {
      commands: 'fuzz',
      tool: 'Schemathesis',
      found: schemathesis,
      install: `dxs setup --tool schemathesis (needs Python 3.9+; a venv in ${join(userToolsDir(env), 'venv')})`,
      without: 'dxs fuzz exits 2',
    },
    {
      commands: 'certify, client-check --certify',
      tool: "Chromium (the certificate's PDF)",
      found: existsSync(chromium) ? { path: chromium, source: env.DXS_CHROMIUM !== undefined ? 'DXS_CHROMIUM' : "Debian's chromium" } : undefined,
      install: 'apt-get install chromium (as root), or DXS_CHROMIUM=<a Chromium executable>',
      without: 'the package is written without certificate.pdf, and the command exits 2',
    },
  ];
}

export function doctorText(checks: readonly ToolCheck[], version: string, env: NodeJS.ProcessEnv = process.env): string {
  const spec = existsSync(SPEC_PATH) ? `document-exchange-api.md sha256 ${fileSha256(SPEC_PATH)}` : `${SPEC_PATH} is absent: dxs certify refuses to certify`;
  const lines = [`dxs ${version} (Node ${process.version}) in ${PROJECT_ROOT}`, `spec: ${spec}`, ''];
  for (const check of checks) {
    lines.push(`dxs ${check.commands}: ${check.tool}`);
    if (check.found !== undefined) {
      lines.push(`  found: ${check.found.path} (${check.found.source})${check.found.version !== undefined ? `, ${check.found.version}` : ''}`);
    } else {
      lines.push(`  MISSING (${check.without})`);
      lines.push(`  install: ${check.install}`);
    }
  }
  const missing = checks.filter((check) => check.found === undefined).length;
  lines.push('', missing === 0 ? 'every tool is there' : `${missing} missing: \`dxs setup\` installs k6 and Schemathesis into ${userToolsDir(env)}`);
  return `${lines.join('\n')}\n`;
}

export function registerDoctorCommand(program: Command): void {
  const doctor = program
    .command('doctor')
    .description('per command, the tool it needs (Playwright, k6, Schemathesis, Chromium), where it was found, and how to install what is missing');
  doctor.addHelpText('after', '\nExample:\n  $ dxs doctor || dxs setup\n\nExit codes: 0 every tool found, 1 one or more missing.');
  doctor.action(() => {
    const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const checks = checkTools();
    process.stdout.write(doctorText(checks, version));
    process.exit(checks.every((check) => check.found !== undefined) ? 0 : 1);
  });
}
