// The gate of a process behind a gateway (suites/support/gateway.ts): one answer of the gateway
// holds every call of the process for its Retry-After, and paces the process from then on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { announcedRate, GatewayGate } from '../../suites/support/gateway.ts';

test('the rate a RateLimit-Policy header announces is read in both of its forms, and nothing is made up without one', () => {
  assert.equal(announcedRate({ 'ratelimit-policy': '15;w=1' }), 15);
  assert.equal(announcedRate({ 'RateLimit-Policy': '"default";q=100;w=10' }), 10);
  assert.equal(announcedRate({ ratelimit: 'limit=10, remaining=0, reset=1' }), undefined);
  assert.equal(announcedRate({}), undefined);
});

test('a gate that never met the gateway lets every call through at once', async () => {
  const gate = new GatewayGate(2);
  const started = performance.now();
  await Promise.all(Array.from({ length: 20 }, () => gate.pass()));
  assert.equal(gate.interval, undefined);
  assert.ok(performance.now() - started < 1000, 'twenty calls through a gate that never met the gateway were held back');
});

test('after an answer of the gateway no call leaves before its Retry-After, and the pace follows the announced limit, slower at each further answer', async () => {
  const gate = new GatewayGate(3);
  gate.answered(200, { 'ratelimit-policy': '15;w=1' });
  // Three processes share 15 a second: 5 each, a call every 200 ms.
  assert.equal(Math.round(gate.interval ?? 0), 200);
  const started = performance.now();
  await gate.pass();
  assert.ok(performance.now() - started >= 150, 'a call left before the Retry-After of the gateway had passed');
  gate.answered(0, { 'ratelimit-policy': '15;w=1' });
  assert.equal(Math.round(gate.interval ?? 0), 300);
  const unannounced = new GatewayGate(1);
  unannounced.answered(0, {});
  assert.equal(unannounced.interval, 100);
  for (let answer = 0; answer < 20; answer++) unannounced.answered(0, {});
  assert.equal(unannounced.interval, 2000);
});
