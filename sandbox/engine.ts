// The background work that the spec describes as asynchronous: registration, service activation,
// deletion and the progress of sent documents. Each step waits stepDelayMs; every timer is
// tracked so that close() cancels them all and the process can exit.
import type { Company, OutboundDocument, Store, StoredError } from './store.ts';
import { normaliseOrgNo } from './store.ts';
import { inspectXml } from './xml.ts';

/** Root elements (local names) that the sandbox converts, and the DocumentType each gives. */
const DOCUMENT_TYPES: Record<string, string> = {
  Invoice: 'Invoice',
  CreditNote: 'CreditNote',
  Order: 'Order',
  OrderResponse: 'OrderResponse',
  OrderChange: 'OrderChange',
  OrderCancellation: 'OrderCancellation',
  DespatchAdvice: 'DespatchAdvice',
};

export type Classification = { DocumentType: string } | { Error: StoredError };

function conversionError(key: StoredError['Key'], params: StoredError['Params'] = {}): Classification {
  return { Error: { Key: key, Params: params, Status: 'ConversionFailed', MoreInfoUri: null } };
}

/** What the conversion makes of a document's bytes: its type, or why it cannot be converted. */
export function classifyDocument(bytes: Buffer | undefined): Classification {
  if (bytes === undefined) return conversionError('documentsEvicted');
  let text = bytes.subarray(0, 4).toString('latin1') === '%PDF' ? '%PDF' : bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trimStart();
  if (trimmed.startsWith('%PDF')) return { DocumentType: 'Invoice' };
  if (!trimmed.startsWith('<')) return conversionError('conversionUnknownFormat');
  const inspection = inspectXml(trimmed);
  if ('error' in inspection) return conversionError('conversionNotWellFormed', { detail: inspection.error });
  const type = DOCUMENT_TYPES[inspection.root];
  return type === undefined ? conversionError('conversionUnknownType', { value: inspection.root }) : { DocumentType: type };
}

export interface EngineOptions {
  stepDelayMs: number;
  /** skip-statuses variant: Pending goes straight to Sent. */
  skipIntermediateStatuses: boolean;
  /** statuses-no-conversion variant: Pending, PendingInPlatform, Sent, Delivered. */
  skipConversionStatuses?: boolean;
  faults: ReadonlySet<string>;
  /** inbound-id-is-document-id: an inbox entry keeps the DocumentId of the send that made it. */
  inboundIdIsDocumentId?: boolean;
  /** final-sent-for-pdf-paper variant: a PDF or paper document ends in Sent, never Delivered. */
  finalSentForPdfPaper?: boolean;
  /** steps-<N> timing variant: each state takes N steps, and a registration shows Processing on its way. */
  stepsPerState?: number;
}

function routingKey(value: string): string {
  return value.trim().toLowerCase();
}

export class Engine {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private readonly store: Store;
  private readonly options: EngineOptions;
  /** Electronic deliveries so far: the faults that strike one delivery in ten count them. */
  private deliveries = 0;

  constructor(store: Store, options: EngineOptions) {
    this.store = store;
    this.options = options;
  }

  get stepDelayMs(): number {
    return this.options.stepDelayMs;
  }

  /** How many steps of stepDelayMs one state of the background work takes (steps-<N>). */
  private get stepsPerState(): number {
    return this.options.stepsPerState ?? 1;
  }

  /** Runs work after the given number of states (each stepsPerState steps), unless the engine is closed by then. */
  after(states: number, work: () => void): void {
    this.afterSteps(states * this.stepsPerState, work);
  }

