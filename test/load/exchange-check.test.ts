// The exchange checker (lib/exchange-check.ts) on small hand-written histories: one per rule,
// each both ways, a history that breaks the rule caught under its ID and a near miss that is
// right passing (concurrent calls, a paged answer, a list before the async timeout ran out, an
// answer newest first, a sender reading what it sent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkExchange, type ExchangeCheckResult, type ExchangeRule } from '../../lib/exchange-check.ts';
import { decodeEvent, encodeEvent, type ExchangeEvent } from '../../lib/exchange-history.ts';

const TIMEOUT = 1000;

/** A call invoked at `at` that took `took` ms. */
const at = (invoked: number, took = 10): Pick<ExchangeEvent, 'invoked' | 'completed' | 'status'> => ({ invoked, completed: invoked + took, status: 200 });

const send = (invoked: number, marker: string, recipient = 'B', actor = 'A', extra: Partial<ExchangeEvent> = {}): ExchangeEvent => ({ op: 'send', actor, ...at(invoked), recipient, deliveryType: 'Electronic', documentId: `out-${marker}`, erpDocumentId: marker, ...extra });
/** Each id keeps one SequenceNo throughout, as a right target numbers them. */
const numbers = new Map<string, number>();
const sequenceNoOf = (id: string): number => {
  if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
  return numbers.get(id) as number;
};
const list = (invoked: number, ids: string[], actor = 'B', extra: Partial<ExchangeEvent> = {}): ExchangeEvent => ({ op: 'list', actor, ...at(invoked), total: ids.length, ids, sequenceNos: ids.map(sequenceNoOf), ...extra });
const fetch = (invoked: number, id: string, marker: string | undefined, actor = 'B'): ExchangeEvent => ({ op: 'fetch', actor, ...at(invoked), id, ...(marker === undefined ? {} : { marker }) });
const mark = (invoked: number, ids: string[], actor = 'B'): ExchangeEvent => ({ op: 'handled', actor, ...at(invoked), ids });
const info = (invoked: number, id: string, actor: string): ExchangeEvent => ({ op: 'info', actor, ...at(invoked), id });
const status = (invoked: number, documentId: string, documentStatus: string, took = 10): ExchangeEvent => ({ op: 'status', actor: 'A', ...at(invoked, took), documentId, documentStatus });
/** The third company, which receives nothing, looks at its empty list. */
const idle = (invoked: number): ExchangeEvent => list(invoked, [], 'C');

function check(events: ExchangeEvent[]): ExchangeCheckResult {
  // Through the k6 metadata and back, as the CLI reads them, in reverse order (many runners).
  const decoded = events.map((event) => decodeEvent(event.op, encodeEvent(event)) as ExchangeEvent).reverse();
  return checkExchange({ events: decoded, asyncTimeoutMs: TIMEOUT });
}

function broken(result: ExchangeCheckResult): ExchangeRule[] {
  return [...new Set(result.violations.map((violation) => violation.rule))].sort();
}

/** A right exchange: A sends m1 to B; B lists, downloads, marks, downloads again; later lists lack it. */
function rightExchange(): ExchangeEvent[] {
  return [
    send(0, 'm1'),
    list(100, ['in1']),
    fetch(120, 'in1', 'm1'),
    mark(140, ['in1']),
    fetch(160, 'in1', 'm1'),
    list(2000, []),
    list(2100, [], 'B', { sequenceNo: 0, total: 1, ids: ['in1'], sequenceNos: [1] }),
    idle(2200),
  ];
}

test('a right exchange passes, with its delivery time', () => {
  const result = check(rightExchange());
  assert.deepEqual(broken(result), []);
  assert.equal(result.sent, 1);
  assert.equal(result.delivered, 1);
  assert.equal(result.lost, 0);
  assert.deepEqual(result.deliveryTimes, { Electronic: [100] });
});

test('FLOW-04: a send no whole list of the recipient holds after the async timeout is lost', () => {
  const events = [send(0, 'm1'), send(0, 'm2', 'B', 'A', { documentId: 'out-2' }), list(100, ['in1']), fetch(120, 'in1', 'm1'), list(2000, ['in1'])];
  const result = check(events);
  assert.deepEqual(broken(result), ['FLOW-04']);
  assert.equal(result.lost, 1);
  const violation = result.violations[0];
  assert.equal(violation.evidence[0].erpDocumentId, 'm2');
  assert.equal(violation.evidence[1].op, 'list');
  assert.deepEqual(violation.evidence[1].ids, [], 'the list as evidence keeps no entry, only its count');
  assert.equal(violation.evidence[1].listed, 1);
});

