// Living with a gateway (issue 31), for every caller of dxs's own that runs in Node: the suites'
// client, the cleanup after a run, dxs clean. Two parts:
//   Pacer          --max-rps: calls leave no faster than a rate (a worker takes its share of it);
//   GatewayBudget  the run's waiting for 429s and 503s with Retry-After, shared by every worker
//                  through a file of the run (report/rate-limits.ts), so that --rate-limit-budget
//                  bounds the run's waiting in all, not each worker's.
// waitForGateway() puts them together for one call: it sends, and while the answer is the
// gateway's it waits as Retry-After asks and sends again, until the budget is spent.
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_RATE_LIMIT_BUDGET_SECONDS, describeGatewayAnswer, isGatewayAnswer, retryAfterOf, retryAfterSeconds } from '../../lib/gateway.ts';
import { formatGatewayAnswer, gatewayAnswersFile, parseGatewayAnswers, type GatewayAnswerRecord } from '../../report/rate-limits.ts';
import type { RootCause } from '../../report/root-causes.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Send times handed out one after another, each at least the given interval after the last (no burst: a gateway's bucket may be small). */
class Slots {
  private next = 0;

  /** When the next slot is free: before `now`, the timeline stood idle since. */
  get free(): number {
    return this.next;
  }

  /** The caller's slot, from `now` on: ms to wait (0: at once); the next slot is intervalMs after it. */
  reserve(intervalMs: number, now: number = performance.now()): number {
    const slot = Math.max(now, this.next);
    this.next = slot + intervalMs;
    return slot - now;
  }

  /** Resolves when the caller's slot comes: now, or intervalMs after the slot handed out before. */
  async take(intervalMs: number): Promise<void> {
    const wait = this.reserve(intervalMs);
    if (wait > 0) await sleep(wait);
  }
}

/** Spaces calls so that no more than requestsPerSecond leave a second. */
export class Pacer {
  private readonly intervalMs: number;
  private readonly slots = new Slots();

  constructor(requestsPerSecond: number) {
    this.intervalMs = 1000 / requestsPerSecond;
  }

  /** Resolves when the caller may send its next call. */
  take(): Promise<void> {
    return this.slots.take(this.intervalMs);
  }
}

/**
 * The pacer of one process of a run: --max-rps divided among the processes that call at once
 * (the workers), so that together they never exceed it. Undefined when the run is not paced.
 */
export function pacerFor(settings: { maxRps?: number; workers?: number }): Pacer | undefined {
  if (settings.maxRps === undefined || !(settings.maxRps > 0)) return undefined;
  const key = `${settings.maxRps}/${settings.workers ?? 1}`;
  let pacer = pacers.get(key);
  if (pacer === undefined) {
    pacer = new Pacer(settings.maxRps / Math.max(1, settings.workers ?? 1));
    pacers.set(key, pacer);
  }
  return pacer;
}

const pacers = new Map<string, Pacer>();

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** Seconds until a window resets: delta-seconds, or (X-RateLimit-Reset of some gateways) a Unix time. */
function resetSeconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  const number = Number(value);
  return number > 1e9 ? Math.max(0, number - Date.now() / 1000) : number;
}

/**
 * Requests a second that a gateway announces: RateLimit-Policy (or RateLimit) "15;w=1" or
 * "q=100;w=10"; else a limit with the time until its window resets (RateLimit "limit=10, reset=1",
 * RateLimit-Limit with RateLimit-Reset, X-RateLimit-Limit with X-RateLimit-Reset), which is at most
 * the rate (the window may be longer than what is left of it): further 429s slow the pace below it.
 */