  private afterSteps(steps: number, work: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) work();
    }, this.options.stepDelayMs * steps);
    this.timers.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  registerCompany(company: Company): void {
    if (this.options.faults.has('never-registered')) return;
    // Work taking several steps shows it is under way: Processing, a status the spec leaves open.
    if (this.stepsPerState > 1) this.afterSteps(1, () => {
      if (company.Status === 'Pending') company.Status = 'Processing';
    });
    this.after(1, () => {
      if (company.Status === 'Pending' || company.Status === 'Processing') company.Status = 'Registered';
    });
  }

  activateServices(company: Company, searchId: string | undefined, processes: string[] | undefined): void {
    this.after(1, () => {
      if (company.Status === 'Deleted') return;
      company.Activated = true;
      if (searchId !== undefined) company.SearchId = searchId;
      if (processes !== undefined) company.Fields.Processes = processes;
    });
  }

  deleteCompany(company: Company | undefined): void {
    if (company === undefined) return;
    this.after(1, () => this.store.deleteCompany(company));
  }

  sendDocument(document: OutboundDocument): void {
    const classification = classifyDocument(this.store.uploads.get(document.UploadId)?.Bytes);
    const steps: Array<() => boolean> = [];
    const setStatus = (status: string) => {
      document.StatusHistory.push({ Status: status, Time: Date.now() });
      document.UpdatedAt = Date.now();
    };
    const checksPassed = () => {
      if ('DocumentType' in classification) document.DocumentType = classification.DocumentType;
    };
    const fail = () => {
      if ('Error' in classification) document.Error = classification.Error;
      setStatus('ConversionFailed');
      return false;
    };
    if (this.options.skipIntermediateStatuses) {
      steps.push(() => {
        checksPassed();
        if ('Error' in classification) return fail();
        this.route(document);
        setStatus('Sent');
        return true;
      });
    } else {
      steps.push(() => {
        checksPassed();
        setStatus('PendingInPlatform');
        return true;
      });
      if (this.options.skipConversionStatuses === true) {
        steps.push(() => ('Error' in classification ? fail() : true));
      } else {
        steps.push(() => (setStatus('Converting'), true));
        steps.push(() => {
          if ('Error' in classification) return fail();
          setStatus('ConversionComplete');
          return true;
        });
      }
      steps.push(() => {
        this.route(document);
        setStatus('Sent');
        return true;
      });
    }
    // Whether e-mail and post report a delivery is not shown: with final-sent-for-pdf-paper they do not.
    const endsInSent = this.options.finalSentForPdfPaper === true && (document.SendType === 'PDF' || document.SendType === 'Paper');
    if (!endsInSent) steps.push(() => (setStatus('Delivered'), true));
    // Sent may be a document's last status (transitions are not shown); never leaving Pending is
    // what no reading allows: "The document passes through several statuses".
    if (this.options.faults.has('stays-pending')) return;
    const run = (index: number) => {
      this.after(1, () => {
        // Offboarding provider A stops the document; a forgotten record needs no more work.
        if (document.StatusHistory[document.StatusHistory.length - 1].Status === 'Stopped') return;
        if (!this.store.outbound.has(document.Id)) return;
        if (steps[index]() && index + 1 < steps.length) run(index + 1);
      });
    };
    run(0);
  }

  /** An Electronic send to a company of the sandbox lands in that company's inbox. */
  private route(document: OutboundDocument): void {
    if (document.SendType !== 'Electronic' || document.RecipientKeys.length === 0) return;
    if (this.options.faults.has('inbox-never-receives')) return;
    const recipient = this.findRecipient(document.RecipientKeys);
    if (recipient === undefined) return;
    const faults = this.options.faults;
    const tenth = ++this.deliveries % 10 === 0;
    const deliver = () => {
      const inbound = this.store.addInbound(recipient, {
        DocumentType: document.DocumentType,
        DocumentFormat: document.DocumentFormat,
        UploadId: document.UploadId,
        RenderedDocumentFormat: document.RenderedDocumentFormat,
        RenderedUploadId: document.RenderedUploadId,
        AttachmentUploadIds: document.AttachmentUploadIds,
        SourceDocumentId: document.Id,
      }, this.options.inboundIdIsDocumentId === true && !this.store.inbound.has(document.Id) ? document.Id : undefined);
      // inbound-sequenceno-repeated: each second document of a company takes the SequenceNo of the one before.
      if (faults.has('inbound-sequenceno-repeated') && inbound.SequenceNo % 2 === 0) inbound.SequenceNo -= 1;
      // inbound-list-lossy: one delivery in ten is stored but never listed.
      if (faults.has('inbound-list-lossy') && tenth) inbound.Unlisted = true;
      // inbound-list-lossy-total: the same, while Total still counts it.
      if (faults.has('inbound-list-lossy-total') && tenth) inbound.Unlisted = 'counted';
    };
    deliver();
    // inbound-delivered-twice: one send in ten arrives as two inbound documents.
    if (faults.has('inbound-delivered-twice') && tenth) deliver();
  }

  findRecipient(keys: string[]): Company | undefined {
    const wanted = new Set(keys.map(routingKey));
    const wantedOrgNos = new Set(keys.map(normaliseOrgNo).filter((key) => key.length > 0));
    for (const company of this.store.liveCompanies()) {
      const fields = company.Fields;
      const candidates = [company.CompanyId, fields.GLN, fields.VatNo, ...company.Identifiers.map((identifier) => identifier.Value)];
      if (candidates.some((candidate) => candidate !== undefined && wanted.has(routingKey(candidate)))) return company;
      if (fields.OrgNo !== undefined && wantedOrgNos.has(normaliseOrgNo(fields.OrgNo))) return company;
      for (const identifier of company.Identifiers) {
        if (identifier.Type === 'PeppolParticipantIdentifier' && wanted.has(routingKey(identifier.Value))) return company;
      }
    }
    return undefined;
  }
}
