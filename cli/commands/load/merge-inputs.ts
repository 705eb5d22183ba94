// The inputs of a merge or a comparison: the raw k6 output and summary exports that `dxs load`
// wrote per script, found in files and directories and grouped by script. Apart from merge.ts so
// that the comparison (compare.ts), which the report renders, can read a baseline without the report.
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../../../lib/config.ts';

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
