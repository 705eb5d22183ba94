// One pace for a whole run (issue 36). Behind a gateway that limits a client address, the workers
// of `dxs test` are one client: each pacing itself alone, they met the gateway 170 times in a run
// (96 of them with the register calls every worker sends when it starts). So the `dxs test`
// process owns the pace of the run (a GatewayGate: what the run learnt of the gateway, --max-rps)
// and serves send slots on 127.0.0.1 (its address in the run context, paceUrl); the workers,
// the background probe and the cleanup all take their slots from it, and tell it every answer of
// the gateway. The first 429 holds the whole run for its Retry-After and paces it; it quickens while
// none comes.
//
// A call pays nothing for this before the run meets the gateway: after its first call a worker asks
// for a slot only once the run's file of gateway answers (report/rate-limits.ts) has grown, or
// while the pace says it paces (a stat of the file a call, no round trip). The head start's register calls always ask,
// and before any gateway answer leave a few milliseconds apart (START_INTERVAL_MS), at most
// START_WINDOW out at once (each tells the pace when it was answered): a burst of every worker's
// registrations at once is what a gateway's bucket refuses, and all of them in flight at the first
// refusal are refused too; spread over a second it costs a target without a gateway little a worker waits for.
//
// A pace that cannot be reached (the parent gone, a slow machine past the timeout) is no reason to
// stall: the worker falls back to its own gate and its share of --max-rps, and asks again later.
// A worker that crashes holds nothing: a slot is a time handed out, never a lease to give back.
import { request as httpRequest, createServer, Agent, type IncomingMessage, type Server } from 'node:http';
import { statSync } from 'node:fs';
import { GatewayGate, gateFor, pacerFor, type Gate, type Pacer, type Ticket } from './gateway.ts';

/** Before any gateway answer, the head start's register calls of all workers leave this far apart: 100 a second. */
export const START_INTERVAL_MS = 10;
/**
 * A slot not handed out within this is taken from the worker's own gate. Generous: the pace answers
 * at once, but its process also serves the embedded sandbox, and on a loaded machine a process
 * starting 14 workers waits seconds for a core.
 */
const ASK_TIMEOUT_MS = 15_000;
/** After a failed ask, the worker paces itself this long before it asks the run's pace again. */
const ASK_AGAIN_AFTER_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SlotAnswer {
  waitMs: number;
  ticket: Ticket;
  paced: boolean;
}

interface AnsweredBody {
  waitMs: number;
  headers: Record<string, string>;
  ticket?: Ticket;
}

export interface RunPace {
  /** http://127.0.0.1:port, for the workers (RunContext.paceUrl). */
  url: string;
  /** The pace itself, for the callers in the `dxs test` process (the background probe, the cleanup). */
  gate: GatewayGate;
  close(): Promise<void>;
}

function readBody(message: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch {
        resolve({});
      }
    });
    message.on('error', () => resolve({}));
  });
}

