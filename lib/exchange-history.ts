// The history of the exchange under load (issue 35): what each document flow of dxs load did and
// what the target answered, one event per call, so that a checker can judge the exchange as a
// whole when the run ends: every invoice sent arrives, once, to its recipient alone (as Jepsen
// judges a history of a database, not each answer alone).
//
// Each event is one point of the k6 counter EXCHANGE_METRIC, its operation the tag `op` and
// everything else k6 metadata (no tag: no time series), encoded by encodeEvent(). So the history
// travels in raw.json.gz beside the journal (dxs_created): `--segment` runs, `dxs load merge` and
// `dxs load k8s` hand every runner's history to one checker.
//
// The flows recognise a delivered document as dxs test does: each invoice sent carries its
// ErpDocumentId as its cbc:ID (the marker), and the recipient fetches (GET /documents/{id}) each
// entry it has not seen, which tells which send an inbound Id is. The inbound Id and the outbound
// DocumentId are different ids ("the document id" of the inbound calls: not shown which).
//
// Pure module, shared by k6 (load/lib/history.ts records) and Node (the checker reads).

/** The k6 counter whose points are the history. */
export const EXCHANGE_METRIC = 'dxs_exchange';

/**
 * send     POST /documents/outbound accepted or refused (after its upload)
 * list     GET /documents/incoming, with or without sequenceNo
 * fetch    GET /documents/{id} (the download)
 * info     GET /documents/{id}/info
 * handled  POST /documents/handled
 * status   GET /documents/outbound/{DocumentId}
 */
export type ExchangeOp = 'send' | 'list' | 'fetch' | 'info' | 'handled' | 'status';

export const EXCHANGE_OPS: readonly ExchangeOp[] = ['send', 'list', 'fetch', 'info', 'handled', 'status'];

export interface ExchangeEvent {
  op: ExchangeOp;
  /** ErpId of the company whose ClientToken made the call (the run's companies only). */
  actor: string;
  /** Epoch milliseconds: the request was sent (invoked) and its answer had come (completed). Concurrent calls overlap. */
  invoked: number;
  completed: number;
  /** HTTP status of the answer; 0 when none came. Only 2xx answers say anything of the exchange. */
  status: number;
  /** k6's VU id in the test and the runner's segment, so that the events of one VU read in order. */
  vu?: number;
  /** A call of dxs's final read (cli/commands/load/final-read.ts), made once k6 had ended, not by a flow. */
  finalRead?: boolean;

  // send
  /** ErpId of the recipient company (SendDocumentAs.Electronic.RecipientId names its CompanyId). */
  recipient?: string;
  /** SendDocumentAs.Type: Electronic, PDF, Paper, BusinessToConsumer. */
  deliveryType?: string;
  /** The outbound DocumentId: last segment of the send's Location. */
  documentId?: string;
  /** The ErpDocumentId sent, which is also the marker written into the invoice. */
  erpDocumentId?: string;

  // list
  /** The sequenceNo query of the list; absent for a list made without sequenceNo. */
  sequenceNo?: number;
  /** Total of the answer (IncomingDocuments.Total); absent when it had none. */
  total?: number;
  /** Ids of the answer's Documents, in the answer's order (list), or the ids marked (handled). */
  ids?: string[];
  /** SequenceNo of each listed entry, in the same order; null where an entry had none. */
  sequenceNos?: Array<number | null>;
  /** CompanyId of each listed entry, in the same order; null where an entry had none. */
  companyIds?: Array<string | null>;
  /**
   * A list of the final read's walk with sequenceNo (issue 58): the walk it belongs to, one id per
   * walk, so that the checker can take the walk's answers together as one reading of the whole list.
   */
  walk?: string;
  /** On a walk's last list: `complete` when the walk reached its end, else why it could not be completed. */
  walkEnd?: string;

  // fetch, info
  /** The inbound document id fetched or read. */
  id?: string;
  /** fetch: the marker (an ErpDocumentId of this run) found in the document; absent when none was. */
  marker?: string;

