// Provocations (off by default): the grading sandbox answers some calls the way a real deployment
// behind a gateway sometimes does, to see whether the client copes. Each is named in the report
// with the calls it answered. A client that does not cope gets a warning, never a failure: the spec
// shows no rate limit, no early expiry and no 5xx of these calls.
import type { Provoked, RecordedCall } from './traffic.ts';

export const PROVOCATIONS: Record<string, string> = {
  'rate-limit': 'answers the 3rd call and every 7th after it 429 Too Many Requests with Retry-After: 1',
  'token-expiry': 'expires the first client token used three times: its next uses are answered 401 "The client token has expired."',
  'server-error': 'answers the first upload (POST /documents) 500 once',
  'slow-background': 'background work (registration, activation, delivery) takes 1.5 s a step instead of a few milliseconds',
};

/** Provocations that act on the sandbox's background work, not on single calls: they answer no call themselves. */
export const BACKGROUND_PROVOCATIONS: ReadonlySet<string> = new Set(['slow-background']);

/** The variants the grading sandbox runs with (sandbox/faults.ts GRADING_VARIANTS): it refuses nothing the judge accepts. */
export const GRADING_SANDBOX_VARIANTS: readonly string[] = ['grading-open'];

/** The delay of each background step with slow-background. */
export const SLOW_BACKGROUND_STEP_MS = 1500;
export const RETRY_AFTER_SECONDS = 1;

export function unknownProvocations(names: readonly string[]): string[] {
  return names.filter((name) => !(name in PROVOCATIONS));
}

/** Decides, per call and before the sandbox sees it, whether a provocation answers instead. */
export class Provocations {
  readonly active: ReadonlySet<string>;
  /** Per provocation, the seq of each call it answered. */
  readonly triggered: Record<string, number[]> = {};
  private readonly tokenUses = new Map<string, number>();
  private expiredToken: string | undefined;
  private serverErrorDone = false;

  constructor(names: readonly string[]) {
    this.active = new Set(names);
    for (const name of names) this.triggered[name] = [];
  }

  answer(call: RecordedCall, endpoint: string): Provoked | undefined {
    const provoked = this.decide(call, endpoint);
    if (provoked !== undefined) this.triggered[provoked.name].push(call.seq);
    return provoked?.answer;
  }

  private decide(call: RecordedCall, endpoint: string): { name: string; answer: Provoked } | undefined {
    if (this.active.has('rate-limit') && call.seq >= 3 && (call.seq - 3) % 7 === 0) {
      return { name: 'rate-limit', answer: { status: 429, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) }, body: 'Too many requests: retry after 1 second.' } };
    }
    const token = call.headers.clienttoken;
    if (this.active.has('token-expiry') && token !== undefined && token !== '') {
      if (token === this.expiredToken) return { name: 'token-expiry', answer: { status: 401, headers: {}, body: 'The client token has expired.' } };
      const uses = (this.tokenUses.get(token) ?? 0) + 1;
      this.tokenUses.set(token, uses);
      if (this.expiredToken === undefined && uses > 3) {
        this.expiredToken = token;
        return { name: 'token-expiry', answer: { status: 401, headers: {}, body: 'The client token has expired.' } };
      }
    }
    if (this.active.has('server-error') && !this.serverErrorDone && endpoint === 'POST /documents') {
      this.serverErrorDone = true;
      return { name: 'server-error', answer: { status: 500, headers: {}, body: 'Internal error.' } };
    }
    return undefined;
  }
}
