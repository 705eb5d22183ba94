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
import type { NoResponseCause } from '../../../lib/no-response.ts';
import { decodeEvent, encodeEvent, type ExchangeEvent } from '../../../lib/exchange-history.ts';
import { planFinalRead, type FinalReadPlan, type FinalReadStatus, type FinalReadSummary, type FinalReadWalks } from '../../../lib/final-read.ts';
import { isGatewayAnswer, retryAfterOf, retryAfterSeconds } from '../../../lib/gateway.ts';
import { secrets } from '../../../lib/redact.ts';
import { sendAgainOnTransient, transientKind } from '../../../lib/transient.ts';
import { flatHeaders, isTransientOutcome, send, TransportError, type Connection } from '../../../lib/transport.ts';

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
/** The call budget of one walk with sequenceNo (its lists); with its time, the async timeout, in the report. */
export const WALK_CALLS = 200;
/** A walk's least time, whatever the async timeout: a short one (a kill row's 1 s) still lets a few pages come. */
const WALK_LEAST_MS = 10_000;

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
  private walks = 0;
  /** How each walk with sequenceNo ended: `complete`, or why not. */
  readonly walkEnds: string[] = [];
  /** A walk's time: the async timeout, at least WALK_LEAST_MS. */
  readonly walkMs: number;
  /** The deployment's transport the calls met (a 502, a reset), by "kind on endpoint": every call of the final read is repeatable, so each was sent again. */
  readonly transient: Record<string, number> = {};

  constructor(input: FinalReadInput, plan: FinalReadPlan, deadline: number) {
    this.input = input;
    this.plan = plan;
    this.deadline = deadline;
    this.walkMs = Math.max(input.asyncTimeoutMs, WALK_LEAST_MS);
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
        // Every call of the final read is repeatable (reads, token creation, mark handled): a 502 or a
        // reset is the deployment's transport, sent again rather than taken for the target's answer.
        answer = await sendAgainOnTransient(
          () => send(`${this.input.baseUrl}${path}`, { method, headers: { accept: 'application/json', ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body, timeoutMs: Math.min(REQUEST_TIMEOUT_MS, Math.max(1, this.deadline - Date.now())), signal: this.input.signal }, this.input.connection),
          isTransientOutcome,
          ({ answer: sent, error }) => {
            const kind = transientKind(sent !== undefined ? { status: sent.status } : { cause: causeOf(error) });
            const key = `${kind} on ${method} ${endpointOf(path)}`;
            this.transient[key] = (this.transient[key] ?? 0) + 1;
          },
        );
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
  private async list(erpId: string, token: string, sequenceNo?: number, walk?: string): Promise<ListAnswer & { event: ExchangeEvent }> {
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
    const event: ExchangeEvent = { op: 'list', actor: erpId, invoked: answer.invoked, completed: answer.completed, status: answer.status, sequenceNo, total: typeof total === 'number' ? total : undefined, ...(ok ? { ids, sequenceNos, companyIds } : {}), ...(walk === undefined ? {} : { walk }), finalRead: true };
    this.events.push(event);
    return { ids, sequenceNos, total: typeof total === 'number' ? total : undefined, ok, status: answer.status, event };
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
   * The walk of a company's list with sequenceNo (issue 58): from below the lowest SequenceNo the run
   * saw, upwards from the highest SequenceNo of each answer, until an answer is empty or whole. Its
   * lists carry the walk's id, and the last one why it ended (`complete`, or what kept it from its
   * end), so that the checker takes a complete walk as one reading of the whole list: a target whose
   * Total counts a document no answer shows, or one that pages, is judged by every page together.
   * The markers found.
   */
  private async walk(erpId: string, token: string): Promise<string[]> {
    const id = `${erpId}#${++this.walks}`;
    const started = Date.now();
    const found: string[] = [];
    const seen = new Set<string>();
    let from = this.walkStart(erpId);
    let last: ExchangeEvent | undefined;
    let end = `it ran past its budget (${WALK_CALLS} lists, or ${Math.round(this.walkMs / 1000)} s)`;
    for (let call = 0; call < WALK_CALLS && Date.now() - started < this.walkMs; call++) {
      const list = await this.list(erpId, token, from, id);
      last = list.event;
      found.push(...(await this.downloadNew(erpId, token, list.ids)));
      const step = nextStep(from, list, seen);
      for (const listed of list.ids) seen.add(listed);
      if (step.end !== undefined) {
        end = step.end;
        break;
      }
      from = step.from as number;
    }
    if (last !== undefined) last.walkEnd = end;
    this.walkEnds.push(end);
    return found;
  }

  /** 0, or below the lowest SequenceNo the run saw of this company when one was 0 or less: on either reading (after it, or at it) every document comes after the start. */
  private walkStart(erpId: string): number {
    let lowest = Infinity;
    for (const event of this.input.events) if (event.op === 'list' && event.actor === erpId) for (const value of event.sequenceNos ?? []) if (value !== null && value < lowest) lowest = value;
    return lowest <= 0 ? lowest - 1 : 0;
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
    found.push(...(await this.walk(erpId, token)));
    return found;
  }
}

/** What the walk needs of one answer of the incoming list. */
interface ListAnswer {
  ids: string[];
  sequenceNos: Array<number | null>;
  total?: number;
  ok: boolean;
  status: number;
}

/**
 * Where the walk goes after one answer from `from`: on to the answer's highest SequenceNo (after
 * it, the next answer starts there or just beyond), one past it when the answer showed nothing new
 * (a target that starts at sequenceNo, inclusive), or the walk's end: `complete` when the answer is
 * empty or whole, else why the walk cannot go on without perhaps skipping a document.
 */
export function nextStep(from: number, answer: ListAnswer, seen: ReadonlySet<string>): { from?: number; end?: string } {
  const at = `the answer from sequenceNo ${from}`;
  if (!answer.ok) return { end: `${at} was ${answer.status}` };
  if (answer.ids.length === 0) return { end: 'complete' };
  const numbers = answer.sequenceNos.filter((value) => value !== null);
  if (numbers.length < answer.ids.length) return { end: `${at} had entries without a numeric SequenceNo` };
  // A page of an answer in another order (newest first) leaves documents between the start and its highest SequenceNo unshown.
  // Whole by its own Total: everything from the start is shown, in whatever order.
  if (answer.total !== undefined && answer.total <= answer.ids.length) return { end: 'complete' };
  if (numbers.some((value, index) => index > 0 && value < numbers[index - 1])) return { end: `${at} was paged and not in SequenceNo order, so a walk upwards from its highest SequenceNo could skip documents` };
  const highest = numbers[numbers.length - 1];
  if (highest < from) return { end: `${at} showed only documents below it` };
  const fresh = answer.ids.some((id) => !seen.has(id));
  return { from: fresh && highest > from ? highest : highest + 1 };
}

/** The cause of a call without an answer, in lib/no-response.ts's words. */
function causeOf(error: unknown): NoResponseCause {
  const reason = error instanceof TransportError ? error.reason : '';
  if (/reset|ECONNRESET/i.test(reason)) return 'reset';
  if (/hang up|closed/i.test(reason)) return 'closed';
  return /no answer within/i.test(reason) ? 'timeout' : 'other';
}

/** A path as its endpoint: a document's id as {id}, the query left out. */
function endpointOf(path: string): string {
  return path.split('?')[0].replace(/^\/documents\/(?!incoming$|handled$|outbound)[^/]+$/, '/documents/{id}');
}

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));
}

/** How the walks with sequenceNo ended, and the budget each had. */
function walksOf(reader: Reader): FinalReadWalks {
  const notComplete: Record<string, number> = {};
  for (const end of reader.walkEnds) if (end !== 'complete') notComplete[end] = (notComplete[end] ?? 0) + 1;
  return { complete: reader.walkEnds.filter((end) => end === 'complete').length, notComplete, budget: { calls: WALK_CALLS, milliseconds: reader.walkMs } };
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
    summary: { status, ...(reason === undefined ? {} : { reason }), awaited: plan.awaited.length, found: plan.awaited.length - stillAwaited(plan, seen), readers: plan.readers.length, calls: reader.events.length, milliseconds: Date.now() - started, walks: walksOf(reader), ...(Object.keys(reader.transient).length === 0 ? {} : { transient: reader.transient }) },
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
