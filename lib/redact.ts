// Nothing secret may reach a report or a log: API keys and tokens are replaced wherever they
// occur, in headers, bodies and free text. Pure module, usable from k6.

const SECRET_HEADER_NAMES = new Set(['apikey', 'clienttoken', 'authorization', 'cookie', 'set-cookie', 'x-api-key']);
// Body fields whose values are tokens, in the spec's names (matched regardless of case).
const SECRET_FIELD_NAMES = new Set(['token', 'clienttoken', 'apikey']);

export const REDACTED = '[REDACTED]';

/** Registry of secret values seen during a run; every redaction pass replaces all of them. */
export class SecretRegistry {
  private readonly secrets = new Set<string>();
  private readonly listeners: Array<(secret: string) => void> = [];
  private longestFirst: string[] | undefined;

  add(value: unknown): void {
    // Very short values would blank out ordinary words in the report.
    if (typeof value !== 'string' || value.length < 6 || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.longestFirst = undefined;
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
    let result = text;
    // Longest first, so a secret that contains another is replaced whole.
    this.longestFirst ??= [...this.secrets].sort((a, b) => b.length - a.length);
    for (const secret of this.longestFirst) result = result.split(secret).join(REDACTED);
    return result;
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
