// dxs clean --from <report dir>: deletes what a run left at its target (a run killed before its
// own cleanup, or one run with --keep-data), from the run's journal. Idempotent: what is recorded
// as deleted is skipped, and the spec answers a duplicate delete with 200 anyway.
// Exit codes: 0 nothing is left, 1 companies are left (no delete role, 501, errors), 2 usage,
// configuration, no journal or an unreachable target.
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gatewayLine, takeGatewaySummary } from '../../report/rate-limits.ts';
import { takeTransportSummary, transportLines } from '../../report/transport.ts';
import { ConfigError, TARGET_OPTIONS, resolveCommandOptions, type OptionSource, type OptionSpec } from '../../lib/config.ts';
import { openTarget } from '../../lib/target.ts';
import { networkOptionsOf } from '../../lib/transport.ts';
import { readJournal } from '../../suites/support/journal.ts';
import { addOptions } from '../options.ts';
import { cleanUp, CLEANUP_DEADLINE_MS } from './cleanup.ts';
import { ensureLoadJournal } from './load/journal.ts';

const SHARED = new Set(['baseUrl', 'apiKey', 'apiKeyWithoutDelete', 'config', 'proxy', 'caCert', 'clientCert', 'clientKey', 'insecure', 'maxRps']);

/** What the shared options mean to dxs clean: dxs test's wording (the 401 checks of delete) is not its. */
const CLEAN_WORDING: Record<string, string> = {
  baseUrl: 'base URL of the target (default: the one the journal names)',
  apiKeyWithoutDelete: 'the second API key the run was given (dxs test --api-key-without-delete), for the companies it registered with that key',
};

export const CLEAN_OPTIONS: readonly OptionSpec[] = [
  { key: 'from', kind: 'string', argument: 'DIR', description: 'the report directory of the run (it holds created.jsonl or created.json)' },
  ...TARGET_OPTIONS.filter((spec) => SHARED.has(spec.key)).map((spec) => (CLEAN_WORDING[spec.key] === undefined ? spec : { ...spec, description: CLEAN_WORDING[spec.key] })),
  { key: 'deadline', kind: 'number', argument: 'SECONDS', default: CLEANUP_DEADLINE_MS / 1000, check: (value) => ((value as number) > 0 ? undefined : 'must be greater than 0'), description: 'bound on the whole cleanup' },
];

function fail(message: string): number {
  console.error(`dxs clean: ${message}`);
  return 2;
}

export async function runCleanCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let options: Record<string, unknown>;
  let origin: { sources?: Record<string, OptionSource>; configPath?: string };
  try {
    let sources: Record<string, OptionSource>;
    let configPath: string | undefined;
    ({ options, sources, configPath } = resolveCommandOptions(CLEAN_OPTIONS, flags, env, (path) => readFileSync(path, 'utf8')));
    origin = { sources, configPath };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(error.message);
  }
  if (typeof options.from !== 'string') return fail('--from <report dir> is required');
  const reportDir = resolve(options.from);
  if (!existsSync(reportDir)) return fail(`${reportDir} does not exist`);
  let journal;
  try {
    // A dxs load report: the entities of scripts whose run was cut short are taken from their raw points.
    await ensureLoadJournal(reportDir);
    journal = readJournal(reportDir);
  } catch (error) {
    return fail(`the journal in ${reportDir} cannot be read: ${(error as Error).message}`);
  }
  if (journal === undefined) return fail(`${reportDir} holds no journal (created.jsonl or created.json): was it written by dxs test or dxs load?`);
  const live = journal.companies.filter((company) => !company.deleteRequested);
  console.error(`dxs clean: run ${journal.runPrefix}: ${journal.companies.length} companies registered, ${live.length} not deleted`);
  if (live.length === 0) {
    console.error('dxs clean: nothing left to delete');
    return 0;
  }
  let baseUrl = options.baseUrl as string | undefined;
  if (baseUrl === undefined) {
    if (journal.embedded) {
      console.error(`dxs clean: the run used the embedded sandbox (${journal.target ?? 'its address is not recorded'}), which stopped with the run: what it created is gone with it, nothing to delete`);
      return 0;
    }
    baseUrl = journal.target;
    if (baseUrl === undefined) return fail('the journal names no target: pass --base-url');
  }
  let target;
  try {
    target = await openTarget({ baseUrl, apiKey: options.apiKey as string | undefined, apiKeyWithoutDelete: options.apiKeyWithoutDelete as string | undefined, network: networkOptionsOf(options), ...origin });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(error.message);
  }
  for (const warning of target.warnings) console.error(`dxs clean: warning: ${warning}`);
  const report = await cleanUp({
    reportDir,
    baseUrl: target.baseUrl,
    keys: { apiKey: target.apiKey, apiKeyWithoutDelete: target.apiKeyWithoutDelete },
    deadlineMs: (options.deadline as number) * 1000,
    connection: target.connection,
    gateway: { reportDir, runPrefix: `clean-${journal.runPrefix}`, maxRps: options.maxRps as number | undefined },
  });
  await target.close();
  const gateway = gatewayLine(takeGatewaySummary({ reportDir, runPrefix: `clean-${journal.runPrefix}`, maxRps: options.maxRps as number | undefined }));
  if (gateway !== undefined) console.error(`dxs clean: ${gateway}`);
  for (const line of transportLines(takeTransportSummary({ reportDir, runPrefix: `clean-${journal.runPrefix}` }))) console.error(`dxs clean: ${line}`);
  for (const company of report.deleted) console.log(`deleted ${company.ErpId} (${company.key}, answered ${company.status})`);
  for (const company of report.left) console.log(`left    ${company.ErpId} (${company.key}): ${company.reason}`);
  console.error(`dxs clean: ${report.message}`);
  return report.left.length === 0 ? 0 : 1;
}

export function registerCleanCommand(program: Command): void {
  const command = program
    .command('clean')
    .description("delete the companies a run left at its target, from the journal in its report directory");
  addOptions(command, CLEAN_OPTIONS);
  command.addHelpText(
    'after',
    `
The key must hold the DeleteRegistration role; credentials resolve as for dxs test (flag >
DXS_* environment variable > config file). Running it again is harmless.

Examples:
  $ dxs clean --from reports/latest
  $ dxs clean --from reports/ci --base-url https://staging.example/v1/api --api-key "$KEY"

Exit codes: 0 nothing is left, 1 companies are left (see why), 2 usage or configuration error,
no journal, or an unreachable target.`,
  );
  command.action(async (flags: Record<string, unknown>) => {
    process.exit(await runCleanCommand(flags));
  });
}
