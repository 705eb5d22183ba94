// The final read of a load run (issue 41), done by dxs once k6 has ended and before the history is
// judged, as Jepsen's checkers read the state after the workload. The plan (lib/final-read.ts)
// names the sends not yet tied to a download by their recipient; this waits for each one until it
// is seen or its async timeout has run out, then every company of the run reads its whole inbox
// and downloads each entry not yet tied. Every call joins the history with its times, so the
// checker judges the final read's answers by the same rules as the flows' (an absence is proven
// only by a whole list invoked after the async timeout ran out).
//
// The inbox is read in two ways, so that it lists everything on every defensible reading: without
// sequenceNo (the unhandled documents), marking what it downloaded so that a paged answer shows the
// next ones whatever their order, and from sequenceNo 0 (which the handled flag does not filter,
// rule 2), paged on from the highest SequenceNo seen. The tokens come from the API key and the
// companies' ErpIds, so a run of --segment runners or a merge reads as well as a single run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readField } from '../../../lib/casing.ts';
import { API_KEY_HEADER, CLIENT_TOKEN_HEADER } from '../../../lib/defaults.ts';
import { decodeEvent, encodeEvent, type ExchangeEvent } from '../../../lib/exchange-history.ts';
import { planFinalRead, type FinalReadPlan, type FinalReadStatus, type FinalReadSummary } from '../../../lib/final-read.ts';
import { isGatewayAnswer, retryAfterOf, retryAfterSeconds } from '../../../lib/gateway.ts';
import { secrets } from '../../../lib/redact.ts';
import { flatHeaders, send, TransportError, type Connection } from '../../../lib/transport.ts';

export interface FinalReadInput {
  baseUrl: string;
  apiKey: string;
  connection: Connection;
  events: readonly ExchangeEvent[];
  asyncTimeoutMs: number;
  /** The ErpIds of the run's companies (its journal); default: the companies of the history. */
  companies?: ReadonlySet<string>;
  /** Ctrl-C: no waiting, and only a few seconds of reading. */
  interrupted?: boolean;
  /** Aborted (a second Ctrl-C): the final read stops at once. */
  signal?: AbortSignal;
  /** --max-rps: the final read's calls keep under it too. */
  maxRps?: number;
  /** Told what the final read will wait for before it waits: a quiet wait of 30 s looks like a hang. */
  onPlan?: (plan: FinalReadPlan, waitMs: number) => void;
}

/**
 * Between two rounds of the wait: short at first, where a clean target's last invoices come, then
 * longer (no delivery time is taken from these lists), so a lost invoice costs a few calls a second.
 */
const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 1000;
/** The reading after the wait, bounded: a target that answers slowly leaves sends not judged, with that reason. */
const READ_BUDGET_MS = 60_000;
/** What an interrupted run still reads. */
const INTERRUPTED_BUDGET_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** Answers of the gateway (429, 503 with Retry-After) a call waits through before the final read gives up on it. */
const GATEWAY_ATTEMPTS = 4;
/** Pages of one way of reading an inbox; a page that shows nothing new ends it sooner. */
const MAX_PAGES = 200;

const FIRST_ID = /<cbc:ID>([^<]*)<\/cbc:ID>/;

class OutOfTime extends Error {}

/** The gateway still answered (429, 503 with Retry-After) after every attempt: not the target's answer, so nothing to record. */
class GatewayLimited extends Error {}

/** The calls of one final read: each timed and recorded, the gateway waited through, the time bounded. */
class Reader {
  readonly events: ExchangeEvent[] = [];
  private readonly input: FinalReadInput;
  private readonly plan: FinalReadPlan;
  private readonly deadline: number;
  private readonly tokens = new Map<string, string>();
  /** Companies the API key got no ClientToken for, with the answer's status. */
  readonly refusedTokens: string[] = [];
  /** Epoch ms the next call may go, under --max-rps. */
  private nextCall = 0;

