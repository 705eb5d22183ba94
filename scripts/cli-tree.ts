// Loaded before cli/index.ts (node --import): instead of parsing the command line, the program
// prints its command tree as JSON, every command with its options, as `--help` prints them.
import { Command } from 'commander';

interface Node {
  path: string;
  options: string[];
  help: string;
}

function walk(command: Command, prefix: string[]): Node[] {
  const path = [...prefix, command.name()];
  const node: Node = { path: path.join(' '), options: command.options.map((option) => option.long ?? option.short ?? option.flags), help: command.helpInformation() };
  return [node, ...command.commands.map((sub) => walk(sub, path)).flat()];
}

Command.prototype.parseAsync = async function (this: Command): Promise<Command> {
  process.stdout.write(JSON.stringify(walk(this, [])));
  process.exit(0);
};
