// dxs client-check (issue 30): certifies the other side of the API, an integrator's ERP client.
// Starts the sandbox in grading mode (a recording front with optional provocations), runs the
// client's command with the base URL and keys in its environment (or, with --serve, waits for a
// client elsewhere), judges the recorded traffic against the client catalog and writes the report.
// Exit codes: 0 no client requirement failed, 1 one did, 2 usage, a command that could not run or
// did not finish (non-zero exit, --timeout), or a grading sandbox that could not start.
import { spawn } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, positive, resolveCommandOptions, type OptionSpec } from '../../lib/config.ts';
import { secrets } from '../../lib/redact.ts';
import type { RunningSandbox } from '../../sandbox/index.ts';
import { loadClientRequirements } from '../../schemas/client-requirements.ts';
import { displayPath, folderTimestamp } from '../../report/write.ts';
import { gradeCalls } from '../../grading/graded-call.ts';
import { judgeAll } from '../../grading/judges/index.ts';
import { GRADING_SANDBOX_VARIANTS, PROVOCATIONS, Provocations, SLOW_BACKGROUND_STEP_MS, unknownProvocations } from '../../grading/provocations.ts';
import { startRecorder, type Recorder } from '../../grading/recorder.ts';
import { clientResults, type ClientResults } from '../../grading/results.ts';
import { FLOW_IDS, FLOW_PROFILES } from '../../grading/judges/endpoints.ts';
import { flowsOf, gradeRequirements, resolveRequiredFlows } from '../../grading/verdicts.ts';
import { writeClientReport } from '../../grading/write.ts';
import { parseDeployment } from '../../report/certificate-facts.ts';
import { addOptions } from '../options.ts';
import { preparePackageDir, readKey, redactedCommand } from './certify.ts';
import { writeClientPackage } from './client-certify.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export const CLIENT_CHECK_OPTIONS: readonly OptionSpec[] = [
  { key: 'port', kind: 'integer', argument: 'N', default: 0, description: 'port the grading sandbox listens on (0 picks a free one)' },
  { key: 'host', kind: 'string', argument: 'HOST', default: '127.0.0.1', description: 'address the grading sandbox listens on (0.0.0.0 with --serve for a client on another machine)' },
  { key: 'timeout', kind: 'number', argument: 'SECONDS', default: 300, check: positive, description: 'stop the client command after this long and judge what it did' },
  { key: 'serve', kind: 'boolean', default: false, description: 'no command: keep the grading sandbox running for a client elsewhere; grade on Ctrl-C, SIGTERM or --idle' },
  { key: 'idle', kind: 'number', argument: 'SECONDS', check: positive, description: 'with --serve: grade after this long without a call' },
  { key: 'provoke', kind: 'list', argument: 'NAME...', description: `provocations (off by default), to see whether the client copes: ${Object.keys(PROVOCATIONS).join(', ')}` },
  { key: 'requireFlows', kind: 'list', argument: 'FLOW...', description: `flows the client must try, else it fails (exit 1): short names (${Object.values(FLOW_IDS).slice(0, 4).join(', ')}, ...; see below) or a profile: ${Object.keys(FLOW_PROFILES).join(', ')}` },
  { key: 'strict', kind: 'boolean', default: false, description: 'hardening requirements (good practice the spec does not require) fail instead of warning' },
  { key: 'sandboxCasing', kind: 'string', argument: 'CASING', choices: ['pascal', 'camel'], description: 'field-name casing the grading sandbox answers in (default camel)' },
  { key: 'reportDir', kind: 'string', argument: 'DIR', description: 'where to write the report (default: reports/client-check-<timestamp>/)' },
  { key: 'config', kind: 'string', argument: 'FILE', description: 'JSON config file; keys are the camelCase option names' },
  { key: 'certify', kind: 'boolean', default: false, description: 'write the signed package of dxs certify for the client: certificate (HTML, PDF, JSON), the report, manifest.json and a .zip (--report-dir is the package folder, default reports/client-certify-<timestamp>/)' },
  { key: 'deployment', kind: 'string', argument: '"NAME VERSION"', description: 'with --certify: the client certified, its name and version (required), e.g. "acme-erp 7.2"' },
  { key: 'signKey', kind: 'string', argument: 'PEM', description: 'with --certify: Ed25519 private key (PEM, from dxs keys generate) to sign manifest.json with' },
];

