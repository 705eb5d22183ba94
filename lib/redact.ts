// Nothing secret may reach a report or a log: API keys and tokens are replaced wherever they
// occur, in headers, bodies and free text. Pure module, usable from k6.

const SECRET_HEADER_NAMES = new Set(['apikey', 'clienttoken', 'authorization', 'cookie', 'set-cookie', 'x-api-key']);
// Body fields whose values are tokens, in the spec's names (matched regardless of case).
const SECRET_FIELD_NAMES = new Set(['token', 'clienttoken', 'apikey']);

export const REDACTED = '[REDACTED]';

const MINIMUM_SECRET_LENGTH = 6;

/** A secret's first code units, hashed, find where one may start; the secret itself then decides. */
const PREFIX_LENGTH = MINIMUM_SECRET_LENGTH;
const HASH_BASE = 31;
/** HASH_BASE to the power PREFIX_LENGTH - 1, modulo 2^32: rolls the first unit out of the window. */
const HASH_LEADING = Array.from({ length: PREFIX_LENGTH - 1 }).reduce<number>((power) => Math.imul(power, HASH_BASE), 1);
const FILTER_MASK = 0xffff;

function prefixHash(text: string, start: number): number {
  let hash = 0;
  for (let index = start; index < start + PREFIX_LENGTH; index++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(index)) | 0;
  return hash;
}

/**
 * Every secret, by a rolling hash of its first units: one pass over a text finds every occurrence
 * of every secret (a pass per secret took seconds over a run's record, which holds every token its
 * workers saw), and a secret is added in constant time (a worker adds one with nearly every token
 * it is given). Where occurrences overlap (a secret inside a longer one, or two that share
 * characters), one REDACTED replaces their union, so no part of any secret is left.
 */
class SecretIndex {
  /** Secrets by the hash of their prefix, longest first. */
  private readonly buckets = new Map<number, string[]>();
  /** A quick no: the low bits of every prefix hash. */
  private readonly filter = new Uint8Array(FILTER_MASK + 1);

  add(secret: string): void {
    const hash = prefixHash(secret, 0);
    const bucket = this.buckets.get(hash);
    if (bucket === undefined) this.buckets.set(hash, [secret]);
    else {
      bucket.push(secret);
      bucket.sort((first, second) => second.length - first.length);
    }
    this.filter[hash & FILTER_MASK] = 1;
  }

  redact(text: string): string {
    if (text.length < PREFIX_LENGTH) return text;
    let result = '';
    // The text copied so far ends at `copied`; the redaction being gathered spans openStart to openEnd.
    let copied = 0;
    let openStart = -1;
    let openEnd = -1;
    let hash = prefixHash(text, 0);
    for (let start = 0; ; start++) {
      if (this.filter[hash & FILTER_MASK] === 1) {
        const bucket = this.buckets.get(hash);
        const secret = bucket?.find((candidate) => text.startsWith(candidate, start));
        if (secret !== undefined) {
          const end = start + secret.length;
          if (start < openEnd) openEnd = Math.max(openEnd, end);
          else {
            if (openEnd >= 0) {
              result += text.slice(copied, openStart) + REDACTED;
              copied = openEnd;
            }
            openStart = start;
            openEnd = end;
          }
        }
      }
      if (start + PREFIX_LENGTH >= text.length) break;
      hash = (Math.imul(hash - Math.imul(text.charCodeAt(start), HASH_LEADING), HASH_BASE) + text.charCodeAt(start + PREFIX_LENGTH)) | 0;
    }
    if (openEnd < 0) return text;
    return result + text.slice(copied, openStart) + REDACTED + text.slice(openEnd);
  }
}

/** Registry of secret values seen during a run; every redaction pass replaces all of them. */
export class SecretRegistry {
  private readonly secrets = new Set<string>();
  private readonly listeners: Array<(secret: string) => void> = [];
  private readonly index = new SecretIndex();

  add(value: unknown): void {
    // Very short values would blank out ordinary words in the report.
    if (typeof value !== 'string' || value.length < MINIMUM_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.index.add(value);
    for (const listener of this.listeners) listener(value);
  }

  /** Called for every new secret: lets a worker process hand the tokens it saw to the process that writes the report. */
  onAdd(listener: (secret: string) => void): void {
    this.listeners.push(listener);
  }

  /** Registers every token value found in a body (fields Token and ClientToken, any casing, any depth). */
  addTokensIn(body: unknown): void {
    if (Array.isArray(body)) body.forEach((item) => this.addTokensIn(item));
    else if (typeof body === 'object' && body !== null) {
      for (const [key, inner] of Object.entries(body)) {
        if (SECRET_FIELD_NAMES.has(key.toLowerCase())) this.add(inner);
        else this.addTokensIn(inner);
      }
    }
  }

  redactText(text: string): string {
    if (this.secrets.size === 0) return text;
    return this.index.redact(text);
  }

  redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
    const result: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : String(value);
      result[name] = SECRET_HEADER_NAMES.has(name.toLowerCase()) ? REDACTED : this.redactText(text);
    }
    return result;
  }

  redactValue<T>(value: T): T {
    if (typeof value === 'string') return this.redactText(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item)) as T;
    if (typeof value === 'object' && value !== null) {
      const result: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        result[key] = SECRET_FIELD_NAMES.has(key.toLowerCase()) && typeof inner === 'string' ? REDACTED : this.redactValue(inner);
      }
      return result as T;
    }
    return value;
  }
}

/** The process-wide registry: the CLI registers configured keys, clients register tokens they receive. */
export const secrets = new SecretRegistry();
