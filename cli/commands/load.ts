// dxs load: k6 load scripts (load/scripts/), one per flow, under a workload profile, with
// thresholds per endpoint; writes k6's dashboard export, our summary page and the raw JSON.
// Exit codes: 0 thresholds passed, 1 thresholds failed (k6 exits 99) or the exchange judged on the
// flows' history broke a rule (./load/exchange.ts), 2 configuration error.
import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, TARGET_OPTIONS, envName, flagName, positive, resolveCommandOptions, type OptionSource, type OptionSpec, type ResolvedOptions } from '../../lib/config.ts';
import { folderTimestamp as timestamp } from '../../report/write.ts';
import { openTarget, targetOptionsOf, TargetUnreachable, type Target } from '../../lib/target.ts';
import { secrets } from '../../lib/redact.ts';
import { PROFILE_NAMES, PROFILES, durationSeconds } from '../../load/profiles/index.ts';
import { validateThresholdsFile, type DeliveryTimeLimits } from '../../load/lib/thresholds.ts';
import type { ExchangeEvent } from '../../lib/exchange-history.ts';
import { attachExchange, DEFAULT_ASYNC_TIMEOUT_MS } from './load/exchange.ts';
import { DEFAULT_CHECK_INTERVAL, DEFAULT_SCHEMA_SAMPLE } from '../../load/lib/run-settings.ts';
import { findK6, K6NotFound } from './load/k6.ts';
import { parseSegment, type Segment } from './load/segments.ts';
import { DEFAULT_THRESHOLDS_FILE, VALIDATORS_BUNDLE, runScript, scriptNames, scriptTag, type ScriptSettings } from './load/run.ts';
import { analyse, thresholdsFromSummaries, type RunResult } from './load/results.ts';
import { summaryLine, writeLoadReport, type ScriptArtifacts } from './load/report.ts';
import { writeViolationScripts } from './load/violation-scripts.ts';
import { DEFAULT_MAX_GATEWAY_SHARE, judgeGatewayShare, markGatewayRefusal } from './load/gateway-share.ts';
import { mergeRunners, type MergeOptions } from './load/merge.ts';
import { writeK8sBundle } from './load/k8s.ts';
import { writeFixturePack } from '../../fixtures/pack.ts';
import { newRunPrefix } from '../../fixtures/run-prefix.ts';
import { appendCreated, markJournaled, startLoadJournal } from './load/journal.ts';
import { cleanUpAfterRun, cleanupLine } from './cleanup.ts';
import { connectionInfo, connectionLines, connectionNotes } from '../../report/connection.ts';
import { gatewayLine, takeGatewaySummary } from '../../report/rate-limits.ts';
import type { CleanupReport } from '../../report/cleanup.ts';
import type { CreatedPoint } from './load/results.ts';
import { DEFAULT_COMPARE_SETTINGS, type CompareSettings } from './load/statistics.ts';
import { compareRuns, comparisonLines, loadBaseline, type LoadComparison, type ScriptSamples } from './load/compare.ts';
import { collectMergeInputs } from './load/merge-inputs.ts';
import { checkOutput, collectOutput, dashboardPort, DEFAULT_DASHBOARD_PORT, K6_OUTPUTS } from './load/outputs.ts';
import { writeLoadHistory } from './load/history.ts';
import { finalRead, writeFinalReadEvents } from './load/final-read.ts';
import { INTERRUPTED_EXIT_CODE, TERMINATED_EXIT_CODE } from '../../lib/defaults.ts';