  // status
  /** status: CurrentStatus.Status of the outbound document. */
  documentStatus?: string;
}

/** The metadata of one k6 point: strings only. */
export type EventMetadata = Record<string, string>;

const LIST_SEPARATOR = ',';

/** The string fields an event carries as they are. */
const STRING_FIELDS = ['recipient', 'deliveryType', 'documentId', 'erpDocumentId', 'id', 'marker', 'documentStatus', 'walk', 'walkEnd'] as const;

function joinList(values: ReadonlyArray<string | number | null>): string {
  return values.map((value) => (value === null ? '' : encodeURIComponent(String(value)))).join(LIST_SEPARATOR);
}

function splitList(text: string): string[] {
  return text === '' ? [] : text.split(LIST_SEPARATOR).map((part) => decodeURIComponent(part));
}

function numberOrNull(text: string): number | null {
  if (text === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** A per-entry list as long as the answer's Ids, null where the encoding could not tell an entry apart. */
function entryList<T>(values: T[], entries: number): Array<T | null> {
  const list: Array<T | null> = [...values];
  while (list.length < entries) list.push(null);
  return list;
}

/** The event as k6 metadata; its op goes in the tag `op`, not here. Fields with no value are left out. */
export function encodeEvent(event: ExchangeEvent): EventMetadata {
  const metadata: EventMetadata = {
    actor: event.actor,
    invoked: String(event.invoked),
    completed: String(event.completed),
    status: String(event.status),
  };
  if (event.vu !== undefined) metadata.vu = String(event.vu);
  if (event.finalRead === true) metadata.finalRead = '1';
  for (const name of STRING_FIELDS) {
    const value = event[name];
    if (value !== undefined && value !== '') metadata[name] = value;
  }
  if (event.sequenceNo !== undefined) metadata.sequenceNo = String(event.sequenceNo);
  if (event.total !== undefined) metadata.total = String(event.total);
  if (event.ids !== undefined) metadata.ids = joinList(event.ids);
  if (event.sequenceNos !== undefined) metadata.sequenceNos = joinList(event.sequenceNos);
  if (event.companyIds !== undefined) metadata.companyIds = joinList(event.companyIds);
  return metadata;
}

/** The event of one point (its `op` tag and metadata), or undefined when the point is not one. */
export function decodeEvent(op: string | undefined, metadata: EventMetadata | undefined): ExchangeEvent | undefined {
  if (op === undefined || metadata === undefined || !(EXCHANGE_OPS as readonly string[]).includes(op)) return undefined;
  const invoked = Number(metadata.invoked);
  const completed = Number(metadata.completed);
  if (metadata.actor === undefined || !Number.isFinite(invoked) || !Number.isFinite(completed)) return undefined;
  const event: ExchangeEvent = { op: op as ExchangeOp, actor: metadata.actor, invoked, completed, status: Number(metadata.status) || 0 };
  if (metadata.vu !== undefined) event.vu = Number(metadata.vu);
  if (metadata.finalRead === '1') event.finalRead = true;
  for (const name of STRING_FIELDS) {
    if (metadata[name] !== undefined) event[name] = metadata[name];
  }
  if (metadata.sequenceNo !== undefined) event.sequenceNo = Number(metadata.sequenceNo);
  if (metadata.total !== undefined) event.total = Number(metadata.total);
  if (metadata.ids !== undefined) event.ids = splitList(metadata.ids);
  // One null encodes as '', as an empty list does: the Ids say how many entries the answer had.
  const entries = event.ids?.length ?? 0;
  if (metadata.sequenceNos !== undefined) event.sequenceNos = entryList(splitList(metadata.sequenceNos).map(numberOrNull), entries);
  if (metadata.companyIds !== undefined) event.companyIds = entryList(splitList(metadata.companyIds).map((value) => (value === '' ? null : value)), entries);
  return event;
}
