// Runs one load script with k6 and collects what it wrote: the raw points (--out json), k6's
// summary export, the web-dashboard HTML export and, off a TTY, k6's own output as a log; and
// passes on the outputs and the live dashboard the user asked for (outputs.ts).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from './k6.ts';
import { durationSeconds } from '../../../load/profiles/index.ts';
import { settingsEnvironment, type RunSettings } from '../../../load/lib/run-settings.ts';
import { segmentArguments, type Segment } from './segments.ts';
import type { ScriptArtifacts } from './report.ts';
import { bundleScript } from './bundle.ts';
import { dashboardEnvironment, outputArguments, outputEnvironment } from './outputs.ts';
import { freeApiPort, watchProgress } from './progress.ts';
import { childNetwork } from '../../../lib/child-network.ts';
import type { Connection } from '../../../lib/transport.ts';

export const SCRIPTS_DIRECTORY = join(PROJECT_ROOT, 'load', 'scripts');
export const DEFAULT_THRESHOLDS_FILE = join(PROJECT_ROOT, 'load', 'thresholds', 'default.json');
export const VALIDATORS_BUNDLE = join(PROJECT_ROOT, 'generated', 'k6', 'validators.js');

/** Script names (file names without .ts), the mixed business day last. */
export function scriptNames(): string[] {
  const names = readdirSync(SCRIPTS_DIRECTORY)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.slice(0, -3));
  return names.sort((a, b) => Number(a === 'business-day') - Number(b === 'business-day') || a.localeCompare(b));
}

export function scriptPath(name: string): string {
  return join(SCRIPTS_DIRECTORY, `${name}.ts`);
}

/** The settings of a run as the CLI resolved them: the thresholds file always has a path. */
export type ScriptSettings = RunSettings & { thresholdsFile: string; runPrefix: string };

/**
 * The tag of one script in its run's ErpDocumentIds and per-iteration ErpIds (load/lib/data.ts
 * erpIdFor). Scripts share flows (business-day runs inbox's) and a run's prefix, so without it a
 * later script would send invoices marked as an earlier script's were, to the same receivers (a
 * company registered again under its ErpId is updated and keeps its inbox, so the companies stay
 * the run's): the later script's recipient would download the earlier invoice under its own send's
 * marker, and the exchange check would read one invoice received twice (XCH-01). The tag is the
 * initials of the script's words (business-day: bd), the whole name when another script has the
 * same initials; the same on every runner of a distributed run.
 */
export function scriptTag(script: string, known: readonly string[] = scriptNames()): string {
  const initials = (name: string): string => name.split(/[^a-z0-9]+/i).filter((word) => word !== '').map((word) => word[0]).join('').toLowerCase();
  return known.some((other) => other !== script && initials(other) === initials(script)) ? script : initials(script);
}

/** One dashboard sample per second for short runs, fewer for long ones (the export stays small). */
function dashboardPeriod(settings: ScriptSettings): string {
  const seconds = settings.duration === undefined ? undefined : durationSeconds(settings.duration);
  if (seconds === undefined) return settings.profile === 'smoke' || settings.profile === 'spike' ? '1s' : '5s';
  return `${Math.min(30, Math.max(1, Math.round(seconds / 200)))}s`;
}


/** The tags our report and thresholds use; fewer tags keep the raw points small. */
export const SYSTEM_TAGS = 'status,method,name,check,scenario,group,expected_response,error_code';

export interface RunScriptInput {
  k6: string;
  script: string;
  /** Another script file run as it is (the bench's bare script); default load/scripts/<script>.ts, bundled. */
  scriptFile?: string;
  settings: ScriptSettings;
  directory: string;
  segment?: Segment;
  /** Show k6's own output (progress bar, summary) on this terminal instead of a log file. */
  inheritOutput: boolean;
  /** The run's proxy and CA bundle (issue 31): k6 reads HTTPS_PROXY/HTTP_PROXY and, through Go, SSL_CERT_FILE. */
  connection?: Connection;
  /** --max-rps: k6's own global cap on requests a second (its --rps), to stay under a gateway's limit. */
  maxRps?: number;
  /** --out: k6's own outputs besides the raw points dxs reads (outputs.ts). */
  outputs?: readonly string[];
  /** --dashboard: serve k6's live web dashboard on 127.0.0.1 at this port while the run lasts. */
  dashboardPort?: number;
  /** Off a terminal: where a progress line goes every few seconds while k6 runs (progress.ts). */
  progress?: (line: string) => void;
}

