// Playwright's HTML report keeps its data in a zip inside index.html (base64), where a failed test's
// stack lines and error locations carry the absolute paths of the files dxs ran from: the clone, or
// the folder the package was unpacked into (issue 60). No report names a path of the machine, so once
// Playwright has written it the report is rewritten with those paths relative to that folder
// (`at suites/contract/tokens.spec.ts:55:5`), as the rest of dxs's reports name the files.
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readZip, writeZip, ZipError } from './zip.ts';

const EMBEDDED_ZIP = /(data:application\/zip;base64,)([A-Za-z0-9+/=]+)/;

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The text with every path under `root` (as given and resolved) made relative to it. */
export function relativeToRoot(text: string, root: string): string {
  let result = text;
  for (const form of new Set([root, realpathOr(root)])) {
    const prefix = `${form.replace(/\/+$/, '')}/`;
    if (prefix !== '/' && result.includes(prefix)) result = result.split(prefix).join('');
  }
  return result;
}

/**
 * Rewrites `<directory>/index.html` of Playwright's HTML reporter with the paths under `root` made
 * relative; true when it changed anything. A report it cannot read is left as it is.
 */
export function relativizePlaywrightReport(directory: string, root: string): boolean {
  const path = join(directory, 'index.html');
  if (!existsSync(path)) return false;
  const html = readFileSync(path, 'utf8');
  const match = EMBEDDED_ZIP.exec(html);
  if (match === null) return false;
  let entries;
  try {
    entries = readZip(Buffer.from(match[2], 'base64'));
  } catch (error) {
    if (error instanceof ZipError) return false;
    throw error;
  }
  let changed = false;
  const rewritten = entries.map((entry) => {
    if (!entry.name.endsWith('.json')) return entry;
    const text = entry.data.toString('utf8');
    const relative = relativeToRoot(text, root);
    if (relative === text) return entry;
    changed = true;
    return { name: entry.name, data: Buffer.from(relative, 'utf8') };
  });
  if (!changed) return false;
  writeFileSync(path, `${html.slice(0, match.index)}${match[1]}${writeZip(rewritten).toString('base64')}${html.slice(match.index + match[0].length)}`);
  return true;
}
