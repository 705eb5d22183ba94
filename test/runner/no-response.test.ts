// Evidence that explains itself (issue 22): a call that gets no answer says why (reset, closed,
// refused, a timeout after N s, or still waiting when its test ended) and how long it waited, in
// the exchange index.html shows, in the failure message the console and junit.xml carry.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { describeNoResponse } from '../../lib/no-response.ts';
import { renderHtml } from '../../report/html.ts';
import { renderJunit } from '../../report/junit.ts';
import { explainUnanswered, noResponseLines } from '../../report/playwright-reporter.ts';
import { summarise, type Results, type TestRecord } from '../../report/results.ts';
import { ApiClient } from '../../suites/support/client.ts';
import { HttpTransport } from '../../suites/support/http.ts';
import { newLog, type Exchange } from '../../suites/support/log.ts';
import { runContext } from '../../suites/support/run-context.ts';

const servers: Server[] = [];
const sockets: Socket[] = [];
let http: HttpTransport;

async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Calls GET /companies/status at the port and returns the recorded exchange and the thrown message. */
async function callAt(port: number, timeoutMs = 10_000): Promise<{ exchange: Exchange; message: string }> {
  const log = newLog();
  const client = new ApiClient(http, { ...runContext({}), baseUrl: `http://127.0.0.1:${port}/v1/api` }, log, { steps: false });
  const error = await client.get('/companies/status', { auth: 'apiKey', timeoutMs }).then(() => undefined, (caught: Error) => caught);
  assert.ok(error instanceof Error, 'the call should have failed');
  return { exchange: log.exchanges[0], message: error.message };
}

before(async () => {
  http = new HttpTransport(undefined);
});

after(async () => {
  await http.close();
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

test('a connection the target resets says ECONNRESET and the time that passed', async () => {
  const port = await listen((socket) => socket.once('data', () => socket.resetAndDestroy()));
  const { exchange, message } = await callAt(port);
  assert.equal(exchange.cause, 'reset');
  assert.match(exchange.error ?? '', /^connection reset by the target \(ECONNRESET\) after \d+\.\d s$/);
  // A GET is sent again (issue 57); once every try is lost, the failure names the deployment's transport, then the last try's words.
  assert.equal(message, `transport failure: the deployment gave no answer (reset) to 3 of 3 tries of GET /companies/status\nGET /companies/status: no response from the target: ${exchange.error}`);
  assert.ok(exchange.sentAt !== undefined && !Number.isNaN(Date.parse(exchange.sentAt)));
});

test('a closed port says the connection was refused', async () => {
  const { exchange, message } = await callAt(await closedPort());
  assert.equal(exchange.cause, 'refused');
  assert.match(exchange.error ?? '', /^connection refused \(ECONNREFUSED\) after \d+\.\d s$/);
  assert.match(message, /no response from the target: connection refused \(ECONNREFUSED\)/);
});

test('a target that never answers says the timeout and how long the client waited', async () => {
  const port = await listen(() => undefined);
  const { exchange, message } = await callAt(port, 300);
  assert.equal(exchange.cause, 'timeout');
  assert.match(exchange.error ?? '', /^timeout: no answer within 0\.3 s \(waited \d+\.\d s\)$/);
  assert.match(message, /timeout: no answer within 0\.3 s/);
});

test('a connection closed without an answer is told apart from a reset', async () => {
  const port = await listen((socket) => socket.once('data', () => socket.end()));
  const { exchange } = await callAt(port);
  assert.equal(exchange.cause, 'closed');
  assert.match(exchange.error ?? '', /socket hang up/);
});

test('the causes of the transport messages, without a network', () => {
  assert.equal(describeNoResponse('apiRequestContext.fetch: getaddrinfo ENOTFOUND target.invalid', 12).text, 'host not found (ENOTFOUND) after 0.0 s');
  assert.equal(describeNoResponse('apiRequestContext.fetch: Timeout 30000ms exceeded.\nCall log:', 30_004).text, 'timeout: no answer within 30 s (waited 30.0 s)');
  assert.deepEqual(describeNoResponse('write EPIPE', 1500), { cause: 'other', text: 'write EPIPE after 1.5 s' });
});

test('a call still waiting when its test ended says so, with the time it waited, in index.html and junit.xml', () => {
  const exchange: Exchange = { title: 'GET /companies/status', endpoint: 'GET /companies/status', request: { method: 'GET', url: 'http://127.0.0.1:1/v1/api/companies/status', headers: {} }, durationMs: 0, sentAt: '2026-01-01T00:00:05.000Z' };
  explainUnanswered([exchange], { startTime: new Date('2026-01-01T00:00:00.000Z'), duration: 65_000 });
  assert.equal(exchange.cause, 'unanswered');
  assert.equal(exchange.error, 'no answer when the test ended, 60.0 s after the request was sent');
  const [line] = noResponseLines([exchange]);
  const record: TestRecord = {
    id: 'a', title: 'status', file: 'contract/x.spec.ts', titlePath: ['status'], area: 'companies', requirements: ['CMP-STA-01'], tags: [], status: 'timedOut', verdict: 'failed',
    durationMs: 65_000, failure: `Test timeout of 60000ms exceeded.\n\n${line}`, annotations: [], checks: [], requirementVerdicts: { 'CMP-STA-01': 'failed' }, exchanges: [exchange],
  };
  const results: Results = {
    format: 'dxs-results/1',
    run: { target: 'http://127.0.0.1:1/v1/api', embedded: false, profile: 'full', areas: [], casing: 'any', destructive: false, version: '0.1.0', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:10.000Z', durationMs: 70_000, status: 'failed', shards: [] },
    summary: summarise([record]),
    tests: [record],
    coverage: {},
  };
  assert.match(renderHtml({ results, catalog: [], catalogEndpoints: [] }), /no response: no answer when the test ended, 60\.0 s after the request was sent/);
  assert.match(renderJunit(results), /GET \/companies\/status: no response from the target: no answer when the test ended, 60\.0 s/);
});
