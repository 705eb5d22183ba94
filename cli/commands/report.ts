import type { Command } from 'commander';

// Placeholder until the report command lands.
export function registerReportCommand(program: Command): void {
  program.command('report').description('(not yet available)').action(() => {
    console.error('dxs report: not yet available');
    process.exit(2);
  });
}
