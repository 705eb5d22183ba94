// The secret registry's one-pass redaction against the rule it replaced: every occurrence of every
// secret is gone, and text with no secret comes back as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, SecretRegistry } from '../../lib/redact.ts';

/** The former redaction, a pass per secret, longest first: the reference for texts without overlaps. */
function passPerSecret(secrets: string[], text: string): string {
  let result = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) result = result.split(secret).join(REDACTED);
  return result;
}

/** A seeded generator, so a failure names the case it found. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

test('a text without secrets comes back unchanged, and short texts are not scanned', () => {
  const registry = new SecretRegistry();
  assert.equal(registry.redactText('nothing to hide'), 'nothing to hide');
  registry.add('s3cr3t-token');
  assert.equal(registry.redactText('nothing to hide'), 'nothing to hide');
  assert.equal(registry.redactText('abc'), 'abc');
  assert.equal(registry.redactText(''), '');
});

test('every occurrence is replaced, at the start, the end and side by side', () => {
  const registry = new SecretRegistry();
  registry.add('token-one');
  registry.add('key-22222');
  assert.equal(registry.redactText('token-one'), REDACTED);
  assert.equal(registry.redactText('a token-one b token-one'), `a ${REDACTED} b ${REDACTED}`);
  assert.equal(registry.redactText('token-onekey-22222'), `${REDACTED}${REDACTED}`);
  assert.equal(registry.redactText('{"Token":"token-one","x":"key-22222"}'), `{"Token":"${REDACTED}","x":"${REDACTED}"}`);
});

test('a secret inside a longer one is replaced with it, once', () => {
  const registry = new SecretRegistry();
  registry.add('inner-secret');
  registry.add('the-inner-secret-and-more');
  assert.equal(registry.redactText('x the-inner-secret-and-more y inner-secret'), `x ${REDACTED} y ${REDACTED}`);
});

test('secrets that overlap leave none of their characters', () => {
  const registry = new SecretRegistry();
  registry.add('abcdefgh');
  registry.add('fghijklm');
  const redacted = registry.redactText('..abcdefghijklm..');
  assert.equal(redacted, `..${REDACTED}..`);
});

test('a secret added after a redaction is found by the next one', () => {
  const registry = new SecretRegistry();
  registry.add('first-secret');
  assert.equal(registry.redactText('first-secret second-secret'), `${REDACTED} second-secret`);
  registry.add('second-secret');
  assert.equal(registry.redactText('first-secret second-secret'), `${REDACTED} ${REDACTED}`);
});

test('on random texts it agrees with a pass per secret, and leaves no secret behind', () => {
  const next = random(42);
  const alphabet = 'abcdef-_0123';
  const word = (length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  for (let round = 0; round < 300; round++) {
    const secrets = Array.from({ length: 1 + Math.floor(next() * 12) }, () => word(6 + Math.floor(next() * 10)));
    const registry = new SecretRegistry();
    for (const secret of secrets) registry.add(secret);
    const parts: string[] = [];
    for (let part = 0; part < 8; part++) parts.push(next() < 0.4 ? secrets[Math.floor(next() * secrets.length)] : word(Math.floor(next() * 12)));
    const text = parts.join(next() < 0.5 ? ' ' : '');
    const redacted = registry.redactText(text);
    for (const secret of secrets) assert.ok(!redacted.includes(secret), `round ${round}: ${secret} left in ${redacted} (from ${text})`);
    // Where no two occurrences overlap, both readings replace the same spans.
    const spans = secrets.flatMap((secret) => [...text.matchAll(new RegExp(secret.replace(/[-]/g, '\\-'), 'g'))].map((match) => [match.index, match.index + secret.length]));
    const overlapping = spans.some(([start, end], index) => spans.some(([otherStart, otherEnd], other) => other !== index && otherStart < end && start < otherEnd));
    if (!overlapping) assert.equal(redacted, passPerSecret(secrets, text), `round ${round}: ${text}`);
  }
});