/** What the client command is given. */
export const CLIENT_ENV = { baseUrl: 'DXS_CLIENT_BASE_URL', apiKey: 'DXS_CLIENT_API_KEY', apiKeyWithoutDelete: 'DXS_CLIENT_API_KEY_WITHOUT_DELETE' } as const;

const KILL_GRACE_MS = 5000;
/** How many of the client's last lines of output the page of a run not judged whole shows. */
const CLIENT_OUTPUT_LINES = 20;

function lastLines(text: string, count: number): string[] {
  return text.split(/\r?\n/).filter((line) => line.trim() !== '').slice(-count);
}
const SETTLE_MS = 5000;

function version(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

function prepareReportDir(reportDir: string | undefined, started: Date): string {
  if (reportDir !== undefined) {
    const directory = resolve(reportDir);
    mkdirSync(directory, { recursive: true });
    for (const file of ['results.json', 'index.html', 'junit.xml', 'traffic.json', 'client.log']) rmSync(join(directory, file), { force: true });
    return directory;
  }
  let directory = resolve('reports', `client-check-${folderTimestamp(started)}`);
  for (let suffix = 2; existsSync(directory); suffix++) directory = resolve('reports', `client-check-${folderTimestamp(started)}-${suffix}`);
  mkdirSync(directory, { recursive: true });
  return directory;
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

interface ClientRun {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why it could not start. */
  error?: string;
}

/** Runs the client, its output passed on (redacted) to stderr and kept in client.log. */
function runClient(command: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number, log: string[]): Promise<ClientRun> {
  return new Promise((resolvePromise) => {
    let timedOut = false;
    let settled = false;
    const child = spawn(command[0], command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const pass = (chunk: Buffer) => {
      const text = secrets.redactText(chunk.toString('utf8'));
      log.push(text);
      process.stderr.write(text.replace(/^(?=.)/gm, 'client │ '));
    };
    child.stdout?.on('data', pass);
    child.stderr?.on('data', pass);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS).unref();
    }, timeoutMs);
    const finish = (run: ClientRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise(run);
    };
    child.on('error', (error) => finish({ code: null, signal: null, timedOut: false, error: (error as NodeJS.ErrnoException).code ?? error.message }));
    child.on('close', (code, signal) => finish({ code, signal, timedOut }));
  });
}

/** Waits for SIGINT, SIGTERM or --idle seconds without a call. */
function serveUntilDone(recorder: Recorder, idleMs: number | undefined): Promise<string> {
  return new Promise((resolvePromise) => {
    const started = Date.now();
    const finish = (why: string) => {
      clearInterval(timer);
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
      resolvePromise(why);
    };
    const onInt = () => finish('SIGINT');
    const onTerm = () => finish('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    const timer = setInterval(() => {
      if (idleMs === undefined || recorder.pending() > 0) return;
      if (Date.now() - (recorder.lastCallAt() ?? started) >= idleMs) finish(`${idleMs / 1000} s without a call`);
    }, 200);
  });
}

async function settle(recorder: Recorder): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  while (recorder.pending() > 0 && Date.now() < until) await new Promise((wait) => setTimeout(wait, 50));
}

export interface ClientCheckOutcome {
  exitCode: 0 | 1 | 2;
  reportDir?: string;
  results?: ClientResults;
}