/** Starts the run's pace on 127.0.0.1 (an ephemeral port). */
export async function startRunPace(settings: { maxRps?: number }): Promise<RunPace> {
  const gate = new GatewayGate({ maxRps: settings.maxRps, startIntervalMs: START_INTERVAL_MS });
  const server: Server = createServer((message, reply) => {
    void readBody(message).then((body) => {
      const fields = (typeof body === 'object' && body !== null ? body : {}) as Partial<AnsweredBody> & { start?: boolean };
      if (message.method === 'POST' && message.url === '/slot') {
        const start = fields.start === true;
        void (start ? gate.startTurn() : Promise.resolve()).then(() => {
          const { waitMs, ticket } = gate.reserve({ start });
          const answer: SlotAnswer = { waitMs: Math.max(0, Math.round(waitMs)), ticket, paced: gate.paced };
          reply.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        });
      } else if (message.method === 'POST' && message.url === '/probing') {
        gate.probing();
        reply.writeHead(204).end();
      } else if (message.method === 'POST' && message.url === '/settled') {
        gate.settled();
        reply.writeHead(204).end();
      } else if (message.method === 'POST' && message.url === '/answered' && typeof fields.waitMs === 'number') {
        gate.answered(fields.waitMs, fields.headers ?? {}, typeof fields.ticket === 'number' ? fields.ticket : undefined);
        reply.writeHead(204).end();
      } else {
        reply.writeHead(404).end();
      }
    });
  });
  // Its sockets must not keep the CLI alive, nor delay its exit.
  server.unref();
  // The workers keep their connections for the whole run: a server closing an idle one races the worker's next ask on it.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    gate,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * A worker's view of the run's pace. Its own gate (and its share of --max-rps) stands in when the
 * pace cannot be reached, and keeps what the worker learnt in case it has to.
 */
export class RunPaceClient implements Gate {
  private readonly url: URL;
  private readonly answersFile: string;
  private readonly fallback: GatewayGate;
  private readonly fallbackPacer: Pacer | undefined;
  // A socket each for the head start's calls waiting for their turn, and more for the answers that free it.
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });
  private paced: boolean;
  // Asked at the first call: the background probe may have met the gateway before the worker started.
  private seenSize = -1;
  private ticket: Ticket = 0;
  /** Until then the worker paces itself: the run's pace failed to answer. */
  private ownUntil = 0;
  private saidOwn = false;

  constructor(settings: { paceUrl: string; answersFile: string; maxRps?: number; workers?: number }) {
    this.url = new URL(settings.paceUrl);
    this.answersFile = settings.answersFile;
    this.fallback = new GatewayGate({ processes: settings.workers });
    this.fallbackPacer = pacerFor(settings);
    this.paced = settings.maxRps !== undefined;
  }

  private answersSize(): number {
    return statSync(this.answersFile, { throwIfNoEntry: false })?.size ?? 0;
  }

  /** Whether the run met the gateway since this worker last asked (any process appends each answer to the file). */
  private answersGrew(): boolean {
    const size = this.answersSize();
    if (size === this.seenSize) return false;
    this.seenSize = size;
    return true;
  }

  /** An answer of the pace, or undefined; asked again at once when the first failed fast (a kept connection the other side closed). */
  private async ask(path: string, body: unknown): Promise<{ status: number; text: string } | undefined> {
    const first = await this.askOnce(path, body);
    if (first !== 'failed') return first === 'timeout' ? undefined : first;
    const second = await this.askOnce(path, body);
    return typeof second === 'string' ? undefined : second;
  }

  private askOnce(path: string, body: unknown): Promise<{ status: number; text: string } | 'failed' | 'timeout'> {
    return new Promise((resolve) => {
      const payload = JSON.stringify(body);
      const outgoing = httpRequest({
        host: this.url.hostname, port: this.url.port, path, method: 'POST', agent: this.agent, timeout: ASK_TIMEOUT_MS,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        incoming.on('error', () => resolve('failed'));
      });
      let timedOut = false;
      outgoing.on('timeout', () => {
        timedOut = true;
        outgoing.destroy(new Error('timeout'));
      });
      outgoing.on('error', () => resolve(timedOut ? 'timeout' : 'failed'));
      outgoing.end(payload);
    });
  }

  private async own(options: { start?: boolean }): Promise<Ticket> {
    const ticket = await this.fallback.pass(options);
    await this.fallbackPacer?.take();
    return ticket;
  }

  async pass(options: { start?: boolean } = {}): Promise<Ticket> {
    if (performance.now() < this.ownUntil) return this.own(options);
    if (options.start !== true && !this.answersGrew() && !this.paced) return this.ticket;
    return this.slot(options);
  }

  /** A slot of the run's pace, waited for. */
  private async slot(options: { start?: boolean }): Promise<Ticket> {
    // Per call: the worker's other calls waiting beside this one (its head start) must each see a hold that came meanwhile.
    const sizeAtSlot = this.answersSize();
    const answer = await this.ask('/slot', { start: options.start === true });
    let slot: SlotAnswer | undefined;
    try {
      slot = answer?.status === 200 ? (JSON.parse(answer.text) as SlotAnswer) : undefined;
    } catch {
      slot = undefined;
    }
    if (slot === undefined || typeof slot.waitMs !== 'number') {
      this.giveUp(answer === undefined ? 'no answer' : `answered ${answer.status}`);
      return this.own(options);
    }
    this.paced = slot.paced;
    this.ticket = slot.ticket;
    if (slot.waitMs <= 0) return slot.ticket;
    await sleep(slot.waitMs);
    // The run met the gateway while this call waited (the file grew): its slot came before the hold
    // the pace now keeps, so it asks again (bounded: each round needs another answer of the gateway).
    return this.answersSize() !== sizeAtSlot && performance.now() >= this.ownUntil ? this.slot(options) : slot.ticket;
  }

  async answered(waitMs: number, headers: Record<string, string>, ticket?: Ticket): Promise<void> {
    this.fallback.answered(waitMs, headers, ticket);
    this.paced = true;
    if (performance.now() < this.ownUntil) return;
    const body: AnsweredBody = { waitMs, headers, ticket };
    const told = await this.ask('/answered', body);
    if (told?.status !== 204) this.giveUp(told === undefined ? 'no answer' : `answered ${told.status}`);
  }

  async settled(): Promise<void> {
    if (performance.now() < this.ownUntil) return;
    // Unanswered, the place is freed when its lease ends: nothing to give up on.
    await this.ask('/settled', {});
  }

  async probing(): Promise<void> {
    this.fallback.probing();
    if (performance.now() < this.ownUntil) return;
    await this.ask('/probing', {});
  }

  private giveUp(why: string): void {
    this.ownUntil = performance.now() + ASK_AGAIN_AFTER_MS;
    if (!this.saidOwn) console.error(`dxs: the run's pace at ${this.url.host} ${why}: this worker paces itself until it answers again`);
    this.saidOwn = true;
  }

  /** The worker's sockets to the pace, closed when the worker ends. */
  close(): void {
    this.agent.destroy();
  }
}

const clients = new Map<string, RunPaceClient>();

/**
 * Where this process takes its send slots: the run's pace when the run has one (paceUrl), else its
 * own gate and its share of --max-rps (a Playwright run started by hand, dxs fuzz's setup, dxs clean).
 */
export function paceFor(settings: { paceUrl?: string; answersFile: string; maxRps?: number; workers?: number }): { gate: Gate; pacer?: Pacer } {
  if (settings.paceUrl === undefined) return { gate: gateFor(settings), pacer: pacerFor(settings) };
  let client = clients.get(settings.paceUrl);
  if (client === undefined) {
    client = new RunPaceClient({ ...settings, paceUrl: settings.paceUrl });
    clients.set(settings.paceUrl, client);
  }
  return { gate: client };
}
