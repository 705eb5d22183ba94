// The setting of the access suites (issue 40), made once per worker: a company of its own with the
// credential forms of the matrix (a revoked, an expired and a search token, made once and bounded
// by the async timeout), an upload and a sent document; and a receiving company with a real
// inbound document sent by the first.
import { fixtureFile, type Fixtures } from '../../fixtures/index.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { createClientToken, registerCompany, revokeClientToken, SetupFailed, untilTokenRefused, type RegisteredCompany } from './companies.ts';
import { deliverInvoice, deliverInvoices, markedInvoice, registerReceivingCompany, type Delivery } from './inbound.ts';
import { sendDocument, sentDocument, uploadFile } from './outbound.ts';
import type { PreparedSetup } from './prepared.ts';
import { settle, unwrap, type Outcome } from './prerequisites.ts';
import { ACCESS_INBOX_ITEM, ACCESS_ITEM, FOREIGN_ITEM } from './setup-items.ts';
import type { RunContext } from './run-context.ts';
import { integratorsOfRun, type Integrators } from './integrators.ts';
import { test as base } from './fixtures.ts';

/** What the matrix's calls need, made once per worker. A credential that could not be made says why. */
export interface AccessSetting {
  company: RegisteredCompany;
  revoked: string | { missing: string };
  expired: string | { missing: string };
  search: string | { missing: string };
  /** A token of the company that the revoke row may revoke. */
  spare: string;
  documentUri: string;
  documentId: string;
  erpDocumentId: string;
}

/** The receiving side: a company with a real inbound document, for the inbox rows. */
export interface AccessInbox {
  company: RegisteredCompany;
  documentId: string;
}

async function expiredToken(api: ApiClient, target: RunContext, company: RegisteredCompany, validTo: Date, created: Promise<{ response: ApiResponse; token?: string }>): Promise<string | { missing: string }> {
  const { response, token } = await created;
  if (token === undefined) return { missing: `no token with a ValidTo could be created (${response.status})` };
  const answered = typeof response.data?.ValidTo === 'string' ? Date.parse(response.data.ValidTo) : Number.NaN;
  // A target may apply a minimum lifetime and say so in the ValidTo it answers (see SEC-06).
  const expiry = Math.max(validTo.getTime(), Number.isNaN(answered) ? 0 : answered);
  if (expiry - Date.now() > target.asyncTimeoutSeconds * 1000) return { missing: `the target answered a ValidTo of ${new Date(expiry).toISOString()}, beyond the async timeout of ${target.asyncTimeoutSeconds} s` };
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now()) + 500));
  // Clocks differ between hosts: the token has the async timeout to stop working on company status.
  await untilTokenRefused(api, target, token, 'expired');
  return token;
}

/** A setting's call started beside another: judged where it is awaited, never an unhandled rejection meanwhile. */
function beside<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/** The value of `first`; when it throws, `work` (started beside it) is settled before: no call of a failed setting is left in flight. */
async function settledBeside<T>(first: Promise<T>, work: Promise<unknown>): Promise<T> {
  try {
    return await first;
  } catch (error) {
    await Promise.allSettled([work]);
    throw error;
  }
}

/** A worker setting's value, as unwrap() gives it; when the setting is broken, `work` is settled before. */
async function unwrapBeside<T>(setting: Promise<Outcome<T>>, work: Promise<unknown>): Promise<T> {
  const outcome = await settledBeside(setting, work);
  if ('cause' in outcome) await Promise.allSettled([work]);
  return unwrap(outcome);
}