export async function runClientCheck(flags: Record<string, unknown>, command: readonly string[], env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): Promise<ClientCheckOutcome> {
  const started = new Date();
  let options: Record<string, unknown>;
  let provoke: string[];
  let requiredFlows: string[] = [];
  let certify: { deployment: { name: string; version: string }; signKey?: KeyObject; packageDir: string } | undefined;
  try {
    ({ options } = resolveCommandOptions(CLIENT_CHECK_OPTIONS, flags, env, (path) => readFileSync(path, 'utf8')));
    provoke = (options.provoke as string[] | undefined)?.flatMap((name) => name.split(',')).map((name) => name.trim()).filter((name) => name !== '') ?? [];
    const unknown = unknownProvocations(provoke);
    if (unknown.length > 0) throw new ConfigError(`unknown provocation ${unknown.join(', ')} (known: ${Object.keys(PROVOCATIONS).join(', ')})`);
    const required = resolveRequiredFlows((options.requireFlows as string[] | undefined)?.flatMap((word) => word.split(',')) ?? []);
    if (required.unknown.length > 0) throw new ConfigError(`unknown flow ${required.unknown.join(', ')} for --require-flows (known: ${Object.keys(FLOW_PROFILES).join(', ')}, ${Object.values(FLOW_IDS).join(', ')})`);
    requiredFlows = required.flows;
    if (options.serve === true && command.length > 0) throw new ConfigError('--serve grades a client elsewhere: give no command with it');
    if (options.serve !== true && command.length === 0) throw new ConfigError('no client command: dxs client-check [options] -- <command> [args...] (or --serve)');
    if (options.idle !== undefined && options.serve !== true) throw new ConfigError('--idle goes with --serve');
    const port = options.port as number;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port ${port}: expected 0 to 65535`);
    if (options.certify === true) {
      const deployment = typeof options.deployment === 'string' ? parseDeployment(options.deployment) : undefined;
      if (deployment === undefined) throw new ConfigError('--certify needs --deployment "<name> <version>" of the client, e.g. --deployment "acme-erp 7.2"');
      const signKey = typeof options.signKey === 'string' ? readKey(options.signKey, 'private') : undefined;
      certify = { deployment, signKey, packageDir: preparePackageDir(options.reportDir as string | undefined, started, 'client-certify') };
    } else if (options.deployment !== undefined || options.signKey !== undefined) {
      throw new ConfigError('--deployment and --sign-key go with --certify');
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`dxs client-check: ${error.message}`);
    return { exitCode: 2 };
  }

  let sandbox: RunningSandbox;
  let recorder: Recorder;
  const provocations = new Provocations(provoke);
  try {
    // Loaded when used, as lib/target.ts does: the other commands of the CLI never pay for fastify.
    const { startSandbox } = await import('../../sandbox/index.ts');
    sandbox = await startSandbox({ host: '127.0.0.1', port: 0, variants: [...GRADING_SANDBOX_VARIANTS], casing: options.sandboxCasing as 'pascal' | 'camel' | undefined, asyncDelayMs: provoke.includes('slow-background') ? SLOW_BACKGROUND_STEP_MS : undefined });
  } catch (error) {
    console.error(`dxs client-check: the grading sandbox could not start: ${(error as Error).message}`);
    return { exitCode: 2 };
  }
  try {
    recorder = await startRecorder({ upstream: new URL(sandbox.baseUrl), host: options.host as string, port: options.port as number, provocations });
  } catch (error) {
    await sandbox.close();
    const code = (error as NodeJS.ErrnoException).code;
    console.error(`dxs client-check: cannot listen on ${String(options.host)}:${String(options.port)}: ${code === 'EADDRINUSE' ? 'the port is in use (0 picks a free one)' : (error as Error).message}`);
    return { exitCode: 2 };
  }
  secrets.add(sandbox.apiKey);
  secrets.add(sandbox.apiKeyWithoutDelete);
  const reportDir = certify !== undefined ? join(certify.packageDir, 'report') : prepareReportDir(options.reportDir as string | undefined, started);
  mkdirSync(reportDir, { recursive: true });
  const shownCommand = command.length > 0 ? secrets.redactText(command.map(quote).join(' ')) : undefined;
  const log: string[] = [];
  let run: ClientRun | undefined;
  let problem: { status: 'error' | 'interrupted'; message: string } | undefined;
  if (options.serve === true) {
    console.log(`dxs client-check: grading sandbox at ${recorder.baseUrl}`);
    console.log(`  ${CLIENT_ENV.baseUrl}=${recorder.baseUrl}`);
    console.log(`  ${CLIENT_ENV.apiKey}=${sandbox.apiKey}`);
    console.log(`  ${CLIENT_ENV.apiKeyWithoutDelete}=${sandbox.apiKeyWithoutDelete}`);
    if (options.host === '0.0.0.0' || options.host === '::') console.log(`  (listening on every address: a client elsewhere uses this machine's name, e.g. ${recorder.baseUrl.replace('127.0.0.1', hostname())})`);
    console.log(`  (sandbox-only keys; grading on Ctrl-C, SIGTERM${options.idle !== undefined ? ` or after ${String(options.idle)} s without a call` : ''})`);
    const why = await serveUntilDone(recorder, options.idle === undefined ? undefined : (options.idle as number) * 1000);
    console.error(`dxs client-check: ${why}: grading ${recorder.calls.length} calls`);
  } else {
    console.error(`dxs client-check: grading sandbox at ${recorder.baseUrl}${provoke.length > 0 ? ` (provocations: ${provoke.join(', ')})` : ''}; running ${shownCommand}`);
    const childEnv = { ...env, [CLIENT_ENV.baseUrl]: recorder.baseUrl, [CLIENT_ENV.apiKey]: sandbox.apiKey, [CLIENT_ENV.apiKeyWithoutDelete]: sandbox.apiKeyWithoutDelete };
    run = await runClient(command, childEnv, (options.timeout as number) * 1000, log);
    if (run.error !== undefined) problem = { status: 'error', message: `the client command could not start: ${run.error}` };
    else if (run.timedOut) problem = { status: 'interrupted', message: `the client did not finish within --timeout ${String(options.timeout)} s and was stopped` };
    else if (run.code !== 0) problem = { status: 'error', message: run.signal !== null ? `the client was ended by ${run.signal}` : `the client exited with code ${String(run.code)}` };
  }
  await settle(recorder);
  await recorder.close();
  await sandbox.close();

  const calls = gradeCalls(recorder.calls);
  const outcomes = gradeRequirements(judgeAll({ calls, apiKey: sandbox.apiKey, apiKeyWithoutDelete: sandbox.apiKeyWithoutDelete }), loadClientRequirements(), options.strict === true);
  const results = clientResults({
    outcomes,
    calls,
    baseUrl: recorder.baseUrl,
    version: version(),
    startedAt: started,
    finishedAt: new Date(),
    casing: (options.sandboxCasing as string | undefined) ?? 'camel',
    strict: options.strict === true,
    problem,
    client: {
      command: shownCommand,
      serve: options.serve === true,
      exit: run === undefined ? undefined : { code: run.code, signal: run.signal, timedOut: run.timedOut },
      provocations: provocations.triggered,
      flows: flowsOf(calls),
      requiredFlows,
      lastOutput: problem === undefined ? undefined : lastLines(log.join(''), CLIENT_OUTPUT_LINES),
    },
  });
  const written = writeClientReport(reportDir, results, calls, secrets, outcomes);
  if (log.length > 0) writeFileSync(join(reportDir, 'client.log'), secrets.redactText(log.join('')));
  const { summary } = written;
  const missingFlows = written.client.flows.missing;
  const failed = summary.failed > 0 || missingFlows.length > 0;
  let exitCode: 0 | 1 | 2 = failed ? 1 : problem !== undefined ? 2 : 0;
  console.error(
    `dxs client-check: ${failed ? 'FAILED' : problem !== undefined ? 'NOT JUDGED WHOLE' : 'PASSED'}: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info, ${written.client.notExercised.length} not exercised` +
      ` (${calls.length} calls)${problem !== undefined ? `; ${problem.message}` : ''}`,
  );
  if (missingFlows.length > 0) console.error(`  required flows not tried: ${missingFlows.join(', ')}`);
  const failing = written.tests.filter((test) => test.verdict === 'failed').map((test) => test.id);
  if (failing.length > 0) console.error(`  failed: ${failing.join(', ')}`);
  if (written.client.flows.notTried.length > 0) console.error(`  flows not tried: ${written.client.flows.notTried.join(', ')}`);
  console.error(`report: ${displayPath(join(reportDir, 'index.html'))}`);
  if (certify !== undefined) {
    const { ok } = await writeClientPackage(certify.packageDir, written, { deployment: certify.deployment, signKey: certify.signKey, command: redactedCommand(argv) });
    if (!ok) exitCode = 2;
  }
  return { exitCode, reportDir, results: written };
}

export function registerClientCheckCommand(program: Command): void {
  const command = program
    .command('client-check')
    .description("certify an ERP client of the API: run it against a grading sandbox and judge its traffic against the spec's client rules")
    .argument('[command...]', 'the client command and its arguments, after --');
  addOptions(command, CLIENT_CHECK_OPTIONS);
  command.addHelpText(
    'after',
    `
The client command gets in its environment:
  ${CLIENT_ENV.baseUrl}                 the grading sandbox's base URL, ending in /v1/api
  ${CLIENT_ENV.apiKey}                  an API key holding DeleteRegistration
  ${CLIENT_ENV.apiKeyWithoutDelete}   an API key without it

Flows (--require-flows, short names; a profile: all, or core = ${FLOW_PROFILES.core.map((flow) => FLOW_IDS[flow]).join(', ')}):
${Object.entries(FLOW_IDS).map(([flow, id]) => `  ${id.padEnd(20)} ${flow}`).join('\n')}
A PASSED report certifies the flows the client tried and the requirements they exercised, and
names the rest; with --require-flows a client that skips one of the named flows fails (exit 1).

Provocations (--provoke, off by default; a client that does not cope gets a warning):
${Object.entries(PROVOCATIONS).map(([name, description]) => `  ${name.padEnd(16)} ${description}`).join('\n')}

The report (--report-dir, default reports/client-check-<timestamp>/): index.html, results.json,
junit.xml, traffic.json (every call and answer) and client.log (the client's output), every key
and token redacted. Per client requirement (CLI-..., schemas/client-requirements.json): passed,
failed (with the call that broke the rule, the spec's sentence and what was expected), warning,
info, or not exercised; the flows the client did not try are listed.

Examples:
  $ dxs client-check -- node my-erp-client.js --sync-once
  $ dxs client-check --provoke rate-limit,token-expiry -- npx tsx examples/reference-client/client.ts
  $ dxs client-check --require-flows core,revoke-token -- ./erp-client --sync-once
  $ dxs client-check --serve --host 0.0.0.0 --port 4020 --idle 60
  $ dxs client-check --certify --deployment "acme-erp 7.2" --sign-key keys/dxs-signing-key.pem -- ./erp-client
  $ dxs certify verify reports/client-certify-<timestamp>.zip --public-key keys/dxs-signing-key.pub.pem

Exit codes: 0 no client requirement failed (warnings and info allowed), 1 a requirement failed
or a flow of --require-flows was not tried, 2 usage error, the command could not start, exited
non-zero or ran past --timeout (the report then shows why: the last calls with their answers, the
client's last lines, links to client.log and traffic.json).`,
  );
  command.action(async (words: string[], flags: Record<string, unknown>) => {
    process.exit((await runClientCheck(flags, words)).exitCode);
  });
}
