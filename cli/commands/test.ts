// dxs test: runs the Playwright suites (suites/) against a target and writes the report directory.
// Playwright Test has no programmatic API, so its CLI is spawned; the target, the keys and the
// selection travel in the DXS_RUN_CONTEXT environment variable, never on a command line.
// Exit codes: 0 no test failed, 1 a test failed, 2 usage, configuration, unreachable target or a
// run that could not complete. The report is written in every case.
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve, sep } from 'node:path';
import { ConfigError, envName, TEST_OPTIONS, WORKER_SETTINGS, resolveCommandOptions, type OptionSource, type ResolvedOptions } from '../../lib/config.ts';
import { secrets } from '../../lib/redact.ts';
import { openTarget, type Target } from '../../lib/target.ts';
import { networkOptionsOf } from '../../lib/transport.ts';
import { childNetwork } from '../../lib/child-network.ts';
import { connectionInfo, connectionLines } from '../../report/connection.ts';
import { WORKER_MEMORY_MB } from '../../lib/concurrency.ts';
import { collectTiming, timingLines } from '../../report/timing.ts';
import { scheduleOf } from '../../report/schedule.ts';
import { addRunPhases, addRunSetupRow, criticalPath, criticalPathLine, workerTimeLine, workerTimeSummary } from '../../report/timeline.ts';
import { TIMING_FOLDER } from '../../suites/support/timing.ts';
import { newRunPrefix, runSeed } from '../../fixtures/run-prefix.ts';
import { REQUIREMENT_AREAS } from '../../schemas/requirements.ts';
import { exitCodeOf, type Results, type RunStatus } from '../../report/results.ts';
import { applyBaseline, exitCodeWithBaseline, type BaselineInput } from '../../report/baseline.ts';
import { baselineLines, loadBaselineInput } from '../../report/baseline-cli.ts';
import { rootCauseLines } from '../../report/root-causes.ts';
import { gatewayLine, mergeGatewaySummaries, takeGatewaySummary } from '../../report/rate-limits.ts';
import { finishTransport, transportExitCode, watchStrayRejections } from './test-transport.ts';
import { transportLines } from '../../report/transport.ts';
import { displayPath, folderTimestamp as timestamp, loadSecretsFile, readResults, writeReport } from '../../report/write.ts';
import { BACKGROUND_CHAIN_TAG, RUN_CONTEXT_ENV, type CasingMode, type RunContext } from '../../suites/support/run-context.ts';
import { addOptions } from '../options.ts';
import { CLEANUP_CONCURRENCY, cleanUpAfterRun, cleanupLine } from './cleanup.ts';
import { startJournal } from '../../suites/support/journal.ts';
import { planRunSetup, removeRunSetup, runSetupLine, type RunSetupSummary } from '../../suites/support/setup-items.ts';
import { chooseRunWorkers } from './test-workers.ts';
import { startRunPace } from '../../suites/support/run-pace.ts';
import { budgetFor } from '../../suites/support/gateway.ts';
import { describeGatewayAnswer, retryAfterOf } from '../../lib/gateway.ts';
import type { CleanupReport } from '../../report/cleanup.ts';
import { githubAnnotations, githubSummary } from '../../report/github.ts';
import { addSetupTraffic } from '../../report/har.ts';
import { loadRequirements } from '../../schemas/requirements.ts';
import { exitCodeOfLastFailed, judgeLastFailed, lastFailedLines, loadLastFailed, writeLastRunFile, type LastFailedInput } from '../../report/last-failed.ts';
import { INTERRUPTED_EXIT_CODE, TERMINATED_EXIT_CODE } from '../../lib/defaults.ts';
import { relativizePlaywrightReport } from '../../report/playwright-html.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT_CONFIG = join(ROOT, 'suites', 'playwright.config.ts');
const PROFILES_FILE = join(ROOT, 'suites', 'profiles.json');
/** After an interruption, how long Playwright gets to write its reports before it is killed. */
const SHUTDOWN_GRACE_MS = 15_000;

interface Profile {
  description: string;
  areas: string[];
  destructive: boolean;
  /** Hardening checks fail instead of warning: a profile for the service's own CI. */
  strict?: boolean;
}

export function loadProfiles(): Record<string, Profile> {
  return (JSON.parse(readFileSync(PROFILES_FILE, 'utf8')) as { profiles: Record<string, Profile> }).profiles;
}

