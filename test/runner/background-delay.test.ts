// The background probe of dxs test (lib/background-delay.ts, issue 27): one registration, timed
// until its status reads Registered, against the embedded sandbox whose background steps are slowed.
// The figures are compared with bounds the variant sets, never with a time the machine must meet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFixtures } from '../../fixtures/index.ts';
import { measureBackgroundDelay } from '../../lib/background-delay.ts';
import { startSandbox } from '../../sandbox/index.ts';

const connection = { insecure: false };

function company(name: string): Record<string, unknown> & { ErpId: string } {
  return { ...createFixtures({ seed: 7, runPrefix: `dxs-probe-test-${name}` }).company('SE') };
}

test('a registration is timed until Registered, the company is reported the moment it exists, and a refusal gives no figure', async () => {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', variants: ['async-300ms'] });
  try {
    const registered: string[] = [];
    const input = company('timed');
    const timed = await measureBackgroundDelay({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, connection, company: input, onRegistered: () => registered.push(input.ErpId), deadlineMs: 20_000 });
    assert.deepEqual(registered, [input.ErpId], 'the caller journals the company once its register call was answered');
    assert.ok(timed.delayMs !== undefined && timed.delayMs >= 300, `one background step of 300 ms at least: ${timed.note}`);
    assert.equal(timed.atLeast, undefined);

    const decided = await measureBackgroundDelay({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, connection, company: company('decided'), onRegistered: () => {}, deadlineMs: 20_000, decided: () => true });
    assert.equal(decided.atLeast, true, 'a lower bound that decides ends the probe');
    assert.ok(decided.delayMs !== undefined && decided.delayMs < 300, `it ended before the step did: ${decided.note}`);

    const refused = await measureBackgroundDelay({ baseUrl: sandbox.baseUrl, apiKey: 'not-a-key', connection, company: company('refused'), onRegistered: () => assert.fail('nothing was registered'), deadlineMs: 5_000 });
    assert.equal(refused.delayMs, undefined);
    assert.match(refused.note, /not measured: POST \/companies\/register answered 401/);
    assert.ok(!refused.note.includes('not-a-key'), 'the note never carries the key');
  } finally {
    await sandbox.close();
  }
});
