// The journal of a run (issue 16): every entity the run creates at the target, written the moment
// the target answers 2xx, so that what a run leaves behind can always be found and deleted, even
// after the run was killed.
//
// Workers are separate processes: each appends JSON lines to <report dir>/created.jsonl (one
// appendFileSync per line, which the kernel keeps whole); `dxs test` and `dxs clean` read the lines
// and assemble them into created.json. No secret is written: API keys are named by their role in
// the run (field key: "apiKey", "apiKeyWithoutDelete"), tokens never appear, and each line goes through the
// secret registry once more.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secrets } from '../../lib/redact.ts';
import { parseJsonOrUndefined } from '../../lib/json.ts';
import type { Auth, RunContext } from './run-context.ts';

export const JOURNAL_LINES_FILE = 'created.jsonl';
export const JOURNAL_FILE = 'created.json';

/** Which of the run's keys a company is registered under; "other" is a key the run was not configured with. */
export type KeyLabel = 'apiKey' | 'apiKeyWithoutDelete' | 'other';

export type EntityKind = 'run' | 'company' | 'user' | 'identifier' | 'upload' | 'document' | 'network-setup' | 'provider-a' | 'provider-a-icon' | 'delete';

export interface JournalLine {
  at: string;
  runPrefix: string;
  kind: EntityKind;
  /** The key of the company the entity belongs to. Not named apiKey: the redaction takes a field of that name for a secret. */
  key?: KeyLabel;
  /** The ErpId of the company the entity belongs to (the company's own, for kind company). */
  ErpId?: string;
  [field: string]: unknown;
}

export interface JournalCompany {
  ErpId: string;
  key: KeyLabel;
  Id?: string;
  RegistrationId?: string;
  OrgNo?: string;
  CountryCode?: string;
  Name?: string;
  createdAt: string;
  /** A delete request for it was answered 2xx (by a test, by the cleanup, or by dxs clean). */
  deleteRequested: boolean;
}

export type JournalEntity = Record<string, unknown> & { at: string; runPrefix: string };

export interface Journal {
  format: 'dxs-journal/1';
  runPrefix: string;
  target?: string;
  embedded?: boolean;
  startedAt?: string;
  companies: JournalCompany[];
  users: JournalEntity[];
  identifiers: JournalEntity[];
  uploads: JournalEntity[];
  documents: JournalEntity[];
  networkSetupRequests: JournalEntity[];
  providerARegistrations: JournalEntity[];
  providerAIcons: JournalEntity[];
}

export function appendJournal(reportDir: string, line: JournalLine): void {
  appendFileSync(join(reportDir, JOURNAL_LINES_FILE), `${secrets.redactText(JSON.stringify(line))}\n`);
}

/** Called by dxs test before Playwright starts: a fresh journal whose first line names the run and its target. */
export function startJournal(context: RunContext): void {
  mkdirSync(context.reportDir, { recursive: true });
  writeFileSync(join(context.reportDir, JOURNAL_LINES_FILE), '');
  rmSync(join(context.reportDir, JOURNAL_FILE), { force: true });
  appendJournal(context.reportDir, { at: new Date().toISOString(), runPrefix: context.runPrefix, kind: 'run', target: context.baseUrl, embedded: context.embedded });
}

// ---- the worker side: what a call created, judged from its request and its answer ----

interface Owner {
  ErpId: string;
  key: KeyLabel;
}

/** Client tokens this worker was handed -> their company. In memory only: tokens never reach the journal. */
const owners = new Map<string, Owner>();
/** CompanyIds already written, so that status polls do not write a line each. */
const companyIdsSeen = new Set<string>();
let directoryReady = false;

function keyLabel(context: RunContext, auth: Auth | undefined): KeyLabel | undefined {
  if (auth === 'apiKey' || auth === 'apiKeyWithoutDelete') return auth;
  if (auth === undefined || auth === 'none' || 'clientToken' in auth) return undefined;
  if (auth.apiKey === context.apiKey) return 'apiKey';
  if (auth.apiKey === context.apiKeyWithoutDelete) return 'apiKeyWithoutDelete';
  return 'other';
}

function ownerOf(auth: Auth | undefined): Owner | undefined {
  if (auth !== undefined && typeof auth === 'object' && 'clientToken' in auth) return owners.get(auth.clientToken);
  return undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  return text(record[name]) ?? text(record[name.charAt(0).toLowerCase() + name.slice(1)]);
}

