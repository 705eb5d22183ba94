// Turns the option tables of lib/config.ts into commander options, so every option has its flag,
// its DXS_* variable and its config-file key from one description.
import { Option, type Command } from 'commander';
import { envName, flagName, type OptionSpec } from '../lib/config.ts';

export function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const flag =
      spec.kind === 'boolean'
        ? flagName(spec.key)
        : spec.kind === 'list'
          ? `${flagName(spec.key)} <${(spec.argument ?? 'VALUE').replace(/\.\.\.$/, '')}...>`
          : spec.optionalArgument !== undefined
            ? `${flagName(spec.key)} [${spec.argument ?? 'VALUE'}]`
            : `${flagName(spec.key)} <${spec.argument ?? 'VALUE'}>`;
    const extras = [envName(spec.key)];
    if (spec.default !== undefined) extras.push(`default: ${JSON.stringify(spec.default)}`);
    // No commander default: an absent flag must stay undefined so that env and config can apply.
    const option = new Option(flag, `${spec.description} [${extras.join(', ')}]`);
    if (spec.choices !== undefined) option.choices(spec.choices as string[]);
    command.addOption(option);
  }
  return command;
}

/**
 * Usage errors exit 2, as dxs promises. cli/usage.ts sets this on every command of the tree once all
 * are added: commander copies such settings only to commands added later.
 */
export function exitTwoOnUsageError(command: Command): Command {
  return command.exitOverride((error) => {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') process.exit(0);
    process.exit(error.exitCode === 0 ? 0 : 2);
  });
}
