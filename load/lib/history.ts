// The history of the exchange (lib/exchange-history.ts): one point of the counter dxs_exchange per
// call of a document flow, its operation the tag `op` and the rest k6 metadata, recorded as the
// journal is (journal.ts). Metadata makes no time series and never reaches Prometheus; it travels in
// raw.json.gz, where the checker reads the history of every runner once k6 has ended.
//
// k6 side only.

import { Counter } from 'k6/metrics';
import exec from 'k6/execution';
import { EXCHANGE_METRIC, EXCHANGE_OPS, encodeEvent, type ExchangeEvent, type ExchangeOp } from '../../lib/exchange-history.ts';

const exchange = new Counter(EXCHANGE_METRIC);

// One tags object per operation, made once: add() is called on every document call.
const TAGS = Object.fromEntries(EXCHANGE_OPS.map((op) => [op, { op }])) as Record<ExchangeOp, { op: ExchangeOp }>;

/** The VU id in the test; 0 in setup() and teardown(), which run outside the VUs of the scenario. */
function vuId(): number | undefined {
  try {
    return exec.vu.idInTest;
  } catch {
    return undefined;
  }
}

/** Records one event of the exchange; `vu` is filled in when not given. */
export function recordExchange(event: ExchangeEvent): void {
  const metadata = exec.vu.metrics.metadata;
  const fields = encodeEvent(event.vu === undefined ? { ...event, vu: vuId() } : event);
  const names = Object.keys(fields);
  for (const name of names) metadata[name] = fields[name];
  try {
    exchange.add(1, TAGS[event.op]);
  } finally {
    // Metadata set on the VU rides on every later point until removed.
    for (const name of names) delete metadata[name];
  }
}
