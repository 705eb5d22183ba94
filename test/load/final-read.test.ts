// The final read of a load run (issue 41): its plan on small histories (a send seen at once, one
// seen late, one never seen, one whose recipient is outside the run), and the read itself against
// a small fake target, whose answers join the history and let the checker judge every send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { planFinalRead } from '../../lib/final-read.ts';
import { checkExchange } from '../../lib/exchange-check.ts';
import type { ExchangeEvent } from '../../lib/exchange-history.ts';
import { finalRead, nextStep } from '../../cli/commands/load/final-read.ts';
import { judgeExchange, exchangeLines } from '../../cli/commands/load/exchange.ts';

const COMPANIES = new Set(['A', 'B', 'C']);

function history(now: number): ExchangeEvent[] {
  const send = (marker: string, recipient: string, completed: number): ExchangeEvent => ({ op: 'send', actor: 'A', invoked: completed - 20, completed, status: 200, recipient, deliveryType: 'Electronic', documentId: `out-${marker}`, erpDocumentId: marker });
  return [
    send('seen-at-once', 'B', now - 300),
    { op: 'list', actor: 'B', invoked: now - 250, completed: now - 240, status: 200, total: 1, ids: ['in1'], sequenceNos: [1] },
    { op: 'fetch', actor: 'B', invoked: now - 230, completed: now - 220, status: 200, id: 'in1', marker: 'seen-at-once' },
    send('seen-late', 'B', now - 200),
    send('never-seen', 'B', now - 100),
    send('outside', 'X', now - 100),
    // The third company looked at its inbox: it reads it again at the end.
    { op: 'list', actor: 'C', invoked: now - 50, completed: now - 40, status: 200, total: 0, ids: [], sequenceNos: [] },
  ];
}

test('the plan waits for the sends not yet tied to a download of their recipient, and reads each inbox of the run', () => {
  const now = 1_000_000;
  const plan = planFinalRead({ events: history(now), asyncTimeoutMs: 1000, companies: COMPANIES });
  assert.deepEqual(plan.awaited, [
    { erpDocumentId: 'seen-late', recipient: 'B', due: now - 200 + 1000 },
    { erpDocumentId: 'never-seen', recipient: 'B', due: now - 100 + 1000 },
  ]);
  assert.deepEqual(plan.readers, ['B', 'C'], 'the recipient, and the company that listed its inbox; X is no company of the run');
  assert.deepEqual([...(plan.downloaded.get('B') ?? [])], ['in1']);
  assert.deepEqual([...(plan.downloaded.get('C') ?? [])], []);
  assert.ok(plan.markers.has('outside'), 'any marker of the run is recognised in a download');
  // Without the journal's companies, the history's actors are the run's.
  assert.deepEqual(planFinalRead({ events: history(now), asyncTimeoutMs: 1000 }).readers, ['B', 'C']);
});

test('a send whose document reached a failed status, or not sent electronically, is not waited for', () => {
  const events: ExchangeEvent[] = [
    { op: 'send', actor: 'A', invoked: 0, completed: 10, status: 200, recipient: 'B', deliveryType: 'Electronic', documentId: 'd1', erpDocumentId: 'failed' },
    { op: 'status', actor: 'A', invoked: 20, completed: 30, status: 200, documentId: 'd1', documentStatus: 'ConversionFailed' },
    { op: 'send', actor: 'A', invoked: 0, completed: 10, status: 200, recipient: 'B', deliveryType: 'PDF', documentId: 'd2', erpDocumentId: 'pdf' },
    { op: 'send', actor: 'A', invoked: 0, completed: 10, status: 400, recipient: 'B', deliveryType: 'Electronic', erpDocumentId: 'refused' },
  ];
  const plan = planFinalRead({ events, asyncTimeoutMs: 1000, companies: COMPANIES });
  assert.deepEqual(plan.awaited, []);
  assert.deepEqual(plan.readers, ['B']);
});

interface FakeInbox {
  /** Inbound id -> the marker in the invoice and when (epoch ms) it shows. */
  documents: Map<string, { marker: string; from: number; sequenceNo: number }>;
  handled: Set<string>;
  /** Ids Total counts that no answer lists (issue 58). */
  hidden?: Set<string>;
  /** Documents one answer lists at most; Total counts them all. */
  pageSize?: number;
  /** With sequenceNo, the list starts at it rather than after it. */
  inclusive?: boolean;
  newestFirst?: boolean;
  /** POST /documents/handled answers 400: a paged list without sequenceNo never moves on. */
  markRefused?: boolean;
  /** The deployment's transport, each once, on the first call whose "METHOD path?query" matches: a gateway's 502 page, or the connection reset. */
  noise?: Array<{ call: RegExp; kind: '502' | 'reset' }>;
}

