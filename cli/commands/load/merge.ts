// `dxs load merge`: the runners of a distributed run (segments or a k6-operator TestRun) each
// judge only their own share of the thresholds. Their raw points are merged here and the
// thresholds judged on the whole. Inputs are files or directories (searched for the raw.json and
// k6-summary.json that `dxs load` writes per script); files are grouped by script.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseJsonOrUndefined } from '../../../lib/json.ts';
import { ConfigError } from '../../../lib/config.ts';
import { analyse, thresholdsFromSummaries, type RunResult } from './results.ts';
import { markGatewayRefusal } from './gateway-share.ts';
import { summaryLine, writeLoadReport } from './report.ts';
import { writeViolationScripts } from './violation-scripts.ts';
import { appendCreated, startLoadJournal } from './journal.ts';
import type { CreatedPoint } from './results.ts';
import { collectMergeInputs } from './merge-inputs.ts';
import { attachExchange, DEFAULT_ASYNC_TIMEOUT_MS } from './exchange.ts';
import type { ExchangeEvent } from '../../../lib/exchange-history.ts';
import type { DeliveryTimeLimits } from '../../../load/lib/thresholds.ts';
import type { Connection } from '../../../lib/transport.ts';
import { planFinalRead, type FinalReadSummary } from '../../../lib/final-read.ts';
import { finalRead, readFinalReadEvents, writeFinalReadEvents } from './final-read.ts';

