// Usage errors of every command in three lines at most: what was wrong, commander's closest option or
// command when one is near, and where the command's help is; exit 2, as dxs promises. The whole help
// after an error buried the one line that mattered under 160 others (issue 60).
import type { Command } from 'commander';
import { exitTwoOnUsageError } from './options.ts';

/** `dxs load report history` for that command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/**
 * Set on each command of the tree once all are added (exit 2 on a usage error included): commander copies a parent's settings only to
 * the commands created after them, and each command's lines must name that command.
 */
export function conciseUsageErrors(command: Command): void {
  const path = commandPath(command);
  command
    .showHelpAfterError(`See ${path} --help.`)
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, `${path}: `)) });
  exitTwoOnUsageError(command);
  for (const subcommand of command.commands) conciseUsageErrors(subcommand);
}