test('FLOW-04 near misses: a list before the timeout, a paged answer, an entry not downloaded, a sequenceNo above 0, an unknown id marked: not judged', () => {
  const cases: Array<[string, ExchangeEvent[]]> = [
    ['list before the timeout ran out', [send(0, 'm1'), list(500, [])]],
    ['paged answer', [send(0, 'm1'), list(2000, ['x1', 'x2'], 'B', { total: 3 }), fetch(2100, 'x1', undefined), fetch(2100, 'x2', undefined)]],
    ['entry not downloaded', [send(0, 'm1'), list(2000, ['x1'])]],
    ['sequenceNo above 0 (its reading is not shown)', [send(0, 'm1'), list(2000, [], 'B', { sequenceNo: 5 })]],
    ['an id marked that was never downloaded', [send(0, 'm1'), list(100, ['in1']), mark(150, ['in1']), list(2000, [])]],
  ];
  for (const [name, events] of cases) {
    const result = check(events);
    assert.deepEqual(broken(result), [], name);
    assert.equal(result.notJudged, 1, name);
  }
  const ended = check([send(0, 'm1'), list(500, [])]);
  assert.deepEqual(Object.keys(ended.notJudgedReasons), ['the run ended before the async timeout ran out']);
});

test('FLOW-04 near misses: a slow delivery found later, a PDF send, a failed conversion and a recipient outside the run are not lost', () => {
  const slow = check([send(0, 'm1'), list(2000, []), list(4500, []), list(5000, ['in1']), fetch(5100, 'in1', 'm1')]);
  assert.deepEqual(broken(slow), []);
  assert.equal(slow.delivered, 1);
  assert.deepEqual(slow.deliveryTimes.Electronic, [5000]);
  const pdf = check([send(0, 'm1', 'B', 'A', { deliveryType: 'PDF' }), list(2000, [])]);
  assert.deepEqual(broken(pdf), []);
  assert.equal(pdf.notSubject['delivery PDF: not to an incoming list'], 1);
  const failed = check([send(0, 'm1'), status(500, 'out-m1', 'ConversionFailed'), list(2000, [])]);
  assert.deepEqual(broken(failed), []);
  const outside = check([send(0, 'm1', 'Z'), list(2000, [])]);
  assert.deepEqual(broken(outside), []);
  assert.equal(outside.notSubject['recipient not a company of the run'], 1);
});

test('FLOW-04: a list with sequenceNo 0 that is whole proves the loss too', () => {
  const result = check([send(0, 'm1'), list(2000, [], 'B', { sequenceNo: 0 })]);
  assert.deepEqual(broken(result), ['FLOW-04']);
});

test('INB-05: a document gone from the list without sequenceNo before it was marked', () => {
  const result = check([send(0, 'm1'), list(100, ['in1']), fetch(120, 'in1', 'm1'), list(300, [])]);
  assert.deepEqual(broken(result), ['INB-05']);
  assert.match(result.violations[0].summary, /in1/);
});

test('INB-05 near misses: a mark concurrent with the list, a paged list, a list overlapping the one that showed it', () => {
  // The mark is invoked before the list completed: it may have taken effect first.
  const concurrent = check([send(0, 'm1'), list(100, ['in1']), fetch(120, 'in1', 'm1'), list(300, [], 'B', { completed: 400 }), mark(350, ['in1'])]);
  assert.deepEqual(broken(concurrent), []);
  const paged = check([send(0, 'm1'), list(100, ['in1', 'in2'], 'B'), fetch(120, 'in1', 'm1'), fetch(120, 'in2', undefined), list(300, ['in2'], 'B', { total: 2 })]);
  assert.deepEqual(broken(paged), []);
  // Invoked before the showing list completed: the two overlap, and the delivery may be in flight.
  const overlapping = check([send(0, 'm1'), list(100, ['in1'], 'B', { completed: 200 }), list(150, [], 'B', { completed: 160 }), fetch(220, 'in1', 'm1')]);
  assert.deepEqual(broken(overlapping), []);
});

