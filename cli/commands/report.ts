// dxs report merge DIR... --out DIR: one report (results.json, index.html, junit.xml) from the
// report directories of several shards (dxs test --shard I/N).
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mergeResults } from '../../report/merge.ts';
import { exitCodeOf, type Results } from '../../report/results.ts';
import { displayPath, readResults, writeReport } from '../../report/write.ts';
import { exitTwoOnUsageError } from '../options.ts';

export function runMerge(directories: readonly string[], out: string): number {
  const parts: Results[] = [];
  for (const directory of directories) {
    const path = join(resolve(directory), 'results.json');
    if (!existsSync(path)) {
      console.error(`dxs report merge: ${path} does not exist (expected the report directory of a dxs test run)`);
      return 2;
    }
    try {
      parts.push(readResults(path));
    } catch (error) {
      console.error(`dxs report merge: ${(error as Error).message}`);
      return 2;
    }
  }
  const merged = mergeResults(parts);
  writeReport(resolve(out), merged);
  const { summary } = merged;
  console.error(`dxs report merge: ${parts.length} reports, ${summary.total} tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.info} info, ${summary.skipped} skipped${summary.blocked ? `, ${summary.blocked} blocked` : ''}`);
  console.error(`report: ${displayPath(join(resolve(out), 'index.html'))}`);
  return exitCodeOf(merged);
}

export function registerReportCommand(program: Command): void {
  const report = program.command('report').description('work with report directories of dxs test');
  exitTwoOnUsageError(report);
  const merge = report
    .command('merge')
    .description('merge the reports of several shards into one (results.json, index.html, junit.xml)')
    .argument('<dirs...>', 'report directories of the shards')
    .requiredOption('--out <dir>', 'where to write the merged report')
    .addHelpText('after', '\nExample:\n  $ dxs report merge reports/shard-1 reports/shard-2 --out reports/merged\n\nExit codes: 0 no test failed, 1 a test failed, 2 a directory is missing or a shard could not run.')
    .action((dirs: string[], options: { out: string }) => {
      process.exit(runMerge(dirs, options.out));
    });
  exitTwoOnUsageError(merge);
}
