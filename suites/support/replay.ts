// The worker's memory of its calls, unredacted, for the reproduce scripts (issue 43): a failed or
// warning test's script needs the calls that made what it used, which a worker fixture may have
// made before the test began (the company, its client token). It stays in the worker's memory;
// only the script, where secrets are shell variables, is written to the report.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCandidateValue, isHandedOutCandidate, renderScript, selectCalls, type ReplayCall, type ReplayPart, type ValueOrigin } from '../../lib/reproduce.ts';
import { secrets } from '../../lib/redact.ts';
import { SETUP_TRAFFIC_FOLDER } from '../../report/har.ts';
import type { ExchangeLog } from './log.ts';
import type { RunContext } from './run-context.ts';

/** A bound on memory: a worker's last calls; what a test uses was almost always made shortly before. */
const HISTORY_LIMIT = 4000;
/**
 * The set-up's calls are kept apart, under a bound of their own: a worker's companies and their
 * tokens are made once, at its start, and used by its last test too, thousands of calls later.
 */
const SETUP_HISTORY_LIMIT = 2000;
const ORIGINS_LIMIT = 200_000;
/** A body larger than this is not kept (a lookup of 500000 SSNs): its call is replayed without it. */
const BODY_LIMIT = 1024 * 1024;
/** The bodies kept, in all: past it, the oldest calls are forgotten. */
const BODIES_LIMIT = 48 * 1024 * 1024;
/** Answers whose JSON has more leaves than this keep none (the poll condition needs only a few). */
const SCALARS_LIMIT = 300;

export { REPRODUCE_ATTACHMENT } from '../../lib/run-record.ts';
export const REPRODUCE_FOLDER = 'reproduce';

interface Recorded {
  call: ReplayCall;
  /** Bytes of its body this memory holds. */
  bytes: number;
  /** The test log the call belongs to; undefined for a worker fixture's set-up. */
  log?: ExchangeLog;
  /** Its index in that log. */
  index?: number;
  /** A set-up call: the log of the client that made it (the run's setup has one per worker). */
  setupLog?: ExchangeLog;
}

/** The tests' calls, oldest first. */
const history: Recorded[] = [];
/** The set-up's calls (worker fixtures, and the run's setup made for this worker), oldest first. */
const setupHistory: Recorded[] = [];
let bodyBytes = 0;
const origins = new Map<string, ValueOrigin>();
let sequence = 0;

/** Deeper than this, a body is a test of the target's parser (JSON nested 10000 deep), not data to reuse. */
const DEPTH_LIMIT = 32;

/**
 * Past this many leaves a body is a test of the target's limits (500000 SSNs, arrays of 100000),
 * whose values no later call reuses: the walk stops there (it took 0.3 s of a worker's CPU).
 */
const LEAVES_LIMIT = 20_000;

function leaves(value: unknown, path: Array<string | number>, visit: (path: Array<string | number>, leaf: string | number | boolean | null) => void, budget = { left: LEAVES_LIMIT }): void {
  if (path.length > DEPTH_LIMIT || budget.left <= 0) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length && budget.left > 0; index++) leaves(value[index], [...path, index], visit, budget);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) {
      if (budget.left <= 0) return;
      if (Object.hasOwn(value, key)) leaves((value as Record<string, unknown>)[key], [...path, key], visit, budget);
    }
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) {
    budget.left--;
    visit(path, value);
  }
}

function markOurs(text: string, runPrefix: string | undefined): void {
  // Only an id of ours (it carries the run prefix) names an entity its first call made.
  if (isCandidateValue(text) && !origins.has(text)) origins.set(text, { ours: true, sequence: runPrefix !== undefined && text.includes(runPrefix) ? sequence : undefined });
}