/** A target of a few routes: tokens for any ErpId, B's inbox (as PascalCase JSON), downloads carrying the marker. */
async function fakeTarget(inbox: FakeInbox): Promise<{ baseUrl: string; server: Server; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const path = url.pathname.replace(/^\/v1\/api/, '');
      calls.push(`${request.method} ${path}${url.search}`);
      const blip = inbox.noise?.findIndex((noise) => noise.call.test(`${request.method} ${path}${url.search}`)) ?? -1;
      if (blip >= 0) {
        const [{ kind }] = inbox.noise!.splice(blip, 1);
        if (kind === 'reset') return void request.socket.destroy();
        return void response.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>');
      }
      const company = String(request.headers.clienttoken ?? '').replace(/^token-/, '');
      const json = (status: number, value: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (path === '/clienttokens/create') return json(200, { Token: `token-${(JSON.parse(body) as { ErpId: string }).ErpId}` });
      const shown = [...inbox.documents.entries()].filter(([, document]) => company === 'B' && document.from <= Date.now());
      if (path === '/documents/incoming') {
        const sequenceNo = url.searchParams.get('sequenceNo');
        const listed = shown.filter(([id, document]) => (sequenceNo === null ? !inbox.handled.has(id) : inbox.inclusive === true ? document.sequenceNo >= Number(sequenceNo) : document.sequenceNo > Number(sequenceNo)));
        listed.sort((a, b) => (inbox.newestFirst === true ? b[1].sequenceNo - a[1].sequenceNo : a[1].sequenceNo - b[1].sequenceNo));
        const page = listed.filter(([id]) => inbox.hidden?.has(id) !== true).slice(0, inbox.pageSize ?? Infinity);
        return json(200, { Total: listed.length, Documents: page.map(([id, document]) => ({ Id: id, SequenceNo: document.sequenceNo })) });
      }
      if (path === '/documents/handled') {
        if (inbox.markRefused === true) return json(400, { Message: 'refused' });
        for (const id of (JSON.parse(body) as { documents: string[] }).documents) inbox.handled.add(id);
        return json(200, {});
      }
      const id = /^\/documents\/([^/]+)$/.exec(path)?.[1];
      const document = shown.find(([known]) => known === id)?.[1];
      if (document === undefined) return json(404, { Message: 'not found' });
      response.writeHead(200, { 'content-type': 'application/xml', 'x-document-format': 'peppol-bis-3' }).end(`<Invoice><cbc:ID>${document.marker}</cbc:ID></Invoice>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/api`, server, calls };
}

test('the final read waits for a late invoice until it comes, proves a missing one lost after its async timeout, and its calls join the history', async () => {
  const now = Date.now();
  const asyncTimeoutMs = 1500;
  const inbox: FakeInbox = {
    documents: new Map([
      ['in1', { marker: 'seen-at-once', from: 0, sequenceNo: 1 }],
      ['in2', { marker: 'seen-late', from: now + 400, sequenceNo: 2 }],
    ]),
    handled: new Set(),
  };
  const target = await fakeTarget(inbox);
  try {
    const events = history(now);
    const read = await finalRead({ baseUrl: target.baseUrl, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs, companies: COMPANIES });
    assert.equal(read.summary.status, 'done');
    assert.equal(read.summary.awaited, 2);
    assert.equal(read.summary.found, 1, 'the late one came; the one never delivered did not');
    assert.equal(read.summary.readers, 2);
    assert.ok(read.events.every((event) => event.finalRead === true));
    assert.ok(!target.calls.some((call) => call === 'GET /documents/in1'), 'an entry the recipient had downloaded is not downloaded again');
    assert.ok(target.calls.includes('GET /documents/incoming?type=invoice&sequenceNo=0'), 'the inbox is read from sequenceNo 0 too');
    // The last whole list came after the missing invoice's due time: it proves the absence.
    const due = now - 100 + asyncTimeoutMs;
    assert.ok(read.events.some((event) => event.op === 'list' && event.actor === 'B' && event.invoked > due));
    const result = checkExchange({ events: [...events, ...read.events], asyncTimeoutMs });
    assert.equal(result.sent, 4);
    assert.equal(result.delivered, 2);
    assert.equal(result.lost, 1);
    assert.equal(result.notJudged, 0);
    assert.deepEqual(result.notSubject, { 'recipient not a company of the run': 1 });
    const loss = result.violations.find((violation) => violation.rule === 'FLOW-04');
    assert.match(loss?.summary ?? '', /never-seen/);
    assert.ok(loss?.evidence.some((event) => event.op === 'list' && event.finalRead === true), 'the evidence holds the final read\'s answer');
    // The late one is timed apart: the final read's lists are no watch of the flow.
    assert.equal(result.finalReadDeliveryTimes.Electronic?.length, 1);
    assert.equal(result.deliveryTimes.Electronic?.length, 1);
  } finally {
    target.server.close();
  }
});

test('a clean target: the final read stops waiting once the late invoice is seen, long before its async timeout', async () => {
  const now = Date.now();
  const asyncTimeoutMs = 60_000;
  const inbox: FakeInbox = { documents: new Map([['in1', { marker: 'seen-at-once', from: 0, sequenceNo: 1 }], ['in2', { marker: 'seen-late', from: now + 200, sequenceNo: 2 }], ['in3', { marker: 'never-seen', from: now + 300, sequenceNo: 3 }]]), handled: new Set() };
  const target = await fakeTarget(inbox);
  try {
    const events = history(now);
    const read = await finalRead({ baseUrl: target.baseUrl, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs, companies: COMPANIES });
    assert.equal(read.summary.found, 2);
    // Ordered by the calls' own times, not by how fast they were: the last call came before the first due time.
    assert.ok(Math.max(...read.events.map((event) => event.completed)) < now - 200 + asyncTimeoutMs);
    const judged = judgeExchange([...events, ...read.events], { asyncTimeoutMs, finalRead: read.summary });
    assert.equal(judged.summary.notJudged, 0);
    assert.equal(judged.summary.arrivedByFinalRead, 2);
    assert.equal(judged.summary.passed, true);
  } finally {
    target.server.close();
  }
});

test('a target unreachable during the final read leaves its sends not judged, with that reason first; --strict fails the run', async () => {
  const closed = await fakeTarget({ documents: new Map(), handled: new Set() });
  await new Promise<void>((resolve) => closed.server.close(() => resolve()));
  const now = Date.now();
  const events = history(now);
  const read = await finalRead({ baseUrl: closed.baseUrl, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs: 1000, companies: COMPANIES });
  assert.equal(read.summary.status, 'unreachable');
  assert.match(read.summary.reason ?? '', /the target was unreachable during the final read \(connection refused/);
  const judged = judgeExchange([...events, ...read.events], { asyncTimeoutMs: 1000, finalRead: read.summary });
  assert.equal(judged.summary.notJudged, 2);
  assert.equal(judged.summary.passed, true, 'not judged is no failure by default');
  const lines = exchangeLines(judged.summary);
  assert.match(lines[0], /^ {2}exchange: 2 invoices not judged: the target was unreachable during the final read/);
  assert.equal(judgeExchange([...events, ...read.events], { asyncTimeoutMs: 1000, finalRead: read.summary, strict: true }).summary.passed, false);
});

test('an interrupted run does not wait: it reads for a few seconds and says why the rest is not judged', async () => {
  const now = Date.now();
  const target = await fakeTarget({ documents: new Map([['in1', { marker: 'seen-at-once', from: 0, sequenceNo: 1 }]]), handled: new Set() });
  try {
    const events = history(now);
    const read = await finalRead({ baseUrl: target.baseUrl, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs: 60_000, companies: COMPANIES, interrupted: true });
    assert.equal(read.summary.status, 'interrupted');
    assert.ok(read.events.some((event) => event.op === 'list'), 'it still read the inboxes');
    const judged = judgeExchange([...events, ...read.events], { asyncTimeoutMs: 60_000, finalRead: read.summary });
    assert.deepEqual(judged.summary.notJudgedReasons, { 'the run was interrupted: the final read did not wait for them and read for a few seconds only': 2 });
  } finally {
    target.server.close();
  }
});

test('sends not judged come first: in the script\'s console line, before the counts, and at the top of summary.html and index.html', async () => {
  const { summaryHtml, indexHtml, summaryLine } = await import('../../cli/commands/load/report.ts');
  const now = Date.now();
  const events = history(now);
  const judged = judgeExchange(events, { asyncTimeoutMs: 60_000, finalRead: { status: 'unreachable', reason: 'the target was unreachable during the final read (connection refused)', awaited: 2, found: 0, readers: 0, calls: 0, milliseconds: 5 } });
  const result = { script: 'inbox', runners: 1, durationSeconds: 1, iterations: 1, requests: 1, endpoints: [], checks: [], thresholds: [], passed: true, exchange: judged.summary };
  assert.match(summaryLine(result, 'index.html'), /^inbox: passed \(2 invoices not judged\) - [^\n]*\n {2}exchange: 2 invoices not judged: the target was unreachable during the final read \(connection refused\)\n {2}exchange: passed/);
  const input = { title: 't', target: 'x', profile: 'smoke', startedAt: new Date(0), results: [result], artifacts: [], notes: [] };
  const html = summaryHtml(input);
  const banner = html.indexOf('inbox: 2 invoices not judged: the target was unreachable during the final read');
  assert.ok(banner > 0 && banner < html.indexOf('<dl>'), 'above the run\'s facts');
  assert.match(html, /<span class="badge warn">2 not judged<\/span>/);
  assert.ok(indexHtml('/tmp', input).includes('2 invoices not judged'));
});

test('a gateway that keeps answering 429 stops the final read: its answers are not recorded as the target\'s, and the sends keep that reason', async () => {
  let answered = 0;
  const server = createServer((_request, response) => {
    answered++;
    response.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const events = history(Date.now());
    const read = await finalRead({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/api`, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs: 1000, companies: COMPANIES });
    assert.equal(read.summary.status, 'rate limited');
    assert.equal(answered, 4, 'sent again after each Retry-After, then given up');
    assert.deepEqual(read.events, []);
    const reasons = Object.keys(judgeExchange(events, { asyncTimeoutMs: 1000, finalRead: read.summary }).summary.notJudgedReasons);
    assert.match(reasons[0], /^the gateway's rate limit stopped the final read \(POST \/clienttokens\/create answered 429 4 times\)/);
  } finally {
    server.close();
  }
});

/** Ten invoices from A to B, all past their async timeout when the final read starts; B has downloaded none. */
function tenSends(now: number): { events: ExchangeEvent[]; inbox: FakeInbox } {
  const events: ExchangeEvent[] = [];
  const documents = new Map<string, { marker: string; from: number; sequenceNo: number }>();
  for (let index = 1; index <= 10; index++) {
    events.push({ op: 'send', actor: 'A', invoked: now - 5020, completed: now - 5000, status: 200, recipient: 'B', deliveryType: 'Electronic', documentId: `out-${index}`, erpDocumentId: `m${index}` });
    documents.set(`in${index}`, { marker: `m${index}`, from: 0, sequenceNo: index });
  }
  return { events, inbox: { documents, handled: new Set() } };
}

/** The final read of tenSends against a fake inbox of the given reading, judged. */
async function walkAgainst(reading: Partial<FakeInbox>): Promise<{ result: ReturnType<typeof checkExchange>; read: Awaited<ReturnType<typeof finalRead>>; calls: string[] }> {
  const now = Date.now();
  const { events, inbox } = tenSends(now);
  const target = await fakeTarget({ ...inbox, ...reading });
  try {
    const read = await finalRead({ baseUrl: target.baseUrl, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs: 1000, companies: COMPANIES });
    return { result: checkExchange({ events: [...events, ...read.events], asyncTimeoutMs: 1000 }), read, calls: target.calls };
  } finally {
    target.server.close();
  }
}

test('a loss hidden behind Total: the walk with sequenceNo proves it lost, on a target that pages after sequenceNo and on one that starts at it, one document an answer', async () => {
  for (const reading of [{ pageSize: 3 }, { pageSize: 1, inclusive: true }, {}] as Array<Partial<FakeInbox>>) {
    const { result, read } = await walkAgainst({ ...reading, hidden: new Set(['in7']) });
    const label = JSON.stringify(reading);
    assert.equal(read.summary.status, 'done', label);
    assert.equal(result.delivered, 9, label);
    assert.equal(result.lost, 1, label);
    assert.equal(result.notJudged, 0, label);
    const loss = result.violations.find((violation) => violation.rule === 'FLOW-04');
    assert.match(loss?.summary ?? '', /sent m7 .*the final read's walk of B's list with sequenceNo/, label);
    const walk = loss?.evidence.filter((event) => event.op === 'list') ?? [];
    assert.ok(walk.length >= 1 && walk.every((event) => event.finalRead === true && event.walk !== undefined), `${label}: the walk is the evidence`);
    assert.equal(walk.at(-1)?.walkEnd, 'complete', label);
    assert.ok((read.summary.walks?.complete ?? 0) >= 1, label);
    assert.deepEqual(read.summary.walks?.budget, { calls: 200, milliseconds: 10_000 }, `${label}: the budget is in the report`);
  }
});

test('the walk on a clean target: paged after sequenceNo, at it, or with a handled document listed again, every invoice delivered and none left not judged', async () => {
  for (const reading of [{ pageSize: 3 }, { pageSize: 1, inclusive: true }, { pageSize: 2, newestFirst: true }, { newestFirst: true }] as Array<Partial<FakeInbox>>) {
    const { result } = await walkAgainst(reading);
    const label = JSON.stringify(reading);
    assert.equal(result.delivered, 10, label);
    assert.equal(result.lost, 0, label);
    assert.equal(result.notJudged, 0, label);
  }
});

test('a walk that cannot be completed leaves the send not judged, with its reason: a paged answer newest first could skip documents', async () => {
  // Marks refused: the list without sequenceNo shows its first page only, so the walk is all there is.
  const { result, read } = await walkAgainst({ pageSize: 3, newestFirst: true, hidden: new Set(['in7']), markRefused: true });
  assert.equal(result.lost, 0, 'a walk upwards from the newest page proves no absence');
  assert.equal(result.delivered, 3);
  assert.equal(result.notJudged, 7);
  assert.match(Object.keys(result.notJudgedReasons)[0], /walk of the list with sequenceNo could not be completed: the answer from sequenceNo 0 was paged and not in SequenceNo order/);
  assert.equal(Object.keys(read.summary.walks?.notComplete ?? {}).length, 1);
});

test('where the walk cannot be completed, an empty list without sequenceNo proves the loss: a document not marked stays in it, whatever Total counts', async () => {
  const { result } = await walkAgainst({ pageSize: 3, newestFirst: true, hidden: new Set(['in7']) });
  assert.equal(result.delivered, 9);
  assert.equal(result.lost, 1);
  assert.equal(result.notJudged, 0);
  const loss = result.violations.find((violation) => violation.rule === 'FLOW-04');
  assert.match(loss?.summary ?? '', /sent m7 .*a list of B without sequenceNo \(the final read\).*showed no document at all \(Total 1\)/);
});

test('the walk steps on synthetic pages: on from the highest SequenceNo, one past it when nothing is new, and ends at an empty or whole answer or with its reason', () => {
  const answer = (ids: string[], sequenceNos: Array<number | null>, total?: number, status = 200) => ({ ids, sequenceNos, total, ok: status === 200, status });
  assert.deepEqual(nextStep(0, answer(['a', 'b'], [1, 2], 5), new Set()), { from: 2 });
  // At sequenceNo (inclusive), the page shows the one already seen: the walk goes one past it.
  assert.deepEqual(nextStep(2, answer(['b'], [2], 4), new Set(['a', 'b'])), { from: 3 });
  assert.deepEqual(nextStep(2, answer(['b', 'c'], [2, 3], 4), new Set(['a', 'b'])), { from: 3 });
  assert.deepEqual(nextStep(3, answer([], [], 1), new Set(['a', 'b', 'c'])), { end: 'complete' }, 'an empty answer: nothing beyond, whatever Total says');
  assert.deepEqual(nextStep(0, answer(['c', 'b', 'a'], [3, 2, 1], 3), new Set()), { end: 'complete' }, 'whole by its own Total, in any order');
  assert.match(nextStep(0, answer(['c', 'b'], [3, 2], 3), new Set()).end ?? '', /paged and not in SequenceNo order/);
  assert.match(nextStep(0, answer(['a', 'b'], [1, null], 3), new Set()).end ?? '', /without a numeric SequenceNo/);
  assert.match(nextStep(5, answer(['a'], [1], 3), new Set(['a'])).end ?? '', /only documents below it/);
  assert.match(nextStep(0, answer([], [], undefined, 400), new Set()).end ?? '', /was 400/);
});

test('the checker takes a walk as a proof only when it is complete, invoked after the async timeout ran out, and every entry it listed was downloaded', () => {
  const send: ExchangeEvent = { op: 'send', actor: 'A', invoked: 0, completed: 100, status: 200, recipient: 'B', deliveryType: 'Electronic', documentId: 'out-1', erpDocumentId: 'lost' };
  const fetched: ExchangeEvent = { op: 'fetch', actor: 'B', invoked: 2000, completed: 2010, status: 200, id: 'in1', marker: 'other' };
  const other: ExchangeEvent = { op: 'send', actor: 'A', invoked: 0, completed: 100, status: 200, recipient: 'B', deliveryType: 'Electronic', documentId: 'out-2', erpDocumentId: 'other' };
  const walk = (invoked: number, end: string, ids = ['in1']): ExchangeEvent[] => [
    { op: 'list', actor: 'B', invoked, completed: invoked + 10, status: 200, sequenceNo: 0, total: ids.length + 1, ids, sequenceNos: ids.map((_id, index) => index + 1), walk: `B#${invoked}`, finalRead: true },
    { op: 'list', actor: 'B', invoked: invoked + 20, completed: invoked + 30, status: 200, sequenceNo: ids.length, total: 1, ids: [], sequenceNos: [], walk: `B#${invoked}`, walkEnd: end, finalRead: true },
  ];
  const judge = (events: ExchangeEvent[]) => checkExchange({ events: [send, other, fetched, ...events], asyncTimeoutMs: 1000 });
  const proven = judge(walk(3000, 'complete'));
  assert.equal(proven.lost, 1);
  assert.equal(proven.violations[0].evidence.filter((event) => event.op === 'list').length, 2, 'the walk is the evidence');
  assert.equal(judge(walk(500, 'complete')).notJudged, 1, 'a walk begun before the async timeout ran out proves nothing');
  const notDownloaded = judge(walk(3000, 'complete', ['in1', 'in2']));
  assert.equal(notDownloaded.lost, 0);
  assert.match(Object.keys(notDownloaded.notJudgedReasons)[0], /walk of the list with sequenceNo had an entry not downloaded/);
  const cut = judge(walk(3000, 'it ran past its budget (200 lists, or 10 s)'));
  assert.equal(cut.lost, 0);
  assert.match(Object.keys(cut.notJudgedReasons)[0], /could not be completed: it ran past its budget/);
});

test('an empty list without sequenceNo proves a loss whatever its Total, unless the company marked an id it never downloaded before it', () => {
  const send: ExchangeEvent = { op: 'send', actor: 'A', invoked: 0, completed: 100, status: 200, recipient: 'B', deliveryType: 'Electronic', documentId: 'out-1', erpDocumentId: 'lost' };
  const empty: ExchangeEvent = { op: 'list', actor: 'B', invoked: 3000, completed: 3010, status: 200, total: 1, ids: [], sequenceNos: [] };
  const judge = (events: ExchangeEvent[]) => checkExchange({ events: [send, ...events], asyncTimeoutMs: 1000 });
  assert.equal(judge([empty]).lost, 1);
  assert.equal(judge([{ ...empty, total: undefined }]).lost, 1, 'an answer without Total too');
  assert.equal(judge([{ ...empty, invoked: 900, completed: 910 }]).notJudged, 1, 'invoked before the async timeout ran out');
  // A mark of an id the company never downloaded could have taken the document out of that list.
  assert.equal(judge([{ op: 'handled', actor: 'B', invoked: 2000, completed: 2010, status: 200, ids: ['unknown'] }, empty]).lost, 0);
});

test('the deployment\'s transport in the final read (issue 57): a gateway\'s 502 and a reset are sent again, reported, and judge nothing', async () => {
  const now = Date.now();
  const { events, inbox } = tenSends(now);
  inbox.noise = [
    { call: /^GET \/documents\/incoming\?/, kind: '502' },
    { call: /^GET \/documents\/in3$/, kind: 'reset' },
    { call: /^POST \/clienttokens\/create/, kind: 'reset' },
  ];
  const target = await fakeTarget(inbox);
  try {
    const read = await finalRead({ baseUrl: target.baseUrl, apiKey: 'fake-api-key', connection: { insecure: false }, events, asyncTimeoutMs: 1000, companies: COMPANIES });
    assert.equal(read.summary.status, 'done');
    assert.deepEqual(inbox.noise, [], 'every blip was met');
    assert.deepEqual(Object.keys(read.summary.transient ?? {}).sort(), ['502 on GET /documents/incoming', 'no answer (reset) on GET /documents/{id}', 'no answer (reset) on POST /clienttokens/create'].sort());
    assert.ok(!read.events.some((event) => event.status === 502), 'no answer of the gateway joins the history');
    const result = checkExchange({ events: [...events, ...read.events], asyncTimeoutMs: 1000 });
    assert.equal(result.delivered, 10);
    assert.equal(result.lost, 0);
    assert.equal(result.notJudged, 0);
  } finally {
    target.server.close();
  }
});
