// What one worker found of the target that no other needs to find again (issue 58): a revoked or
// an expired token still accepted after the async timeout, a token that acts for another company
// of the run. Each is a line of a file of the run (appendFileSync keeps a line whole), read by the
// others before they wait for the same thing; the reporter removes the file at the run's end.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { secrets } from '../../lib/redact.ts';
import { runFindingsFile } from '../../report/root-causes.ts';
import { runContext } from './run-context.ts';

export interface RunFinding {
  /** What was found, e.g. "revoked token accepted". */
  name: string;
  /** Redacted, in one line: what was asked and what came back. */
  message: string;
  /** Further facts a finding carries (a CompanyId and whose it is). */
  facts?: Record<string, string>;
}

const known: RunFinding[] = [];

function readShared(): RunFinding[] {
  const context = runContext();
  if (context.secretsFile === undefined) return [...known];
  let text: string;
  try {
    text = readFileSync(runFindingsFile(context), 'utf8');
  } catch {
    return [...known];
  }
  const lines: RunFinding[] = [];
  for (const line of text.split('\n')) {
    try {
      const finding = JSON.parse(line) as RunFinding;
      if (typeof finding.name === 'string' && typeof finding.message === 'string') lines.push(finding);
    } catch {
      // An empty or cut line: the others still count.
    }
  }
  return lines;
}

/** Every finding of the run so far, of this worker and the others, in the order they were made. */
export function runFindings(name?: string): RunFinding[] {
  const all = readShared();
  for (const finding of known) if (!all.some((other) => other.name === finding.name && other.message === finding.message)) all.push(finding);
  return name === undefined ? all : all.filter((finding) => finding.name === name);
}

/** The first finding of that name, by this worker or another. */
export function runFinding(name: string): RunFinding | undefined {
  return known.find((finding) => finding.name === name) ?? runFindings(name)[0];
}

/** Records a finding for this worker and every other. */
export function recordRunFinding(finding: RunFinding): RunFinding {
  const redacted: RunFinding = { ...finding, message: secrets.redactText(finding.message).replace(/\s+/g, ' ').slice(0, 800) };
  known.push(redacted);
  const context = runContext();
  // Only `dxs test` has workers to share with, and a reporter that removes the file (it alone hands out a secrets file).
  if (context.secretsFile === undefined) return redacted;
  try {
    const file = runFindingsFile(context);
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(redacted)}\n`, { mode: 0o600 });
  } catch {
    // Other workers then find it out themselves: slower, never wrong.
  }
  return redacted;
}
