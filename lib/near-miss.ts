// Credentials one character off (issue 58): the access matrix sends them where the real ones go.
// Pure module.
import { secrets } from './redact.ts';

/**
 * A credential one character off, three ways (issue 58): its last character changed, one character
 * shorter, one appended. None was issued; a target that compares by a prefix takes them all. Each is
 * as secret as the credential it is made from, so each is redacted too.
 */
export function nearMisses(value: string): Array<{ value: string; label: string }> {
  const last = value.at(-1) ?? '';
  // A character of the same kind, so that a target checking the form of a credential still reads it as one.
  const changed = /[0-9]/.test(last) ? (last === '0' ? '1' : '0') : /[a-z]/.test(last) ? (last === 'a' ? 'b' : 'a') : last === 'A' ? 'B' : 'A';
  const misses = [
    { value: `${value.slice(0, -1)}${changed}`, label: 'its last character changed' },
    { value: value.slice(0, -1), label: 'one character shorter' },
    { value: `${value}${changed}`, label: 'a character appended' },
  ];
  for (const miss of misses) secrets.add(miss.value);
  return misses;
}
