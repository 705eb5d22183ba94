// dxs fuzz: a second opinion on the contract. Runs Schemathesis (installed by scripts/setup.sh into
// .tools/venv) against a target, or the embedded sandbox when no URL is given, with the spec export
// of the OpenAPI document (what every implementation must do; --sandbox-exact takes the sandbox's
// own, for its self-check) in the target's casing and dxs's own credentials: a company registered and a client
// token created the way dxs test does. Writes Schemathesis' JUnit and a page of its failures into
// the report directory. Exit codes as dxs test: 0 no failure, 1 a failure, 2 usage, configuration,
// unreachable target, or Python/Schemathesis missing.
import type { Command } from 'commander';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, TARGET_OPTIONS, positive, resolveCommandOptions, type OptionSpec } from '../../lib/config.ts';
import { folderTimestamp as timestamp } from '../../report/write.ts';
import { secrets } from '../../lib/redact.ts';
import { openTarget, targetOptionsOf, type Target } from '../../lib/target.ts';
import { buildOpenApi } from '../../schemas/openapi.ts';
import { addOptions } from '../options.ts';
import { schemathesisCandidates } from '../tools.ts';
import { checksArguments, describeRelaxations, fuzzConfigToml, REQUEST_TIMEOUT_SECONDS, SLOW_ANSWER_MS, listedMethods, requiredStringFields, resourceWaitSeconds, type FuzzExport } from './fuzz/config.ts';
import { createdBySchemathesis, describeCreated } from './fuzz/created.ts';
import { writeFuzzReport } from './fuzz/report.ts';
import { privateLinesDropped, slowAnswers, writeFuzzHar, type FuzzHarEntry } from './fuzz/har.ts';
import { HAR_FILE } from '../../report/har.ts';
import { childNetwork } from '../../lib/child-network.ts';
import { connectionInfo, connectionLines } from '../../report/connection.ts';
import { withRunExamples } from './fuzz/examples.ts';
import { cleanUp, cleanupLine } from './cleanup.ts';
import { gatewayLine, takeGatewaySummariesIn } from '../../report/rate-limits.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

// Loaded when used: it brings in the suites' client and fixtures, which the other commands of the CLI would pay for at start.
const prepareFuzzData: typeof import('./fuzz/setup.ts').prepareFuzzData = async (...args) => (await import('./fuzz/setup.ts')).prepareFuzzData(...args);

export const FUZZ_OPTIONS: readonly OptionSpec[] = [
  ...TARGET_OPTIONS.filter((spec) => spec.key !== 'apiKeyWithoutDelete'),
  { key: 'maxExamples', kind: 'integer', argument: 'N', default: 25, check: positive, description: 'examples Schemathesis generates per operation and phase' },
  { key: 'duration', kind: 'number', argument: 'SECONDS', default: 600, check: positive, description: "upper bound on Schemathesis' run: it is interrupted then and the report holds what it found" },
  { key: 'seed', kind: 'integer', argument: 'N', description: "Schemathesis' random seed, to repeat a run (default: one drawn and printed with the command that repeats the run)" },
  { key: 'keepData', kind: 'boolean', default: false, description: 'keep the companies the setup and Schemathesis registered (by default they are deleted at the end when the key holds DeleteRegistration; see fuzz-setup/created.json)' },
  { key: 'sandboxExact', kind: 'boolean', default: false, description: "fuzz the embedded sandbox with its own, sandbox-exact export (its self-check) instead of the spec export every implementation must pass; not with --base-url" },
  { key: 'schemathesis', kind: 'string', argument: 'PATH', description: "the schemathesis executable (default: .tools/venv/bin/schemathesis of a clone, installed by scripts/setup.sh, then dxs setup's venv, then PATH)" },
];

class FuzzUnavailable extends ConfigError {}

/** The Schemathesis executable, or FuzzUnavailable saying what to install. */
export function findSchemathesis(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  for (const { path } of schemathesisCandidates(explicit, env, ROOT)) {
    if (path !== undefined && existsSync(path) && spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 60_000 }).status === 0) return path;
  }
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error !== undefined || python.status !== 0) {
    throw new FuzzUnavailable('dxs fuzz needs Python 3 and Schemathesis, and no python3 was found: install Python 3.9+ and run dxs setup --tool schemathesis (in a clone scripts/setup.sh; either installs Schemathesis into a venv)');
  }
  throw new FuzzUnavailable(`Schemathesis is not installed${explicit === undefined ? ' in .tools/venv nor in dxs setup\'s venv' : ` at ${explicit}`}: run dxs setup --tool schemathesis (in a clone scripts/setup.sh, or bash scripts/install-schemathesis.sh)`);
}

