// What judging the exchange costs once k6 has ended (issue 35): a generated history of a million
// events (DXS_BENCH_EVENTS), each document sent, listed, downloaded, marked, downloaded again,
// listed again and its status read, across 100 sender-recipient pairs and a third company that
// lists its empty inbox, with lists that also show the documents before it. Prints the time and
// the heap the checker takes (lib/exchange-check.ts with the grading of cli/commands/load/exchange.ts),
// then the time to read the same history back from a raw.json.gz as dxs load does (analyse).
// DXS_BENCH_RAW=0 leaves the raw file out. Prints, never asserts.
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { once } from 'node:events';
import { judgeExchange } from '../cli/commands/load/exchange.ts';
import { analyse } from '../cli/commands/load/results.ts';
import { encodeEvent, EXCHANGE_METRIC, type ExchangeEvent } from '../lib/exchange-history.ts';

const EVENTS = Math.max(1000, Number(process.env.DXS_BENCH_EVENTS ?? 1_000_000));
const PAIRS = 100;

function history(): ExchangeEvent[] {
  const events: ExchangeEvent[] = [];
  /** Per recipient, the documents delivered and not yet marked: what its list without sequenceNo shows. */
  const inbox = new Map<string, string[]>();
  const sequenceNos = new Map<string, number>();
  for (let index = 0; events.length < EVENTS; index++) {
    const pair = index % PAIRS;
    const sender = `S${pair}`;
    const recipient = `R${pair}`;
    const time = 1_700_000_000_000 + index * 3;
    const marker = `M${index}`;
    const id = `in-${index}`;
    const call = (offset: number): Pick<ExchangeEvent, 'invoked' | 'completed' | 'status' | 'vu'> => ({ invoked: time + offset, completed: time + offset + 20, status: 200, vu: pair + 1 });
    events.push({ op: 'send', actor: sender, ...call(0), recipient, deliveryType: 'Electronic', documentId: `out-${index}`, erpDocumentId: marker });
    sequenceNos.set(id, index + 1);
    const shown = [...(inbox.get(recipient) ?? []), id];
    events.push({ op: 'list', actor: recipient, ...call(100), total: shown.length, ids: [...shown], sequenceNos: shown.map((item) => sequenceNos.get(item) as number) });
    events.push({ op: 'fetch', actor: recipient, ...call(130), id, marker });
    // The recipient marks the oldest of three documents it holds, and downloads it once more.
    const oldest = shown.length >= 3 ? (shown.shift() as string) : undefined;
    inbox.set(recipient, shown);
    if (oldest !== undefined) {
      events.push({ op: 'handled', actor: recipient, ...call(160), ids: [oldest] });
      events.push({ op: 'fetch', actor: recipient, ...call(190), id: oldest, marker: `M${oldest.slice(3)}` });
    }
    events.push(index % 10 === 0 ? { op: 'list', actor: 'third', ...call(220), total: 0, ids: [], sequenceNos: [] } : { op: 'status', actor: sender, ...call(220), documentId: `out-${index}`, documentStatus: 'Sent' });
    events.push({ op: 'status', actor: sender, ...call(250), documentId: `out-${index}`, documentStatus: 'Delivered' });
  }
  return events.slice(0, EVENTS);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

async function writeRaw(events: readonly ExchangeEvent[], path: string): Promise<void> {
  const gzip = createGzip();
  const file = createWriteStream(path);
  gzip.pipe(file);
  for (const event of events) {
    const line = `${JSON.stringify({ type: 'Point', metric: EXCHANGE_METRIC, data: { time: new Date(event.completed).toISOString(), value: 1, tags: { op: event.op }, metadata: encodeEvent(event) } })}\n`;
    if (!gzip.write(line)) await once(gzip, 'drain');
  }
  gzip.end();
  await once(file, 'close');
}

async function main(): Promise<void> {
  const events = history();
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { summary } = judgeExchange(events, { asyncTimeoutMs: 30_000 });
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - started) / 1000;
  const heapAfter = process.memoryUsage().heapUsed;
  console.log(`exchange checker: ${events.length} events (${summary.sent} sends) judged in ${seconds.toFixed(2)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s: on a shared machine the wall time is longer), heap +${megabytes(Math.max(0, heapAfter - heapBefore))} (history itself ${megabytes(heapBefore)} heap in use), peak RSS ${megabytes(process.resourceUsage().maxRSS * 1024)}`);
  console.log(`  delivered ${summary.delivered}, lost ${summary.lost}, not judged ${summary.notJudged}, violations ${summary.rules.filter((rule) => rule.count > 0).map((rule) => `${rule.id} ${rule.count}`).join(', ') || 'none'}; delivery p95 ${summary.deliveryTime.map((item) => `${item.deliveryType} ${item.p95.toFixed(0)} ms`).join(', ')}`);
  if (process.env.DXS_BENCH_RAW === '0') return;
  const directory = mkdtempSync(join(tmpdir(), 'dxs-bench-exchange-'));
  try {
    const raw = join(directory, 'raw.json.gz');
    await writeRaw(events, raw);
    const readStarted = performance.now();
    const read: ExchangeEvent[] = [];
    await analyse('bench', [raw], new Map(), { exchange: read });
    const readSeconds = (performance.now() - readStarted) / 1000;
    console.log(`reading the history back from raw.json.gz (${megabytes(statSync(raw).size)}): ${read.length} events in ${readSeconds.toFixed(2)} s; read and judged: ${(readSeconds + seconds).toFixed(2)} s`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
