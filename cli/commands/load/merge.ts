// `dxs load merge`: the runners of a distributed run (segments or a k6-operator TestRun) each
// judge only their own share of the thresholds. Their raw points are merged here and the
// thresholds judged on the whole. Inputs are files or directories (searched for the raw.json and
// k6-summary.json that `dxs load` writes per script); files are grouped by script.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../../../lib/config.ts';
import { analyse, thresholdsFromSummaries, type RunResult } from './results.ts';
import { summaryLine, writeLoadReport } from './report.ts';
import { appendCreated, startLoadJournal } from './journal.ts';
import type { CreatedPoint } from './results.ts';

export interface MergeGroup {
  script: string;
  rawFiles: string[];
  summaryExports: string[];
}

function walk(directory: string, found: string[], depth: number): void {
  if (depth > 6) return;
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) walk(path, found, depth + 1);
    else if (/^raw\.json(\.gz)?$/.test(entry) || entry === 'k6-summary.json') found.push(path);
  }
}

/** A summary export is one JSON object with "metrics"; raw output is JSON lines of Metric and Point entries. */
function kindOf(path: string): 'raw' | 'summary' {
  if (path.endsWith('.gz')) return 'raw';
  const descriptor = openSync(path, 'r');
  const buffer = Buffer.alloc(4096);
  const length = readSync(descriptor, buffer, 0, buffer.length, 0);
  closeSync(descriptor);
  const head = buffer.subarray(0, length).toString('utf8');
  const firstLine = head.split('\n')[0];
  if (/"type"\s*:\s*"(Metric|Point)"/.test(firstLine)) return 'raw';
  if (/^\s*\{/.test(head) && (head.includes('"metrics"') || head.includes('"root_group"'))) return 'summary';
  throw new ConfigError(`${path} is neither k6 JSON output (--out json) nor a summary export (--summary-export)`);
}

/** The script a file belongs to: the folder `dxs load` wrote it in, else the one name given. */
function scriptOf(path: string, fallback: string): string {
  const name = basename(path);
  return /^raw\.json(\.gz)?$/.test(name) || name === 'k6-summary.json' ? basename(dirname(path)) : fallback;
}

export function collectMergeInputs(inputs: string[], fallbackScript: string): MergeGroup[] {
  if (inputs.length === 0) throw new ConfigError('dxs load merge needs at least one file or directory');
  const files: string[] = [];
  for (const input of inputs) {
    const path = resolve(input);
    if (!existsSync(path)) throw new ConfigError(`no such file or directory: ${input}`);
    if (statSync(path).isDirectory()) walk(path, files, 0);
    else files.push(path);
  }
  const groups = new Map<string, MergeGroup>();
  for (const file of files) {
    const script = scriptOf(file, fallbackScript);
    const group = groups.get(script) ?? { script, rawFiles: [], summaryExports: [] };
    if (kindOf(file) === 'raw') group.rawFiles.push(file);
    else group.summaryExports.push(file);
    groups.set(script, group);
  }
  const usable = [...groups.values()].filter((group) => group.rawFiles.length > 0);
  if (usable.length === 0) throw new ConfigError('no raw k6 output among the inputs: merging needs the --out json files of the runners');
  return usable.sort((a, b) => a.script.localeCompare(b.script));
}

/** Reads a summary export to make sure it parses, so a torn file is a clear error (exit 2). */
export function checkSummaryExport(path: string): void {
  try {
    JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

export interface MergeOptions {
  out: string;
  /** The script of files that are not in a dxs report folder. */
  script?: string;
  /** How many runners' raw points must be there: with fewer or more, the inputs are not one whole run. */
  runners?: number;
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
  for (const group of groups) {
    group.summaryExports.forEach(checkSummaryExport);
    const thresholds = thresholdsFromSummaries(group.summaryExports);
    const result = await analyse(group.script, group.rawFiles, thresholds, { created });
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
    notes: [`Merged from ${found} runner outputs; thresholds judged on all their points together.`, ...(missing === undefined ? [] : [missing])],
  });
  log.log(`dxs load merge: report ${join(out, 'index.html')}`);
  if (missing !== undefined) {
    log.error(`dxs load merge: ${missing}`);
    return 2;
  }
  return results.every((result) => result.passed) ? 0 : 1;
}
