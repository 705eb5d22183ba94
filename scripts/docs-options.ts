// Writes, at the end of each page of docs/, the options of its commands as `--help` prints them
// (the "Reference" section), from commander's own tree (scripts/cli-tree.ts). Run it after adding
// or changing an option: npx tsx scripts/docs-options.ts. test/docs/coverage.test.ts checks that
// every command and option is in docs/.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAULTS } from '../sandbox/faults.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const HEADING = '## Reference: the options, as `--help` prints them';

/** The page of each command; a command not named here goes to the page of its parent. */
const PAGES: Record<string, string> = {
  'dxs test': 'test.md',
  'dxs report': 'test.md',
  'dxs clean': 'test.md',
  'dxs load': 'load.md',
  'dxs sandbox': 'sandbox.md',
  'dxs schemas': 'catalog.md',
  'dxs fuzz': 'fuzz.md',
  'dxs certify': 'certify.md',
  'dxs keys': 'certify.md',
  'dxs client-check': 'client-check.md',
  'dxs doctor': 'install.md',
  'dxs setup': 'install.md',
};

/** docs/sandbox.md's table of the faults, between these two lines, rewritten from sandbox/faults.ts. */
export const FAULTS_START = '<!-- The table of faults: npx tsx scripts/docs-options.ts writes it from sandbox/faults.ts. -->';
const FAULTS_END = '<!-- End of the table of faults. -->';

function withFaultTable(body: string): string {
  const start = body.indexOf(FAULTS_START);
  const end = body.indexOf(FAULTS_END);
  if (start === -1 || end === -1) return body;
  const rows = Object.entries(FAULTS).map(([name, description]) => `| \`${name}\` | ${description.replaceAll('|', '\\|')} |`);
  return `${body.slice(0, start)}${FAULTS_START}\n\n| Fault | What it breaks |\n|---|---|\n${rows.join('\n')}\n\n${body.slice(end)}`;
}

function pageOf(path: string): string {
  for (let words = path.split(' '); words.length > 1; words = words.slice(0, -1)) {
    const page = PAGES[words.join(' ')];
    if (page !== undefined) return page;
  }
  throw new Error(`${path}: no page of docs/ named for it in scripts/docs-options.ts`);
}

type Node = { path: string; options: string[]; help: string };
const tree = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--import', join(ROOT, 'scripts', 'cli-tree.ts'), join(ROOT, 'cli', 'index.ts')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, COLUMNS: '110' } })) as Node[];
const byPage = new Map<string, Node[]>();
for (const node of tree) {
  if (node.path === 'dxs') continue;
  // A command that only groups others (dxs report, dxs keys) has nothing of its own to show.
  if (node.options.length === 0 && tree.some((other) => other.path.startsWith(`${node.path} `))) continue;
  const page = pageOf(node.path);
  byPage.set(page, [...(byPage.get(page) ?? []), node]);
}
for (const [page, nodes] of byPage) {
  const file = join(ROOT, 'docs', page);
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(`\n${HEADING}`);
  const body = withFaultTable((at === -1 ? text : text.slice(0, at)).replace(/\n+$/, '\n'));
  const blocks = nodes.map((node) => `### \`${node.path}\`\n\n\`\`\`text\n${node.help.trimEnd()}\n\`\`\`\n`);
  writeFileSync(file, `${body}\n${HEADING}\n\n\`dxs <command> --help\` prints the same for the version installed.\n\n${blocks.join('\n')}`);
  console.log(`docs/${page}: ${nodes.map((node) => node.path).join(', ')}`);
}