export function announcedRate(headers: Record<string, string>): number | undefined {
  for (const name of ['ratelimit-policy', 'ratelimit']) {
    const value = headerOf(headers, name);
    if (value === undefined) continue;
    const quota = /(?:^|[\s,;"])q=(\d+)/.exec(value) ?? /^\s*(\d+)\s*;/.exec(value);
    const window = /(?:^|[\s,;])w=(\d+)/.exec(value);
    if (quota !== null && Number(quota[1]) > 0) return Number(quota[1]) / (window === null ? 1 : Math.max(1, Number(window[1])));
  }
  const combined = headerOf(headers, 'ratelimit');
  const pairs: Array<[string | undefined, string | undefined]> = [
    [/(?:^|[\s,;])limit=(\d+)/.exec(combined ?? '')?.[1], /(?:^|[\s,;])reset=(\d+)/.exec(combined ?? '')?.[1]],
    [headerOf(headers, 'ratelimit-limit'), headerOf(headers, 'ratelimit-reset')],
    [headerOf(headers, 'x-ratelimit-limit') ?? headerOf(headers, 'x-rate-limit-limit'), headerOf(headers, 'x-ratelimit-reset') ?? headerOf(headers, 'x-rate-limit-reset')],
  ];
  for (const [limit, reset] of pairs) {
    const quota = Number(limit?.split(/[,;]/)[0]);
    const seconds = resetSeconds(reset);
    if (Number.isFinite(quota) && quota > 0 && seconds !== undefined) return quota / Math.max(1, seconds);
  }
  return undefined;
}

/** Without an announced rate, the first pace after a gateway's answer: ten calls a second (for a process; for the run, with one pace). */
const FIRST_INTERVAL_MS = 100;
/**
 * Each further answer of the gateway slows the pace by a quarter, down to a call every 2 s: one
 * step of quickening back (a quicker pace is refused a while after it began, once the bucket has
 * emptied, so the pace before it is the one known to hold), where halving again cost a slow run.
 */
const SLOWER = 1.25;
const SLOWEST_INTERVAL_MS = 2000;
/** Each 10 s without one, if calls waited for their slots, the pace quickens by a fifth, until it is no pace at all. */
const QUICKEN_AFTER_MS = 10_000;
/** Every 5 s, until a pace of the run's own met the gateway (the first pace is a guess, slower than most limits). */
const QUICKEN_FIRST_AFTER_MS = 5000;
/** A probe's burst empties a bucket refilled within a second or so; refusals within this after it are its own. */
const PROBE_SHADOW_MS = 2000;
const QUICKER = 0.8;
const UNPACED_BELOW_MS = 5;
/** Once a pace met the gateway, quickening stops a tenth short of it: that pace is known to be too quick. */
const SHORT_OF_REFUSED = 1.1;
/**
 * Between two refusals the gateway's bucket was empty twice, and in between it let through at most
 * its rate (it refills no quicker; a hold of Retry-After refills what it can): the calls it let
 * through over the time are a lower bound of its limit, and the limit itself when the run pressed
 * it all along, quicker than the bound (a run that left it room lets it overflow). Such a window, at
 * least this long, is what the pace learns from.
 */
const LEARN_WINDOW_MS = 2000;
/** A window the run pressed: no more than this share of it with no slot waiting its turn. */
const PRESSED_SHARE = 0.9;
/** After a refusal with a rate learnt, the pace goes this much under it, and at least this much slower than the pace refused. */
const UNDER_LEARNT = 0.97;
const SLOWER_THAN_REFUSED = 1.05;
/** Slot times kept for a window: a minute at a hundred calls a second. */
const MAX_WINDOW_SLOTS = 6000;
/**
 * Before the run meets a gateway, at most this many calls of the head start are out at once: the
 * workers' registrations, all at once, are what a gateway's bucket refuses, and every call still
 * in flight when the first refusal comes is refused too. Without a gateway they cost a round trip
 * in four.
 */
export const START_WINDOW = 4;
/** A call of the head start holds its place in the window no longer than this (its worker may have crashed). */
const START_LEASE_MS = 3000;

/** A send slot: the pace it was taken under, handed back with the gateway's answer to the call. */
export type Ticket = number;

/** Where a caller takes its send slots: a process's own GatewayGate, or the run's pace (run-pace.ts). */
export interface Gate {
  /** Resolves when the next call may leave. `start`: one of many calls sent at once (the head start), spread a little by the run's pace while unpaced. */
  pass(options?: { start?: boolean }): Promise<Ticket>;
  /** The gateway answered a call sent under `ticket` (undefined: sent without a slot): hold every call for waitMs, and slow the pace. */
  answered(waitMs: number, headers: Record<string, string>, ticket?: Ticket): void | Promise<void>;
  /** A call of the head start was answered: its place in the window of calls out at once is free. */
  settled?(): void | Promise<void>;
  /** A probe of the limit is about to send past the pace: the refusals that follow are its doing. */
  probing?(): void | Promise<void>;
}

export interface GateOptions {
  /** How many processes share the gateway's limit, each with its own gate (the workers without a run pace). */
  processes?: number;
  /** --max-rps for this gate's calls: never quicker, and paced from the first call. */
  maxRps?: number;
  /** While unpaced, calls sent many at once (the head start; the cleanup once the run met the gateway) leave at least this far apart (the run's pace only). */
  startIntervalMs?: number;
}

/**
 * What one process (or, as the run's pace, the whole run) learnt of the gateway. Once the gateway
 * answered, no call leaves before its Retry-After has passed, so the calls beside it (a worker's
 * early registrations, the cleanup's parallel deletes) do not each meet the gateway and spend the
 * run's budget; and the calls are paced from then on (at the share of an announced rate, else ten
 * calls a second), slower at each further answer to a call sent under the current pace (answers to
 * calls sent before it slowed say nothing of the new pace), quicker while none comes. A target
 * without a gateway is never slowed: nothing is paced before its first 429 (except by --max-rps).
 */
export class GatewayGate implements Gate {
  private readonly processes: number;
  private readonly floorMs: number;
  private readonly startIntervalMs: number;
  private notBefore = 0;
  private intervalMs: number | undefined;
  private readonly slots = new Slots();
  private readonly startSlots = new Slots();
  private lastAnswerAt = 0;
  private generation = 0;
  private refusedMs = 0;
  private gatewayMet = false;
  /** A call waited for its slot since the pace last changed: the pace was tried. */
  private pressed = false;
  /** Until then a refusal is the probe's doing (OBS-01's burst empties the bucket on purpose): it holds the run, it teaches nothing. */
  private probeUntil = 0;
  /** The window since the last refusal that taught the pace: the slots handed out, the answers met, the time no slot waited, the slowest pace. */
  private window: { from: number; heldUntil: number; slots: number[]; answers: number; idleMs: number; slowestRate: number } | undefined;
  /** Calls a second the gateway let through in a window the run pressed: its limit, or just under. */
  private learntRate: number | undefined;
  private startLeases: number[] = [];
  private startWaiters: Array<() => void> = [];

  constructor(options: GateOptions | number = {}) {
    const settings = typeof options === 'number' ? { processes: options } : options;
    this.processes = Math.max(1, settings.processes ?? 1);
    this.floorMs = settings.maxRps !== undefined && settings.maxRps > 0 ? 1000 / settings.maxRps : 0;
    this.startIntervalMs = settings.startIntervalMs ?? 0;
  }

  /** The slot of the next call, reserved now: ms to wait before it leaves, and its ticket. */
  reserve(options: { start?: boolean } = {}, now: number = performance.now()): { waitMs: number; ticket: Ticket } {
    const from = Math.max(now, this.notBefore);
    // Until a pace of its own was refused the run knows only that the first pace is safe: it quickens sooner.
    const quickenAfterMs = this.refusedMs === 0 ? QUICKEN_FIRST_AFTER_MS : QUICKEN_AFTER_MS;
    while (this.intervalMs !== undefined && from - this.lastAnswerAt > quickenAfterMs) {
      this.lastAnswerAt += quickenAfterMs;
      // A pace no call waited for was never tried against the gateway: it says nothing, it stays (RFC 7661's idea for TCP).
      if (!this.pressed) continue;
      this.pressed = false;
      this.intervalMs = Math.max(this.refusedMs * SHORT_OF_REFUSED, this.learntRate === undefined ? 0 : 1000 / this.learntRate, this.intervalMs * QUICKER);
      if (this.intervalMs < UNPACED_BELOW_MS) this.intervalMs = undefined;
    }
    const intervalMs = Math.max(this.intervalMs ?? 0, this.floorMs);
    let slot = from;
    if (intervalMs > 0) {
      if (this.window !== undefined && this.intervalMs !== undefined) {
        this.window.idleMs += Math.max(0, from - Math.max(this.slots.free, this.window.heldUntil));
        this.window.slowestRate = Math.min(this.window.slowestRate, 1000 / intervalMs);
      }
      const paced = this.slots.reserve(intervalMs, from);
      if (this.window !== undefined && this.window.slots.length < MAX_WINDOW_SLOTS) this.window.slots.push(from + paced);
      if (paced > 0) this.pressed = true;
      slot += paced;
    } else if (options.start === true && this.startIntervalMs > 0) slot += this.startSlots.reserve(this.startIntervalMs, from);
    return { waitMs: slot - now, ticket: this.generation };
  }

  /**
   * Resolves when a call of the head start may take its slot: while the run has not met the
   * gateway, once fewer than START_WINDOW are out (the run's pace only); at once after, when the
   * pace spaces them.
   */
  async startTurn(): Promise<void> {
    for (;;) {
      if (this.gatewayMet || this.floorMs > 0 || this.startIntervalMs === 0) return;
      const now = performance.now();
      this.startLeases = this.startLeases.filter((taken) => now - taken < START_LEASE_MS);
      if (this.startLeases.length < START_WINDOW) {
        this.startLeases.push(now);
        return;
      }
      const expiresInMs = this.startLeases[0] + START_LEASE_MS - now;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, expiresInMs);
        this.startWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** A call of the head start was answered (whatever the answer): its place in the window is free. */
  settled(): void {
    this.startLeases.shift();
    this.wakeStarts();
  }

  private wakeStarts(): void {
    for (const wake of this.startWaiters.splice(0)) wake();
  }

  /** Resolves when the next call may leave. */
  async pass(options: { start?: boolean } = {}): Promise<Ticket> {
    if (options.start === true) await this.startTurn();
    for (;;) {
      const { waitMs, ticket } = this.reserve(options);
      if (waitMs <= 0) return ticket;
      await sleep(waitMs);
      // The gateway answered while this call waited: its slot was handed out before the hold, and the
      // bucket is empty now. A slot after the hold instead (bounded: each round needs another answer).
      if (ticket === this.generation && this.notBefore <= performance.now()) return ticket;
    }
  }

  /** The gateway answered: hold every call for waitMs, and pace the calls (slower each time). */
  answered(waitMs: number, headers: Record<string, string>, ticket?: Ticket, now: number = performance.now()): void {
    this.notBefore = Math.max(this.notBefore, now + waitMs);
    this.lastAnswerAt = now;
    // A call sent under an earlier pace met the gateway before the pace changed, and one sent
    // without a slot (a probe of the limit) met it at its own rate: the run is held, not slowed again.
    const stale = ticket === undefined ? this.gatewayMet : ticket < this.generation;
    this.gatewayMet = true;
    this.wakeStarts();
    if (this.window !== undefined) this.window.answers++;
    if (stale || now < this.probeUntil) return;
    this.generation++;
    this.pressed = false;
    this.learn(now);
    if (this.intervalMs !== undefined) this.refusedMs = Math.max(this.refusedMs, this.intervalMs);
    const announced = announcedRate(headers);
    const share = announced === undefined ? undefined : (1000 * this.processes) / announced;
    // A quarter slower, or with a rate learnt just under it, if that is less slow (still slower than the pace refused).
    const learnt = this.learntRate === undefined ? Infinity : Math.max(1000 / (this.learntRate * UNDER_LEARNT), (this.intervalMs ?? 0) * SLOWER_THAN_REFUSED);
    const slower = this.intervalMs === undefined ? (share ?? FIRST_INTERVAL_MS) : Math.min(this.intervalMs * SLOWER, learnt);
    this.intervalMs = Math.min(SLOWEST_INTERVAL_MS, Math.max(share ?? 0, slower));
  }

  /**
   * The window that ends with this refusal: what the gateway let through, over its time, when the
   * run pressed it (its slots waited their turn nearly all along) at paces no slower than that,
   * so that the bucket never overflowed; and no probe of the limit spent its calls meanwhile.
   */
  private learn(now: number): void {
    const window = this.window;
    // The hold is no idle time: the gateway refills while the run waits, as the window counts it.
    this.window = { from: now, heldUntil: this.notBefore, slots: [], answers: 0, idleMs: 0, slowestRate: Infinity };
    if (window === undefined || this.intervalMs === undefined) return;
    const lengthMs = now - window.from;
    if (lengthMs < LEARN_WINDOW_MS || window.slots.length >= MAX_WINDOW_SLOTS || this.probeUntil > window.from) return;
    window.idleMs += Math.max(0, now - Math.max(this.slots.free, window.heldUntil));
    if (window.idleMs > (1 - PRESSED_SHARE) * lengthMs) return;
    const accepted = window.slots.filter((slot) => slot <= now).length - window.answers;
    const rate = (accepted * 1000) / lengthMs;
    if (!(rate > 0) || window.slowestRate < rate) return;
    this.learntRate = Math.max(this.learntRate ?? 0, rate);
  }

  /** Calls a second learnt of a gateway that announces none, once learnt. */
  get learnt(): number | undefined {
    return this.learntRate;
  }

  /**
   * A probe of the limit sends a burst past the pace (OBS-01), emptying the gateway's bucket on
   * purpose: the refusals that follow it for a while are its doing, not the pace's.
   */
  probing(): void {
    this.probeUntil = performance.now() + PROBE_SHADOW_MS;
  }

  /** The pace now (ms between calls), undefined when unpaced. */
  get interval(): number | undefined {
    return this.intervalMs;
  }

  /** Whether the gateway answered at all. */
  get met(): boolean {
    return this.gatewayMet;
  }

  /** Whether a call may have to wait: the gateway answered (or --max-rps), and its pace or its hold still lasts. */
  get paced(): boolean {
    return this.floorMs > 0 || this.intervalMs !== undefined || this.notBefore > performance.now();
  }
}

const gates = new Map<number, GatewayGate>();

/** The gate of this process, for a run of `workers` processes calling at once. */
export function gateFor(settings: { workers?: number }): GatewayGate {
  const processes = Math.max(1, settings.workers ?? 1);
  let gate = gates.get(processes);
  if (gate === undefined) {
    gate = new GatewayGate(processes);
    gates.set(processes, gate);
  }
  return gate;
}

/** Where the run's gateway answers are written, and how much waiting it allows. */
export interface GatewaySettings {
  reportDir: string;
  runPrefix: string;
  /** --rate-limit-budget in seconds (default DEFAULT_RATE_LIMIT_BUDGET_SECONDS). */
  rateLimitBudgetSeconds?: number;
}

/** The run's waiting so far, read from the file every process of the run appends to. */
export class GatewayBudget {
  readonly file: string;
  readonly budgetMs: number;
  private offset = 0;
  private waitedMs = 0;
  private spent = false;

  constructor(settings: GatewaySettings) {
    this.file = gatewayAnswersFile(settings);
    this.budgetMs = (settings.rateLimitBudgetSeconds ?? DEFAULT_RATE_LIMIT_BUDGET_SECONDS) * 1000;
  }

  /** Reads what other processes (and this one) appended since the last look. */
  private refresh(): void {
    let descriptor: number;
    try {
      descriptor = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(descriptor).size;
      if (size <= this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      readSync(descriptor, buffer, 0, buffer.length, this.offset);
      const text = buffer.toString();
      // A line still being written is read next time.
      const complete = text.lastIndexOf('\n') + 1;
      this.offset += Buffer.byteLength(text.slice(0, complete));
      for (const record of parseGatewayAnswers(text.slice(0, complete))) {
        this.waitedMs += record.waitedMs;
        if (record.exhausted === true) this.spent = true;
      }
    } finally {
      closeSync(descriptor);
    }
  }

  /** Counts an answer of the gateway (waitedMs: what is about to be waited for it). */
  record(record: GatewayAnswerRecord): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      appendFileSync(this.file, `${formatGatewayAnswer(record)}\n`);
    } catch {
      // Without the file each process keeps to its own count: the report undercounts, the waits stay bounded.
      this.waitedMs += record.waitedMs;
      if (record.exhausted === true) this.spent = true;
    }
  }

  /** Waiting so far, in all. */
  waited(): number {
    this.refresh();
    return this.waitedMs;
  }

  /**
   * Asks to wait record.waitedMs for an answer of the gateway: true (and the wait is counted) when
   * the run's budget allows it; false, once the budget is spent, and from then on for every call.
   */
  request(record: GatewayAnswerRecord): boolean {
    this.refresh();
    if (this.spent || this.waitedMs + record.waitedMs > this.budgetMs) {
      this.record({ ...record, waitedMs: 0, exhausted: true });
      this.spent = true;
      return false;
    }
    this.record(record);
    return true;
  }
}

const budgets = new Map<string, GatewayBudget>();

/** The budget of a run, one object per process. */
export function budgetFor(settings: GatewaySettings): GatewayBudget {
  const key = `${gatewayAnswersFile(settings)}:${settings.rateLimitBudgetSeconds ?? ''}`;
  let budget = budgets.get(key);
  if (budget === undefined) {
    budget = new GatewayBudget(settings);
    budgets.set(key, budget);
  }
  return budget;
}

/** The root cause of the tests that met the gateway after the budget was spent. */
export function rateLimitCause(endpoint: string, limit: string, budget: GatewayBudget): RootCause {
  return {
    prerequisite: 'rate-limit',
    requirement: 'gateway',
    message: `${endpoint} answered ${limit}; the run had waited ${(budget.waited() / 1000).toFixed(1)} s for such answers and its budget is ${budget.budgetMs / 1000} s (--rate-limit-budget; or pace the run under the limit with --max-rps)`,
  };
}

/** What a caller needs of one answer to tell whether the gateway sent it. */
export interface GatewayView {
  status: number;
  headers: Record<string, string>;
}

/** One wait for the gateway, as the exchange log shows it. */
export interface GatewayWait {
  status: number;
  retryAfter?: string;
  waitedMs: number;
}

export interface GatewayCall<T extends GatewayView> {
  endpoint: string;
  /** Sends the call (again); each send is paced. */
  send: () => Promise<T>;
  pacer?: Pacer;
  /** What this process (gateFor) or the run (run-pace.ts) learnt of the gateway: absent, each call meets it alone. */
  gate?: Gate;
  /** A call of the head start: smoothed by the run's pace before any gateway answer. */
  start?: boolean;
  budget: GatewayBudget;
  /** false: the first answer is returned, the gateway's too (still counted, never waited for). */
  retry?: boolean;
  /** Called before each wait (a Playwright test extends its timeout by it). */
  onWait?: (wait: GatewayWait) => void;
  /** Called after the call waited for its send slot (the run's pace): a test's time is not its own then either. */
  onHeld?: (heldMs: number) => void;
}

/**
 * Sends a call and, while the gateway answers it, waits as Retry-After asks and sends it again.
 * Returns the target's answer and the waits; or, once the run's budget is spent, the gateway's
 * last answer with `gaveUp` set (the caller decides: a test is blocked, the cleanup leaves the rest).
 */
export async function sendThroughGateway<T extends GatewayView>(call: GatewayCall<T>): Promise<{ response: T; waits: GatewayWait[]; gaveUp?: string }> {
  const waits: GatewayWait[] = [];
  for (;;) {
    // A call that wants the gateway's answer itself (a probe of the limit) is not held back.
    const before = performance.now();
    if (call.retry === false) await call.gate?.probing?.();
    const ticket = call.retry !== false ? await call.gate?.pass({ start: call.start }) : undefined;
    await call.pacer?.take();
    const heldMs = performance.now() - before;
    if (heldMs >= 1) call.onHeld?.(heldMs);
    let response: T;
    try {
      response = await call.send();
    } finally {
      if (call.start === true && call.retry !== false) await call.gate?.settled?.();
    }
    if (!isGatewayAnswer(response.status, response.headers)) return { response, waits };
    const retryAfter = retryAfterOf(response.headers);
    const limit = describeGatewayAnswer(response.status, response.headers);
    // Told before the answer is written to the run's file: a worker that sees the file grow asks the run's pace, which must know by then.
    await call.gate?.answered(Math.round(retryAfterSeconds(retryAfter) * 1000), response.headers, ticket);
    if (call.retry === false) {
      call.budget.record({ endpoint: call.endpoint, status: response.status, retryAfter, waitedMs: 0, limit, observed: true });
      return { response, waits };
    }
    const waitedMs = Math.round(retryAfterSeconds(retryAfter) * 1000);
    if (!call.budget.request({ endpoint: call.endpoint, status: response.status, retryAfter, waitedMs, limit })) return { response, waits, gaveUp: limit };
    const wait: GatewayWait = { status: response.status, retryAfter, waitedMs };
    waits.push(wait);
    call.onWait?.(wait);
    await new Promise((resolve) => setTimeout(resolve, waitedMs));
  }
}
