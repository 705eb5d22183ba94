// The checker of the exchange under load (issue 35): judges the history the document flows of dxs
// load recorded (lib/exchange-history.ts) as a whole, once the run has ended. Every invoice sent
// arrives, once, to its recipient alone; a document stays in the list without sequenceNo until it
// is marked, and does not come back once marked and fetched.
//
// The events come from many VUs and runners, each call with the time it was invoked and the time
// its answer completed. As Jepsen's checkers do, a call takes effect somewhere between the two: an
// answer proves an absence only when its call was invoked after what it lacks was known complete
// (a mark that completed before a list was invoked, a send whose async timeout had run out). Calls
// that overlap prove nothing against each other.
//
// What proves a loss: a list of the recipient, invoked after the send completed and the async
// timeout ran out, that is whole (Total no more than the entries listed: a paged answer proves no
// absence), made without sequenceNo or with a sequenceNo of 0 or less (which lists everything on
// every reading of sequenceNo the contrarian sandbox has, INB-17), whose every Id the recipient
// fetched, none of them the document sent. Without such a list the send is not judged.
//
// Ids: the inbound Id and the outbound DocumentId may differ or not (inbound-id-is-document-id),
// and whether two companies' inbound Ids can coincide is not shown, so an Id is tied to a send by
// the recipient's own download of it (the marker, the ErpDocumentId in the invoice), company by
// company.
//
// Pure module: no Node APIs, so a bench or any runtime can call it.
import type { ExchangeEvent } from './exchange-history.ts';

/** The rules the checker judges, by requirement ID of the catalog (schemas/requirements.json). */
export const EXCHANGE_RULES = ['FLOW-04', 'INB-05', 'INB-07', 'INB-18', 'INB-20', 'INB-21', 'XCH-01', 'XCH-02', 'XCH-03', 'XCH-04', 'XCH-05'] as const;
export type ExchangeRule = (typeof EXCHANGE_RULES)[number];

/** An event as evidence: a list keeps only the entries that matter, with the count it listed. */
export interface EvidenceEvent extends Omit<ExchangeEvent, 'ids' | 'sequenceNos' | 'companyIds'> {
  /** How many entries the list answered. */
  listed?: number;
  ids?: string[];
  sequenceNos?: Array<number | null>;
  companyIds?: Array<string | null>;
}

export interface ExchangeViolation {
  rule: ExchangeRule;
  /** One sentence: what was seen, with the ids. */
  summary: string;
  /** The smallest set of events that shows it, in the order of their invocation. */
  evidence: EvidenceEvent[];
}

export interface ExchangeCheckInput {
  /** In any order, from any number of VUs and runners. */
  events: readonly ExchangeEvent[];
  /** --async-timeout in milliseconds: how long a document may take to arrive. */
  asyncTimeoutMs: number;
  /** Epoch ms the run ended; the latest completion of an event when not given. */
  runEnd?: number;
  /** Violations kept with their evidence per rule (all are counted); default 20. */
  evidenceLimit?: number;
}

export interface ExchangeCheckResult {
  events: number;
  /** Sends the target accepted (2xx). */
  sent: number;
  /** Accepted sends whose recipient downloaded the document. */
  delivered: number;
  /** Accepted sends a whole list of the recipient lacked after the async timeout (FLOW-04). */
  lost: number;
  /** Accepted electronic sends to a company of the run neither delivered nor proven lost, per reason. */
  notJudged: number;
  notJudgedReasons: Record<string, number>;
  /** Accepted sends the loss rule does not apply to (not electronic, recipient not a company of the run, failed), per reason. */
  notSubject: Record<string, number>;
  /** Violations per rule (each one counted once: per document, answer or pair). */
  counts: Record<ExchangeRule, number>;
  violations: ExchangeViolation[];
  /**
   * Milliseconds from the accepted send to the first list of the recipient that showed the document,
   * per delivery type, ascending: only deliveries the recipient watched (untimedDeliveries).
   */
  deliveryTimes: Record<string, number[]>;
  /**
   * Deliveries not timed: the recipient's last whole list that lacked the document came more than
   * DELIVERY_TIME_RESOLUTION_MS (or a tenth of the time) before the list that showed it, so the time
   * would say how seldom the flow looked (a mixed business day), not how slowly the target delivered.
   */
  untimedDeliveries: number;
  /**
   * Milliseconds from the accepted send to the first list that showed the document, per delivery
   * type, ascending, for the deliveries a list of dxs's final read showed first (issue 41): an upper
   * bound, kept apart from the watched deliveries so that their percentiles keep their meaning.
   */
  finalReadDeliveryTimes: Record<string, number[]>;
}

/** How precisely a delivery must be bracketed to be timed: within a second, or a tenth of the time itself. */
export const DELIVERY_TIME_RESOLUTION_MS = 1000;