function version(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** reports/<timestamp>/ and reports/latest pointing to it, unless the user chose a directory. */
function prepareReportDir(options: ResolvedOptions, started: Date): string {
  if (typeof options.reportDir === 'string') {
    const directory = resolve(options.reportDir);
    mkdirSync(directory, { recursive: true });
    // A reused directory must not pass off an earlier run's results as this one's.
    for (const file of ['results.json', 'index.html', 'junit.xml', 'traffic.har']) rmSync(join(directory, file), { force: true });
    rmSync(join(directory, 'reproduce'), { recursive: true, force: true });
    return directory;
  }
  const reports = resolve('reports');
  let directory = join(reports, timestamp(started));
  for (let suffix = 2; existsSync(directory); suffix++) directory = join(reports, `${timestamp(started)}-${suffix}`);
  mkdirSync(directory, { recursive: true });
  return directory;
}

/**
 * reports/latest moves only for a run that runs tests (issue 59): a run stopped by its
 * configuration keeps it on the last run that ran, which --last-failed and --schedule-from read.
 * Moved when Playwright starts (a killed run's journal is then where dxs clean --from reports/latest
 * looks); returns how to put it back when the run ran no test after all.
 */
function pointLatestAt(options: ResolvedOptions, directory: string): () => void {
  if (typeof options.reportDir === 'string') return () => {};
  const latest = join(resolve('reports'), 'latest');
  let previous: string | undefined;
  try {
    if (lstatSync(latest, { throwIfNoEntry: false }) !== undefined) {
      previous = readlinkSync(latest);
      unlinkSync(latest);
    }
    symlinkSync(basename(directory), latest);
  } catch {
    // A missing symlink is no reason to fail a run (some file systems have none).
  }
  return () => {
    try {
      unlinkSync(latest);
      if (previous !== undefined) symlinkSync(previous, latest);
    } catch {
      // As above.
    }
  };
}

interface Selection {
  profile: string;
  areas: string[];
  destructive: boolean;
  strict: boolean;
}

function select(options: ResolvedOptions): Selection {
  const profiles = loadProfiles();
  const name = options.profile as string;
  const profile = profiles[name];
  if (profile === undefined) throw new ConfigError(`unknown profile "${name}" (known: ${Object.keys(profiles).join(', ')})`);
  const areas = (options.area as string[] | undefined) ?? profile.areas;
  for (const area of areas) {
    if (!(REQUIREMENT_AREAS as readonly string[]).includes(area)) throw new ConfigError(`unknown area "${area}" (known: ${REQUIREMENT_AREAS.join(', ')})`);
  }
  if (typeof options.grep === 'string') {
    try {
      new RegExp(options.grep);
    } catch (error) {
      throw new ConfigError(`--grep ${JSON.stringify(options.grep)} is not a regular expression: ${(error as Error).message}`);
    }
  }
  return { profile: name, areas, destructive: (options.destructive as boolean) || profile.destructive, strict: (options.strict as boolean) || profile.strict === true };
}

/** The report of a run that never reached Playwright, or that Playwright could not finish. */
function runReport(context: Partial<RunContext> & { reportDir: string }, status: RunStatus, message: string, started: Date): Results {
  return {
    format: 'dxs-results/1',
    run: {
      target: context.baseUrl ?? '(none)',
      embedded: context.embedded ?? false,
      profile: context.profile ?? '(none)',
      areas: context.areas ?? [],
      casing: context.casing ?? 'any',
      destructive: context.destructive ?? false,
      version: version(),
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started.getTime(),
      status,
      message,
      shards: context.shard !== undefined ? [context.shard] : [],
    },
    summary: { total: 0, passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0 },
    tests: [],
    coverage: {},
  };
}

/** Playwright leaves a directory per test even when it holds nothing; those only clutter the evidence. */
function removeEmptyDirectories(directory: string): boolean {
  if (!existsSync(directory) || !lstatSync(directory).isDirectory()) return false;
  let empty = true;
  for (const entry of readdirSync(directory)) {
    if (!removeEmptyDirectories(join(directory, entry))) empty = false;
  }
  if (empty) rmdirSync(directory);
  return empty;
}

function playwrightCli(): string {
  return createRequire(import.meta.url).resolve('@playwright/test/cli');
}

/**
 * Installed as a package, the suites lie under node_modules, where Playwright does not compile
 * TypeScript and Node refuses `.ts` (ERR_UNKNOWN_FILE_EXTENSION); tsx's loader, which runs the CLI
 * itself, then compiles them, in Playwright's workers too (they inherit NODE_OPTIONS). In a clone
 * Playwright's own compiler stays the only one.
 */
export function playwrightEnv(env: NodeJS.ProcessEnv, root = ROOT): NodeJS.ProcessEnv {
  if (!root.split(sep).includes('node_modules')) return env;
  const loader = `--import=${import.meta.resolve('tsx')}`;
  return { ...env, NODE_OPTIONS: [env.NODE_OPTIONS, loader].filter((part) => part !== undefined && part !== '').join(' ') };
}

/** Runs Playwright; resolves with its exit code, or null when it had to be killed. */
function runPlaywright(args: string[], env: NodeJS.ProcessEnv, onInterrupt: (signal: NodeJS.Signals) => void): Promise<number | null> {
  return new Promise((resolvePromise) => {
    // Its own process group: a Ctrl-C reaches Playwright once, from us, so it shuts down gracefully
    // (a second SIGINT would make it exit at once, without writing the reports).
    const child = spawn(process.execPath, [playwrightCli(), ...args], { cwd: ROOT, env: playwrightEnv(env), stdio: 'inherit', detached: true });
    let killTimer: NodeJS.Timeout | undefined;
    const forward = (signal: NodeJS.Signals): void => {
      onInterrupt(signal);
      if (killTimer !== undefined) return;
      console.error(`\ndxs test: ${signal} received, stopping the run and writing the report...`);
      child.kill('SIGINT');
      killTimer = setTimeout(() => child.kill('SIGKILL'), SHUTDOWN_GRACE_MS);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code) => {
      clearTimeout(killTimer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolvePromise(code);
    });
  });
}

/**
 * How many tests the selection holds, as Playwright lists them (a runner that loads the suites and
 * runs nothing, about a second); undefined when the listing fails, which then caps nothing.
 */
function countSelectedTests(context: RunContext, env: NodeJS.ProcessEnv, selectionArgs: readonly string[] = []): Promise<number | undefined> {
  const args = ['test', '-c', PLAYWRIGHT_CONFIG, '--list', '--reporter=json', ...(context.shard === undefined ? [] : ['--shard', context.shard]), ...selectionArgs];
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [playwrightCli(), ...args], { cwd: ROOT, env: playwrightEnv({ ...env, [RUN_CONTEXT_ENV]: JSON.stringify(context) }), stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), LIST_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', () => resolvePromise(undefined));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        type ListedSuite = { specs?: Array<{ tests: unknown[] }>; suites?: ListedSuite[] };
        const count = (suite: ListedSuite): number => (suite.specs ?? []).reduce((sum, spec) => sum + spec.tests.length, 0) + (suite.suites ?? []).reduce((sum, inner) => sum + count(inner), 0);
        const listed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { suites: ListedSuite[] };
        resolvePromise(listed.suites.reduce((sum, suite) => sum + count(suite), 0));
      } catch {
        resolvePromise(undefined);
      }
    });
  });
}

