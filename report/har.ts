// traffic.har (issue 43): every call of a run as HAR 1.2, the format browsers' dev tools, Insomnia,
// Postman, k6's HAR converter and Schemathesis read. Built from the recorded exchanges, which are
// already redacted (keys and tokens are [REDACTED], bodies cut at the record's limit); each entry
// names the test it belongs to and the requirement IDs it checks in `_dxs`, HAR's custom fields.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from '../lib/run-record.ts';

export interface HarOwner {
  /** The file and the title path of the test ("contract/tokens.spec.ts › client tokens › ..."). */
  test: string;
  /** Playwright's test id. */
  testId?: string;
  requirements: string[];
  verdict?: string;
  /** The requirement IDs whose checks judged this very call. */
  checked?: string[];
}

interface HarNameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text?: string; params?: Array<{ name: string; value?: string; fileName?: string; contentType?: string }> };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _dxs: HarOwner & { endpoint: string; gatewayWaits?: Exchange['gatewayWaits']; transient?: Exchange['transient'] };
}

export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; comment?: string; entries: HarEntry[] };
}

function headersOf(headers: Record<string, string>): HarNameValue[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** A multipart body is recorded part by part; a file part as "(file NAME, TYPE, N bytes)". */
function multipartParams(body: unknown): Array<{ name: string; value?: string; fileName?: string; contentType?: string }> {
  if (typeof body !== 'object' || body === null) return [];
  return Object.entries(body as Record<string, unknown>).map(([name, value]) => {
    const file = typeof value === 'string' ? /^\(file (.+), ([^,]+), \d+ bytes\)$/.exec(value) : null;
    return file === null ? { name, value: String(value) } : { name, fileName: file[1], contentType: file[2] };
  });
}

function queryOf(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

export function harEntry(exchange: Exchange, owner: HarOwner): HarEntry {
  const { request, response } = exchange;
  const requestType = headerValue(request.headers, 'content-type');
  const requestText = bodyText(request.body);
  const multipart = requestType === undefined && typeof request.body === 'object' && request.body !== null;
  const responseText = bodyText(response?.body);
  return {
    startedDateTime: exchange.sentAt ?? new Date(0).toISOString(),
    time: exchange.durationMs,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headersOf(request.headers),
      queryString: queryOf(request.url),
      ...(request.body === undefined
        ? {}
        : { postData: multipart ? { mimeType: 'multipart/form-data', params: multipartParams(request.body) } : { mimeType: requestType ?? 'application/octet-stream', text: requestText } }),
      headersSize: -1,
      bodySize: requestText === undefined ? 0 : -1,
    },
    response: {
      // HAR's 0: no answer came (the error says why).
      status: response?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headersOf(response?.headers ?? {}),
      content: {
        size: response?.size ?? 0,
        mimeType: headerValue(response?.headers ?? {}, 'content-type') ?? '',
        ...(responseText === undefined ? {} : { text: responseText }),
        ...(responseText !== undefined && responseText.length < (response?.size ?? 0) ? { comment: 'as recorded by dxs: redacted, and cut or summarised past its limit' } : {}),
      },
      redirectURL: headerValue(response?.headers ?? {}, 'location') ?? '',
      headersSize: -1,
      bodySize: response?.size ?? 0,
      ...(exchange.error === undefined ? {} : { _error: exchange.error }),
    },
    cache: {},
    timings: { send: 0, wait: exchange.durationMs, receive: 0 },
    _dxs: { ...owner, endpoint: exchange.endpoint, ...(exchange.gatewayWaits === undefined ? {} : { gatewayWaits: exchange.gatewayWaits }), ...(exchange.transient === undefined ? {} : { transient: exchange.transient }) },
  };
}

export function harOf(entries: HarEntry[], version: string, comment?: string): Har {
  const sorted = [...entries].sort((left, right) => left.startedDateTime.localeCompare(right.startedDateTime));
  return { log: { version: '1.2', creator: { name: 'dxs', version }, ...(comment === undefined ? {} : { comment }), entries: sorted } };
}

export const HAR_FILE = 'traffic.har';

/** Where each worker leaves the calls of its fixtures' set-up, which belong to no test. */
export const SETUP_TRAFFIC_FOLDER = '.dxs-setup-traffic';

/**
 * Adds the workers' set-up calls (the companies and tokens made before a test began) to the run's
 * traffic.har, then removes their folder. `redact` is the last pass, with every secret of the run.
 */
export function addSetupTraffic(reportDir: string, redact: (text: string) => string): void {
  const folder = join(reportDir, SETUP_TRAFFIC_FOLDER);
  const file = join(reportDir, HAR_FILE);
  if (!existsSync(folder)) return;
  try {
    if (!existsSync(file)) return;
    const har = JSON.parse(readFileSync(file, 'utf8')) as Har;
    const owner: HarOwner = { test: '(worker set-up: the companies and client tokens the tests share)', requirements: [] };
    for (const name of readdirSync(folder)) {
      const exchanges = JSON.parse(readFileSync(join(folder, name), 'utf8')) as Exchange[];
      har.log.entries.push(...exchanges.map((exchange) => harEntry(exchange, owner)));
    }
    writeFileSync(file, `${redact(JSON.stringify(harOf(har.log.entries, har.log.creator.version, har.log.comment), null, 1))}\n`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * `dxs report merge`: the shards' traffic.har as one, and their reproduce scripts side by side
 * (their names carry the test id, so shards never share one), so the merged page's links work.
 */
export function mergeTrafficAndScripts(directories: readonly string[], out: string, version: string, reproduceFolder = 'reproduce'): void {
  const entries: HarEntry[] = [];
  let found = false;
  for (const directory of directories) {
    const file = join(directory, HAR_FILE);
    if (existsSync(file)) {
      found = true;
      entries.push(...(JSON.parse(readFileSync(file, 'utf8')) as Har).log.entries);
    }
    const scripts = join(directory, reproduceFolder);
    if (existsSync(scripts)) cpSync(scripts, join(out, reproduceFolder), { recursive: true });
  }
  if (found) writeFileSync(join(out, HAR_FILE), `${JSON.stringify(harOf(entries, version, `dxs report merge of ${directories.length} reports`), null, 1)}\n`);
}