test('INB-07: a document marked and fetched comes back in the list without sequenceNo', () => {
  const events = [...rightExchange().slice(0, 5), list(400, ['in1'])];
  const result = check(events);
  assert.deepEqual(broken(result), ['INB-07']);
  assert.deepEqual(result.violations[0].evidence.map((event) => event.op), ['handled', 'fetch', 'list']);
});

test('INB-07 near misses: with sequenceNo, a list concurrent with the fetch, a fetch before the mark completed', () => {
  const withSequenceNo = check([...rightExchange().slice(0, 5), list(400, ['in1'], 'B', { sequenceNo: 0 })]);
  assert.deepEqual(broken(withSequenceNo), []);
  const concurrent = check([...rightExchange().slice(0, 5), list(165, ['in1'])]);
  assert.deepEqual(broken(concurrent), []);
  // The only download after the mark was invoked before the mark completed.
  const early = check([send(0, 'm1'), list(100, ['in1']), fetch(120, 'in1', 'm1'), mark(140, ['in1']), fetch(145, 'in1', 'm1'), list(400, ['in1'])]);
  assert.deepEqual(broken(early), []);
});

test('INB-18: a document in the incoming list of a company other than its recipient', () => {
  const leaked = check([...rightExchange(), list(150, ['in1'], 'C'), fetch(170, 'in1', 'm1', 'C')]);
  assert.ok(broken(leaked).includes('INB-18'));
  assert.ok(broken(leaked).includes('INB-20'), 'and its download by the third company');
  // Not downloaded by the third company: tied by the recipient's download of the same id.
  const listedOnly = check([...rightExchange(), list(150, ['in1'], 'C')]);
  assert.deepEqual(broken(listedOnly), ['INB-18']);
  // The sender's own incoming list may not show what it sent.
  const sender = check([...rightExchange(), list(150, ['in1'], 'A')]);
  assert.deepEqual(broken(sender), ['INB-18']);
});

test('INB-18 near miss: two companies whose own inbound ids coincide, each its own document, downloaded or not', () => {
  const events = [...rightExchange(), send(0, 'm2', 'C', 'A'), list(100, ['in1'], 'C'), fetch(120, 'in1', 'm2', 'C')];
  assert.deepEqual(broken(check(events)), []);
  // C, a recipient too, has not downloaded its own in1 yet (the run ended first).
  const notYet = rightExchange().filter((event) => event.actor !== 'C');
  assert.deepEqual(broken(check([...notYet, send(0, 'm2', 'C', 'A'), list(100, ['in1'], 'C')])), []);
});

test('INB-20 and INB-21: another company downloads or reads the info of a document; the sender may', () => {
  const download = check([...rightExchange(), fetch(200, 'in1', undefined, 'C')]);
  assert.deepEqual(broken(download), ['INB-20']);
  const read = check([...rightExchange(), info(200, 'in1', 'C')]);
  assert.deepEqual(broken(read), ['INB-21']);
  // inbound-id-is-document-id: the sender downloads and reads its own DocumentId.
  const sameId = [send(0, 'm1'), list(100, ['out-m1']), fetch(120, 'out-m1', 'm1'), fetch(200, 'out-m1', 'm1', 'A'), info(210, 'out-m1', 'A')];
  assert.deepEqual(broken(check(sameId)), []);
  const refused = check([...rightExchange(), { ...fetch(200, 'in1', undefined, 'C'), status: 404 }, { ...info(200, 'in1', 'C'), status: 403 }]);
  assert.deepEqual(broken(refused), []);
});

test('XCH-01: one send delivered as two documents; one document fetched twice is fine', () => {
  const twice = check([send(0, 'm1'), list(100, ['in1', 'in2']), fetch(120, 'in1', 'm1'), fetch(130, 'in2', 'm1')]);
  assert.deepEqual(broken(twice), ['XCH-01']);
  const once = check([send(0, 'm1'), list(100, ['in1']), fetch(120, 'in1', 'm1'), fetch(130, 'in1', 'm1')]);
  assert.deepEqual(broken(once), []);
});

test('XCH-02: one Id twice in one answer; the same Id in two answers is fine', () => {
  const twice = check([send(0, 'm1'), list(100, ['in1', 'in1']), fetch(120, 'in1', 'm1')]);
  assert.deepEqual(broken(twice), ['XCH-02']);
  assert.deepEqual(twice.violations[0].evidence[0].ids, ['in1', 'in1']);
  const apart = check([send(0, 'm1'), list(100, ['in1']), fetch(120, 'in1', 'm1'), list(200, ['in1'])]);
  assert.deepEqual(broken(apart), []);
});