  constructor(input: FinalReadInput, plan: FinalReadPlan, deadline: number) {
    this.input = input;
    this.plan = plan;
    this.deadline = deadline;
  }

  private async call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string; json: unknown; invoked: number; completed: number }> {
    for (let attempt = 1; ; attempt++) {
      const left = this.deadline - Date.now();
      if (left <= 0 || this.input.signal?.aborted === true) throw new OutOfTime();
      if (this.input.maxRps !== undefined) {
        await pause(this.nextCall - Date.now());
        this.nextCall = Math.max(Date.now(), this.nextCall) + 1000 / this.input.maxRps;
      }
      const invoked = Date.now();
      let answer;
      try {
        answer = await send(`${this.input.baseUrl}${path}`, { method, headers: { accept: 'application/json', ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body, timeoutMs: Math.min(REQUEST_TIMEOUT_MS, left), signal: this.input.signal }, this.input.connection);
      } catch (error) {
        if (error instanceof TransportError && Date.now() >= this.deadline) throw new OutOfTime();
        throw error;
      }
      const completed = Date.now();
      const flat = flatHeaders(answer.headers);
      if (isGatewayAnswer(answer.status, flat)) {
        if (attempt >= GATEWAY_ATTEMPTS) throw new GatewayLimited(`${method} ${path.split('?')[0]} answered ${answer.status} ${GATEWAY_ATTEMPTS} times`);
        await pause(Math.min(retryAfterSeconds(retryAfterOf(flat)) * 1000, Math.max(0, this.deadline - Date.now())));
        continue;
      }
      const text = answer.body.toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: answer.status, text, json, invoked, completed };
    }
  }

  private async token(erpId: string): Promise<string | undefined> {
    const known = this.tokens.get(erpId);
    if (known !== undefined) return known;
    // A validity as the spec recommends, longer when the wait may outlast it.
    const validTo = new Date(Date.now() + Math.max(10 * 60_000, this.input.asyncTimeoutMs + READ_BUDGET_MS)).toISOString();
    const answer = await this.call('POST', '/clienttokens/create', { [API_KEY_HEADER]: this.input.apiKey }, JSON.stringify({ ErpId: erpId, ValidTo: validTo }));
    const token = readField(answer.json, 'Token');
    if (answer.status < 200 || answer.status >= 300 || typeof token !== 'string' || token === '') {
      this.refusedTokens.push(`${erpId} (${answer.status})`);
      return undefined;
    }
    secrets.add(token);
    this.tokens.set(erpId, token);
    return token;
  }

  private record(event: ExchangeEvent): void {
    this.events.push({ ...event, finalRead: true });
  }

  /** GET /documents/incoming, recorded with the entries it showed. */
  private async list(erpId: string, token: string, sequenceNo?: number): Promise<{ ids: string[]; sequenceNos: Array<number | null>; total?: number; ok: boolean }> {
    const query = sequenceNo === undefined ? '' : `&sequenceNo=${sequenceNo}`;
    const answer = await this.call('GET', `/documents/incoming?type=invoice${query}`, { [CLIENT_TOKEN_HEADER]: token });
    const ok = answer.status >= 200 && answer.status < 300;
    const documents = readField(answer.json, 'Documents');
    const entries = ok && Array.isArray(documents) ? documents : [];
    const ids = entries.map((entry) => String(readField(entry, 'Id')));
    const sequenceNos = entries.map((entry) => {
      const value = readField(entry, 'SequenceNo');
      return typeof value === 'number' ? value : null;
    });
    const companyIds = entries.map((entry) => {
      const value = readField(entry, 'CompanyId');
      return typeof value === 'string' ? value : null;
    });
    const total = readField(answer.json, 'Total');
    this.record({ op: 'list', actor: erpId, invoked: answer.invoked, completed: answer.completed, status: answer.status, sequenceNo, total: typeof total === 'number' ? total : undefined, ...(ok ? { ids, sequenceNos, companyIds } : {}) });
    return { ids, sequenceNos, total: typeof total === 'number' ? total : undefined, ok };
  }

  /** GET /documents/{id} of each listed entry the company has not downloaded; the markers found. */
  private async downloadNew(erpId: string, token: string, ids: readonly string[]): Promise<string[]> {
    const downloaded = this.plan.downloaded.get(erpId) as Set<string>;
    const markers: string[] = [];
    for (const id of ids) {
      if (downloaded.has(id)) continue;
      const answer = await this.call('GET', `/documents/${encodeURIComponent(id)}`, { [CLIENT_TOKEN_HEADER]: token, accept: '*/*' });
      const ok = answer.status >= 200 && answer.status < 300;
      const found = ok ? FIRST_ID.exec(answer.text)?.[1] : undefined;
      const marker = found !== undefined && this.plan.markers.has(found) ? found : undefined;
      this.record({ op: 'fetch', actor: erpId, invoked: answer.invoked, completed: answer.completed, status: answer.status, id, marker });
      // Tried once whatever the answer: a refused id is not asked again each round.
      downloaded.add(id);
      if (marker !== undefined) markers.push(marker);
    }
    return markers;
  }

  /**
   * One reading of a company's whole inbox: without sequenceNo, marking what it downloaded so that
   * the next answer shows what a paged one left out, then from sequenceNo 0, paged on. The markers found.
   */
  async readInbox(erpId: string, mark: boolean): Promise<string[]> {
    const token = await this.token(erpId);
    if (token === undefined) return [];
    const downloaded = this.plan.downloaded.get(erpId) as Set<string>;
    const found: string[] = [];
    const marked = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await this.list(erpId, token);
      found.push(...(await this.downloadNew(erpId, token, list.ids)));
      const whole = list.total === undefined || list.total <= list.ids.length;
      // Marked only what the company downloaded: a document marked unread could be the one missing.
      const marking = [...new Set(list.ids)].filter((id) => downloaded.has(id) && !marked.has(id));
      if (!mark || whole || marking.length === 0) break;
      const answer = await this.call('POST', '/documents/handled', { [CLIENT_TOKEN_HEADER]: token }, JSON.stringify({ documents: marking }));
      this.record({ op: 'handled', actor: erpId, invoked: answer.invoked, completed: answer.completed, status: answer.status, ids: marking });
      if (answer.status < 200 || answer.status >= 300) break;
      for (const id of marking) marked.add(id);
    }
    let from = 0;
    const seen = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await this.list(erpId, token, from);
      found.push(...(await this.downloadNew(erpId, token, list.ids)));
      const fresh = list.ids.filter((id) => !seen.has(id));
      for (const id of list.ids) seen.add(id);
      const highest = list.sequenceNos.reduce<number | undefined>((most, value) => (value !== null && (most === undefined || value > most) ? value : most), undefined);
      if (!list.ok || list.total === undefined || list.total <= list.ids.length || fresh.length === 0 || highest === undefined || highest <= from) break;
      from = highest;
    }
    return found;
  }
}

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));
}

