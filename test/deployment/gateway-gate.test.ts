// The gate of a process behind a gateway (suites/support/gateway.ts): one answer of the gateway
// holds every call of the process for its Retry-After, and paces the process from then on; and the
// run's pace (suites/support/run-pace.ts), the same gate served to every worker of a run. Slots are
// read as reserved (the wait each would take), not timed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { announcedRate, GatewayGate, START_WINDOW } from '../../suites/support/gateway.ts';
import { RunPaceClient, START_INTERVAL_MS, startRunPace } from '../../suites/support/run-pace.ts';

test('the rate a gateway announces is read from RateLimit-Policy, RateLimit and the X-RateLimit family, and nothing is made up without one', () => {
  assert.equal(announcedRate({ 'ratelimit-policy': '15;w=1' }), 15);
  assert.equal(announcedRate({ 'RateLimit-Policy': '"default";q=100;w=10' }), 10);
  assert.equal(announcedRate({ ratelimit: 'limit=10, remaining=0, reset=1' }), 10);
  assert.equal(announcedRate({ 'X-RateLimit-Limit': '30', 'X-RateLimit-Reset': '2' }), 15);
  assert.equal(announcedRate({ 'ratelimit-limit': '5', 'ratelimit-reset': '0' }), 5, 'a window that just reset counts as a second');
  assert.equal(announcedRate({ 'x-ratelimit-limit': '30' }), undefined, 'a limit without its window says no rate');
  assert.equal(announcedRate({}), undefined);
});

test('a gate that never met the gateway lets every call through at once', () => {
  const gate = new GatewayGate(2);
  const waits = Array.from({ length: 20 }, () => gate.reserve({}, 1000).waitMs);
  assert.deepEqual(new Set(waits), new Set([0]));
  assert.equal(gate.interval, undefined);
  assert.equal(gate.paced, false);
});

test('after an answer of the gateway no call leaves before its Retry-After, and the pace follows the announced limit, slower at each further answer', async () => {
  const gate = new GatewayGate(3);
  gate.answered(200, { 'ratelimit-policy': '15;w=1' });
  // Three processes share 15 a second: 5 each, a call every 200 ms.
  assert.equal(Math.round(gate.interval ?? 0), 200);
  const started = performance.now();
  const ticket = await gate.pass();
  assert.ok(performance.now() - started >= 150, 'a call left before the Retry-After of the gateway had passed');
  gate.answered(0, { 'ratelimit-policy': '15;w=1' }, ticket);
  assert.equal(Math.round(gate.interval ?? 0), 250);
  const unannounced = new GatewayGate(1);
  unannounced.answered(0, {});
  assert.equal(unannounced.interval, 100);
  for (let answer = 0; answer < 20; answer++) unannounced.answered(0, {}, undefined);
  assert.equal(unannounced.interval, 100, 'answers to calls sent without a slot (a probe of the limit) hold the calls and slow nothing');
  for (let answer = 0; answer < 20; answer++) unannounced.answered(0, {}, unannounced.reserve().ticket);
  assert.equal(unannounced.interval, 2000);
});

test('the calls in flight when the pace changed slow it once, not once each', () => {
  const gate = new GatewayGate();
  // A burst sent before any gateway answer: every call holds the same ticket.
  const tickets = Array.from({ length: 30 }, () => gate.reserve({}, 0).ticket);
  for (const ticket of tickets) gate.answered(1000, {}, ticket);
  assert.equal(gate.interval, 100, 'thirty answers to one burst: the first pace, once');
  // A call sent under that pace meets the gateway again: now it slows.
  gate.answered(1000, {}, gate.reserve({}, 0).ticket);
  assert.equal(gate.interval, 125);
});

test('every caller takes its slot from one timeline: held for Retry-After, then spaced at the pace, whoever asks', () => {
  const gate = new GatewayGate();
  const now = performance.now();
  gate.answered(1000, {}, gate.reserve({}, now).ticket);
  const waits = Array.from({ length: 5 }, () => Math.round(gate.reserve({}, now).waitMs));
  assert.ok(waits[0] >= 990, `the first slot after the hold: ${waits[0]} ms`);
  for (let slot = 1; slot < waits.length; slot++) assert.equal(waits[slot] - waits[slot - 1], 100, `slots ${waits.join(', ')}`);
});

test('quickening stops short of a pace that met the gateway', () => {
  const gate = new GatewayGate();
  gate.answered(0, {}, gate.reserve({}, 0).ticket);
  // 100 ms; a call under it meets the gateway again: 125 ms, and 100 ms is known to be too quick.
  const under = gate.reserve({}, 0).ticket;
  gate.answered(0, {}, under);
  assert.equal(gate.interval, 125);
  // Ten seconds in which no call waited for its slot: the pace was not tried, it stays.
  const now = performance.now();
  gate.reserve({}, now + 11_000);
  assert.equal(gate.interval, 125, 'a pace no call waited for says nothing of the gateway');
  // Calls pressing the pace for a minute without an answer: quickened, but not to 100 ms again.
  for (let second = 12; second < 72; second += 1) for (let call = 0; call < 20; call++) gate.reserve({}, now + second * 1000);
  assert.equal(Math.round(gate.interval ?? 0), 110);
});