const duration = (value: unknown): string | undefined => {
  try {
    durationSeconds(String(value));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

/** Options that shape the k6 run; shared by `dxs load` and `dxs load k8s`. */
const RUN_OPTIONS: readonly OptionSpec[] = [
  { key: 'script', kind: 'string', argument: 'NAME', default: 'all', description: 'script to run (a file of load/scripts/ without .ts), or all' },
  { key: 'profile', kind: 'string', argument: 'NAME', default: 'smoke', choices: PROFILE_NAMES, description: 'workload profile' },
  { key: 'vus', kind: 'integer', argument: 'N', check: positive, description: 'virtual users (VU profiles), or the most VUs an arrival-rate profile may use' },
  { key: 'rate', kind: 'number', argument: 'N', check: positive, description: 'iterations per second of arrival-rate profiles (the peak, or the base of spike)' },
  { key: 'duration', kind: 'string', argument: 'D', check: duration, description: 'run length, e.g. 30s, 5m, 1h' },
  { key: 'iterations', kind: 'integer', argument: 'N', check: positive, description: 'a fixed total of iterations shared by the VUs (bounded by --duration)' },
  { key: 'thresholds', kind: 'string', argument: 'FILE', description: 'thresholds file (default load/thresholds/default.json)' },
  { key: 'checkInterval', kind: 'integer', argument: 'MS', description: `record the shared checks on the first response per VU and endpoint, then on one every MS milliseconds (0: every response; default ${DEFAULT_CHECK_INTERVAL}); k6 judges every status` },
  { key: 'schemaSample', kind: 'integer', argument: 'N', description: `validate one checked response in N against its schema (0: never; default ${DEFAULT_SCHEMA_SAMPLE}: each one)` },
  { key: 'ssnCount', kind: 'integer', argument: 'N', check: positive, description: 'SSNs per provider A lookup (default 5000, at most 500000)' },
  { key: 'seed', kind: 'integer', argument: 'N', description: 'seed of the generated data' },
  { key: 'k6', kind: 'string', argument: 'PATH', description: "k6 binary (default: K6_BIN, then PATH, then .tools/bin/k6, then dxs setup's)" },
];

const LOAD_OPTIONS: readonly OptionSpec[] = [
  // --async-timeout: how long the document flows wait at the end for what is still being delivered,
  // and how long the exchange checker gives a document to arrive.
  ...TARGET_OPTIONS.filter((spec) => !['apiKeyWithoutDelete', 'reportDir'].includes(spec.key)),
  { key: 'reportDir', kind: 'string', argument: 'DIR', description: 'where to write the report (default: reports/load-<timestamp>/)' },
  ...RUN_OPTIONS,
  { key: 'maxGatewayShare', kind: 'number', argument: 'PERCENT', default: DEFAULT_MAX_GATEWAY_SHARE, check: (value) => (Number(value) >= 0 && Number(value) <= 100 ? undefined : 'a percentage from 0 to 100'), description: "the most of an endpoint's answers the gateway in front of the target may give (429, 502, 503, 504: never in a latency figure or threshold); past it the target was not loaded as asked: exit 2, never a pass" },
  { key: 'segment', kind: 'string', argument: 'I/N', description: 'run the I-th of N execution segments (one runner of a distributed run; merge with dxs load merge)' },
  { key: 'baseline', kind: 'string', argument: 'DIR', description: 'an earlier dxs load report folder: compare each endpoint the two runs share (latency distribution, error rate, throughput); exit 1 on a regression' },
  { key: 'regressionThreshold', kind: 'number', argument: 'PERCENT', default: DEFAULT_COMPARE_SETTINGS.threshold * 100, check: positive, description: 'with --baseline: a percentile is slower only when its whole 95 % interval lies above this change (and the distributions differ)' },
  { key: 'regressionFloorMs', kind: 'number', argument: 'MS', default: DEFAULT_COMPARE_SETTINGS.floorMs, description: 'with --baseline: and above this many milliseconds (run-to-run noise of fast endpoints)' },
  { key: 'strict', kind: 'boolean', default: false, description: 'a broken hardening rule of the exchange (one invoice delivered twice, an Id twice in one answer, a SequenceNo shared or changed: XCH-01..04) fails the run instead of warning, as dxs test --strict; so does an invoice left not judged after the final read' },
  { key: 'keepData', kind: 'boolean', default: false, description: 'keep what the run created at the target (by default its companies are deleted when k6 ends, with --api-key, which needs the DeleteRegistration role; see created.jsonl)' },
];

/** dxs load k8s: the run's options and the target's URL; the API key goes into a Secret of its own. */
const K8S_OPTIONS: readonly OptionSpec[] = [...RUN_OPTIONS, ...TARGET_OPTIONS.filter((spec) => ['baseUrl', 'config', 'asyncTimeout'].includes(spec.key))];

function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const flag = flagName(spec.key);
    const choices = spec.choices === undefined ? '' : ` (${spec.choices.join(', ')})`;
    const fallback = spec.default === undefined ? '' : ` [default: ${String(spec.default)}]`;
    if (spec.kind === 'boolean') command.option(flag, `${spec.description}${fallback}`);
    else if (spec.kind === 'list') command.option(`${flag} <${spec.argument ?? 'VALUE'}>`, `${spec.description}${choices}`);
    else command.option(`${flag} <${spec.argument ?? 'VALUE'}>`, `${spec.description}${choices}${fallback}`);
  }
  return command;
}

/** Where each option of the last resolveFlags came from: a configuration error names the setting's source. */
let origin: { sources?: Record<string, OptionSource>; configPath?: string } = {};

