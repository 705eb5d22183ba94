// The steps-<N> timing variant (issue 36): background work that takes several steps per state, as
// a staging whose workers poll a queue. A registration shows Processing on its way to Registered,
// and a document passes through the statuses of the default sandbox, each N steps after the last.
// Asserted on what the sandbox shows, never on time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSandbox } from '../../sandbox/index.ts';
import { checkNames } from '../../sandbox/faults.ts';
import { isTimingVariant, variantStepsPerState } from '../../sandbox/timing-variants.ts';
import { Client } from '../contrarian/probes.ts';

test('steps-<N> is a timing variant the sandbox accepts, the largest N named counts', () => {
  assert.ok(isTimingVariant('steps-3'));
  assert.ok(!isTimingVariant('steps-0'));
  assert.ok(!isTimingVariant('steps-'));
  assert.doesNotThrow(() => checkNames('variant', ['latency-80ms', 'async-1s', 'steps-3']));
  assert.equal(variantStepsPerState(['async-1s']), 1);
  assert.equal(variantStepsPerState(['steps-2', 'steps-4']), 4);
});

/** Polls every 10 ms until the attempt gives a value, bounded in time rather than in tries: the states take 250 ms a step. */
async function within<T>(attempt: () => Promise<T | undefined>, boundMs = 30_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const value = await attempt();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not reached within ${boundMs / 1000} s`);
}

// 250 ms a step: Processing lasts three steps (0.75 s), which a poll sees on a loaded CI machine too (60 ms was missed once).
test('with steps-3 a registration shows Processing before Registered, and a document passes through every status of the default sandbox', async () => {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', variants: ['steps-3'], asyncDelayMs: 250 });
  try {
    const client = new Client(sandbox);
    const input = client.companyInput();
    assert.equal((await client.call('POST', '/companies/register', { apiKey: true, json: input })).status, 202);
    const token = (await within(async () => (await client.call('POST', '/clienttokens/create', { apiKey: true, json: { ErpId: input.ErpId } })).json?.token as string | undefined)) as string;
    const seen: string[] = [];
    const registered = await within(async () => {
      const status = await client.call('GET', '/companies/status', { token });
      if (seen[seen.length - 1] !== status.json?.status) seen.push(status.json?.status);
      return status.json?.status === 'Registered' ? status : undefined;
    });
    assert.ok(seen.includes('Processing'), `Processing on the way: ${seen.join(' -> ')}`);
    const sent = await client.send(token, registered.json.companyId as string);
    const id = sent.headers.get('location')?.split('/').pop();
    const delivered = await within(async () => {
      const answer = await client.call('GET', `/documents/outbound/${id}`, { token });
      return answer.json?.currentStatus?.status === 'Delivered' ? answer : undefined;
    });
    assert.deepEqual(delivered.json.statusHistory.map((entry: { status: string }) => entry.status), ['Pending', 'PendingInPlatform', 'Converting', 'ConversionComplete', 'Sent', 'Delivered']);
  } finally {
    await sandbox.close();
  }
});