/** The statuses of an outbound document in the order a delivery passes them (DocumentStatus); the others (ConversionFailed, Stopped, Sold) are not ranked. */
const STATUS_ORDER = ['Pending', 'PendingInPlatform', 'Converting', 'ConversionComplete', 'Sent', 'Delivered'];
/** Final statuses after which an invoice will not arrive. */
export const FAILED_STATUSES: ReadonlySet<string> = new Set(['ConversionFailed', 'Stopped']);

const ok = (event: ExchangeEvent): boolean => event.status >= 200 && event.status < 300;

function emptyCounts(): Record<ExchangeRule, number> {
  return Object.fromEntries(EXCHANGE_RULES.map((rule) => [rule, 0])) as Record<ExchangeRule, number>;
}

/** The event as evidence; a list or mark keeps only `keep` of its entries (all when undefined). */
export function evidenceOf(event: ExchangeEvent, keep?: ReadonlySet<string>): EvidenceEvent {
  const { ids, sequenceNos, companyIds, ...rest } = event;
  if (ids === undefined) return { ...rest };
  const evidence: EvidenceEvent = { ...rest, listed: ids.length };
  const positions = ids.map((id, index) => (keep === undefined || keep.has(id) ? index : -1)).filter((index) => index >= 0);
  evidence.ids = positions.map((index) => ids[index]);
  if (sequenceNos !== undefined) evidence.sequenceNos = positions.map((index) => sequenceNos[index] ?? null);
  if (companyIds !== undefined) evidence.companyIds = positions.map((index) => companyIds[index] ?? null);
  return evidence;
}

/** What one company did, indexed for the rules. */
interface Company {
  lists: ExchangeEvent[];
  /** Answered 2xx: inbound id -> the marker its download held (null: none of the run). */
  fetched: Map<string, string | null>;
  /** The first 2xx download of each id. */
  firstFetch: Map<string, ExchangeEvent>;
  fetches: ExchangeEvent[];
  marks: ExchangeEvent[];
  infos: ExchangeEvent[];
  /** The final read's walks with sequenceNo (issue 58): walk id -> its lists (any status) in the order of invocation. */
  walks: Map<string, ExchangeEvent[]>;
}

function companyOf(companies: Map<string, Company>, actor: string): Company {
  let found = companies.get(actor);
  if (found === undefined) {
    found = { lists: [], fetched: new Map(), firstFetch: new Map(), fetches: [], marks: [], infos: [], walks: new Map() };
    companies.set(actor, found);
  }
  return found;
}

function pushTo<Value>(map: Map<string, Value[]>, key: string, value: Value): void {
  const values = map.get(key);
  if (values === undefined) map.set(key, [value]);
  else values.push(value);
}

function firstIndexAfter(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] > value) high = middle;
    else low = middle + 1;
  }
  return low;
}

class Findings {
  readonly counts = emptyCounts();
  readonly violations: ExchangeViolation[] = [];
  private readonly kept = emptyCounts();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(rule: ExchangeRule, summary: string, evidence: () => EvidenceEvent[]): void {
    this.counts[rule]++;
    if (this.kept[rule] >= this.limit) return;
    this.kept[rule]++;
    this.violations.push({ rule, summary, evidence: evidence().sort((a, b) => a.invoked - b.invoked) });
  }
}

/** Judges a history: counts and violations per rule, and the delivery times. */
export function checkExchange(input: ExchangeCheckInput): ExchangeCheckResult {
  const { events, asyncTimeoutMs } = input;
  const findings = new Findings(input.evidenceLimit ?? 20);
  const companies = new Map<string, Company>();
  const sends = new Map<string, ExchangeEvent>();
  /** documentId -> the send, for the sender's own reads. */
  const sendsByDocumentId = new Map<string, ExchangeEvent>();
  const statusReads = new Map<string, ExchangeEvent[]>();
  let runEnd = input.runEnd ?? -Infinity;
  for (const event of events) {
    if (input.runEnd === undefined) runEnd = Math.max(runEnd, event.completed);
    const company = companyOf(companies, event.actor);
    switch (event.op) {
      case 'send':
        if (ok(event) && event.erpDocumentId !== undefined && !sends.has(event.erpDocumentId)) {
          sends.set(event.erpDocumentId, event);
          if (event.documentId !== undefined) sendsByDocumentId.set(event.documentId, event);
        }
        break;
      case 'list':
        if (ok(event) && event.ids !== undefined) company.lists.push(event);
        if (event.walk !== undefined) pushTo(company.walks, event.walk, event);
        break;
      case 'fetch':
        if (ok(event) && event.id !== undefined) {
          company.fetches.push(event);
          const known = company.fetched.get(event.id);
          if (known === undefined || (known === null && event.marker !== undefined)) company.fetched.set(event.id, event.marker ?? null);
          if (!company.firstFetch.has(event.id)) company.firstFetch.set(event.id, event);
        }
        break;
      case 'info':
        if (ok(event) && event.id !== undefined) company.infos.push(event);
        break;
      case 'handled':
        if (event.ids !== undefined) company.marks.push(event);
        break;
      case 'status':
        if (ok(event) && event.documentId !== undefined && event.documentStatus !== undefined) {
          const reads = statusReads.get(event.documentId) ?? [];
          reads.push(event);
          statusReads.set(event.documentId, reads);
        }
        break;
    }
  }
  for (const company of companies.values()) {
    company.lists.sort((a, b) => a.invoked - b.invoked);
    for (const walk of company.walks.values()) walk.sort((a, b) => a.invoked - b.invoked);
  }

  const delivery = judgeDelivery({ companies, sends, statusReads, asyncTimeoutMs, runEnd, findings });
  judgeVanished(companies, findings);
  judgeBackAfterHandled(companies, findings);
  judgeMisrouted(companies, sends, sendsByDocumentId, findings);
  judgeDoubled(companies, sends, findings);
  judgeSequenceNos(companies, findings);
  judgeStatuses(statusReads, findings);
  return { events: events.length, ...delivery, counts: findings.counts, violations: findings.violations };
}