test('XCH-03 and XCH-04: two Ids with one SequenceNo, one Id with two; newest first and another company\'s numbers are fine', () => {
  const shared = check([list(100, ['in1', 'in2'], 'B', { sequenceNos: [7, 7] }), fetch(120, 'in1', undefined), fetch(120, 'in2', undefined)]);
  assert.deepEqual(broken(shared), ['XCH-03']);
  const moved = check([list(100, ['in1'], 'B', { sequenceNos: [7] }), list(200, ['in1'], 'B', { sequenceNos: [8] }), fetch(120, 'in1', undefined)]);
  assert.deepEqual(broken(moved), ['XCH-04']);
  const newestFirst = check([list(100, ['in2', 'in1'], 'B', { sequenceNos: [2, 1] }), list(200, ['in3', 'in2', 'in1'], 'B', { sequenceNos: [3, 2, 1] }), list(300, ['in1'], 'C', { sequenceNos: [2] })]);
  assert.deepEqual(broken(newestFirst), []);
});

test('XCH-05: a status read after another completed shows an earlier status; overlapping reads do not', () => {
  const back = check([status(100, 'd1', 'Delivered'), status(200, 'd1', 'Pending')]);
  assert.deepEqual(broken(back), ['XCH-05']);
  const overlapping = check([status(100, 'd1', 'Delivered', 200), status(150, 'd1', 'Pending')]);
  assert.deepEqual(broken(overlapping), []);
  const forward = check([status(100, 'd1', 'Pending'), status(200, 'd1', 'Sent'), status(300, 'd1', 'Stopped')]);
  assert.deepEqual(broken(forward), []);
});

test('every violation is counted, the evidence kept is bounded', () => {
  const events: ExchangeEvent[] = [];
  for (let index = 0; index < 50; index++) events.push(send(0, `m${index}`), list(5000 + index, [], 'B'));
  const result = checkExchange({ events, asyncTimeoutMs: TIMEOUT, evidenceLimit: 5 });
  assert.equal(result.counts['FLOW-04'], 50);
  assert.equal(result.lost, 50);
  assert.equal(result.violations.length, 5);
});

test('an answer of one entry without SequenceNo or CompanyId keeps one null for each through the k6 metadata', () => {
  const event: ExchangeEvent = { op: 'list', actor: 'B', ...at(0), total: 1, ids: ['in1'], sequenceNos: [null], companyIds: [null] };
  const decoded = decodeEvent('list', encodeEvent(event)) as ExchangeEvent;
  assert.deepEqual(decoded.sequenceNos, [null]);
  assert.deepEqual(decoded.companyIds, [null]);
  const empty = decodeEvent('list', encodeEvent({ ...event, total: 0, ids: [], sequenceNos: [], companyIds: [] })) as ExchangeEvent;
  assert.deepEqual([empty.ids, empty.sequenceNos, empty.companyIds], [[], [], []]);
});

test('a delivery the recipient did not watch is not timed: its last whole list lacking it came too long before the one that showed it', () => {
  // Lacked at 2000, shown at 9000: delivered somewhere in 7 s, which says how seldom the flow looked.
  const unwatched = check([send(0, 'm1'), list(2000, []), list(9000, ['in1']), fetch(9100, 'in1', 'm1')]);
  assert.deepEqual(broken(unwatched), []);
  assert.equal(unwatched.delivered, 1);
  assert.deepEqual(unwatched.deliveryTimes, {});
  assert.equal(unwatched.untimedDeliveries, 1);
  // A paged answer lacking it proves nothing of when it came: the bracket starts at the last whole one.
  const paged = check([send(0, 'm1'), list(2000, []), list(8500, ['x1'], 'B', { total: 2 }), list(9000, ['in1']), fetch(9100, 'in1', 'm1')]);
  assert.equal(paged.untimedDeliveries, 1);
  // Watched to the end: lacked at 8500, shown at 9000 of a 9 s delivery.
  const watched = check([send(0, 'm1'), list(2000, []), list(8500, []), list(9000, ['in1']), fetch(9100, 'in1', 'm1')]);
  assert.deepEqual(watched.deliveryTimes.Electronic, [9000]);
  assert.equal(watched.untimedDeliveries, 0);
});