async function accessSetting(api: ApiClient, target: RunContext, fixtures: Fixtures): Promise<AccessSetting> {
  // The search token needs no company: asked for while the company registers.
  const searchAnswered = beside(api.post('/clienttokens/createsearchtoken', { auth: 'apiKey', json: { SearchId: fixtures.searchId() } }));
  // Its own company: cells answered 2xx (both headers, an open reading of rule 7) change only it.
  const company = await settledBeside(registerCompany(api, target, fixtures.company('SE')), searchAnswered);
  // The expired token first: its two seconds run while the rest is made.
  const validTo = new Date(Date.now() + 2_000);
  // Both run while the rest is made and are awaited at the end: a call of theirs that fails
  // meanwhile (a reset of the revoke) is judged there, never an unhandled rejection that ends the process.
  const expired = beside(expiredToken(api, target, company, validTo, createClientToken(api, company.erpId, { ValidTo: validTo.toISOString() })));
  const revoked = beside((async (): Promise<string | { missing: string }> => {
    const { token, response } = await createClientToken(api, company.erpId);
    if (token === undefined) return { missing: `no second client token could be created (${response.status})` };
    await revokeClientToken(api, token);
    await untilTokenRefused(api, target, token, 'revoked');
    return token;
  })());
  const rest = (async () => {
    const searchAnswer = await searchAnswered;
    const search = typeof searchAnswer.data?.Token === 'string' ? (searchAnswer.data.Token as string) : { missing: `no search token could be created (${searchAnswer.status})` };
    const spare = (await createClientToken(api, company.erpId)).token ?? company.token;
    return { search, spare, sent: await sentDocument(api, fixtures, company.token, 'PDF') };
  })();
  const { search, spare, sent } = await settledBeside(rest, Promise.allSettled([expired, revoked]));
  return {
    company, search, spare,
    documentUri: sent.upload.reference as string,
    documentId: sent.documentId,
    erpDocumentId: sent.erpDocumentId ?? '',
    revoked: await revoked,
    expired: await expired,
  };
}

/** B's inbox, and the foreign setting's inbound document when it came in the same wait. */
interface InboxDeliveries {
  inbox: AccessInbox;
  foreignInbound?: Delivery;
}

/** Company B's real objects, and the third company C that reads them. */
export interface Foreign {
  /** B: the receiving company of the access setting, which also sent a document of its own. */
  holder: RegisteredCompany;
  /** B's upload: a marked invoice, whose marker shows wherever its bytes come back. */
  uploadReference: string;
  marker: string;
  /** B's sent document, sent with the ErpDocumentId that A used too. */
  documentId: string;
  /** An inbound document of B's, delivered for the mark-handled check only, and the text that marks its bytes. */
  inboundId: string;
  inboundMarker: string;
  reader: RegisteredCompany;
}

/** `inbound`: B's inbound document, when it was delivered with the inbox's; else it is delivered here. */
async function foreignSetting(api: ApiClient, target: RunContext, fixtures: Fixtures, access: AccessSetting, inbox: AccessInbox, readerPromise: Promise<RegisteredCompany>, inbound: Delivery | undefined): Promise<Foreign> {
  const holder = inbox.company;
  const marker = `${fixtures.sendDocument('PDF', { documentUri: 'pending' }).Document.ErpDocumentId}-foreign`;
  const upload = await uploadFile(api, holder.token, { name: `${marker}.xml`, mimeType: fixtureFile('invoice.xml').contentType, buffer: markedInvoice(marker) });
  if (upload.reference === undefined) throw new SetupFailed(`company B could not upload: ${upload.response.status}`);
  // The same ErpDocumentId as A's document: each company's byerpid must find its own.
  const sent = await sendDocument(api, holder.token, fixtures.sendDocument('PDF', { documentUri: upload.reference, documentFormat: fixtureFile('invoice.xml').documentFormat, erpDocumentId: access.erpDocumentId }));
  if (sent.documentId === undefined) throw new SetupFailed(`company B could not send with A's ErpDocumentId: ${sent.response.status}`);
  const delivery = inbound ?? (await deliverInvoice(api, target, fixtures, access.company, holder));
  return { holder, uploadReference: upload.reference, marker, documentId: sent.documentId, inboundId: delivery.entry.Id, inboundMarker: delivery.marker, reader: await readerPromise };
}

/**
 * The worker's access settings, each made once, when a test first asks for it (so a worker that
 * runs no inbox row delivers no invoice). What a setting needs that waits on no other is started
 * beside it: the inbox's receiving company registers while the sender's setting is made, and the
 * foreign setting's reader while both are. Each chain waits a registration's background work, so
 * side by side they take the longest one, not the sum (issue 42). Every call is made inside the
 * settle() of the fixture that asked, before its test runs, as before.
 */
export class AccessWork {
  private setting?: Promise<Outcome<AccessSetting>>;
  private deliveries?: Promise<Outcome<InboxDeliveries>>;
  private foreign?: Promise<Outcome<Foreign>>;

  private integrators?: Promise<Outcome<Integrators>>;

  private readonly api: ApiClient;
  private readonly target: RunContext;
  private readonly fixtures: Fixtures;
  private readonly prepared: PreparedSetup | undefined;

  constructor(api: ApiClient, target: RunContext, fixtures: Fixtures, prepared: PreparedSetup | undefined) {
    this.api = api;
    this.target = target;
    this.fixtures = fixtures;
    this.prepared = prepared;
  }