/** How long Schemathesis gets to write its reports after the interrupt at --duration. */
const SHUTDOWN_GRACE_MS = 15_000;

/**
 * Runs Schemathesis, its output redacted on the way to our stdout and to output.txt. --duration is
 * an upper bound enforced here with an interrupt: Schemathesis' own --max-time is a budget its
 * fuzzing and stateful phases repeat until it is spent.
 */
function runSchemathesis(executable: string, args: string[], outputFile: string, durationMs: number, cwd: string, env: NodeJS.ProcessEnv, hooksConfig: string): Promise<{ code: number; interrupted: boolean }> {
  return new Promise((resolvePromise) => {
    let interrupted = false;
    // Its working directory is the run's private one, where Schemathesis leaves its cache.
    const child = spawn(executable, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false', DXS_FUZZ_HOOKS_CONFIG: hooksConfig } });
    const chunks: string[] = [];
    const write = (stream: NodeJS.WritableStream, text: string): void => {
      chunks.push(text);
      stream.write(text);
    };
    const streams = [{ from: child.stdout, to: process.stdout, lines: privateLinesDropped(cwd) }, { from: child.stderr, to: process.stderr, lines: privateLinesDropped(cwd) }];
    for (const { from, to, lines } of streams) from.on('data', (data: Buffer) => write(to, lines.take(secrets.redactText(data.toString('utf8')))));
    const stop = setTimeout(() => {
      interrupted = true;
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), SHUTDOWN_GRACE_MS).unref();
    }, durationMs);
    child.on('error', (error) => {
      clearTimeout(stop);
      chunks.push(`dxs fuzz: cannot run ${executable}: ${error.message}\n`);
      resolvePromise({ code: -1, interrupted });
    });
    child.on('close', (code) => {
      clearTimeout(stop);
      for (const { to, lines } of streams) write(to, lines.end());
      writeFileSync(outputFile, chunks.join(''));
      resolvePromise({ code: code ?? -1, interrupted });
    });
  });
}

