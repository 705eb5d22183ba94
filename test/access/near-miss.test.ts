// The near-miss credentials of the access matrix (issue 58): three values one character off the
// real one, each a value the target never issued, each redacted like the credential it comes from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nearMisses } from '../../lib/near-miss.ts';
import { secrets } from '../../lib/redact.ts';

test('a credential one character off three ways: changed at the end, shorter, longer; each one a secret', () => {
  for (const real of [`dxs-near-miss-token-${process.pid}-Zz9`, `dxs-near-miss-key-${process.pid}-a`, `dxs-near-miss-${process.pid}-0`, `dxs-near-miss-${process.pid}-_`]) {
    const misses = nearMisses(real);
    assert.deepEqual(misses.map((miss) => miss.label), ['its last character changed', 'one character shorter', 'a character appended']);
    const [changed, shorter, longer] = misses.map((miss) => miss.value);
    assert.equal(changed.length, real.length);
    assert.notEqual(changed, real);
    assert.equal(changed.slice(0, -1), real.slice(0, -1), 'the same but for its last character');
    assert.equal(shorter, real.slice(0, -1));
    assert.equal(longer.length, real.length + 1);
    assert.ok(longer.startsWith(real));
    for (const value of [changed, shorter, longer]) assert.equal(secrets.redactText(`header ${value} end`).includes(value), false, `${value} is redacted`);
  }
});