/** A path segment as sent; a malformed escape (a test may send one) is taken as it is. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface ReplayRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  data?: string | Buffer;
  multipart?: Record<string, string | { name: string; mimeType: string; buffer: Buffer }>;
}

/** Records a call as it goes out; what we send is ours, never a value to read from an answer. */
export function recordRequest(request: ReplayRequest, runPrefix: string | undefined, log: ExchangeLog | undefined, index: number | undefined, setupLog?: ExchangeLog): Recorded {
  try {
    return remember(request, runPrefix, log, index, setupLog);
  } catch {
    // A call this memory cannot take (whatever a test sends) still goes out; its script lacks it.
    return { call: { sequence: ++sequence, method: request.method, url: request.url, headers: {} }, bytes: 0 };
  }
}

function remember(request: ReplayRequest, runPrefix: string | undefined, log: ExchangeLog | undefined, index: number | undefined, setupLog: ExchangeLog | undefined): Recorded {
  if (origins.size > ORIGINS_LIMIT) forgetTestOrigins();
  const text = typeof request.data === 'string' ? request.data : request.data !== undefined && request.data.length <= BODY_LIMIT ? request.data.toString('utf8') : undefined;
  const isText = text !== undefined && typeof request.data !== 'string' && request.data !== undefined ? Buffer.from(text, 'utf8').equals(request.data) : text !== undefined;
  const multipart: ReplayPart[] | undefined =
    request.multipart === undefined
      ? undefined
      : Object.entries(request.multipart).map(([name, part]) => (typeof part === 'string' ? { name, value: part } : { name, fileName: part.name, mimeType: part.mimeType, bytes: part.buffer }));
  const call: ReplayCall = {
    sequence: ++sequence,
    method: request.method,
    url: request.url,
    headers: { ...request.headers },
    // The client sends this very buffer and never changes it: no copy.
    body: request.data === undefined ? undefined : isText && text !== undefined ? { text } : request.data.length <= BODY_LIMIT && typeof request.data !== 'string' ? { bytes: request.data } : undefined,
    bodyOmitted: request.data !== undefined && typeof request.data !== 'string' && request.data.length > BODY_LIMIT ? request.data.length : undefined,
    multipart,
  };
  const url = new URL(request.url);
  // Headers are left out: the API key and a content type are sent by every call, and name no entity.
  for (const segment of url.pathname.split('/')) markOurs(decoded(segment), runPrefix);
  for (const value of url.searchParams.values()) markOurs(value, runPrefix);
  if (text !== undefined && text.length <= 256 * 1024) leaves(parsed(text), [], (_, leaf) => typeof leaf === 'string' && markOurs(leaf, runPrefix));
  for (const part of multipart ?? []) if ('value' in part) markOurs(part.value, runPrefix);
  const bytes = call.body === undefined ? 0 : 'text' in call.body ? call.body.text.length : call.body.bytes.length;
  const recorded: Recorded = { call, bytes, log, index, setupLog: log === undefined ? setupLog : undefined };
  keep(recorded);
  return recorded;
}

function keep(recorded: Recorded): void {
  if (recorded.log === undefined) {
    setupHistory.push(recorded);
    if (setupHistory.length > SETUP_HISTORY_LIMIT) setupHistory.shift();
    return;
  }
  history.push(recorded);
  bodyBytes += recorded.bytes;
  while (history.length > HISTORY_LIMIT || (bodyBytes > BODIES_LIMIT && history.length > 1)) bodyBytes -= (history.shift() as Recorded).bytes;
}

/** Past the bound, the values first carried by the tests' calls are forgotten; the set-up's stay (its tokens). */
function forgetTestOrigins(): void {
  const kept = new Set(setupHistory.map((entry) => entry.call.sequence));
  for (const [value, origin] of origins) if (origin.sequence === undefined || !kept.has(origin.sequence)) origins.delete(value);
}

/** Every call remembered, set-up and tests', in the order they were sent. */
function allCalls(): Recorded[] {
  return [...setupHistory, ...history].sort((a, b) => a.call.sequence - b.call.sequence);
}

function firstSeen(value: string, origin: ValueOrigin): void {
  if (isHandedOutCandidate(value) && !origins.has(value)) origins.set(value, origin);
}

