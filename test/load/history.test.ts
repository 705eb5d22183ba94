// The history of the exchange (issue 35) that the inbox flow records: a smoke run against the
// embedded sandbox leaves in raw.json.gz one dxs_exchange point per call, which decodeEvent reads
// back, and on a sandbox that is right the history holds what the checker needs: every send with
// its ids, every download with its marker, every invoice listed by its recipient alone, the third
// company's lists empty and its reads of the receivers' documents refused, lists with sequenceNo and
// downloads after a mark. The metadata of an event rides on no other point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EXCHANGE_METRIC, decodeEvent, type ExchangeEvent } from '../../lib/exchange-history.ts';
import { readFinalReadEvents } from '../../cli/commands/load/final-read.ts';
import { NO_K6, dxs, k6Binary, tempDirectory } from './helpers.ts';

const k6 = k6Binary();

interface RawPoint {
  type?: string;
  metric?: string;
  data?: { tags?: Record<string, string> | null; metadata?: Record<string, string> };
}

function readHistory(rawFile: string): { events: ExchangeEvent[]; undecoded: number; strayMetadata: string[] } {
  const events: ExchangeEvent[] = [];
  let undecoded = 0;
  const strayMetadata = new Set<string>();
  for (const line of gunzipSync(readFileSync(rawFile)).toString('utf8').split('\n')) {
    if (line === '') continue;
    const point = JSON.parse(line) as RawPoint;
    if (point.type !== 'Point') continue;
    if (point.metric !== EXCHANGE_METRIC) {
      // The journal's points carry their own metadata; no other point may carry an event's.
      if (point.metric !== 'dxs_created' && point.data?.metadata !== undefined) strayMetadata.add(`${point.metric}: ${Object.keys(point.data.metadata).join(',')}`);
      continue;
    }
    const event = decodeEvent(point.data?.tags?.op, point.data?.metadata);
    if (event === undefined) undecoded++;
    else events.push(event);
  }
  return { events, undecoded, strayMetadata: [...strayMetadata] };
}

const ok = (event: ExchangeEvent) => event.status >= 200 && event.status < 300;

test('the inbox flow records a history that holds every invoice, once, listed by its recipient alone', { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const reportDir = tempDirectory('history');
  const run = await dxs(['load', '--script', 'inbox', '--profile', 'smoke', '--vus', '2', '--duration', '4s', '--report-dir', reportDir], {}, 240_000);
  assert.equal(run.code, 0, `dxs load exited ${run.code}\n${run.stdout}\n${run.stderr}`);
  const rawFile = join(reportDir, 'inbox', 'raw.json.gz');
  const { events: inK6, undecoded, strayMetadata } = readHistory(rawFile);
  assert.equal(undecoded, 0, 'every dxs_exchange point decodes');
  assert.deepEqual(strayMetadata, [], 'metadata of an event on another point');
  for (const event of inK6) {
    assert.ok(event.actor.length > 0 && event.invoked > 0 && event.completed >= event.invoked, JSON.stringify(event));
    assert.equal(typeof event.vu, 'number', JSON.stringify(event));
  }
  // The invoices of the last seconds are listed by the final read, once k6 has ended (issue 41):
  // the history the checker judges is k6's and the final read's together.
  const events = [...inK6, ...readFinalReadEvents(rawFile)];

  const sends = events.filter((event) => event.op === 'send');
  assert.ok(sends.length > 2, `${sends.length} sends`);
  for (const send of sends) {
    assert.equal(send.status, 200, JSON.stringify(send));
    assert.ok(send.recipient !== undefined && send.documentId !== undefined && send.erpDocumentId !== undefined && send.deliveryType === 'Electronic', JSON.stringify(send));
  }
  const recipients = new Set(sends.map((send) => send.recipient));
  assert.equal(recipients.size, 2, 'two receivers');

  // The marker of each inbound Id, from the downloads; every download that came carries one.
  const downloads = events.filter((event) => event.op === 'fetch' && ok(event));
  const markerOf = new Map<string, string>();
  for (const download of downloads) {
    assert.ok(download.id !== undefined && download.marker !== undefined, JSON.stringify(download));
    markerOf.set(download.id as string, download.marker as string);
  }
  // Who listed each marker, from the lists that came.
  const listedBy = new Map<string, Set<string>>();
  const lists = events.filter((event) => event.op === 'list' && ok(event));
  for (const list of lists) {
    assert.ok(list.ids !== undefined && list.sequenceNos?.length === list.ids.length && list.companyIds?.length === list.ids.length, JSON.stringify(list));
    for (const id of list.ids) {
      const marker = markerOf.get(id);
      if (marker === undefined) continue;
      if (!listedBy.has(marker)) listedBy.set(marker, new Set());
      listedBy.get(marker)?.add(list.actor);
    }
  }
  for (const send of sends) assert.deepEqual([...(listedBy.get(send.erpDocumentId as string) ?? [])], [send.recipient], `${send.erpDocumentId}: listed by its recipient alone`);
  // One inbound Id per marker: nothing delivered twice.
  const idsOfMarker = new Map<string, Set<string>>();
  for (const [id, marker] of markerOf) idsOfMarker.set(marker, (idsOfMarker.get(marker) ?? new Set()).add(id));
  assert.deepEqual([...idsOfMarker.values()].filter((ids) => ids.size > 1), []);

  const senders = new Set(sends.map((send) => send.actor));
  const third = lists.filter((list) => !recipients.has(list.actor) && !senders.has(list.actor));
  assert.ok(third.length >= 1, 'the third company lists its inbox');
  assert.deepEqual(third.flatMap((list) => list.ids ?? []), [], 'the third company sees nothing');
  assert.ok(lists.some((list) => list.sequenceNo !== undefined), 'a list with sequenceNo');
  // The third company asks for the receivers' documents (its teardown at least once) and is refused.
  const foreign = events.filter((event) => (event.op === 'fetch' || event.op === 'info') && third.some((list) => list.actor === event.actor));
  assert.ok(foreign.some((event) => event.op === 'info') && foreign.some((event) => event.op === 'fetch'), 'the third company asks for another company\'s document');
  assert.deepEqual(foreign.filter(ok), [], 'the third company reads nothing');

  const handledAt = new Map<string, number>();
  for (const event of events) if (event.op === 'handled' && ok(event)) for (const id of event.ids ?? []) if (!handledAt.has(id)) handledAt.set(id, event.completed);
  assert.ok(handledAt.size > 0, 'documents marked handled');
  assert.ok(downloads.some((download) => download.invoked >= (handledAt.get(download.id as string) ?? Infinity)), 'a document downloaded after its mark');
});
