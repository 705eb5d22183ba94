import type { Command } from 'commander';

// Placeholder until the load command lands.
export function registerLoadCommand(program: Command): void {
  program.command('load').description('(not yet available)').action(() => {
    console.error('dxs load: not yet available');
    process.exit(2);
  });
}