/** Sends still awaited after the final read's answers: those no download of their recipient found. */
function stillAwaited(plan: FinalReadPlan, seen: ReadonlySet<string>): number {
  return plan.awaited.filter((send) => !seen.has(send.erpDocumentId)).length;
}

/** Waits for what the history has not seen arrive, then reads every company's whole inbox; never throws. */
export async function finalRead(input: FinalReadInput): Promise<{ events: ExchangeEvent[]; summary: FinalReadSummary }> {
  const started = Date.now();
  const plan = planFinalRead({ events: input.events, asyncTimeoutMs: input.asyncTimeoutMs, companies: input.companies });
  const seen = new Set<string>();
  const waitUntil = input.interrupted === true || plan.awaited.length === 0 ? started : Math.min(started + input.asyncTimeoutMs, Math.max(...plan.awaited.map((send) => send.due)));
  const reader = new Reader(input, plan, input.interrupted === true ? started + INTERRUPTED_BUDGET_MS : waitUntil + READ_BUDGET_MS);
  const summary = (status: FinalReadStatus, reason?: string): { events: ExchangeEvent[]; summary: FinalReadSummary } => ({
    events: reader.events,
    summary: { status, ...(reason === undefined ? {} : { reason }), awaited: plan.awaited.length, found: plan.awaited.length - stillAwaited(plan, seen), readers: plan.readers.length, calls: reader.events.length, milliseconds: Date.now() - started },
  });
  if (plan.readers.length === 0) return summary('done');
  input.onPlan?.(plan, waitUntil - started);
  try {
    // The wait: a round reads the inboxes of the recipients still awaited; a send seen, or past its due, is no longer waited for.
    for (let round = 0; ; round++) {
      const now = Date.now();
      const waiting = plan.awaited.filter((send) => !seen.has(send.erpDocumentId) && send.due >= now && now < waitUntil);
      if (waiting.length === 0) break;
      for (const recipient of new Set(waiting.map((send) => send.recipient))) for (const marker of await reader.readInbox(recipient, false)) seen.add(marker);
      if (plan.awaited.every((send) => seen.has(send.erpDocumentId))) break;
      await pause(Math.min(FIRST_PAUSE_MS * 2 ** round, LONGEST_PAUSE_MS, waitUntil - Date.now()));
    }
    // Invoked after every due time has passed: the answers can prove an absence.
    for (const company of plan.readers) for (const marker of await reader.readInbox(company, true)) seen.add(marker);
  } catch (error) {
    if (input.interrupted === true) return summary('interrupted', 'the run was interrupted: the final read did not wait for them and read for a few seconds only');
    if (error instanceof OutOfTime) return summary(input.signal?.aborted === true ? 'interrupted' : 'out of time', input.signal?.aborted === true ? 'the final read was interrupted' : `the final read ran out of time (${Math.round((Date.now() - started) / 1000)} s): the target answered too slowly`);
    if (error instanceof TransportError) return summary('unreachable', `the target was unreachable during the final read (${error.reason})`);
    if (error instanceof GatewayLimited) return summary('rate limited', `the gateway's rate limit stopped the final read (${error.message}); --max-rps paces the final read too`);
    return summary('unreachable', `the final read failed: ${(error as Error).message}`);
  }
  if (input.interrupted === true) return summary('interrupted', 'the run was interrupted: the final read did not wait for them and read for a few seconds only');
  if (reader.refusedTokens.length > 0) return summary('no token', `the final read got no ClientToken for ${reader.refusedTokens.join(', ')} from POST /clienttokens/create: were the run's companies deleted before it (a runner without --keep-data)?`);
  return summary('done');
}

/** Beside a script's raw.json.gz: the final read's calls, which k6 never saw, for a later dxs load merge. */
export const FINAL_READ_FILE = 'final-read.jsonl';

/** Writes the final read's events into a script's folder, one JSON line each, in the history's own encoding. */
export function writeFinalReadEvents(directory: string, events: readonly ExchangeEvent[]): void {
  writeFileSync(join(directory, FINAL_READ_FILE), events.map((event) => JSON.stringify({ op: event.op, ...encodeEvent(event) })).join('\n'));
}

/** The final read's events a run left beside one of its raw files (none when it made none). */
export function readFinalReadEvents(rawFile: string): ExchangeEvent[] {
  const path = join(dirname(rawFile), FINAL_READ_FILE);
  if (!existsSync(path)) return [];
  const events: ExchangeEvent[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const { op, ...metadata } = JSON.parse(line) as Record<string, string>;
      const event = decodeEvent(op, metadata);
      if (event !== undefined) events.push(event);
    } catch {
      // A torn last line of a run killed while writing.
    }
  }
  return events;
}