function resolveFlags(specs: readonly OptionSpec[], flags: Record<string, unknown>): ResolvedOptions {
  const { options, sources, configPath } = resolveCommandOptions(specs, flags, process.env, (path) => readFileSync(path, 'utf8'));
  origin = { sources, configPath };
  for (const spec of specs) {
    const value = options[spec.key];
    if (value === undefined) continue;
    if (spec.choices !== undefined && !spec.choices.includes(String(value))) {
      throw new ConfigError(`${flagName(spec.key)} ${String(value)}: choose one of ${spec.choices.join(', ')}`);
    }
    const problem = spec.check?.(value);
    if (problem !== undefined) throw new ConfigError(`${flagName(spec.key)} ${String(value)}: ${problem}`);
  }
  return options;
}

function chooseScripts(name: string): string[] {
  const known = scriptNames();
  if (name === 'all') return known;
  const chosen = name.split(',').map((item) => item.trim().replace(/\.ts$/, ''));
  for (const item of chosen) if (!known.includes(item)) throw new ConfigError(`unknown script ${item}; choose one of ${known.join(', ')}, or all`);
  return chosen;
}

function thresholdsPath(options: ResolvedOptions): string {
  const path = options.thresholds === undefined ? DEFAULT_THRESHOLDS_FILE : resolve(String(options.thresholds));
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read thresholds file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    validateThresholdsFile(JSON.parse(text));
  } catch (error) {
    throw new ConfigError(`thresholds file ${path}: ${(error as Error).message}`);
  }
  return path;
}

/** The delivery-time limits of a thresholds file already validated by thresholdsPath. */
function deliveryLimitsOf(path: string): DeliveryTimeLimits | undefined {
  return validateThresholdsFile(JSON.parse(readFileSync(path, 'utf8'))).deliveryTime;
}

/** --async-timeout in milliseconds: how long the exchange checker gives a document to arrive. */
function asyncTimeoutMsOf(value: unknown): number {
  return value === undefined ? DEFAULT_ASYNC_TIMEOUT_MS : Number(value) * 1000;
}

/** Load packs stay small: a k8s archive carries the pack, and a ConfigMap holds at most 1 MiB. */
const LOAD_PACK_COUNTS = { companies: 40, users: 0, identifiers: 0, networkSetupRequests: 0, providerARegistrations: 1, sendDocuments: 0, lookups: 200 };

/** Limits of the numbers that k6 reads (the CLI checks them before anything starts). */
function checkRunNumbers(options: ResolvedOptions): void {
  const checkInterval = options.checkInterval as number | undefined;
  if (checkInterval !== undefined && checkInterval < 0) throw new ConfigError('--check-interval must be 0 or more');
  const schemaSample = options.schemaSample as number | undefined;
  if (schemaSample !== undefined && schemaSample < 0) throw new ConfigError('--schema-sample must be 0 or more');
  const ssnCount = options.ssnCount as number | undefined;
  if (ssnCount !== undefined && ssnCount > 500_000) throw new ConfigError('--ssn-count: the spec allows at most 500000 SSNs per lookup');
}

function scriptSettings(options: ResolvedOptions, target: { baseUrl: string; apiKey: string }, runPrefix: string, fixturePack: string): ScriptSettings {
  checkRunNumbers(options);
  const schemaSample = options.schemaSample as number | undefined;
  const ssnCount = options.ssnCount as number | undefined;
  return {
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    profile: String(options.profile),
    vus: options.vus as number | undefined,
    rate: options.rate as number | undefined,
    duration: options.duration as string | undefined,
    iterations: options.iterations as number | undefined,
    thresholdsFile: thresholdsPath(options),
    checkInterval: options.checkInterval as number | undefined,
    schemaSample,
    ssnCount,
    seed: options.seed as number | undefined,
    runPrefix,
    asyncTimeout: options.asyncTimeout as number | undefined,
    fixturePack: writePack(fixturePack, runPrefix, options.seed as number | undefined),
  };
}

/** A fresh fixture pack with the run's prefix, for k6 to load into SharedArrays. */
function writePack(path: string, runPrefix: string, seed: number | undefined): string {
  writeFixturePack(path, { runPrefix, seed, counts: LOAD_PACK_COUNTS });
  return path;
}

/** Maps k6's exit code onto ours: 0 passed, 1 thresholds failed, 2 the run itself failed. */
export function exitCodeOf(k6ExitCode: number): 0 | 1 | 2 {
  if (k6ExitCode === 0) return 0;
  if (k6ExitCode === 99) return 1;
  return 2;
}

/** The report folder: --report-dir (or DXS_REPORT_DIR, a config file), else reports/load-<timestamp>/. */
function reportDirOf(options: ResolvedOptions | undefined, flags: Record<string, unknown>, startedAt: Date): string {
  const chosen = options?.reportDir ?? flags.reportDir ?? (process.env[envName('reportDir')] || undefined);
  return resolve(String(chosen ?? join('reports', `load-${timestamp(startedAt)}`)));
}

