// The plan of the final read of a load run (issue 41): what dxs waits for and reads once k6 has
// ended, before the history is judged. The flows of a run look at their inboxes while they send,
// so most invoices are tied to a download by their recipient when the run ends; the rest (sent in
// the last seconds, or lost) need a read after their async timeout ran out, or an absence can
// never be proven (lib/exchange-check.ts asks for a whole list invoked after it).
//
// Pure module: the plan is a function of the history and the companies of the run, so it can be
// tested on small histories; cli/commands/load/final-read.ts carries it out against the target.
import { FAILED_STATUSES } from './exchange-check.ts';
import type { ExchangeEvent } from './exchange-history.ts';

/** An accepted send its recipient has not tied to a download yet. */
export interface AwaitedSend {
  erpDocumentId: string;
  recipient: string;
  /** Epoch ms its async timeout runs out: the send's completion plus --async-timeout. */
  due: number;
}

export interface FinalReadPlan {
  /** Sends to wait for, each until it is seen or its due time; ordered by due. */
  awaited: AwaitedSend[];
  /** Companies of the run that read their whole inbox: the recipients of the run's sends, and every company that listed its inbox. */
  readers: string[];
  /** Per reader, the inbound ids it downloaded already (2xx): the final read downloads each other entry. */
  downloaded: Map<string, Set<string>>;
  /** The ErpDocumentIds of the run's accepted sends: the markers a download may find. */
  markers: Set<string>;
}

/** How the final read ended; anything but `done` leaves the sends it could not judge with its reason. */
export type FinalReadStatus = 'done' | 'interrupted' | 'unreachable' | 'out of time' | 'rate limited' | 'no token' | 'not made';

/** What the report says of the final read (summary.json's `exchange.finalRead`). */
export interface FinalReadSummary {
  status: FinalReadStatus;
  /** Why sends may be left not judged, in words a user can act on; absent when done. */
  reason?: string;
  /** Sends not yet tied to a download when k6 ended. */
  awaited: number;
  /** Of those, the ones the final read found. */
  found: number;
  /** Companies whose inbox it read. */
  readers: number;
  /** Calls it made (each joins the history). */
  calls: number;
  /** Milliseconds it took, waiting included. */
  milliseconds: number;
  /** Its walks of the incoming lists with sequenceNo (issue 58); absent in a report written before them. */
  walks?: FinalReadWalks;
  /** The deployment's transport its calls met and outlived by sending them again (issue 57), by "kind on endpoint"; absent when none. */
  transient?: Record<string, number>;
}

/** The walks of a final read: how many reached their end, why the others did not, and the budget of each. */
export interface FinalReadWalks {
  complete: number;
  /** Why a walk could not be completed, with how many walks ended so. */
  notComplete: Record<string, number>;
  /** Each walk's bound: its lists, and its time (the async timeout, at least 10 s). */
  budget: { calls: number; milliseconds: number };
}

export interface FinalReadPlanInput {
  events: readonly ExchangeEvent[];
  asyncTimeoutMs: number;
  /** The ErpIds of the run's companies (the journal's); when absent, the companies that made calls in the history. */
  companies?: ReadonlySet<string>;
}

const ok = (event: ExchangeEvent): boolean => event.status >= 200 && event.status < 300;

/** What the final read waits for and reads, from the history as k6 left it. */
export function planFinalRead(input: FinalReadPlanInput): FinalReadPlan {
  const companies = input.companies ?? new Set(input.events.map((event) => event.actor));
  const sends = new Map<string, ExchangeEvent>();
  const downloadedMarkers = new Map<string, Set<string>>();
  const downloaded = new Map<string, Set<string>>();
  const failedDocuments = new Set<string>();
  const listers = new Set<string>();
  for (const event of input.events) {
    if (!ok(event)) continue;
    if (event.op === 'send' && event.erpDocumentId !== undefined && !sends.has(event.erpDocumentId)) sends.set(event.erpDocumentId, event);
    else if (event.op === 'list') listers.add(event.actor);
    else if (event.op === 'fetch' && event.id !== undefined) {
      let ids = downloaded.get(event.actor);
      if (ids === undefined) downloaded.set(event.actor, (ids = new Set()));
      ids.add(event.id);
      if (event.marker !== undefined) {
        let markers = downloadedMarkers.get(event.actor);
        if (markers === undefined) downloadedMarkers.set(event.actor, (markers = new Set()));
        markers.add(event.marker);
      }
    } else if (event.op === 'status' && event.documentId !== undefined && FAILED_STATUSES.has(event.documentStatus ?? '')) failedDocuments.add(event.documentId);
  }
  const awaited: AwaitedSend[] = [];
  const recipients = new Set<string>();
  for (const [erpDocumentId, send] of sends) {
    const recipient = send.recipient;
    // Only what the loss rule judges: electronic, to a company of the run, not failed on the way.
    if (recipient === undefined || !companies.has(recipient) || (send.deliveryType ?? 'Electronic') !== 'Electronic') continue;
    recipients.add(recipient);
    if (send.documentId !== undefined && failedDocuments.has(send.documentId)) continue;
    if (downloadedMarkers.get(recipient)?.has(erpDocumentId) === true) continue;
    awaited.push({ erpDocumentId, recipient, due: send.completed + input.asyncTimeoutMs });
  }
  awaited.sort((a, b) => a.due - b.due);
  const readers = [...new Set([...recipients, ...[...listers].filter((actor) => companies.has(actor))])].sort();
  for (const reader of readers) if (!downloaded.has(reader)) downloaded.set(reader, new Set());
  return { awaited, readers, downloaded, markers: new Set(sends.keys()) };
}