/** Runs k6; resolves with its exit code and the files it wrote. */
export async function runScript(input: RunScriptInput): Promise<ScriptArtifacts & { exitCode: number }> {
  mkdirSync(input.directory, { recursive: true });
  const raw = join(input.directory, 'raw.json.gz');
  const summary = join(input.directory, 'k6-summary.json');
  const dashboard = join(input.directory, 'dashboard.html');
  const log = join(input.directory, 'k6.log');
  const args = ['run', '--summary-export', summary, '--out', `json=${raw}`, '--system-tags', SYSTEM_TAGS, '--no-usage-report'];
  if (input.segment !== undefined) args.push(...segmentArguments(input.segment));
  if (input.maxRps !== undefined) args.push('--rps', String(Math.max(1, Math.floor(input.maxRps))));
  args.push(...outputArguments(input.outputs ?? []));
  // The bundle lives as long as the run; k6 reads it at start and in every VU's init.
  const bundleDirectory = input.scriptFile === undefined ? mkdtempSync(join(tmpdir(), 'dxs-load-script-')) : undefined;
  try {
    if (bundleDirectory !== undefined) {
      const bundle = join(bundleDirectory, `${input.script}.js`);
      await bundleScript(scriptPath(input.script), bundle, VALIDATORS_BUNDLE);
      args.push(bundle);
    } else {
      args.push(input.scriptFile as string);
    }
    return await runK6WithProgress(input, args, { raw, summary, dashboard, log });
  } finally {
    if (bundleDirectory !== undefined) rmSync(bundleDirectory, { recursive: true, force: true });
  }
}

/** k6's exit code when its REST API could not listen (errext.CannotStartRESTAPI): nothing ran yet, not even setup. */
const CANNOT_START_REST_API = 106;

type K6Files = { raw: string; summary: string; dashboard: string; log: string };

/**
 * Off a terminal, k6 runs with its REST API on a free port of 127.0.0.1 and a progress line is
 * printed while it runs. A port taken between the draw and k6's bind stops k6 before its setup,
 * so the run is started again on another port (bounded).
 */
async function runK6WithProgress(input: RunScriptInput, args: string[], files: K6Files): Promise<ScriptArtifacts & { exitCode: number }> {
  const print = input.progress;
  if (print === undefined || input.inheritOutput) return runK6(input, args, files);
  for (let attempt = 1; ; attempt++) {
    const address = `127.0.0.1:${await freeApiPort()}`;
    const watch = watchProgress(input.script, address, print);
    try {
      const run = await runK6(input, [args[0], '--address', address, ...args.slice(1)], files);
      if (run.exitCode !== CANNOT_START_REST_API || attempt === 3) return run;
    } finally {
      watch.stop();
    }
  }
}

async function runK6(input: RunScriptInput, args: string[], files: K6Files): Promise<ScriptArtifacts & { exitCode: number }> {
  const { raw, summary, dashboard, log } = files;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DXS_') && !name.startsWith('K6_')));
  const network = childNetwork(input.connection, inherited);
  const env = {
    ...network.env,
    ...outputEnvironment(input.outputs ?? [], process.env),
    ...settingsEnvironment(input.settings, true),
    ...dashboardEnvironment(input.dashboardPort, dashboard, dashboardPeriod(input.settings)),
    K6_NO_USAGE_REPORT: 'true',
  };
  const exitCode = await new Promise<number>((resolve, reject) => {
    const settle = (code: number): void => {
      network.dispose();
      resolve(code);
    };
    const child = spawn(input.k6, args, { env, stdio: input.inheritOutput ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    if (!input.inheritOutput) {
      const stream = createWriteStream(log);
      child.stdout?.pipe(stream, { end: false });
      child.stderr?.pipe(stream, { end: false });
      child.on('close', () => stream.end());
    }
    // Ctrl-C reaches k6 through the process group; k6 then stops and still writes its outputs.
    // SIGTERM (a CI job cancelled) reaches only this process: passed on, k6 stops the same way.
    const forward = (): void => {
      child.kill('SIGTERM');
    };
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      process.off('SIGTERM', forward);
      network.dispose();
      reject(error);
    });
    child.on('close', (code, signal) => {
      process.off('SIGTERM', forward);
      settle(code ?? (signal ? 128 : 1));
    });
  });
  return {
    script: input.script,
    exitCode,
    dashboard: existsSync(dashboard) ? dashboard : undefined,
    rawFiles: existsSync(raw) ? [raw] : [],
    summaryExports: existsSync(summary) ? [summary] : [],
    log: input.inheritOutput ? undefined : log,
  };
}