/** A run that did not start still leaves a report that says why (exit 2 follows). */
function writeNotRun(reportDir: string, options: ResolvedOptions | undefined, flags: Record<string, unknown>, startedAt: Date, reason: string): void {
  try {
    mkdirSync(reportDir, { recursive: true });
    writeLoadReport(reportDir, {
      title: 'dxs load - not run',
      target: String(options?.baseUrl ?? flags.baseUrl ?? '(embedded sandbox)'),
      profile: String(options?.profile ?? flags.profile ?? 'smoke'),
      startedAt,
      results: [],
      artifacts: [],
      notes: [`Not run: ${reason}`],
    });
    notRunReport = join(reportDir, 'index.html');
  } catch (error) {
    console.error(`dxs load: could not write the report to ${reportDir}: ${(error as Error).message}`);
  }
}

/** The not-run report of this process, named after the error message. */
let notRunReport: string | undefined;

async function runLoad(flags: Record<string, unknown>): Promise<number> {
  const startedAt = new Date();
  let options: ResolvedOptions | undefined;
  let scripts: string[];
  let segment: Segment | undefined;
  let k6: string;
  let target: Target;
  let outputs: string[];
  let dashboard: number | undefined;
  try {
    options = resolveFlags(LOAD_OPTIONS, flags);
    scripts = chooseScripts(String(options.script));
    try {
      segment = options.segment === undefined ? undefined : parseSegment(String(options.segment));
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
    thresholdsPath(options);
    checkRunNumbers(options);
    if (options.baseline !== undefined) checkBaseline(String(options.baseline));
    outputs = ((flags.out as string[] | undefined) ?? []).map(checkOutput);
    dashboard = dashboardPort(flags.dashboard);
    k6 = findK6(options.k6 as string | undefined);
    target = await openTarget(targetOptionsOf(options, origin));
  } catch (error) {
    // The report is written even when the options are wrong, k6 is missing or the target cannot
    // be reached: it says why nothing ran.
    writeNotRun(reportDirOf(options, flags, startedAt), options, flags, startedAt, secrets.redactText((error as Error).message));
    throw error;
  }
  const reportDir = reportDirOf(options, flags, startedAt);
  mkdirSync(reportDir, { recursive: true });
  const notes: string[] = [...target.warnings];
  if (target.embedded) notes.push('Target: the embedded sandbox, started for this run on 127.0.0.1.');
  if (!existsSync(VALIDATORS_BUNDLE)) notes.push('Schema checks skipped: generated/k6/validators.js is missing (run npm run build).');
  if (segment !== undefined) notes.push(`Runner ${segment.index} of ${segment.count} (execution segment); merge the runners with dxs load merge to judge the thresholds on the whole run.`);
  for (const warning of target.warnings) console.error(`dxs load: ${warning}`);
  const runPrefix = `${newRunPrefix(startedAt.getTime())}${segment === undefined ? '' : `-s${segment.index}of${segment.count}`}`;
  const settings: ScriptSettings = {
    ...scriptSettings(options, target, runPrefix, join(reportDir, 'fixtures.json')),
    clientCert: target.connection.clientCert,
    clientKey: target.connection.clientKey,
    insecure: target.connection.insecure || undefined,
  };
  const connection = connectionInfo(target.connection, target.certificate);
  for (const line of connectionLines(connection)) console.error(`dxs load: ${line}`);
  notes.push(...connectionNotes(connection));
  startLoadJournal(reportDir, runPrefix, target.baseUrl, target.embedded);
  const results: RunResult[] = [];
  // Kept only for a comparison: a long run's samples are large.
  const samples: ScriptSamples[] = [];
  let cleanup: CleanupReport | undefined;
  const artifacts: ScriptArtifacts[] = [];
  let exitCode: 0 | 1 | 2 = 0;
  // Ctrl-C reaches k6 too (same process group), SIGTERM is passed on to it (run.ts): k6 stops the
  // test and writes its outputs, and this process stays to clean up and write the report instead
  // of dying first.
  let interrupted = false;
  // The shell's convention, 128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM.
  let interruptExitCode = INTERRUPTED_EXIT_CODE;
  // A second Ctrl-C stops the final read too, which the first leaves a few seconds to read.
  const stopFinalRead = new AbortController();
  const onInterrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) stopFinalRead.abort();
    else interruptExitCode = signal === 'SIGTERM' ? TERMINATED_EXIT_CODE : INTERRUPTED_EXIT_CODE;
    interrupted = true;
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  try {
    for (const script of scripts) {
      if (interrupted) {
        notes.push(`Interrupted: ${script} and the scripts after it did not run.`);
        break;
      }
      const run = await runScript({ k6, script, settings: { ...settings, scriptTag: scriptTag(script) }, directory: join(reportDir, script), segment, inheritOutput: process.stdout.isTTY === true, progress: (line) => console.log(line), connection: target.connection, maxRps: options.maxRps as number | undefined, outputs, dashboardPort: dashboard });
      artifacts.push(run);
      let code = exitCodeOf(run.exitCode);
      // exit 2 for a run the gateway kept from its target, not to be read as k6's own failure
      let gatewayRefused = false;
      // k6 stopped on the signal (its exit 105): the run was cut short, not misconfigured. Said first.
      if (interrupted) console.error(`dxs load: interrupted: ${script} stopped early; judging what it recorded (the final read does not wait, and reads for a few seconds)`);
      if (run.rawFiles.length > 0) {
        const created: CreatedPoint[] = [];
        const endpointSamples = options.baseline === undefined ? undefined : new Map<string, number[]>();
        const exchange: ExchangeEvent[] = [];
        const result = await analyse(script, run.rawFiles, thresholdsFromSummaries(run.summaryExports), { created, samples: endpointSamples, exchange });
        const judged = judgeGateway(script, result, options.maxGatewayShare as number, code);
        code = judged.code;
        gatewayRefused = judged.refused;
        const asyncTimeoutMs = asyncTimeoutMsOf(options.asyncTimeout);
        // The final read, before the history is judged: what k6 left unseen is waited for and read (issue 41).
        const read = exchange.length === 0 ? undefined : await finalRead({ baseUrl: target.baseUrl, apiKey: target.apiKey, connection: target.connection, events: exchange, asyncTimeoutMs, companies: companiesOf(created), interrupted, signal: stopFinalRead.signal, maxRps: options.maxRps as number | undefined, onPlan: (plan, waitMs) => {
          if (plan.awaited.length > 0) console.error(`dxs load: ${script}: final read: ${plan.awaited.length} invoice${plan.awaited.length === 1 ? '' : 's'} not yet downloaded by ${plan.awaited.length === 1 ? 'its' : 'their'} recipient; ${waitMs < 1000 ? 'their async timeout has run out' : `waiting for them at most ${Math.ceil(waitMs / 1000)} s`}, then reading ${plan.readers.length} inboxes whole`);
        } });
        if (read !== undefined) {
          exchange.push(...read.events);
          writeFinalReadEvents(join(reportDir, script), read.events);
        }
        // The exchange is judged here, after k6: a broken rule or a slow delivery fails the run (exit 1).
        if (attachExchange(result, exchange, { asyncTimeoutMs, strict: options.strict === true, deliveryLimits: deliveryLimitsOf(settings.thresholdsFile), finalRead: read?.summary }, endpointSamples)) exitCode = Math.max(exitCode, 1) as 0 | 1 | 2;
        // Before the console line, which names the first violation's script.
        if (result.exchange !== undefined) writeViolationScripts(reportDir, script, result.exchange, target.baseUrl);
        if (endpointSamples !== undefined) samples.push({ result, samples: endpointSamples });
        appendCreated(reportDir, runPrefix, created);
        markJournaled(join(reportDir, script));
        results.push(result);
        console.log(summaryLine(result, join(reportDir, 'index.html')));
      }
      if (interrupted) {
        notes.push(`Interrupted: ${script} stopped early (Ctrl-C or SIGTERM); what it recorded was judged, and the final read did not wait.`);
        continue;
      }
      if (code === 2 && !gatewayRefused) console.error(`dxs load: k6 could not run ${script} (exit ${run.exitCode})${run.log === undefined ? '' : `; see ${run.log}`}`);
      exitCode = Math.max(exitCode, code) as 0 | 1 | 2;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    // Once k6 has ended (also after Ctrl-C or failed thresholds), before the embedded sandbox stops.
    cleanup = await cleanUpAfterRun({ reportDir, baseUrl: target.baseUrl, apiKey: target.apiKey, embedded: target.embedded, connection: target.connection, runPrefix: 'cleanup', maxRps: options.maxRps as number | undefined }, options.keepData === true);
    // The cleanup's waits for the gateway: said on the console, the file not left behind.
    const gateway = gatewayLine(takeGatewaySummary({ reportDir, runPrefix: 'cleanup' }));
    if (gateway !== undefined) console.error(`dxs load: cleanup: ${gateway}`);
    console.error(`dxs load: ${cleanupLine(cleanup)}`);
    await target.close();
  }
  let comparison: LoadComparison | undefined;
  if (options.baseline !== undefined) {
    comparison = await compareWithBaseline(resolve(String(options.baseline)), samples, options);
    for (const line of comparisonLines(comparison)) console.log(line);
    if (comparison.regression) exitCode = Math.max(exitCode, 1) as 0 | 1 | 2;
  }
  writeLoadReport(reportDir, {
    title: `dxs load ${scripts.length === 1 ? scripts[0] : `(${scripts.length} scripts)`} - profile ${settings.profile}`,
    target: target.baseUrl,
    profile: settings.profile,
    startedAt,
    results,
    artifacts,
    notes,
    cleanup,
    comparison,
  });
  console.log(`dxs load: report ${join(reportDir, 'index.html')}`);
  // As shells answer an interrupt: the report holds what the run got to.
  return interrupted ? interruptExitCode : exitCode;
}

/**
 * The gateway's answers of a script (issue 57). k6 judged its thresholds with them; dxs judged them
 * again without (analyse), and that verdict counts when the gateway answered at all. A gateway that
 * gave more than the share allowed kept the target from being loaded: exit 2, never a pass.
 */
function judgeGateway(script: string, result: RunResult, maxShare: number, code: 0 | 1 | 2): { code: 0 | 1 | 2; refused: boolean } {
  if (judgeGatewayShare(result, maxShare).answers === 0) return { code, refused: false };
  const judged: 0 | 1 | 2 = code === 2 ? 2 : result.passed ? 0 : 1;
  const message = markGatewayRefusal(result, maxShare);
  if (message === undefined) return { code: judged, refused: false };
  console.error(`dxs load: ${script}: ${message}`);
  return { code: 2, refused: true };
}

/** The ErpIds of the companies a script registered (its journal), or undefined when it registered none. */
function companiesOf(created: readonly CreatedPoint[]): Set<string> | undefined {
  const erpIds = created.filter((entity) => entity.kind === 'company' && entity.fields.ErpId !== undefined).map((entity) => entity.fields.ErpId);
  return erpIds.length === 0 ? undefined : new Set(erpIds);
}

/** The baseline must be a load report folder with raw points: a configuration error (exit 2) before anything runs. */
function checkBaseline(directory: string): void {
  try {
    collectMergeInputs([resolve(directory)], 'baseline');
  } catch (error) {
    throw new ConfigError(`--baseline ${directory}: ${(error as Error).message}`);
  }
}

async function compareWithBaseline(directory: string, current: ScriptSamples[], options: ResolvedOptions): Promise<LoadComparison> {
  const settings: CompareSettings = {
    ...DEFAULT_COMPARE_SETTINGS,
    threshold: (options.regressionThreshold as number) / 100,
    floorMs: options.regressionFloorMs as number,
  };
  return compareRuns(directory, await loadBaseline(directory), current, settings);
}

async function runMerge(inputs: string[], flags: Record<string, unknown>): Promise<number> {
  const out = resolve(String(flags.out ?? join('reports', `load-merge-${timestamp(new Date())}`)));
  const runners = flags.runners === undefined ? undefined : Number(flags.runners);
  if (runners !== undefined && !(Number.isInteger(runners) && runners > 0)) throw new ConfigError(`--runners ${String(flags.runners)}: a whole number of at least 1`);
  const asyncTimeout = flags.asyncTimeout === undefined ? undefined : Number(flags.asyncTimeout);
  if (asyncTimeout !== undefined && !(asyncTimeout > 0)) throw new ConfigError(`--async-timeout ${String(flags.asyncTimeout)}: a number of seconds above 0`);
  const thresholds = thresholdsPath({ thresholds: flags.thresholds } as ResolvedOptions);
  const maxGatewayShare = flags.maxGatewayShare === undefined ? undefined : Number(flags.maxGatewayShare);
  if (maxGatewayShare !== undefined && !(maxGatewayShare >= 0 && maxGatewayShare <= 100)) throw new ConfigError(`--max-gateway-share ${String(flags.maxGatewayShare)}: a percentage from 0 to 100`);
  const finalReadSetting = await mergeFinalReadTarget(flags);
  try {
    return await mergeRunners(inputs, { out, script: flags.script as string | undefined, runners, asyncTimeoutMs: asyncTimeout === undefined ? undefined : asyncTimeout * 1000, strict: flags.strict === true, deliveryLimits: deliveryLimitsOf(thresholds), finalRead: finalReadSetting.setting, maxGatewayShare });
  } finally {
    await finalReadSetting.close();
  }
}

/** The target of a merge's final read (--base-url and --api-key, or DXS_BASE_URL and DXS_API_KEY), or why there is none. */
async function mergeFinalReadTarget(flags: Record<string, unknown>): Promise<{ setting: MergeOptions['finalRead']; close: () => Promise<void> }> {
  const baseUrl = (flags.baseUrl as string | undefined) ?? (process.env[envName('baseUrl')] || undefined);
  const apiKey = (flags.apiKey as string | undefined) ?? (process.env[envName('apiKey')] || undefined);
  if (baseUrl === undefined) return { setting: undefined, close: async () => {} };
  try {
    const target = await openTarget({ baseUrl, apiKey, measureLatency: false });
    console.error(`dxs load merge: final read against ${target.baseUrl}`);
    return { setting: { target }, close: () => target.close() };
  } catch (error) {
    if (!(error instanceof TargetUnreachable)) throw error;
    console.error(`dxs load merge: ${error.message}: no final read`);
    return { setting: { problem: `the target was unreachable for the final read: ${error.reason}` }, close: async () => {} };
  }
}

/** Where the runners' results go: a claim (--results-pvc) and/or Prometheus (--prometheus-url, else K6_PROMETHEUS_RW_SERVER_URL). */
function k8sResultsOptions(flags: Record<string, unknown>): { resultsPvc?: string; prometheusUrl?: string } {
  const resultsPvc = flags.resultsPvc as string | undefined;
  if (resultsPvc !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(resultsPvc)) throw new ConfigError(`--results-pvc ${resultsPvc}: not a Kubernetes object name (lower case letters, digits, - and .)`);
  const prometheusUrl = (flags.prometheusUrl as string | undefined) ?? (process.env.K6_PROMETHEUS_RW_SERVER_URL || undefined);
  if (prometheusUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(prometheusUrl)) throw new ConfigError(`--prometheus-url ${prometheusUrl}: give the remote-write endpoint, for example http://prometheus:9090/api/v1/write`);
  if (resultsPvc === undefined && prometheusUrl === undefined) console.error('dxs load k8s: neither --results-pvc nor --prometheus-url: each runner judges only its own share, and the run is not judged as a whole');
  return { resultsPvc, prometheusUrl };
}

async function runK8s(flags: Record<string, unknown>): Promise<number> {
  const options = resolveFlags(K8S_OPTIONS, flags);
  const scripts = chooseScripts(String(options.script));
  if (scripts.length !== 1) throw new ConfigError('dxs load k8s takes one --script');
  const parallelism = Number(flags.parallelism ?? 2);
  if (!Number.isInteger(parallelism) || parallelism < 1) throw new ConfigError('--parallelism must be a whole number of at least 1');
  if (flags.out === undefined) throw new ConfigError('dxs load k8s needs --out DIR');
  const baseUrl = (options.baseUrl as string | undefined) ?? 'https://REPLACE-WITH-THE-TARGET/v1/api';
  if (options.baseUrl === undefined) console.error('dxs load k8s: no --base-url; the manifest holds a placeholder to replace');
  const results = k8sResultsOptions(flags);
  const k6 = findK6(options.k6 as string | undefined);
  const written = await writeK8sBundle({
    k6,
    script: scripts[0],
    parallelism,
    out: resolve(String(flags.out)),
    settings: scriptSettings(options, { baseUrl, apiKey: '' }, newRunPrefix(), join(resolve(String(flags.out)), 'fixtures.json')),
    ...results,
  });
  console.log(`dxs load k8s: wrote ${written.files.join(', ')}`);
  return 0;
}

function fail(error: unknown): never {
  const expected = error instanceof ConfigError || error instanceof K6NotFound;
  console.error(`dxs load: ${secrets.redactText(expected ? (error as Error).message : ((error as Error).stack ?? String(error)))}`);
  if (notRunReport !== undefined) console.error(`dxs load: report ${notRunReport}`);
  process.exit(2);
}

export function registerLoadCommand(program: Command): void {
  const load = program
    .command('load')
    .description('run k6 load scripts (one per flow) with a workload profile and per-endpoint thresholds');
  addOptions(load, LOAD_OPTIONS);
  load
    .option('--out <OUTPUT>', `also send k6's metrics to one of its outputs, name or name=configuration (repeatable): ${Object.keys(K6_OUTPUTS).join(', ')}; configured by k6's own variables (K6_PROMETHEUS_RW_SERVER_URL, K6_INFLUXDB_*, K6_OTEL_*, ...)`, collectOutput)
    .option('--dashboard [PORT]', `serve k6's live web dashboard on 127.0.0.1 while the run lasts (default port ${DEFAULT_DASHBOARD_PORT}); dashboard.html is exported either way`)
    // Positional: what follows a subcommand (merge, k8s) is that subcommand's, so that `dxs load k8s --out DIR` is k8s's folder, not a k6 output.
    .enablePositionalOptions();
  load.addHelpText(
    'after',
    `
Profiles:
${PROFILE_NAMES.map((name) => `  ${name.padEnd(11)} ${PROFILES[name].description}`).join('\n')}

Scripts: ${scriptNames().join(', ')}

Examples:
  $ dxs load --script register-and-poll --base-url https://staging.example/v1/api --api-key "$KEY"
                 (the run's companies are deleted when k6 ends; --keep-data keeps them for dxs clean --from)
  $ dxs load --profile average --baseline reports/load-last-release
  $ K6_PROMETHEUS_RW_SERVER_URL=http://127.0.0.1:9090/api/v1/write dxs load --out experimental-prometheus-rw --dashboard
  $ dxs load report history reports/load-*

Exit codes: 0 thresholds passed (and, with --baseline, no endpoint slower), 1 thresholds failed, a rule
of the exchange broken (an invoice lost, shown to another company, back after handled: the report's
Exchange integrity section) or an endpoint slower than the baseline, 2 configuration error (unknown script or profile,
k6 missing, target unreachable; the report still says why nothing ran) or a target the gateway kept from being
loaded (more than --max-gateway-share of an endpoint's answers were the gateway's 429, 502, 503 or 504), 130 interrupted (Ctrl-C; 143
for SIGTERM: what ran is judged and reported). Once k6 has ended, a final read waits for each invoice not yet seen by its
recipient (at most --async-timeout) and reads every inbox of the run whole: docs/load-final-read.md.
Options may also come from DXS_* variables or --config FILE.`,
  );
  load.action(async (flags: Record<string, unknown>) => {
    try {
      process.exit(await runLoad(flags));
    } catch (error) {
      fail(error);
    }
  });

  load
    .command('merge')
    .description('merge the JSON outputs of several runners into one report, thresholds judged on the whole')
    .argument('<input...>', 'raw.json / k6-summary.json files of the runners, or their report folders')
    .option('--out <DIR>', 'report folder to write (default reports/load-merge-<timestamp>/)')
    .option('--script <NAME>', 'script name for files that are not in a dxs report folder')
    .option('--runners <N>', 'how many runners must have left raw points (exit 2 when some are missing)')
    .option('--async-timeout <SECONDS>', 'how long a document may take to arrive, for the exchange checker (default: the runners\' own, from their summary.json, else 30)')
    .option('--thresholds <FILE>', 'thresholds file whose deliveryTime limits the merged run is judged by (default load/thresholds/default.json)')
    .option('--strict', 'a broken hardening rule of the exchange fails the merged run, as dxs load --strict; so does an invoice left not judged after the final read')
    .option('--max-gateway-share <PERCENT>', `as dxs load: more than this share of an endpoint's calls refused by the gateway (429, 502, 503, 504) means the run did not load its target: exit 2 (default ${DEFAULT_MAX_GATEWAY_SHARE})`)
    .option('--base-url <URL>', 'the target of the runners: the final read waits for and reads what their own final reads did not see (default: DXS_BASE_URL; without one, no final read)')
    .option('--api-key <KEY>', 'API key for the final read\'s ClientTokens (default: DXS_API_KEY)')
    .action(async (inputs: string[], _flags: Record<string, unknown>, command: Command) => {
      try {
        process.exit(await runMerge(inputs, command.optsWithGlobals()));
      } catch (error) {
        fail(error);
      }
    });

  load
    .command('report')
    .description('pages over several load runs')
    .command('history')
    .description('p95 per endpoint over a series of load runs, as an inline SVG chart and a table')
    .argument('<dir...>', 'dxs load report folders (each with its summary.json)')
    .option('--out <DIR>', 'where to write load-history.html and load-history.json (default: reports/)')
    .addHelpText('after', '\nExample:\n  $ dxs load report history reports/load-*\n\nExit codes: 0 the page was written, 2 no load report among the folders.')
    .action((directories: string[], flags: { out?: string }) => {
      process.exit(writeLoadHistory(directories, resolve(flags.out ?? 'reports')));
    });

  const k8s = load
    .command('k8s')
    .description('write a k6 archive and a k6-operator TestRun manifest for a distributed run')
    .option('--parallelism <N>', 'number of runners', '2')
    .option('--out <DIR>', 'folder for the archive, the manifests and the README')
    .option('--results-pvc <CLAIM>', 'ReadWriteMany PersistentVolumeClaim the runners write their results to; adds the collector Job that merges them')
    .option('--prometheus-url <URL>', 'also send the metrics to Prometheus remote write (default: K6_PROMETHEUS_RW_SERVER_URL)');
  addOptions(k8s, K8S_OPTIONS);
  // optsWithGlobals: options the subcommands share with `dxs load` (--script, --profile, ...) are
  // parsed by the parent when the root program does not use positional options.
  k8s.action(async (_flags: Record<string, unknown>, command: Command) => {
    try {
      process.exit(await runK8s(command.optsWithGlobals()));
    } catch (error) {
      fail(error);
    }
  });
}