  /** Made by the run for this worker while it started, or made now. */
  accessOutcome(): Promise<Outcome<AccessSetting>> {
    const make = (): Promise<Outcome<AccessSetting>> => settle(() => accessSetting(this.api, this.target, this.fixtures));
    return (this.setting ??= this.prepared?.outcome<AccessSetting>(ACCESS_ITEM, make) ?? make());
  }

  /**
   * B's inbox: the receiving company and the invoice A delivers to it. Asked for by the foreign
   * setting first, the foreign setting's own inbound document is delivered in the same wait (the
   * two sent together after one marking of what the inbox holds); asked for by an inbox row first,
   * the foreign setting delivers its own later, one after the other (each first marks handled what
   * the inbox holds, so two made side by side could mark each other's document).
   */
  private inboxDeliveries(withForeign: boolean): Promise<Outcome<InboxDeliveries>> {
    return (this.deliveries ??= settle(async () => {
      const receiving = beside(registerReceivingCompany(this.api, this.target, this.fixtures, 'access'));
      const sender = (await unwrapBeside(this.accessOutcome(), receiving)).company;
      const company = await receiving;
      const [delivery, foreignInbound] = await deliverInvoices(this.api, this.target, this.fixtures, sender, company, withForeign ? 2 : 1);
      return { inbox: { company, documentId: delivery.entry.Id }, foreignInbound };
    }));
  }

  accessInboxOutcome(): Promise<Outcome<AccessInbox>> {
    const make = (): Promise<Outcome<AccessInbox>> => this.inboxDeliveries(false).then((outcome) => ('cause' in outcome ? outcome : { value: outcome.value.inbox }));
    return this.prepared?.outcome<AccessInbox>(ACCESS_INBOX_ITEM, make) ?? make();
  }

  /** Whether the run's two keys are two integrators: learnt once per run (integrators.ts). */
  integratorsOutcome(): Promise<Outcome<Integrators>> {
    return (this.integrators ??= settle(() => integratorsOfRun(this.api, this.target, this.fixtures)));
  }

  foreignOutcome(): Promise<Outcome<Foreign>> {
    const make = (): Promise<Outcome<Foreign>> =>
      settle(async () => {
        const reader = beside(registerCompany(this.api, this.target, this.fixtures.company('SE')));
        const access = await unwrapBeside(this.accessOutcome(), reader);
        const deliveries = await unwrapBeside(this.inboxDeliveries(true), reader);
        return settledBeside(foreignSetting(this.api, this.target, this.fixtures, access, deliveries.inbox, reader, deliveries.foreignInbound), reader);
      });
    return (this.foreign ??= this.prepared?.outcome<Foreign>(FOREIGN_ITEM, make) ?? make());
  }
}

/**
 * The access suites' fixtures, merged into the one pool of every suite (suite-test.ts): a pool of
 * their own would give their tests workers of their own, started and set up again (issue 27). A
 * test that needs the inbox or the foreign setting names it before `access`: Playwright sets up a
 * test's fixtures in the order it names them, and the first starts the settings side by side.
 */
export const test = base.extend<{ access: AccessSetting; accessInbox: AccessInbox; foreign: Foreign; integrators: Integrators }, { accessWork: AccessWork; accessOutcome: Outcome<AccessSetting>; accessInboxOutcome: Outcome<AccessInbox>; foreignOutcome: Outcome<Foreign>; integratorsOutcome: Outcome<Integrators> }>({
  accessWork: [async ({ setupApi, target, fixtures, prepared }, use) => use(new AccessWork(setupApi, target, fixtures, prepared)), { scope: 'worker' }],
  accessOutcome: [async ({ accessWork }, use) => use(await accessWork.accessOutcome()), { scope: 'worker' }],
  accessInboxOutcome: [async ({ accessWork }, use) => use(await accessWork.accessInboxOutcome()), { scope: 'worker' }],
  foreignOutcome: [async ({ accessWork }, use) => use(await accessWork.foreignOutcome()), { scope: 'worker' }],
  integratorsOutcome: [async ({ accessWork }, use) => use(await accessWork.integratorsOutcome()), { scope: 'worker' }],
  access: async ({ accessOutcome }, use) => use(unwrap(accessOutcome)),
  accessInbox: async ({ accessInboxOutcome }, use) => use(unwrap(accessInboxOutcome)),
  foreign: async ({ foreignOutcome }, use) => use(unwrap(foreignOutcome)),
  integrators: async ({ integratorsOutcome }, use) => use(unwrap(integratorsOutcome)),
});

