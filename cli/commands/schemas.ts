import type { Command } from 'commander';

// Placeholder until the schemas command lands.
export function registerSchemasCommand(program: Command): void {
  program.command('schemas').description('(not yet available)').action(() => {
    console.error('dxs schemas: not yet available');
    process.exit(2);
  });
}
