// The command line's side of the baseline: reading --baseline and --expect-failures, and the lines
// dxs test prints about them. The judging itself is in baseline.ts.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../lib/config.ts';
import { parseExpectedFailures, type BaselineInput, type BaselineSection } from './baseline.ts';
import { displayPath, readResults } from './write.ts';

/** Reads --baseline (a results.json or a report directory) and --expect-failures; a bad path or file is a configuration error. */
export function loadBaselineInput(baselinePath: string | undefined, expectedPath: string | undefined): BaselineInput | undefined {
  if (baselinePath === undefined && expectedPath === undefined) return undefined;
  const input: BaselineInput = {};
  if (baselinePath !== undefined) {
    let path = resolve(baselinePath);
    if (existsSync(path) && statSync(path).isDirectory()) path = join(path, 'results.json');
    if (!existsSync(path)) throw new ConfigError(`--baseline ${baselinePath}: ${displayPath(path)} does not exist (expected a results.json or the report directory of a dxs test run)`);
    try {
      input.baseline = { results: readResults(path), source: displayPath(path) };
    } catch (error) {
      throw new ConfigError(`--baseline ${baselinePath}: ${(error as Error).message}`);
    }
  }
  if (expectedPath !== undefined) {
    let text: string;
    try {
      text = readFileSync(expectedPath, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read expected-failures file ${expectedPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    input.expected = { entries: parseExpectedFailures(text, expectedPath), source: displayPath(resolve(expectedPath)) };
  }
  return input;
}

/** The lines dxs test prints after its summary: the verdict against the baseline, and each new failure by name. */
export function baselineLines(section: BaselineSection): string[] {
  const lines = [`dxs test: against the baseline: ${section.newFailures.length} new failure${section.newFailures.length === 1 ? '' : 's'}, ${section.known.length} known, ${section.fixed.length} fixed`];
  if (section.baseline !== undefined && section.baseline.total === 0) lines.push(`dxs test: warning: the baseline ${section.baseline.source} ran no test, so every failure is new`);
  for (const entry of section.expired) lines.push(`dxs test: an expected-failure entry expired on ${entry.expires}: ${entry.requirement ?? entry.test} (${entry.reason})`);
  for (const entry of section.newFailures) lines.push(`  new failure: ${entry.stableId} [${entry.requirements.join(', ')}]: ${entry.reason ?? ''}`);
  return lines;
}
