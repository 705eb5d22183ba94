// The journal of a load run (created.jsonl, the format of dxs test: suites/support/journal.ts),
// made from the dxs_created points the flows write into raw.json.gz (load/lib/journal.ts). The
// ErpIds of the flows derive from the run prefix and k6's iterationInTest, but which iterations
// got as far as registering is only known from those points. `dxs load` appends each script's
// entities once k6 has ended; `dxs load merge` writes the journal of all runners; `dxs clean`
// completes the journal of a load run that was killed before it could (ensureLoadJournal).
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendJournal, JOURNAL_LINES_FILE, type EntityKind } from '../../../suites/support/journal.ts';
import { analyse, type CreatedPoint } from './results.ts';

/** Written in a script's folder once its entities are in the journal. */
const JOURNALED_MARKER = 'journaled';

const KINDS: ReadonlySet<string> = new Set<EntityKind>(['company', 'upload', 'document', 'provider-a']);

/** A fresh journal whose first line names the run and its target (before k6 starts, so a killed run still has it). */
export function startLoadJournal(reportDir: string, runPrefix: string, target: string | undefined, embedded: boolean): void {
  writeFileSync(join(reportDir, JOURNAL_LINES_FILE), '');
  appendJournal(reportDir, { at: new Date().toISOString(), runPrefix, kind: 'run', target, embedded, tool: 'dxs load' });
}

/** Appends the entities of one script (or of the runners of a merge); companies are under the run's key. */
export function appendCreated(reportDir: string, fallbackRunPrefix: string, created: readonly CreatedPoint[]): void {
  for (const entity of created) {
    if (!KINDS.has(entity.kind)) continue;
    const { runPrefix, ErpId, ...fields } = entity.fields;
    const owned = entity.kind === 'company' || entity.kind === 'provider-a';
    appendJournal(reportDir, {
      ...fields,
      at: entity.at,
      runPrefix: runPrefix ?? fallbackRunPrefix,
      kind: entity.kind as EntityKind,
      ...(owned && ErpId !== undefined ? { key: 'apiKey' as const, ErpId } : {}),
    });
  }
}

/** Marks a script folder as journaled, so that dxs clean does not add its entities twice. */
export function markJournaled(scriptDirectory: string): void {
  if (existsSync(scriptDirectory)) writeFileSync(join(scriptDirectory, JOURNALED_MARKER), '');
}

/** The entities in raw k6 output files. */
export async function createdIn(rawFiles: string[]): Promise<CreatedPoint[]> {
  const created: CreatedPoint[] = [];
  await analyse('journal', rawFiles, new Map(), { created });
  return created;
}

/**
 * For dxs clean: a load report whose scripts' raw points are not all in its journal yet (dxs
 * load was killed after k6 wrote them) gets them added. True when the folder is a load report.
 */
export async function ensureLoadJournal(reportDir: string): Promise<boolean> {
  if (!existsSync(reportDir)) return false;
  let load = false;
  for (const entry of readdirSync(reportDir)) {
    const directory = join(reportDir, entry);
    if (!statSync(directory).isDirectory()) continue;
    const raw = ['raw.json.gz', 'raw.json'].map((name) => join(directory, name)).filter((path) => existsSync(path));
    if (raw.length === 0) continue;
    load = true;
    if (existsSync(join(directory, JOURNALED_MARKER))) continue;
    const created = await createdIn(raw);
    if (!existsSync(join(reportDir, JOURNAL_LINES_FILE))) {
      const runPrefix = created.find((entity) => entity.fields.runPrefix !== undefined)?.fields.runPrefix ?? '';
      startLoadJournal(reportDir, runPrefix, undefined, false);
    }
    appendCreated(reportDir, '', created);
    markJournaled(directory);
  }
  return load;
}