/** Records the answer: every value in it not seen before was handed out by the target. */
export function recordAnswer(recorded: Recorded, status: number, headers: Record<string, string>, json: unknown): void {
  try {
    rememberAnswer(recorded, status, headers, json);
  } catch {
    // As for the request: the test goes on, only its script is the poorer.
  }
}

function rememberAnswer(recorded: Recorded, status: number, headers: Record<string, string>, json: unknown): void {
  const call = recorded.call;
  call.status = status;
  const scalars: Record<string, string | number | boolean | null> = {};
  let count = 0;
  leaves(json, [], (path, leaf) => {
    if (++count <= SCALARS_LIMIT) scalars[JSON.stringify(path)] = leaf;
    if (typeof leaf === 'string') firstSeen(leaf, { ours: false, sequence: call.sequence, source: { json: path }, name: String(path.filter((step) => typeof step === 'string').at(-1) ?? 'value') });
  });
  call.scalars = count <= SCALARS_LIMIT ? scalars : undefined;
  const location = headers['location'];
  if (location !== undefined) {
    firstSeen(location, { ours: false, sequence: call.sequence, source: { header: 'location' }, name: 'location' });
    const last = location.split('/').at(-1)?.split(':').at(-1);
    if (last !== undefined && last !== location) firstSeen(last, { ours: false, sequence: call.sequence, source: { header: 'location', part: 'last-segment' }, name: 'location_id' });
  }
}

/** A body's or a file's bytes as stored in a file (base64). */
type StoredBytes = { base64: string };
type StoredCall = Omit<ReplayCall, 'body' | 'multipart'> & {
  body?: { text: string } | StoredBytes;
  multipart?: Array<{ name: string; value: string } | ({ name: string; fileName: string; mimeType: string } & StoredBytes)>;
};