const LIST_TIMEOUT_MS = 60_000;

/**
 * Under GitHub Actions: an annotation per failure on stdout, where the runner reads workflow
 * commands, and the verdict table appended to the job summary.
 */
export function writeGithubOutput(results: Results, reportDir: string, env: NodeJS.ProcessEnv, print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): void {
  if (env.GITHUB_ACTIONS !== 'true') return;
  for (const line of githubAnnotations(results, loadRequirements())) print(secrets.redactText(line));
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (summaryFile === undefined || summaryFile === '') return;
  try {
    appendFileSync(summaryFile, secrets.redactText(githubSummary(results, displayPath(reportDir))));
  } catch (error) {
    console.error(`dxs test: cannot write the job summary: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Each failure's curl line (redacted: keys are shell variables) and its script, for the console (issue 43). */
export function reproduceLines(results: Results, reportDir: string): string[] {
  return results.tests
    .filter((test) => test.verdict === 'failed' && test.reproduce?.script !== undefined)
    .map((test) => `reproduce ${test.titlePath.join(' › ')} (${displayPath(join(reportDir, test.reproduce?.script ?? ''))}):\n  ${test.reproduce?.call ?? `sh ${displayPath(join(reportDir, test.reproduce?.script ?? ''))}`}`);
}

function summaryLine(results: Results, reportDir: string): string {
  const { summary, run } = results;
  const where = displayPath(join(reportDir, 'index.html'));
  // Against a baseline, a run whose failures are all known passes, and its line must not say FAILED.
  const knownOnly = run.status === 'failed' && results.baseline !== undefined && results.baseline.newFailures.length === 0;
  const verdict = run.status === 'passed' ? 'PASSED' : knownOnly ? 'PASSED (no new failure)' : run.status === 'failed' ? 'FAILED' : run.status.toUpperCase();
  // The root causes come last but one, where a CI log is read first.
  const gateway = gatewayLine(results.gateway);
  const causes = [...rootCauseLines(results.tests), ...(gateway === undefined ? [] : [gateway]), ...transportLines(results.transport)].map((line) => `\n${line}`).join('');
  return `dxs test: ${verdict}: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info, ${summary.skipped} skipped${summary.blocked ? `, ${summary.blocked} blocked` : ''}${summary.flaky ? `, ${summary.flaky} flaky` : ''}${run.message ? ` (${run.message})` : ''}${causes}\nreport: ${where}`;
}

/**
 * The settings the workers read from their DXS_* variables (suites/support/companies-more.ts), when
 * given as a flag or in the config file. DXS_IDENTIFIER_TYPES is also read by the run's setup, here.
 */
function workerSettingsEnv(options: ResolvedOptions, sources: Record<string, OptionSource>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of WORKER_SETTINGS) {
    const value = options[key];
    if (value === undefined || sources[key] === 'env') continue;
    env[envName(key)] = Array.isArray(value) ? value.join(',') : String(value);
  }
  if (env.DXS_IDENTIFIER_TYPES !== undefined) process.env.DXS_IDENTIFIER_TYPES = env.DXS_IDENTIFIER_TYPES;
  return env;
}

/** --schedule-from's value that keeps Playwright's file order: no earlier run, no tag. */
const SCHEDULE_NONE = 'none';

/** Where the order of the queue comes from (report/schedule.ts): an earlier run's durations, the tags, or neither. */
interface ScheduleSource {
  /** The earlier run, when there is one; undefined with the tags alone. */
  earlier?: Results;
  /** As the console names it. */
  from?: string;
  /** --schedule-from none: file order. */
  none?: boolean;
}

/**
 * --schedule-from, or by default the last run in reports/latest: read before the report directory
 * is prepared (it may be reports/latest). The default is quiet when there is none or it does not
 * read: the tags still order the queue. A shard keeps the file order, so it reads no default.
 */
function loadScheduleSource(path: string | undefined, sharded: boolean): ScheduleSource {
  if (path === SCHEDULE_NONE) return { none: true };
  const given = path !== undefined;
  if (!given && sharded) return {};
  const source = path ?? join('reports', 'latest');
  const file = existsSync(source) && statSync(source).isFile() ? source : join(source, 'results.json');
  if (!given && !existsSync(file)) return {};
  try {
    return { earlier: readResults(file), from: source };
  } catch (error) {
    if (!given) return {};
    throw new ConfigError(`--schedule-from ${path}: ${(error as Error).message}`);
  }
}

export async function runTestCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = new Date();
  let options: ResolvedOptions;
  let selection: Selection;
  let judge: BaselineInput | undefined;
  let scheduleSource: ScheduleSource;
  let lastFailed: LastFailedInput | undefined;
  let sources: Record<string, OptionSource>;
  let configPath: string | undefined;
  try {
    ({ options, sources, configPath } = resolveCommandOptions(TEST_OPTIONS, flags, env, (path) => readFileSync(path, 'utf8')));
    selection = select(options);
    // Read before the report directory is prepared: it may be the baseline's own, or reports/latest.
    judge = loadBaselineInput(options.baseline as string | undefined, options.expectFailures as string | undefined);
    scheduleSource = loadScheduleSource(options.scheduleFrom as string | undefined, options.shard !== undefined);
    lastFailed = loadLastFailed(options.lastFailed as string | undefined);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`dxs test: ${error.message}`);
    return 2;
  }
  if (lastFailed !== undefined) {
    if (lastFailed.tests.length === 0) {
      console.error(`dxs test: --last-failed ${lastFailed.source}: no test failed or was blocked there; nothing to run again`);
      return 0;
    }
    // The earlier run's selection, so that no test of it is filtered out (a destructive one, an area).
    const run = lastFailed.results.run;
    selection = { profile: run.profile, areas: run.areas, destructive: run.destructive || selection.destructive, strict: run.strict === true || selection.strict };
  }
  const reportDir = prepareReportDir(options, started);
  // Playwright's own --last-failed, from a last-run file naming the earlier run's failed and blocked tests.
  const selectionArgs = lastFailed === undefined ? [] : ['--last-failed', '--last-failed-file', writeLastRunFile(reportDir, lastFailed)];
  const casing = options.casing as CasingMode;
  const partial = { reportDir, baseUrl: options.baseUrl as string | undefined, profile: selection.profile, areas: selection.areas, destructive: selection.destructive, casing, shard: options.shard as string | undefined };

  let target: Target;
  try {
    target = await openTarget({
      baseUrl: options.baseUrl as string | undefined,
      apiKey: options.apiKey as string | undefined,
      apiKeyWithoutDelete: options.apiKeyWithoutDelete as string | undefined,
      sandboxCasing: (options.sandboxCasing as 'pascal' | 'camel' | undefined) ?? (casing === 'strict-pascal' ? 'pascal' : 'camel'),
      sandboxFaults: options.sandboxFault as string[] | undefined,
      sandboxVariants: options.sandboxVariant as string[] | undefined,
      network: networkOptionsOf(options),
      // Below, side by side with the background probe.
      measureLatency: false,
      sources,
      configPath,
      maxRps: options.maxRps as number | undefined,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`dxs test: ${error.message}`);
    const status: RunStatus = error.name === 'TargetUnreachable' ? 'unreachable' : 'error';
    const report = runReport(partial, status, error.message, started);
    if (options.insecure === true) report.run.connection = { insecure: true, warnings: [] };
    writeReport(reportDir, report);
    writeGithubOutput(report, reportDir, env);
    console.error(`report: ${displayPath(join(reportDir, 'index.html'))}`);
    return 2;
  }
  for (const warning of target.warnings) console.error(`dxs test: warning: ${warning}`);
  const connection = connectionInfo(target.connection, target.certificate);
  for (const line of connectionLines(connection)) console.error(`dxs test: ${line}`);

  // A promise of dxs's own work (the run's setup, a probe) that failed with nobody awaiting it must
  // not end the process before the report is written: it is said, and the run's report still comes.
  const strays = watchStrayRejections((line) => console.error(`dxs test: ${line}`));
  const secretsFile = join(tmpdir(), `dxs-secrets-${process.pid}-${started.getTime()}`);
  const runPrefix = newRunPrefix();
  const context: RunContext = {
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    apiKeyWithoutDelete: target.apiKeyWithoutDelete,
    asyncTimeoutSeconds: options.asyncTimeout as number,
    casing,
    areas: selection.areas,
    grep: options.grep as string | undefined,
    destructive: selection.destructive,
    strict: selection.strict,
    profile: selection.profile,
    reportDir,
    runPrefix,
    // From the prefix: the data of a run can be made again from its prefix, and runs started at once differ.
    seed: runSeed(runPrefix),
    embedded: target.embedded,
    version: version(),
    startedAt: started.toISOString(),
    secretsFile,
    shard: options.shard as string | undefined,
    connection: target.connection,
    maxRps: options.maxRps as number | undefined,
    rateLimitBudgetSeconds: options.rateLimitBudget as number,
    callTimeoutSeconds: options.callTimeout as number,
  };
  // The journal first: the background probe's company is the run's first entry in it.
  startJournal(context);
  // Before the probe: its calls are the run's first, and a gateway that answers them paces the workers from their start.
  const pace = await startRunPace({ maxRps: context.maxRps });
  context.paceUrl = pace.url;
  const budget = budgetFor(context);
  const chosen = await chooseRunWorkers(context, target, {
    workers: options.workers as number | undefined,
    everyArea: Object.values(loadProfiles()).flatMap((profile) => profile.areas),
    countSelectedTests: () => countSelectedTests(context, env, selectionArgs),
    pace: {
      pass: () => pace.gate.pass(),
      answered: (waitMs, headers, ticket, call) => {
        pace.gate.answered(waitMs, headers, ticket);
        // The probe gives up on the answer (no figure); the run counts it with the others.
        budget.record({ endpoint: call.endpoint, status: call.status, retryAfter: retryAfterOf(headers), waitedMs: 0, limit: describeGatewayAnswer(call.status, headers) });
      },
    },
  });
  const workers = chosen.workers;
  context.workers = workers;
  // A shard's tests are a contiguous cut of Playwright's queue: every shard must cut the same queue
  // (one reordered by its own last run would leave tests out or run them twice), and a queue sorted
  // longest first would give one shard all the long tests. So shards keep the file order.
  if (context.shard !== undefined) {
    if (options.scheduleFrom !== undefined && scheduleSource.none !== true) console.error('dxs test: schedule: file order under --shard (every shard cuts the same queue); --schedule-from is not used');
  } else if (!scheduleSource.none) {
    context.schedule = scheduleSource.earlier === undefined ? [] : scheduleOf(scheduleSource.earlier);
    const timed = context.schedule.length === 0 ? '' : `, then by ${displayPath(scheduleSource.from ?? '')}'s durations (${context.schedule.length} test${context.schedule.length === 1 ? '' : 's'} of 1 s or more, the longest ${(context.schedule[0].durationMs / 1000).toFixed(1)} s)`;
    console.error(`dxs test: schedule: the longest tests first: those tagged ${BACKGROUND_CHAIN_TAG}${timed}`);
  }
  if (target.latencyMs !== undefined) context.latencyMs = Math.round(target.latencyMs);
  console.error(`dxs test: ${target.embedded ? 'embedded sandbox at ' : ''}${target.baseUrl}, profile ${selection.profile} (${selection.areas.join(', ')})${selection.strict ? ', strict' : ''}, ${workers} workers (${chosen.reason})${context.maxRps !== undefined ? `, at most ${context.maxRps} requests/s (--max-rps)` : ''}`);

  // The first workers' companies and access settings, made while Playwright starts them (suites/support/run-setup.ts).
  const setupPlan = lastFailed === undefined ? planRunSetup(context, workers, join(tmpdir(), `dxs-setup-${process.pid}-${started.getTime()}`)) : undefined;
  if (setupPlan !== undefined) context.setup = setupPlan;

  const args = ['test', '-c', PLAYWRIGHT_CONFIG, '--workers', String(workers)];
  const maxFailures = options.failFast === true ? 1 : (options.maxFailures as number | undefined);
  // Playwright counts a failure toward --max-failures only once no retry is left: a blunt stop runs no test again (issue 57).
  if (maxFailures !== undefined) args.push('--max-failures', String(maxFailures), '--retries', '0');
  if (typeof options.shard === 'string') args.push('--shard', options.shard);
  args.push(...selectionArgs);
  let interrupted = false;
  let signal: NodeJS.Signals | undefined;
  let code: number | null;
  let cleanup: CleanupReport | undefined;
  let playwrightStartedAt: number | undefined;
  let playwrightEndedAt: number | undefined;
  let cleanupEndedAt: number | undefined;
  let setupSummary: RunSetupSummary | undefined;
  const network = childNetwork(target.connection, env);
  let setup: Promise<RunSetupSummary | undefined> | undefined;
  const restoreLatest = pointLatestAt(options, reportDir);
  try {
    playwrightStartedAt = Date.now();
    const playwright = runPlaywright(args, { ...network.env, ...workerSettingsEnv(options, sources), [RUN_CONTEXT_ENV]: JSON.stringify(context) }, (received) => {
      interrupted = true;
      signal ??= received;
    });
    // Loaded only now, while Playwright loads the suites: the suites' code costs the start a second of CPU.
    if (setupPlan !== undefined) {
      setup = import('../../suites/support/run-setup.ts')
        .then(({ runSetup }) => runSetup(context, setupPlan, started.getTime()))
        .catch((error: unknown) => {
          // The workers then wait for their items in vain and say so; the cause is said here once.
          console.error(`dxs test: the run's setup stopped: ${secrets.redactText(String((error as Error).message ?? error))}`);
          return undefined;
        });
    }
    code = await playwright;
  } finally {
    playwrightEndedAt = Date.now();
    // Every wait of the setup is bounded; what it registered is in the journal the cleanup reads.
    setupSummary = await setup;
    removeRunSetup(setupPlan);
    network.dispose();
    // Before the embedded sandbox stops, and after a failed or interrupted run too.
    // As many deletes at once as the run had workers (at least the usual 4): the target has had that many calls at once.
    cleanup = await cleanUpAfterRun(context, options.keepData === true, Math.max(CLEANUP_CONCURRENCY, workers), pace.gate);
    cleanupEndedAt = Date.now();
    await pace.close();
    await target.close().catch(() => {});
  }

  loadSecretsFile(secretsFile);
  rmSync(secretsFile, { force: true });
  removeEmptyDirectories(join(reportDir, 'test-results'));
  addSetupTraffic(reportDir, (text) => secrets.redactText(text));
  // A failure's stack lines in Playwright's own report name the folder dxs runs from: made relative to it.
  relativizePlaywrightReport(join(reportDir, 'playwright'), ROOT);
  const resultsPath = join(reportDir, 'results.json');
  let results: Results;
  if (existsSync(resultsPath)) {
    results = readResults(resultsPath);
    if (interrupted && results.run.status === 'passed') results.run.status = 'interrupted';
    // Playwright failed without any failed test: it could not load or select the suites.
    if (code !== 0 && results.summary.failed === 0 && results.run.status === 'passed') {
      results.run.status = 'error';
      results.run.message ??= `Playwright exited with code ${code} (see the output above)`;
    }
    if (results.run.message?.includes('No tests found')) {
      results.run.message += ': the selection matched no test (check --area, --grep, --profile and --destructive)';
    }
  } else {
    results = runReport({ ...context }, interrupted ? 'interrupted' : 'error', interrupted ? 'the run was interrupted before any result was written' : `Playwright exited with code ${code} before writing results`, started);
  }
  if (results.tests.length === 0) restoreLatest();
  results.cleanup = cleanup;
  results.run.connection = connection;
  // The cleanup's own waits for the gateway came after the reporter's summary.
  results.gateway = mergeGatewaySummaries([results.gateway, takeGatewaySummary({ ...context, maxRps: undefined })]) ?? results.gateway;
  // The cleanup's transient answers came after the reporter's summary too.
  finishTransport(context, results);
  const interval = pace.gate.interval;
  if (results.gateway !== undefined && results.gateway.answers > 0 && interval !== undefined) results.gateway.endPace = Math.round(10_000 / interval) / 10;
  results.timing = collectTiming(join(reportDir, TIMING_FOLDER), { workers, workersReason: chosen.reason, latencyMs: context.latencyMs, workerMemoryMb: options.workers === undefined ? WORKER_MEMORY_MB : undefined });
  if (results.timeline !== undefined && playwrightEndedAt !== undefined) {
    const from = started.getTime();
    results.timeline = addRunPhases(results.timeline, [
      { kind: 'startup', name: 'dxs starts: the target, its probes, the choice of workers', startMs: 0, endMs: (playwrightStartedAt ?? from) - from },
      { kind: 'cleanup', name: 'Playwright writes its reports and stops its workers', startMs: results.timeline.wallMs, endMs: playwrightEndedAt - from },
      { kind: 'cleanup', name: `the cleanup: ${cleanupLine(cleanup).replace(/^cleanup: /, '')}`, startMs: playwrightEndedAt - from, endMs: (cleanupEndedAt ?? playwrightEndedAt) - from },
    ]);
  }
  if (results.timeline !== undefined && setupSummary !== undefined) results.timeline = addRunSetupRow(results.timeline, { name: runSetupLine(setupSummary), startMs: setupSummary.startMs, endMs: setupSummary.endMs });
  const path = results.timeline === undefined ? undefined : criticalPath(results.timeline);
  for (const line of [...timingLines(results.timing), ...(setupSummary === undefined ? [] : [runSetupLine(setupSummary)]), ...(path === undefined || results.timeline === undefined ? [] : [workerTimeLine(workerTimeSummary(results.timeline)), criticalPathLine(path)])]) console.error(`dxs test: ${line}`);
  console.error(`dxs test: ${cleanupLine(cleanup)}`);
  strays.close(results);
  if (judge !== undefined) results.baseline = applyBaseline(results, judge);
  if (lastFailed !== undefined) results.lastFailed = judgeLastFailed(lastFailed, results);
  // Rewritten with every secret the workers saw, and with the final status.
  writeReport(reportDir, results);
  for (const line of reproduceLines(results, reportDir)) console.error(secrets.redactText(line));
  console.error(summaryLine(results, reportDir));
  if (results.baseline !== undefined) console.error(baselineLines(results.baseline).join('\n'));
  if (results.lastFailed !== undefined) console.error(lastFailedLines(results.lastFailed).join('\n'));
  writeGithubOutput(results, reportDir, env);
  // The shell's convention, as dxs load keeps it: 128 + the signal's number, whatever the run found before it.
  if (signal !== undefined) return signal === 'SIGTERM' ? TERMINATED_EXIT_CODE : INTERRUPTED_EXIT_CODE;
  const exit = transportExitCode(results.baseline !== undefined ? exitCodeWithBaseline(results) : exitCodeOf(results), results, options.failOnFlaky === true);
  return results.lastFailed !== undefined ? exitCodeOfLastFailed(results.lastFailed, exit) : exit;
}

export function registerTestCommand(program: Command): void {
  const profiles = loadProfiles();
  const command = program
    .command('test')
    .description('run the contract, scenario and security suites against a target (default: the embedded sandbox)');
  addOptions(command, TEST_OPTIONS);
  command.addHelpText(
    'after',
    `
Every option can also be set with its DXS_* environment variable or as a camelCase key of the
JSON config file (--config / DXS_CONFIG). Precedence: flag > environment > config file > default.

Profiles (--profile):
${Object.entries(profiles)
  .map(([name, profile]) => `  ${name.padEnd(18)} ${profile.description}: ${profile.areas.join(', ')}`)
  .join('\n')}

Examples:
  $ dxs test                                          all default suites against the embedded sandbox
  $ dxs test --base-url https://staging.example/v1/api --api-key "$KEY" --async-timeout 120
  $ DXS_API_KEY=... dxs test --base-url https://staging.example/v1/api --profile invoice-sender
  $ HTTPS_PROXY=http://proxy.corp:3128 dxs test --base-url https://staging.example/v1/api --api-key "$KEY" \\
      --ca-cert corp-ca.pem --client-cert erp.pem --client-key erp.key
                                                      behind a proxy, a private CA and mutual TLS
  $ dxs test --area tokens companies --grep @TOK-01
  $ dxs test --shard 1/2 --report-dir reports/shard-1 && dxs test --shard 2/2 --report-dir reports/shard-2
  $ dxs report merge reports/shard-1 reports/shard-2 --out reports/merged
  $ dxs test --base-url "$STAGING" --max-rps 10 --rate-limit-budget 300
                                                      stay under a gateway's 10/s, wait up to 5 min in all for its 429s
  $ dxs test --base-url "$STAGING" --baseline reports/last-green --expect-failures dxs-expected.json
                                                      exit 1 only for failures that are new
  $ dxs test --base-url "$STAGING" --last-failed     run again what failed or was blocked in reports/latest;
                                                      exit 0 when every one is fixed

Reports: <report dir>/index.html (our page), results.json, junit.xml, playwright/index.html.
Workers: chosen from what the start measures of the target (a few probes, and one registration
timed until Registered, whose company the cleanup deletes): enough to keep this machine's cores
busy while calls and background work wait, within memory (2 to 16), and a worker for every two
tests of a narrow selection (--area, --grep, --shard); the console and the report say
what was chosen and why, and how long the run waited for the network and for background work;
--workers N overrides. A broken prerequisite (no client token, registration never
Registered, no final status, provider A never Completed, no invoice in the inbox) is awaited once
and the tests that need it end at once as blocked, the root causes listed last.

The deployment's transport (a 502, a 504, a 503 without Retry-After, a call reset, closed or past
--call-timeout) is never judged: a repeatable call is sent again, any other call's test runs again
from its start, once; a test that passes then is flaky, one that meets it again is blocked.

Exit codes: 0 no test failed (warnings, info and flaky tests allowed; --fail-on-flaky: 1), 1 a test failed or was blocked by a broken
prerequisite (with --baseline or --expect-failures: a failure that is new), 2 usage or configuration error, unreachable target, or a run that could not complete.`,
  );
  command.action(async (flags: Record<string, unknown>) => {
    // Exit at once: nothing of the run should keep the process alive after the report is written.
    process.exit(await runTestCommand(flags));
  });
}