interface DeliveryInput {
  companies: Map<string, Company>;
  sends: Map<string, ExchangeEvent>;
  statusReads: Map<string, ExchangeEvent[]>;
  asyncTimeoutMs: number;
  runEnd: number;
  findings: Findings;
}

/** FLOW-04 and the delivery times: which accepted sends arrived, which a whole list proves lost. */
function judgeDelivery(input: DeliveryInput): Pick<ExchangeCheckResult, 'sent' | 'delivered' | 'lost' | 'notJudged' | 'notJudgedReasons' | 'notSubject' | 'deliveryTimes' | 'untimedDeliveries' | 'finalReadDeliveryTimes'> {
  const { companies, sends, statusReads, asyncTimeoutMs, runEnd, findings } = input;
  const notJudgedReasons: Record<string, number> = {};
  const notSubject: Record<string, number> = {};
  const deliveryTimes: Record<string, number[]> = {};
  const finalReadDeliveryTimes: Record<string, number[]> = {};
  const bump = (record: Record<string, number>, reason: string): void => {
    record[reason] = (record[reason] ?? 0) + 1;
  };
  /** Per recipient: the markers its downloads found, with the ids that held each. */
  const foundBy = perRecipient(companies, (company) => {
    const markers = new Map<string, string[]>();
    for (const [id, marker] of company?.fetched ?? []) if (marker !== null) pushTo(markers, marker, id);
    return markers;
  });
  /** Per recipient: the first list (by completion) that showed each id. */
  const firstShownBy = perRecipient(companies, (company) => {
    const shown = new Map<string, ExchangeEvent>();
    for (const list of company?.lists ?? []) for (const id of list.ids ?? []) {
      const earlier = shown.get(id);
      if (earlier === undefined || list.completed < earlier.completed) shown.set(id, list);
    }
    return shown;
  });
  const watchOf = perRecipient(companies, watchedBy);
  const proofsOf = perRecipient(companies, provingLists);
  const walksOf = perRecipient(companies, provingWalks);
  const emptiesOf = perRecipient(companies, (company) => provingLists(company, 'empty'));
  let untimedDeliveries = 0;
  let sent = 0;
  let delivered = 0;
  let lost = 0;
  let notJudged = 0;
  for (const [marker, send] of sends) {
    sent++;
    const recipient = send.recipient;
    const deliveryType = send.deliveryType ?? 'Electronic';
    if (recipient === undefined) {
      bump(notSubject, 'no recipient recorded');
      continue;
    }
    const ids = foundBy(recipient).get(marker);
    if (ids !== undefined) {
      delivered++;
      const shown = ids.map((id) => firstShownBy(recipient).get(id)).filter((list) => list !== undefined).sort((a, b) => a.completed - b.completed)[0];
      if (shown !== undefined) {
        const time = Math.max(0, shown.completed - send.completed);
        if (shown.finalRead === true) {
          (finalReadDeliveryTimes[deliveryType] ??= []).push(time);
          continue;
        }
        // The document came after the last whole list that lacked it was invoked (or after the send).
        const watch = watchOf(recipient);
        const index = firstIndexAfter(watch.completed, shown.invoked) - 1;
        const lacked = Math.max(send.completed, index < 0 ? -Infinity : watch.latestInvoked[index]);
        if (shown.completed - lacked <= Math.max(DELIVERY_TIME_RESOLUTION_MS, time / 10)) (deliveryTimes[deliveryType] ??= []).push(time);
        else untimedDeliveries++;
      }
      continue;
    }
    if (deliveryType !== 'Electronic') {
      bump(notSubject, `delivery ${deliveryType}: not to an incoming list`);
      continue;
    }
    if (!companies.has(recipient)) {
      bump(notSubject, 'recipient not a company of the run');
      continue;
    }
    const failed = send.documentId === undefined ? undefined : statusReads.get(send.documentId)?.find((read) => FAILED_STATUSES.has(read.documentStatus ?? ''));
    if (failed !== undefined) {
      bump(notSubject, `the document reached ${failed.documentStatus}`);
      continue;
    }
    const due = send.completed + asyncTimeoutMs;
    const proof = proofsOf(recipient);
    const index = firstIndexAfter(proof.invoked, due);
    if (index < proof.lists.length) {
      lost++;
      const list = proof.lists[index];
      findings.add('FLOW-04', `${send.actor} sent ${marker} (DocumentId ${send.documentId ?? 'not recorded'}) to ${recipient}; a whole list of ${recipient}${list.finalRead === true ? ' (the final read)' : ''} invoked ${list.invoked - send.completed} ms after the send completed (async timeout ${asyncTimeoutMs} ms) lacked it, and no download of ${recipient} found it`, () => [evidenceOf(send), evidenceOf(list, new Set())]);
      continue;
    }
    // Lists whose Total counts more than they show: the final read's walk of every page, taken together (issue 58).
    const walk = walksOf(recipient).find((lists) => lists[0].invoked > due);
    if (walk !== undefined) {
      lost++;
      const last = walk[walk.length - 1];
      const shown = new Set(walk.flatMap((list) => list.ids ?? [])).size;
      findings.add('FLOW-04', `${send.actor} sent ${marker} (DocumentId ${send.documentId ?? 'not recorded'}) to ${recipient}; the final read's walk of ${recipient}'s list with sequenceNo, ${walk.length} ${walk.length === 1 ? 'answer' : 'answers'} from sequenceNo ${walk[0].sequenceNo ?? 0} to an answer that showed nothing further, invoked ${walk[0].invoked - send.completed} ms after the send completed (async timeout ${asyncTimeoutMs} ms), showed ${shown} documents${last.total === undefined ? '' : ` (its last answer's Total ${last.total})`}, each downloaded, none of them it`, () => [evidenceOf(send), ...walkEvidence(walk)]);
      continue;
    }
    const empties = emptiesOf(recipient);
    const emptyIndex = firstIndexAfter(empties.invoked, due);
    if (emptyIndex < empties.lists.length) {
      lost++;
      const empty = empties.lists[emptyIndex];
      findings.add('FLOW-04', `${send.actor} sent ${marker} (DocumentId ${send.documentId ?? 'not recorded'}) to ${recipient}; a list of ${recipient} without sequenceNo${empty.finalRead === true ? ' (the final read)' : ''}, invoked ${empty.invoked - send.completed} ms after the send completed (async timeout ${asyncTimeoutMs} ms), showed no document at all (Total ${empty.total ?? 'absent'}), and a document not marked handled stays in that list (rule 1)`, () => [evidenceOf(send), evidenceOf(empty, new Set())]);
      continue;
    }
    notJudged++;
    bump(notJudgedReasons, due >= runEnd ? 'the run ended before the async timeout ran out' : whyNoProof(companies.get(recipient), due));
  }
  for (const samples of [...Object.values(deliveryTimes), ...Object.values(finalReadDeliveryTimes)]) samples.sort((a, b) => a - b);
  return { sent, delivered, lost, notJudged, notJudgedReasons, notSubject, deliveryTimes, untimedDeliveries, finalReadDeliveryTimes };
}

/** Why no list of the recipient invoked after `due` proves an absence: what the user can look at. */
function whyNoProof(company: Company | undefined, due: number): string {
  const after = (company?.lists ?? []).filter((list) => list.invoked > due && (list.sequenceNo === undefined || list.sequenceNo <= 0));
  if (after.length === 0) return 'no list of the recipient (without sequenceNo or from 0) after the async timeout ran out';
  const whole = after.filter((list) => list.total !== undefined && list.total <= (list.ids ?? []).length);
  if (whole.length === 0) {
    // The final read walked the list to settle it (issue 58): say why its walk is no proof.
    const walks = [...(company?.walks.values() ?? [])].filter((walk) => walk[0].invoked > due);
    const end = walks.map((walk) => walk.find((list) => list.walkEnd !== undefined)?.walkEnd).find((reason) => reason !== undefined && reason !== 'complete');
    if (end !== undefined) return `the recipient's lists after the async timeout were paged (Total above the entries listed), and the final read's walk of the list with sequenceNo could not be completed: ${end}`;
    if (walks.length > 0) return "the recipient's lists after the async timeout were paged (Total above the entries listed), and the final read's walk of the list with sequenceNo had an entry not downloaded";
    return "the recipient's lists after the async timeout were paged (Total above the entries listed), and a paged answer proves no absence";
  }
  return 'no whole list of the recipient after the async timeout had every entry downloaded';
}

/**
 * The final read's walks of a company's list with sequenceNo that prove an absence (issue 58), by
 * invocation: complete (its last answer empty or whole, every answer in SequenceNo order or whole,
 * each from the highest SequenceNo of the one before: lib's final read stops a walk that is not so,
 * with its reason), every answer 2xx, and every entry downloaded. The handled flag is ignored with
 * sequenceNo (rule 2), so no mark can have taken a document out of them.
 */
function provingWalks(company: Company | undefined): ExchangeEvent[][] {
  if (company === undefined) return [];
  return [...company.walks.values()]
    .filter((walk) => walk.some((list) => list.walkEnd === 'complete') && walk.every((list) => ok(list) && (list.ids ?? []).every((id) => company.fetched.has(id))))
    .sort((a, b) => a[0].invoked - b[0].invoked);
}

/** A walk as evidence: its first answers and its last, each with the count it listed. */
function walkEvidence(walk: readonly ExchangeEvent[]): EvidenceEvent[] {
  const kept = walk.length <= WALK_EVIDENCE ? walk : [...walk.slice(0, WALK_EVIDENCE - 1), walk[walk.length - 1]];
  return kept.map((list) => evidenceOf(list, new Set()));
}

/** Answers of a walk kept as a loss's evidence; the summary gives how many it had. */
const WALK_EVIDENCE = 6;

/** What `compute` makes of a company, made once per company when first asked for. */
function perRecipient<T>(companies: Map<string, Company>, compute: (company: Company | undefined) => T): (actor: string) => T {
  const made = new Map<string, T>();
  return (actor) => {
    if (!made.has(actor)) made.set(actor, compute(companies.get(actor)));
    return made.get(actor) as T;
  };
}

/** A company's whole lists (no sequenceNo, or one of 0) by completion, with the latest invocation among those completed so far. */
interface Watch {
  completed: number[];
  latestInvoked: number[];
}

function watchedBy(company: Company | undefined): Watch {
  const lists = (company?.lists ?? [])
    .filter((list) => list.total !== undefined && list.total <= (list.ids ?? []).length && (list.sequenceNo === undefined || list.sequenceNo <= 0))
    .sort((a, b) => a.completed - b.completed);
  const latestInvoked: number[] = [];
  for (const list of lists) latestInvoked.push(Math.max(list.invoked, latestInvoked.at(-1) ?? -Infinity));
  return { completed: lists.map((list) => list.completed), latestInvoked };
}

/**
 * The lists of a company that prove an absence: whole, listing everything (no sequenceNo, or one
 * of 0 or less), each entry downloaded; a list without sequenceNo only while no id the company
 * marked is one it never downloaded (that document could be the one missing, gone because marked).
 * With `empty`, the others that prove it too (issue 58): an empty list without sequenceNo whose
 * Total is above 0 or absent. A document not marked stays in that list (rule 1), and no reading of
 * paging makes a list's first page empty while the list holds a document (a Total that counts
 * handled documents too leaves no page out).
 */
function provingLists(company: Company | undefined, empty: 'whole' | 'empty' = 'whole'): { invoked: number[]; lists: ExchangeEvent[] } {
  if (company === undefined) return { invoked: [], lists: [] };
  let unknownMarkInvoked = Infinity;
  for (const mark of company.marks) if ((mark.ids ?? []).some((id) => !company.fetched.has(id))) unknownMarkInvoked = Math.min(unknownMarkInvoked, mark.invoked);
  const lists = company.lists.filter((list) => {
    const ids = list.ids ?? [];
    const whole = list.total !== undefined && list.total <= ids.length;
    if (empty === 'empty' ? whole || ids.length > 0 || list.sequenceNo !== undefined : !whole) return false;
    if (list.sequenceNo !== undefined && list.sequenceNo > 0) return false;
    if (list.sequenceNo === undefined && list.completed >= unknownMarkInvoked) return false;
    return ids.every((id) => company.fetched.has(id));
  });
  return { invoked: lists.map((list) => list.invoked), lists };
}

/**
 * INB-05: a document a list without sequenceNo showed is missing from a later whole list without
 * sequenceNo (invoked after the showing one completed), and no mark of its id was invoked before
 * that later list completed. A sweep over the lists in order of invocation, holding the documents
 * shown and not yet marked.
 */
function judgeVanished(companies: Map<string, Company>, findings: Findings): void {
  // Any company's mark counts: a mark that should not have taken effect is not this rule's to judge.
  const markInvoked = new Map<string, ExchangeEvent>();
  for (const company of companies.values()) for (const mark of company.marks) for (const id of mark.ids ?? []) {
    const earlier = markInvoked.get(id);
    if (earlier === undefined || mark.invoked < earlier.invoked) markInvoked.set(id, mark);
  }
  for (const [actor, company] of companies) {
    const plain = company.lists.filter((list) => list.sequenceNo === undefined);
    if (plain.length < 2) continue;
    const firstShow = new Map<string, ExchangeEvent>();
    for (const list of plain) for (const id of list.ids ?? []) {
      const earlier = firstShow.get(id);
      if (earlier === undefined || list.completed < earlier.completed) firstShow.set(id, list);
    }
    const arrivals = [...firstShow.entries()].sort((a, b) => a[1].completed - b[1].completed);
    let next = 0;
    const held = new Set<string>();
    for (const list of plain) {
      if (list.total === undefined || list.total > (list.ids ?? []).length) continue;
      while (next < arrivals.length && arrivals[next][1].completed < list.invoked) held.add(arrivals[next++][0]);
      if (held.size === 0) continue;
      // A few documents held against a short answer: a scan costs less than a set (most lists).
      const ids = list.ids ?? [];
      const listed: { has(id: string): boolean } = held.size * ids.length <= 64 ? { has: (id) => ids.includes(id) } : new Set(ids);
      for (const id of held) {
        const mark = markInvoked.get(id);
        if (mark !== undefined && mark.invoked < list.invoked) {
          held.delete(id);
          continue;
        }
        if (listed.has(id) || (mark !== undefined && mark.invoked <= list.completed)) continue;
        held.delete(id);
        const shown = firstShow.get(id) as ExchangeEvent;
        findings.add('INB-05', `${actor}'s list without sequenceNo showed ${id}; a whole list without sequenceNo invoked ${list.invoked - shown.completed} ms after that answer lacked it, and no mark of ${id} was invoked before it completed`, () => [evidenceOf(shown, new Set([id])), evidenceOf(list, new Set())]);
      }
    }
  }
}

/**
 * INB-07 (rule 3): once a mark of an id completed and a download of it was invoked after that, a
 * list without sequenceNo invoked after the download completed does not show the id.
 */
function judgeBackAfterHandled(companies: Map<string, Company>, findings: Findings): void {
  for (const [actor, company] of companies) {
    const firstMark = new Map<string, ExchangeEvent>();
    for (const mark of company.marks) {
      if (!ok(mark)) continue;
      for (const id of mark.ids ?? []) {
        const earlier = firstMark.get(id);
        if (earlier === undefined || mark.completed < earlier.completed) firstMark.set(id, mark);
      }
    }
    if (firstMark.size === 0) continue;
    const fetchedAfter = new Map<string, ExchangeEvent>();
    for (const fetch of company.fetches) {
      const mark = firstMark.get(fetch.id as string);
      if (mark === undefined || fetch.invoked <= mark.completed) continue;
      const earlier = fetchedAfter.get(fetch.id as string);
      if (earlier === undefined || fetch.completed < earlier.completed) fetchedAfter.set(fetch.id as string, fetch);
    }
    const reported = new Set<string>();
    for (const list of company.lists) {
      if (list.sequenceNo !== undefined) continue;
      for (const id of list.ids ?? []) {
        const fetch = fetchedAfter.get(id);
        if (fetch === undefined || list.invoked <= fetch.completed || reported.has(id)) continue;
        reported.add(id);
        const mark = firstMark.get(id) as ExchangeEvent;
        findings.add('INB-07', `${actor} marked ${id} handled and downloaded it afterwards; a list without sequenceNo invoked ${list.invoked - fetch.completed} ms after that download completed still showed it`, () => [evidenceOf(mark, new Set([id])), evidenceOf(fetch), evidenceOf(list, new Set([id]))]);
      }
    }
  }
}

/**
 * INB-18, INB-20, INB-21: a document shown to, downloaded by or read by a company other than its
 * recipient (the sender may download and read what it sent; its incoming list may not show it).
 * A document is tied to its send by a download's marker, or, for a company nothing was sent to
 * or for another company's download or info of an id it never listed, by the recipient's own
 * download of that id.
 */
function judgeMisrouted(companies: Map<string, Company>, sends: Map<string, ExchangeEvent>, sendsByDocumentId: Map<string, ExchangeEvent>, findings: Findings): void {
  /** id -> the companies whose incoming list showed it, and the marker of their download of it. */
  const owners = new Map<string, Array<{ actor: string; marker: string | null | undefined }>>();
  for (const [actor, company] of companies) {
    for (const list of company.lists) for (const id of list.ids ?? []) {
      const entries = owners.get(id);
      if (entries === undefined) owners.set(id, [{ actor, marker: company.fetched.get(id) }]);
      else if (!entries.some((entry) => entry.actor === actor)) entries.push({ actor, marker: company.fetched.get(id) });
    }
  }
  const foreignSend = (actor: string, marker: string | null | undefined): ExchangeEvent | undefined => {
    if (marker === undefined || marker === null) return undefined;
    const send = sends.get(marker);
    return send !== undefined && send.recipient !== undefined && send.recipient !== actor ? send : undefined;
  };
  /** The rightful owner of an id another company called: a company that listed it and whose download holds a marker sent to it. */
  const ownerElsewhere = (actor: string, id: string): { actor: string; send?: ExchangeEvent } | undefined => {
    const entries = owners.get(id) ?? [];
    if (entries.some((entry) => entry.actor === actor)) return undefined;
    for (const entry of entries) {
      const send = entry.marker === undefined || entry.marker === null ? undefined : sends.get(entry.marker);
      if (send !== undefined && send.recipient === entry.actor) return { actor: entry.actor, send };
    }
    return entries.length > 0 ? { actor: entries[0].actor } : undefined;
  };
  const recipients = new Set<string>();
  for (const send of sends.values()) if (send.recipient !== undefined) recipients.add(send.recipient);
  const isSender = (actor: string, id: string, send: ExchangeEvent | undefined): boolean =>
    send?.actor === actor || sendsByDocumentId.get(id)?.actor === actor;
  for (const [actor, company] of companies) {
    const reportedLists = new Set<string>();
    for (const list of company.lists) for (const id of list.ids ?? []) {
      if (reportedLists.has(id)) continue;
      const own = company.fetched.get(id);
      let send = foreignSend(actor, own);
      let owner = send?.recipient;
      if (send === undefined && own === undefined && !recipients.has(actor)) {
        // Not downloaded by a company nothing was sent to (the third company): tied by the
        // recipient's download. Not for a recipient: whether two companies' inbound Ids can
        // coincide is not shown, and a recipient's own Id 5 is not another's Id 5.
        for (const entry of owners.get(id) ?? []) {
          const candidate = entry.actor === actor ? undefined : foreignSend(actor, entry.marker);
          if (candidate !== undefined && candidate.recipient === entry.actor) {
            send = candidate;
            owner = entry.actor;
            break;
          }
        }
      }
      if (send === undefined) continue;
      reportedLists.add(id);
      const sendEvent = send;
      findings.add('INB-18', `${actor}'s incoming list showed ${id}, the invoice ${sendEvent.erpDocumentId} that ${sendEvent.actor} sent to ${owner}`, () => [evidenceOf(sendEvent), evidenceOf(list, new Set([id])), ...(company.firstFetch.has(id) ? [evidenceOf(company.firstFetch.get(id) as ExchangeEvent)] : [])]);
    }
    const reportedFetches = new Set<string>();
    for (const fetch of company.fetches) {
      const id = fetch.id as string;
      if (reportedFetches.has(id)) continue;
      const send = foreignSend(actor, fetch.marker);
      if (send !== undefined) {
        if (send.actor === actor) continue;
        reportedFetches.add(id);
        findings.add('INB-20', `${actor} downloaded ${id}, which holds the invoice ${send.erpDocumentId} that ${send.actor} sent to ${send.recipient}`, () => [evidenceOf(send), evidenceOf(fetch)]);
        continue;
      }
      if (fetch.marker !== undefined) continue;
      const owner = ownerElsewhere(actor, id);
      if (owner === undefined || isSender(actor, id, owner.send)) continue;
      reportedFetches.add(id);
      findings.add('INB-20', `${actor} downloaded ${id} (answered ${fetch.status}), a document of ${owner.actor}'s incoming list that ${actor} never listed`, () => [...(owner.send === undefined ? [] : [evidenceOf(owner.send)]), evidenceOf(fetch)]);
    }
    const reportedInfos = new Set<string>();
    for (const info of company.infos) {
      const id = info.id as string;
      if (reportedInfos.has(id)) continue;
      const own = company.fetched.get(id);
      const ownSend = foreignSend(actor, own);
      const owner = ownSend !== undefined ? { actor: ownSend.recipient as string, send: ownSend } : own === undefined ? ownerElsewhere(actor, id) : undefined;
      if (owner === undefined || isSender(actor, id, owner.send)) continue;
      reportedInfos.add(id);
      findings.add('INB-21', `${actor} read the info of ${id} (answered ${info.status}), a document of ${owner.actor}'s incoming list${owner.send === undefined ? '' : ` (the invoice ${owner.send.erpDocumentId} from ${owner.send.actor})`}`, () => [...(owner.send === undefined ? [] : [evidenceOf(owner.send)]), evidenceOf(info)]);
    }
  }
}

/** XCH-01: one send downloaded by its recipient under two inbound ids (delivered twice); XCH-02: one id twice in one list answer. */
function judgeDoubled(companies: Map<string, Company>, sends: Map<string, ExchangeEvent>, findings: Findings): void {
  for (const [actor, company] of companies) {
    const byMarker = new Map<string, string[]>();
    for (const [id, marker] of company.fetched) if (marker !== null) pushTo(byMarker, marker, id);
    for (const [marker, ids] of byMarker) {
      const send = sends.get(marker);
      if (ids.length < 2 || send === undefined || send.recipient !== actor) continue;
      findings.add('XCH-01', `${actor} received the invoice ${marker} from ${send.actor} as ${ids.length} documents: ${ids.join(', ')}`, () => [evidenceOf(send), ...ids.slice(0, 2).map((id) => evidenceOf(company.firstFetch.get(id) as ExchangeEvent))]);
    }
    for (const list of company.lists) {
      const ids = list.ids ?? [];
      const seen = new Set<string>();
      const twice = new Set<string>();
      for (const id of ids) (seen.has(id) ? twice : seen).add(id);
      if (twice.size === 0) continue;
      findings.add('XCH-02', `one answer of ${actor}'s incoming list${list.sequenceNo === undefined ? '' : ` (sequenceNo ${list.sequenceNo})`} showed ${[...twice].join(', ')} more than once`, () => [evidenceOf(list, twice)]);
    }
  }
}

/** XCH-03: two ids with one SequenceNo; XCH-04: one id with two SequenceNos (in one company's lists). */
function judgeSequenceNos(companies: Map<string, Company>, findings: Findings): void {
  for (const [actor, company] of companies) {
    const idOf = new Map<number, { id: string; list: ExchangeEvent }>();
    const sequenceNoOf = new Map<string, { sequenceNo: number; list: ExchangeEvent }>();
    const reportedNumbers = new Set<number>();
    const reportedIds = new Set<string>();
    for (const list of company.lists) {
      const ids = list.ids ?? [];
      list.sequenceNos?.forEach((sequenceNo, index) => {
        if (sequenceNo === null || index >= ids.length) return;
        const id = ids[index];
        const holder = idOf.get(sequenceNo);
        if (holder === undefined) idOf.set(sequenceNo, { id, list });
        else if (holder.id !== id && !reportedNumbers.has(sequenceNo)) {
          reportedNumbers.add(sequenceNo);
          findings.add('XCH-03', `${actor}'s incoming list gave SequenceNo ${sequenceNo} to two documents: ${holder.id} and ${id}`, () => holder.list === list ? [evidenceOf(list, new Set([holder.id, id]))] : [evidenceOf(holder.list, new Set([holder.id])), evidenceOf(list, new Set([id]))]);
        }
        const number = sequenceNoOf.get(id);
        if (number === undefined) sequenceNoOf.set(id, { sequenceNo, list });
        else if (number.sequenceNo !== sequenceNo && !reportedIds.has(id)) {
          reportedIds.add(id);
          findings.add('XCH-04', `${actor}'s incoming list gave ${id} SequenceNo ${number.sequenceNo}, then ${sequenceNo}`, () => [evidenceOf(number.list, new Set([id])), evidenceOf(list, new Set([id]))]);
        }
      });
    }
  }
}

/**
 * XCH-05: a status read invoked after another read of the same document completed shows an earlier
 * status of the delivery's order (Delivered, then Sent; Sent, then Pending). Transitions are not
 * shown, so this is an observation.
 */
function judgeStatuses(statusReads: Map<string, ExchangeEvent[]>, findings: Findings): void {
  for (const [documentId, reads] of statusReads) {
    const ranked = reads.filter((read) => STATUS_ORDER.includes(read.documentStatus as string));
    if (ranked.length < 2 || ranked.every((read) => read.documentStatus === ranked[0].documentStatus)) continue;
    const rank = (read: ExchangeEvent): number => STATUS_ORDER.indexOf(read.documentStatus as string);
    const byCompleted = [...ranked].sort((a, b) => a.completed - b.completed);
    const byInvoked = [...ranked].sort((a, b) => a.invoked - b.invoked);
    let pointer = 0;
    let highest: ExchangeEvent | undefined;
    for (const read of byInvoked) {
      while (pointer < byCompleted.length && byCompleted[pointer].completed < read.invoked) {
        const candidate = byCompleted[pointer++];
        if (highest === undefined || rank(candidate) > rank(highest)) highest = candidate;
      }
      if (highest === undefined || rank(read) >= rank(highest)) continue;
      const earlier = highest;
      findings.add('XCH-05', `the status of ${documentId} read ${earlier.documentStatus}, then, in a read invoked after that one completed, ${read.documentStatus}`, () => [evidenceOf(earlier), evidenceOf(read)]);
      break;
    }
  }
}