/** The set-up calls the run's setup made for a worker, with the values they carried first: what the worker's fixture would have remembered. */
export interface StoredReplay {
  calls: StoredCall[];
  origins: Array<[string, ValueOrigin]>;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

function bytesOf(stored: StoredBytes): Uint8Array {
  return new Uint8Array(Buffer.from(stored.base64, 'base64'));
}

/**
 * The set-up calls one client made (the run's setup has a client per worker), for the worker
 * they were made for: its scripts then hold the register and token calls of the companies it was
 * handed, as when its own fixture made them.
 */
export function exportSetupCalls(setupLog: ExchangeLog): StoredReplay {
  // A call still waiting for its answer (another item's) goes with a later item, answered.
  const calls = setupHistory.filter((entry) => entry.setupLog === setupLog && entry.call.status !== undefined).map((entry) => entry.call);
  const sequences = new Set(calls.map((call) => call.sequence));
  return {
    calls: calls.map(({ body, multipart, ...call }) => ({
      ...call,
      body: body === undefined ? undefined : 'text' in body ? body : { base64: base64(body.bytes) },
      multipart: multipart?.map((part) => ('value' in part ? part : { name: part.name, fileName: part.fileName, mimeType: part.mimeType, base64: base64(part.bytes) })),
    })),
    origins: [...origins].filter(([, origin]) => origin.sequence !== undefined && sequences.has(origin.sequence)),
  };
}

/** The run's set-up calls already taken in, by their sequence in the run's process: each item's file repeats the earlier ones. */
const imported = new Map<number, number>();

/** Takes in the set-up calls the run made for this worker, as set-up calls of its own, in their order. */
export function importSetupCalls(stored: StoredReplay | undefined): void {
  if (stored === undefined) return;
  try {
    for (const { body, multipart, ...call } of stored.calls) {
      if (imported.has(call.sequence)) continue;
      const local = ++sequence;
      imported.set(call.sequence, local);
      keep({
        call: {
          ...call,
          sequence: local,
          body: body === undefined ? undefined : 'text' in body ? body : { bytes: bytesOf(body) },
          multipart: multipart?.map((part) => ('value' in part ? part : { name: part.name, fileName: part.fileName, mimeType: part.mimeType, bytes: bytesOf(part) })),
        },
        bytes: 0,
      });
    }
    for (const [value, origin] of stored.origins) {
      const local = origin.sequence === undefined ? undefined : imported.get(origin.sequence);
      if (local !== undefined && !origins.has(value)) origins.set(value, { ...origin, sequence: local });
    }
  } catch {
    // As for a call this memory cannot take: the tests go on, only their scripts are the poorer.
  }
}

/** File name of a test's script: its file and title, readable, with a short hash for uniqueness. */
export function scriptStem(file: string, titlePath: readonly string[], id: string): string {
  const words = `${file.replace(/\.spec\.ts$/, '')} ${titlePath.join(' ')}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/, '');
  return `${words}-${id.replace(/[^A-Za-z0-9]/g, '').slice(-8)}`;
}

export interface Reproduction {
  /** The script's path, relative to the report folder. */
  script: string;
  /** The failing call's curl command (variables of the script's earlier lines in it). */
  call?: string;
}

/**
 * Writes the test's reproduce script (and the files it uploads) into the report folder; returns
 * where, and the failing call's curl line. The check records point at the call that failed.
 */
export function writeReproduction(context: RunContext, log: ExchangeLog, test: { title: string; stem: string }): Reproduction | undefined {
  const own = history.filter((entry) => entry.log === log);
  if (own.length === 0) return undefined;
  const setup = new Set(setupHistory.map((entry) => entry.call.sequence));
  const calls = selectCalls(
    allCalls().map((entry) => entry.call),
    own.map((entry) => entry.call),
    setup,
    origins,
  );
  const judged = log.checks.find((check) => check.verdict === 'failed' && check.exchange !== undefined) ?? log.checks.find((check) => check.verdict === 'warning' && check.exchange !== undefined);
  const failingEntry = judged === undefined ? undefined : own.find((entry) => entry.index === judged.exchange);
  const variables = [
    { value: context.apiKey, variable: 'DXS_API_KEY' },
    ...(context.apiKeyWithoutDelete === undefined ? [] : [{ value: context.apiKeyWithoutDelete, variable: 'DXS_API_KEY_WITHOUT_DELETE' }]),
  ];
  const script = renderScript({
    title: test.title,
    baseUrl: context.baseUrl,
    calls,
    origins,
    variables,
    stem: test.stem,
    judgedCallDecides: true,
    // A token whose making this memory no longer holds is asked for, never written as [REDACTED].
    isSecret: (value) => secrets.redactText(value) !== value,
    failing:
      judged === undefined || failingEntry === undefined
        ? undefined
        : { sequence: failingEntry.call.sequence, note: `${judged.requirement} ${judged.verdict}: ${judged.check}: expected ${judged.expected}; actual ${judged.actual}` },
  });
  const folder = join(context.reportDir, REPRODUCE_FOLDER);
  mkdirSync(folder, { recursive: true });
  // The last line of defence, as for every report file: a secret the script did not turn into a variable.
  writeFileSync(join(folder, `${test.stem}.sh`), secrets.redactText(script.text), { mode: 0o755 });
  for (const file of script.files) writeFileSync(join(folder, file.name), file.bytes);
  return { script: `${REPRODUCE_FOLDER}/${test.stem}.sh`, call: script.failingCall === undefined ? undefined : secrets.redactText(script.failingCall) };
}

/** The worker fixtures' calls, redacted as recorded, for traffic.har (report/har.ts adds them). */
export function writeSetupTraffic(context: RunContext, workerIndex: number | 'run', log: ExchangeLog): void {
  try {
    const folder = join(context.reportDir, SETUP_TRAFFIC_FOLDER);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `worker-${workerIndex}-${process.pid}.json`), secrets.redactText(JSON.stringify(log.exchanges)));
  } catch {
    // traffic.har is for reading; a run is not failed for it.
  }
}