/** A journal line before its time and run prefix are added. */
export interface CreatedEntity {
  kind: EntityKind;
  key?: KeyLabel;
  ErpId?: string;
  [field: string]: unknown;
}

export interface ObservedCall {
  method: string;
  path: string;
  auth?: Auth;
  /** The JSON body sent. */
  json?: unknown;
  /** A body sent as it is: read as JSON when it is some (a test that sends its own bytes may still create). */
  rawBody?: string | Buffer;
  status: number;
  /** The answer's body with normalised (spec) field names. */
  data: any;
  headers: Record<string, string>;
}

/** What a 2xx answer created, as a journal line; undefined when the call created nothing. */
export function createdBy(context: RunContext, call: ObservedCall): CreatedEntity | undefined {
  if (call.status < 200 || call.status > 299) return undefined;
  const route = `${call.method.toUpperCase()} ${call.path.split('?')[0].replace(/\/+$/, '').toLowerCase()}`;
  const owner = ownerOf(call.auth);
  const of = owner === undefined ? {} : { key: owner.key, ErpId: owner.ErpId };
  const location = text(call.headers.location);
  switch (route) {
    case 'POST /clienttokens/create': {
      const token = field(call.data, 'Token');
      const erpId = field(call.json, 'ErpId');
      const apiKey = keyLabel(context, call.auth);
      if (token !== undefined && erpId !== undefined && apiKey !== undefined) owners.set(token, { ErpId: erpId, key: apiKey });
      return undefined;
    }
    case 'POST /companies/register': {
      const erpId = field(call.json, 'ErpId');
      const apiKey = keyLabel(context, call.auth);
      if (erpId === undefined || apiKey === undefined) return undefined;
      return { kind: 'company', key: apiKey, ErpId: erpId, OrgNo: field(call.json, 'OrgNo'), CountryCode: field(call.json, 'CountryCode'), Name: field(call.json, 'Name') };
    }
    case 'GET /companies/status': {
      const id = field(call.data, 'CompanyId');
      if (owner === undefined || id === undefined || companyIdsSeen.has(`${owner.key}\n${id}`)) return undefined;
      companyIdsSeen.add(`${owner.key}\n${id}`);
      return { kind: 'company', ...of, Id: id, RegistrationId: field(call.data, 'RegistrationId') };
    }
    case 'POST /companies/services': {
      const registrationId = field(call.json, 'RegistrationId');
      const erpId = field(call.json, 'ErpId') ?? owner?.ErpId;
      const apiKey = owner?.key ?? keyLabel(context, call.auth);
      if (registrationId === undefined || erpId === undefined || apiKey === undefined) return undefined;
      return { kind: 'company', key: apiKey, ErpId: erpId, RegistrationId: registrationId };
    }
    case 'POST /companies/users':
      return { kind: 'user', ...of, UserName: field(call.json, 'UserName'), Email: field(call.json, 'Email') };
    case 'POST /companies/identifiers':
      return { kind: 'identifier', ...of, Type: field(call.json, 'Type'), Value: field(call.json, 'Value') };
    case 'POST /documents':
      return { kind: 'upload', ...of, Location: location };
    case 'POST /documents/outbound': {
      const document = (call.json as Record<string, any> | undefined)?.Document;
      return { kind: 'document', ...of, Location: location, ErpDocumentId: field(document, 'ErpDocumentId') };
    }
    case 'POST /network/setup':
      return { kind: 'network-setup', ...of, RequestId: field(call.data, 'RequestId'), OrgNo: field(call.json, 'OrgNo'), Name: field(call.json, 'Name') };
    case 'POST /companies/deliverymethods/b2c/providera':
      return { kind: 'provider-a', ...of, OrgNo: field(call.json, 'OrgNo'), LegalName: field(call.json, 'LegalName'), Location: location };
    case 'POST /companies/deliverymethods/b2c/providera/icon':
      return { kind: 'provider-a-icon', ...of, Filename: field(call.json, 'Filename'), Location: location };
    case 'POST /companies/delete': {
      const erpId = field(call.json, 'Id');
      const apiKey = keyLabel(context, call.auth) ?? owner?.key;
      if (erpId === undefined || apiKey === undefined) return undefined;
      return { kind: 'delete', key: apiKey, ErpId: erpId };
    }
    default:
      return undefined;
  }
}

