import type { Command } from 'commander';

// Placeholder until the sandbox command lands.
export function registerSandboxCommand(program: Command): void {
  program.command('sandbox').description('(not yet available)').action(() => {
    console.error('dxs sandbox: not yet available');
    process.exit(2);
  });
}
