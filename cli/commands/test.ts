import type { Command } from 'commander';

// Placeholder until the test command lands.
export function registerTestCommand(program: Command): void {
  program.command('test').description('(not yet available)').action(() => {
    console.error('dxs test: not yet available');
    process.exit(2);
  });
}