/** Reads a summary export to make sure it parses, so a torn file is a clear error (exit 2). */
export function checkSummaryExport(path: string): void {
  try {
    JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

/**
 * The async timeout the runners of `dxs load --segment` judged with: their summary.json (beside the
 * script's folder) says it. The longest, when they differ; undefined when none says (k6-operator runners).
 */
export function runnersAsyncTimeoutMs(rawFiles: readonly string[], script: string): number | undefined {
  let found: number | undefined;
  for (const raw of rawFiles) {
    const path = join(dirname(dirname(raw)), 'summary.json');
    if (!existsSync(path)) continue;
    const summary = parseJsonOrUndefined(readFileSync(path, 'utf8')) as { results?: Array<{ script?: string; exchange?: { asyncTimeoutMs?: number } }> } | undefined;
    const value = summary?.results?.find((result) => result.script === script)?.exchange?.asyncTimeoutMs;
    if (typeof value === 'number' && value > 0) found = Math.max(found ?? 0, value);
  }
  return found;
}

export interface MergeOptions {
  out: string;
  /** The script of files that are not in a dxs report folder. */
  script?: string;
  /** How many runners' raw points must be there: with fewer or more, the inputs are not one whole run. */
  runners?: number;
  /** The exchange checker's async timeout (ms); 30 s when not given. */
  asyncTimeoutMs?: number;
  /** --strict: hardening rules of the exchange fail the merged run. */
  strict?: boolean;
  /** The thresholds file's deliveryTime limits. */
  deliveryLimits?: DeliveryTimeLimits;
  /**
   * The target of the final read (issue 41): what the runners' own final reads did not see is read
   * there; or why there is none (no --base-url, the target unreachable), which the sends left not judged then carry.
   */
  finalRead?: { target: { baseUrl: string; apiKey: string; connection: Connection } } | { problem: string };
  /** --max-gateway-share: percent of an endpoint's calls the gateway may refuse (default 5; issue 57). */
  maxGatewayShare?: number;
}

/** The companies a group's runners registered: the entities analyse() added from `from` on. */
function companiesSince(created: readonly CreatedPoint[], from: number): Set<string> | undefined {
  const erpIds = created.slice(from).filter((entity) => entity.kind === 'company' && entity.fields.ErpId !== undefined).map((entity) => entity.fields.ErpId);
  return erpIds.length === 0 ? undefined : new Set(erpIds);
}

/** The final read of a merge: against the target when there is one, else a summary that says why not. */
async function mergeFinalRead(options: MergeOptions, events: readonly ExchangeEvent[], asyncTimeoutMs: number, companies: Set<string> | undefined): Promise<{ events: ExchangeEvent[]; summary: FinalReadSummary }> {
  const setting = options.finalRead ?? { problem: 'dxs load merge was given no --base-url and --api-key, so it made no final read' };
  if ('target' in setting) return finalRead({ ...setting.target, events, asyncTimeoutMs, companies });
  const plan = planFinalRead({ events, asyncTimeoutMs, companies });
  return { events: [], summary: { status: 'not made', reason: setting.problem, awaited: plan.awaited.length, found: 0, readers: 0, calls: 0, milliseconds: 0 } };
}

/**
 * Merges the runners' outputs into one report in `out` and judges the thresholds on the whole:
 * 0 passed, 1 failed, 2 when not `runners` runners left their raw points (the report, written
 * all the same, says so). `dxs load merge` and the collector Job of `dxs load k8s` (a
 * bundle of this module alone, cli/commands/load/collector.ts) both run it.
 */
export async function mergeRunners(inputs: string[], options: MergeOptions, log: Pick<Console, 'log' | 'error'> = console): Promise<0 | 1 | 2> {
  const { out } = options;
  const groups = collectMergeInputs(inputs, options.script ?? 'merged');
  const found = groups.reduce((total, group) => total + group.rawFiles.length, 0);
  const missing = options.runners === undefined || found === options.runners
    ? undefined
    : `Found the raw points of ${found} runners, expected ${options.runners}: ${found < options.runners ? 'the whole run is not all there' : 'another run\'s runners are among them'}, so no verdict on the whole run (exit 2).`;
  mkdirSync(out, { recursive: true });
  const results: RunResult[] = [];
  // The journal of every runner, so that dxs clean --from <out> deletes what the whole run created.
  const created: CreatedPoint[] = [];
  let gatewayRefused = false;
  for (const group of groups) {
    group.summaryExports.forEach(checkSummaryExport);
    const thresholds = thresholdsFromSummaries(group.summaryExports);
    const exchange: ExchangeEvent[] = [];
    const createdBefore = created.length;
    const result = await analyse(group.script, group.rawFiles, thresholds, { created, exchange });
    // As dxs load judges one runner: the gateway's answers are out of the thresholds, and a share past the limit is no verdict.
    const refusal = markGatewayRefusal(result, options.maxGatewayShare);
    if (refusal !== undefined) {
      gatewayRefused = true;
      log.error(`dxs load merge: ${group.script}: ${refusal}`);
    }
    const asyncTimeoutMs = options.asyncTimeoutMs ?? runnersAsyncTimeoutMs(group.rawFiles, group.script) ?? DEFAULT_ASYNC_TIMEOUT_MS;
    let read: { events: ExchangeEvent[]; summary: FinalReadSummary } | undefined;
    if (exchange.length > 0) {
      // The runners' own final reads, then the merge's, for what none of them saw.
      for (const raw of group.rawFiles) exchange.push(...readFinalReadEvents(raw));
      read = await mergeFinalRead(options, exchange, asyncTimeoutMs, companiesSince(created, createdBefore));
      exchange.push(...read.events);
      if (read.events.length > 0) {
        mkdirSync(join(out, group.script), { recursive: true });
        writeFinalReadEvents(join(out, group.script), read.events);
      }
      log.error(`dxs load merge: ${group.script}: final read ${read.summary.status}${read.summary.reason === undefined ? '' : ` (${read.summary.reason})`}: ${read.summary.found} of ${read.summary.awaited} invoices not yet seen found`);
    }
    // Every runner's history together: a send of one runner may be listed by another's VU.
    attachExchange(result, exchange, { asyncTimeoutMs, strict: options.strict, deliveryLimits: options.deliveryLimits, finalRead: read?.summary });
    // Only with a target (--base-url): the runners record none, and a script needs one.
    if (result.exchange !== undefined && options.finalRead !== undefined && 'target' in options.finalRead) writeViolationScripts(out, group.script, result.exchange, options.finalRead.target.baseUrl);
    results.push(result);
    log.log(summaryLine(result, join(out, 'index.html')));
    if (group.summaryExports.length === 0) log.error(`dxs load merge: no summary export for ${group.script}, so no thresholds to judge`);
  }
  // The runners do not record the target: dxs clean asks for --base-url.
  startLoadJournal(out, created.find((entity) => entity.fields.runPrefix !== undefined)?.fields.runPrefix ?? '', undefined, false);
  appendCreated(out, '', created);
  writeLoadReport(out, {
    title: `dxs load merge - ${groups.map((group) => group.script).join(', ')}`,
    target: '(merged runners)',
    profile: '(as run)',
    startedAt: new Date(),
    results,
    artifacts: groups.map((group) => ({ script: group.script, rawFiles: group.rawFiles, summaryExports: group.summaryExports })),
    notes: [`Merged from ${found} runner outputs; thresholds and the exchange judged on all their points together.`, ...(missing === undefined ? [] : [missing])],
  });
  log.log(`dxs load merge: report ${join(out, 'index.html')}`);
  if (missing !== undefined) {
    log.error(`dxs load merge: ${missing}`);
    return 2;
  }
  if (gatewayRefused) return 2;
  return results.every((result) => result.passed) ? 0 : 1;
}
