// What a load run creates at the target, recorded as it happens: one point of the counter
// dxs_created per entity, its kind a tag and its identifiers (ErpId, Location, ...) k6 metadata.
// Metadata is written by `--out json` with the point but is no tag: it makes no time series and
// never reaches Prometheus. So the journal travels in raw.json.gz, which every runner of a
// distributed run writes anyway, and `dxs load`, `dxs load merge` and `dxs clean` read it from there
// (cli/commands/load/journal.ts).
//
// k6 side only.

import { Counter } from 'k6/metrics';
import exec from 'k6/execution';
import { settings } from './settings.ts';

export const CREATED_METRIC = 'dxs_created';

const created = new Counter(CREATED_METRIC);

/** The journal's kinds (suites/support/journal.ts) a load flow creates. */
export type LoadEntityKind = 'company' | 'upload' | 'document' | 'provider-a';

/** Records one created entity; fields with no value are left out. */
export function journalCreated(kind: LoadEntityKind, fields: Record<string, string | undefined>): void {
  const metadata = exec.vu.metrics.metadata;
  const names: string[] = ['runPrefix'];
  metadata.runPrefix = settings.runPrefix;
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === '') continue;
    metadata[name] = value;
    names.push(name);
  }
  try {
    created.add(1, { kind });
  } finally {
    // Metadata set on the VU rides on every later point until removed.
    for (const name of names) delete metadata[name];
  }
}