async function fuzz(flags: Record<string, unknown>): Promise<number> {
  const { options, sources, configPath } = resolveCommandOptions(FUZZ_OPTIONS, flags, process.env, (path) => readFileSync(path, 'utf8'));
  const exportKind: FuzzExport = options.sandboxExact === true ? 'sandbox-exact' : 'spec';
  // Another implementation is judged by the spec alone: the sandbox's own choices are no contract for it.
  if (exportKind === 'sandbox-exact' && options.baseUrl !== undefined) throw new ConfigError('--sandbox-exact is the embedded sandbox\'s self-check: against --base-url dxs fuzz always uses the spec export');
  const executable = findSchemathesis(options.schemathesis as string | undefined);
  // Always a seed, so that every run can be repeated: the one given, or one drawn here and printed.
  const seed = (options.seed as number | undefined) ?? randomInt(1, 2 ** 31 - 1);
  const started = new Date();
  const reportDir = resolve((options.reportDir as string | undefined) ?? join('reports', `fuzz-${timestamp(started)}`));
  mkdirSync(reportDir, { recursive: true });
  let target: Target | undefined;
  let cleanedUp = false;
  const work = mkdtempSync(join(tmpdir(), 'dxs-fuzz-'));
  // Its own folder: the report directory may be a dxs test run's, whose journal is not the fuzz run's to clean.
  const journalDir = join(reportDir, 'fuzz-setup');
  let disposeNetwork = (): void => {};
  try {
    target = await openTarget(targetOptionsOf(options, { sources, configPath }));
    for (const warning of target.warnings) console.error(`dxs fuzz: ${warning}`);
    for (const line of connectionLines(connectionInfo(target.connection, target.certificate))) console.error(`dxs fuzz: ${line}`);
    console.error(`dxs fuzz: preparing a company and its client token on ${target.baseUrl} ...`);
    const data = await prepareFuzzData(target, options.asyncTimeout as number, journalDir);
    secrets.add(data.clientToken);
    secrets.add(data.scratchClientToken);

    secrets.add(data.examples.revocableToken);
    // The run's own export carries a token to revoke, so it stays in the private work directory; the report gets it redacted.
    const document = withRunExamples(buildOpenApi({ casing: data.casing, sandboxExact: exportKind === 'sandbox-exact' }), data.examples, data.casing);
    const openapiFile = join(work, 'openapi.json');
    writeFileSync(openapiFile, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(join(reportDir, 'openapi.json'), `${JSON.stringify(secrets.redactValue(document), null, 2)}\n`);
    // Credentials go in a file only this user can read, never on a command line.
    const configFile = join(work, 'schemathesis.toml');
    // The proxy variables and SSL_CERT_FILE too, for anything Schemathesis opens besides the requests the config governs.
    const network = childNetwork(target.connection);
    disposeNetwork = network.dispose;
    const connection = target.connection;
    writeFileSync(configFile, fuzzConfigToml({
      apiKey: target.apiKey, clientToken: data.clientToken, scratchClientToken: data.scratchClientToken, exportKind,
      proxy: connection.proxy, tlsVerify: connection.insecure ? false : network.fullBundle, requestCert: connection.clientCert, requestCertKey: connection.clientKey,
    }), { mode: 0o600 });
    chmodSync(configFile, 0o600);
    // hooks.py's settings: digests of the key and the tokens it must recognise, never their values;
    // the proxy (its credentials) and the TLS files for the calls it repeats, in this private file.
    const digest = (value: string): string => createHash('sha256').update(value).digest('hex');
    const hooksConfig = join(work, 'hooks.json');
    writeFileSync(hooksConfig, JSON.stringify({
      asyncTimeout: options.asyncTimeout, resourceWait: resourceWaitSeconds(data.backgroundMs, options.asyncTimeout as number), journal: join(journalDir, 'created.jsonl'), runPrefix: data.runPrefix, apiKeyDigest: digest(target.apiKey),
      tokenOwners: { [digest(data.clientToken)]: data.erpIds.company, [digest(data.scratchClientToken)]: data.erpIds.scratch },
      listedMethods: listedMethods(document), emptyAsMissing: requiredStringFields(document),
      proxy: connection.proxy, tlsVerify: connection.insecure ? false : network.fullBundle, clientCert: connection.clientCert, clientKey: connection.clientKey,
    }), { mode: 0o600 });
    const junitFile = join(reportDir, 'fuzz-junit.xml');
    const args = [
      '--config-file', configFile, '--no-color', 'run', openapiFile, '--url', target.baseUrl,
      ...checksArguments(exportKind), '--request-timeout', String(REQUEST_TIMEOUT_SECONDS), '--max-examples', String(options.maxExamples),
      // The HAR goes to the private folder: it holds the key and the tokens until writeFuzzHar redacts them.
      '--report', 'junit,har', '--report-junit-path', junitFile, '--report-har-path', join(work, 'traffic.har'),
      '--seed', String(seed),
      // A gateway's 429 is waited out as Retry-After asks (auto), or avoided by pacing (--max-rps); hooks.py keeps it from every check.
      '--rate-limit', options.maxRps === undefined ? 'auto' : `${Math.max(1, Math.floor(options.maxRps as number))}/s`,
    ];
    console.error(`dxs fuzz: schemathesis ${args.filter((arg) => arg !== configFile && arg !== '--config-file' && arg !== '--report-har-path' && !arg.startsWith(work)).join(' ')} (${exportKind} export in ${data.casing === 'camel' ? 'camelCase' : 'PascalCase'})`);
    const { code, interrupted } = await runSchemathesis(executable, args, join(reportDir, 'fuzz-output.txt'), (options.duration as number) * 1000, work, network.env, hooksConfig);
    if (interrupted) console.error(`dxs fuzz: stopped at --duration ${options.duration} s; the report holds what was found until then`);
    let harEntries: FuzzHarEntry[] = [];
    try {
      harEntries = writeFuzzHar(join(work, 'traffic.har'), join(reportDir, HAR_FILE), target.baseUrl, (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version, secrets);
      if (existsSync(join(work, 'traffic.har'))) console.error(`dxs fuzz: every call Schemathesis made, keys and tokens redacted: ${join(reportDir, HAR_FILE)}`);
    } catch (error) {
      console.error(`dxs fuzz: no traffic.har: ${secrets.redactText((error as Error).message)}`);
    }
    const slow = slowAnswers(harEntries, SLOW_ANSWER_MS);
    for (const line of slow.slice(0, 5)) console.error(`dxs fuzz: warning: ${line}`);
    if (slow.length > 5) console.error(`dxs fuzz: warning: ${slow.length - 5} more answer(s) over ${SLOW_ANSWER_MS / 1000} s, in fuzz.html`);
    // What Schemathesis created is deleted with the setup's companies (finally below); the report says what is left.
    const cleanup = await cleanUp({ reportDir: journalDir, baseUrl: target.baseUrl, keys: { apiKey: target.apiKey }, keepData: options.keepData === true, connection: target.connection, gateway: { reportDir: journalDir, runPrefix: 'cleanup', maxRps: options.maxRps as number | undefined } });
    cleanedUp = true;
    const created = describeCreated(createdBySchemathesis(journalDir), cleanup);
    const repeat = repeatCommand(flags, seed);
    const summary = writeFuzzReport(reportDir, { junitFile, outputFile: join(reportDir, 'fuzz-output.txt'), target: target.baseUrl, relaxations: describeRelaxations(exportKind), started, seed, repeat, created, slowAnswers: slow });
    console.error(`dxs fuzz: ${cleanupLine(cleanup)}`);
    for (const line of created) console.error(`dxs fuzz: ${line}`);
    console.error(`dxs fuzz: ${summary.failures} failure(s) in ${summary.operations} operation(s), seed ${seed}; report in ${reportDir}`);
    if (summary.failures > 0 || (code === 1 && !interrupted)) {
      console.error(`dxs fuzz: to repeat this run (the same seed, the same examples): ${repeat}`);
      return 1;
    }
    if (code === 0 || interrupted) return 0;
    console.error(`dxs fuzz: Schemathesis ended with code ${code}`);
    return 2;
  } finally {
    rmSync(work, { recursive: true, force: true });
    disposeNetwork();
    // A run that ended early still deletes what the setup and Schemathesis registered (both are in the journal).
    if (target !== undefined && !cleanedUp) {
      const cleanup = await cleanUp({ reportDir: journalDir, baseUrl: target.baseUrl, keys: { apiKey: target.apiKey }, keepData: options.keepData === true, connection: target.connection, gateway: { reportDir: journalDir, runPrefix: 'cleanup', maxRps: options.maxRps as number | undefined } });
      if (cleanup.status !== 'nothing') console.error(`dxs fuzz: ${cleanupLine(cleanup)}`);
    }
    if (target !== undefined) {
      // The setup's and the cleanup's own waits for the gateway (Schemathesis' are in its output).
      const gateway = gatewayLine(takeGatewaySummariesIn(journalDir));
      if (gateway !== undefined) console.error(`dxs fuzz: setup and cleanup: ${gateway}`);
    }
    await target?.close();
  }
}

/** The dxs fuzz command that repeats a run: its own flags (credentials left out) with the seed. */
export function repeatCommand(flags: Record<string, unknown>, seed: number): string {
  const secret = new Set(['apiKey', 'config']);
  const parts = ['dxs', 'fuzz'];
  for (const [key, value] of Object.entries(flags)) {
    if (secret.has(key) || key === 'seed' || key === 'reportDir' || value === undefined || value === false) continue;
    const flag = `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    if (value === true) parts.push(flag);
    else for (const item of Array.isArray(value) ? value : [value]) parts.push(flag, String(item));
  }
  parts.push('--seed', String(seed));
  return parts.join(' ');
}

export function registerFuzzCommand(program: Command): void {
  const command = program
    .command('fuzz')
    .description('run Schemathesis against the target (the embedded sandbox when no --base-url) with the OpenAPI export and dxs credentials');
  addOptions(command, FUZZ_OPTIONS);
  command.addHelpText('after', `
The run uses the spec export (dxs schemas openapi): only what the spec gives. Each check turned off or
relaxed, with the spec sentence that forces it:
${describeRelaxations('spec').map((line) => `  ${line}`).join('\n')}

With --sandbox-exact (the embedded sandbox only), the sandbox's own export, and the rules JSON Schema
cannot state that relax its checks:
${describeRelaxations('sandbox-exact').map((line) => `  ${line}`).join('\n')}

Needs Python 3 and Schemathesis (dxs setup installs a pinned version into a user cache folder, scripts/setup.sh into a clone's .tools/venv).
Exit codes: 0 no failure, 1 Schemathesis found a failure or an operation got only 401/404, 2 usage,
configuration, unreachable target, or Python/Schemathesis missing.`);
  command.action(async (flags: Record<string, unknown>) => {
    try {
      process.exitCode = await fuzz(flags);
    } catch (error) {
      if (!(error instanceof ConfigError) && (error as Error).name !== 'SetupFailed') throw error;
      console.error(`dxs fuzz: ${secrets.redactText((error as Error).message)}`);
      process.exitCode = 2;
    }
  });
}
