// Each contrarian variant is live: one call against a sandbox started with it alone answers
// otherwise than the default sandbox would. A variant that changed nothing would pass every run of
// contrarian.test.ts and prove nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox } from '../../sandbox/index.ts';
import { CONTRARIAN_VARIANTS } from '../../sandbox/faults.ts';
import { Client, PROBE_BOUND_MS, PROBES } from './probes.ts';

test('every contrarian variant has a probe', () => {
  assert.deepEqual(Object.keys(PROBES).sort(), Object.keys(CONTRARIAN_VARIANTS).sort());
});

for (const [name, { probe, asyncDelayMs }] of Object.entries(PROBES)) {
  test(`${name}: the sandbox answers otherwise than by default`, async () => {
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', variants: [name], asyncDelayMs });
    try {
      await probe(new Client(sandbox));
    } finally {
      await sandbox.close();
    }
  });
}

test('each probe fails against the default sandbox (so it tells the variant apart)', async () => {
  const survivors: string[] = [];
  for (const [name, { probe, asyncDelayMs }] of Object.entries(PROBES)) {
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', asyncDelayMs });
    let timer: NodeJS.Timeout | undefined;
    try {
      // Bounded: a probe that waits for what the default sandbox never does must not hang the test.
      const bound = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timed out')), PROBE_BOUND_MS)));
      await Promise.race([probe(new Client(sandbox)), bound]);
      survivors.push(name);
    } catch {
      // The default sandbox answers otherwise: the probe tells the variant apart.
    } finally {
      clearTimeout(timer);
      await sandbox.close();
    }
  }
  assert.deepEqual(survivors, []);
});