test('a window the run pressed between two refusals teaches the gateway\'s rate: the pace comes back just under it and never quickens past it', () => {
  const gate = new GatewayGate();
  gate.answered(1000, {}, gate.reserve({}, 0).ticket, 0);
  assert.equal(gate.interval, 100);
  // From the end of the hold, calls wait their turn all along (a call every 50 ms asks for a slot every 100 ms).
  let ticket = 0;
  for (let at = 1000; at <= 5000; at += 50) ticket = gate.reserve({}, at).ticket;
  // Refused at 5 s: 41 slots came, one of them refused, 40 let through in 5 s (the hold counted: the bucket refilled then).
  gate.answered(1000, {}, ticket, 5000);
  assert.equal(gate.learnt, 8);
  assert.equal(gate.interval, 125, 'a quarter slower (just under 8 a second would be slower still)');
  for (let at = 6000; at <= 70_000; at += 50) gate.reserve({}, at);
  assert.equal(gate.interval, 125, 'never quicker than the rate learnt');
});

test('a window the run left room in (calls seldom waited) teaches nothing: the gateway may have refilled past what it let through', () => {
  const gate = new GatewayGate();
  gate.answered(1000, {}, gate.reserve({}, 0).ticket, 0);
  let ticket = 0;
  for (let at = 1000; at <= 5000; at += 500) ticket = gate.reserve({}, at).ticket;
  gate.answered(1000, {}, ticket, 5000);
  assert.equal(gate.learnt, undefined);
  assert.equal(gate.interval, 125);
});

test('--max-rps paces the run from its first call; the head start is spread while the run is unpaced', () => {
  const capped = new GatewayGate({ maxRps: 20 });
  assert.equal(capped.paced, true);
  assert.deepEqual([0, 1, 2].map(() => Math.round(capped.reserve({}, 0).waitMs)), [0, 50, 100]);
  const run = new GatewayGate({ startIntervalMs: START_INTERVAL_MS });
  assert.deepEqual([0, 1, 2].map(() => Math.round(run.reserve({ start: true }, 0).waitMs)), [0, START_INTERVAL_MS, 2 * START_INTERVAL_MS]);
  assert.equal(run.reserve({}, 0).waitMs, 0, 'the tests\' own calls are not spread');
  assert.equal(run.paced, false, 'a target without a gateway is not paced');
});

test('before the run meets a gateway, only a few calls of the head start are out at once; once it met one, the pace spaces them', async () => {
  const run = new GatewayGate({ startIntervalMs: START_INTERVAL_MS });
  const turns: number[] = [];
  const waiting = Array.from({ length: START_WINDOW + 2 }, (_, index) => run.startTurn().then(() => turns.push(index)));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(turns.length, START_WINDOW, `${turns.length} calls of the head start out at once`);
  run.settled();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(turns.length, START_WINDOW + 1, 'an answer frees one place');
  // The gateway answers: every call waiting goes to the pace, which holds and spaces them.
  run.answered(0, {}, 0);
  await Promise.all(waiting);
  assert.equal(turns.length, START_WINDOW + 2);
});

test('refusals right after a probe of the limit hold the run and slow nothing: the probe emptied the bucket', () => {
  const gate = new GatewayGate();
  gate.answered(0, {}, gate.reserve({}, 0).ticket);
  assert.equal(gate.interval, 100);
  gate.probing();
  gate.answered(1000, {}, gate.reserve({}, 0).ticket);
  assert.equal(gate.interval, 100, 'a refusal in the probe\'s wake is the probe\'s');
  assert.ok(gate.reserve({}, performance.now()).waitMs > 900, 'and still holds the run for its Retry-After');
});

test('the run\'s pace is served to the workers: a gateway answer one worker meets holds and paces the others; unreachable, a worker paces itself', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-run-pace-'));
  const pace = await startRunPace({});
  try {
    const answersFile = join(directory, 'answers');
    const first = new RunPaceClient({ paceUrl: pace.url, answersFile, workers: 2 });
    const second = new RunPaceClient({ paceUrl: pace.url, answersFile, workers: 2 });
    // Before any answer of the gateway nothing is paced; after its first call a worker does not ask.
    assert.equal(await first.pass(), 0);
    assert.equal(await second.pass(), 0);
    await first.answered(0, { 'ratelimit-policy': '10;w=1' }, 0);
    assert.equal(pace.gate.interval, 100, 'the run as a whole gets the announced rate, not a worker\'s share of it');
    // The answer lands in the run's file: the other worker sees it grow and asks for its slot.
    writeFileSync(answersFile, '{}\n');
    const ticket = await second.pass();
    assert.equal(ticket, 1, 'the other worker took its slot under the new pace');
    await second.answered(0, {}, 0);
    assert.equal(pace.gate.interval, 100, 'an answer to a call sent before the pace changed slows nothing');
    first.close();
    second.close();
  } finally {
    await pace.close();
  }
  const orphan = new RunPaceClient({ paceUrl: pace.url, answersFile: join(directory, 'none'), workers: 2 });
  try {
    assert.equal(await orphan.pass(), 0, 'with the pace gone the worker goes on alone');
    await orphan.answered(0, {}, 0);
    assert.equal(await orphan.pass(), 1, 'and paces itself from its own answers');
  } finally {
    orphan.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