/** The ApiClient's hook: journals what the call created. Never throws: a journal problem must not fail a test. */
export function journalCall(context: RunContext, call: ObservedCall): void {
  try {
    const created = createdBy(context, call.json === undefined && call.rawBody !== undefined ? { ...call, json: parseJsonOrUndefined(call.rawBody) } : call);
    if (created === undefined) return;
    if (!directoryReady) {
      mkdirSync(context.reportDir, { recursive: true });
      directoryReady = true;
    }
    const fields = Object.fromEntries(Object.entries(created).filter(([, value]) => value !== undefined));
    appendJournal(context.reportDir, { ...fields, at: new Date().toISOString(), runPrefix: context.runPrefix, kind: created.kind });
  } catch (error) {
    console.error(`dxs: cannot write the journal in ${context.reportDir}: ${(error as Error).message}`);
  }
}

// ---- the CLI side: reading and assembling ----

/** The lines of a journal file; a line cut short by a killed process is skipped. */
export function parseJournalLines(textOfFile: string): JournalLine[] {
  const lines: JournalLine[] = [];
  for (const line of textOfFile.split('\n')) {
    if (line.trim() === '') continue;
    try {
      lines.push(JSON.parse(line) as JournalLine);
    } catch {
      // A partial last line: the entity it was writing is at most one, and its company has its own line.
    }
  }
  return lines;
}

const COLLECTIONS: Partial<Record<EntityKind, keyof Journal>> = {
  user: 'users',
  identifier: 'identifiers',
  upload: 'uploads',
  document: 'documents',
  'network-setup': 'networkSetupRequests',
  'provider-a': 'providerARegistrations',
  'provider-a-icon': 'providerAIcons',
};

export function assembleJournal(lines: readonly JournalLine[]): Journal {
  const journal: Journal = {
    format: 'dxs-journal/1',
    runPrefix: '',
    companies: [],
    users: [],
    identifiers: [],
    uploads: [],
    documents: [],
    networkSetupRequests: [],
    providerARegistrations: [],
    providerAIcons: [],
  };
  const companies = new Map<string, JournalCompany>();
  for (const line of lines) {
    if (journal.runPrefix === '' && typeof line.runPrefix === 'string') journal.runPrefix = line.runPrefix;
    const { kind, at, runPrefix, key: apiKey, ErpId, ...rest } = line;
    if (kind === 'run') {
      journal.target = text(rest.target);
      journal.embedded = rest.embedded === true;
      journal.startedAt = at;
      continue;
    }
    if (kind === 'company' || kind === 'delete') {
      if (apiKey === undefined || ErpId === undefined) continue;
      const key = `${apiKey}\n${ErpId}`;
      let company = companies.get(key);
      if (kind === 'delete') {
        if (company !== undefined) company.deleteRequested = true;
        continue;
      }
      if (company === undefined) companies.set(key, (company = { ErpId, key: apiKey, createdAt: at, deleteRequested: false }));
      // Registering the same ErpId again after a delete makes it a live company again.
      if (rest.Id === undefined && rest.RegistrationId === undefined) company.deleteRequested = false;
      for (const name of ['Id', 'RegistrationId', 'OrgNo', 'CountryCode', 'Name'] as const) {
        const value = text(rest[name]);
        if (value !== undefined) company[name] = value;
      }
      continue;
    }
    const collection = COLLECTIONS[kind];
    if (collection !== undefined) (journal[collection] as JournalEntity[]).push({ at, runPrefix, ...(apiKey === undefined ? {} : { key: apiKey }), ...(ErpId === undefined ? {} : { ErpId }), ...rest });
  }
  journal.companies = [...companies.values()];
  return journal;
}

/** The journal of a report directory: the lines file when there is one (it is the source), else created.json. */
export function readJournal(reportDir: string): Journal | undefined {
  const linesPath = join(reportDir, JOURNAL_LINES_FILE);
  if (existsSync(linesPath)) return assembleJournal(parseJournalLines(readFileSync(linesPath, 'utf8')));
  const path = join(reportDir, JOURNAL_FILE);
  if (!existsSync(path)) return undefined;
  const content = readFileSync(path, 'utf8');
  return content.trim() === '' ? undefined : (JSON.parse(content) as Journal);
}

export function writeJournal(reportDir: string, journal: Journal): void {
  writeFileSync(join(reportDir, JOURNAL_FILE), `${secrets.redactText(JSON.stringify(journal, null, 1))}\n`);
}
