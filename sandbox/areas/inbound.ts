// The inbox: list (with and without sequenceNo), download with its metadata headers, info, the
// rendered document and attachments, and marking documents as handled.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireClientToken } from '../auth.ts';
import { apiUrl, hasFault, hasVariant, sendBody, type AreaOptions, type SandboxContext } from '../context.ts';
import { API_PREFIX } from '../../lib/defaults.ts';
import { foreignOrNotFound } from './companies.ts';
import { badRequest, notFound } from '../errors.ts';
import type { Company, InboundDocument } from '../store.ts';
import { sendFile } from './outbound.ts';
import { unsetReading, withUnset } from '../views.ts';
import { allowedValue, bodyOf, optionalStringArray, queryValue } from '../validate.ts';

/** Values of the type query and the DocumentTypes each covers (credit notes count as invoices). */
const INBOX_TYPES: Record<string, string[]> = {
  invoice: ['Invoice', 'CreditNote'],
  creditnote: ['CreditNote'],
  order: ['Order'],
  orderresponse: ['OrderResponse'],
  despatchadvice: ['DespatchAdvice'],
  all: [],
};
/** Documents per list answer; Total still counts them all. */
const MAX_LISTED = 500;
/** inbound-page-2: a page that small, so a test finds a document only the way a paged target lets it. */
const PAGE_2_LISTED = 2;

/** handled-comes-back: the lists without sequenceNo each company made, so that every other one shows its handled documents again. */
const listsWithoutSequenceNo = new WeakMap<Company, number>();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function ownInbound(context: SandboxContext, request: FastifyRequest<{ Params: { id: string } }>): InboundDocument {
  // inbound-malformed-id-400: an id that cannot be a document id is a bad request rather than not found.
  if (hasVariant(context, 'inbound-malformed-id-400') && !UUID.test(request.params.id)) throw badRequest('fieldInvalid', { field: 'id', detail: 'expected a uuid' });
  const document = context.store.inbound.get(request.params.id.toLowerCase());
  // inbound-read-after-handled: once its recipient marked it, any company reads the document.
  const leaked = hasFault(context, 'inbound-read-any-company') || (hasFault(context, 'inbound-read-after-handled') && document?.Handled === true);
  // inbound-served-unauthenticated: a call with no credential reaches any document.
  const open = request.auth.company === undefined && hasFault(context, 'inbound-served-unauthenticated');
  const foreign = document !== undefined && !open && document.CompanyId !== (request.auth.company as Company).CompanyId && !leaked;
  // Another company's document is answered as not found, like an id that does not exist.
  if (document === undefined || foreign) throw foreignOrNotFound(context, foreign, `document ${request.params.id}`);
  return document;
}

/** A URL of the inbox: absolute, or a path with the inbound-urls-relative variant. */
function inboxUrl(context: SandboxContext, request: FastifyRequest, path: string): string {
  return hasVariant(context, 'inbound-urls-relative') ? `${API_PREFIX}${path}` : apiUrl(request, path);
}

function uploadOf(context: SandboxContext, id: string | undefined, what: string) {
  const upload = id === undefined ? undefined : context.store.uploads.get(id);
  if (upload === undefined) throw notFound(what);
  return upload;
}

/**
 * The company's inbox, and with the isolation faults the other companies' documents that leak into
 * it: those of which it is not the sender (inbox-leak-to-third-company), or those their recipient
 * has marked handled (inbox-leak-after-handled). Neither shows in the list of the document's sender
 * at the moment of delivery, which is all a single read of one list sees.
 */
function withLeaks(context: SandboxContext, company: Company): string[] {
  const toThird = hasFault(context, 'inbox-leak-to-third-company');
  const afterHandled = hasFault(context, 'inbox-leak-after-handled');
  if (!toThird && !afterHandled) return company.Inbox;
  const leaked: string[] = [];
  for (const document of context.store.inbound.values()) {
    if (document.CompanyId === company.CompanyId) continue;
    const sender = context.store.outbound.get(document.SourceDocumentId)?.CompanyId;
    if ((toThird && sender !== company.CompanyId) || (afterHandled && document.Handled)) leaked.push(document.Id);
  }
  return [...company.Inbox, ...leaked];
}

export async function inboundArea(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const { store } = context;
  const clientToken = { preHandler: requireClientToken(context) };
  const servedOpen = hasFault(context, 'inbound-served-unauthenticated');
  const documentAuth = requireClientToken(context);
  const document: typeof clientToken = {
    preHandler: (request, reply, done) => {
      if (!servedOpen || request.headers.clienttoken !== undefined || request.headers.apikey !== undefined) return documentAuth(request, reply, done);
      request.auth = {};
      done();
    },
  };

  app.get('/documents/incoming', clientToken, async (request, reply) => {
    const typeValue = queryValue(request.query, 'type');
    if ((typeValue === undefined || typeValue === '') && hasVariant(context, 'inbound-type-required')) throw badRequest('queryInvalid', { field: 'type', detail: 'required, such as invoice' });
    const unknownType = typeValue !== undefined && !(typeValue.toLowerCase() in INBOX_TYPES) && hasVariant(context, 'inbound-type-unknown-empty');
    const types = typeValue === undefined || typeValue === '' || unknownType ? [] : INBOX_TYPES[allowedValue(typeValue, Object.keys(INBOX_TYPES), 'type')];
    const sequenceText = queryValue(request.query, 'sequenceNo');
    let after: number | undefined;
    if (sequenceText !== undefined) {
      if (!/^\d{1,15}$/.test(sequenceText)) throw badRequest('queryInvalid', { field: 'sequenceNo', detail: 'expected a non-negative integer' });
      after = Number(sequenceText);
    }
    const company = request.auth.company as Company;
    const documents: Array<Record<string, unknown>> = [];
    let total = 0;
    const inbox = hasFault(context, 'inbound-list-all-companies') ? [...store.inbound.keys()] : withLeaks(context, company);
    // Oldest first (SequenceNo order), or newest first with the inbound-newest-first variant.
    const ordered = hasVariant(context, 'inbound-newest-first') ? [...inbox].reverse() : inbox;
    // sequenceNo starts the list after it, or at it with the inbound-sequenceno-inclusive variant.
    const first = after === undefined ? undefined : hasVariant(context, 'inbound-sequenceno-inclusive') ? after : after + 1;
    const listedAtMost = hasVariant(context, 'inbound-page-2') ? PAGE_2_LISTED : MAX_LISTED;
    let comesBack = false;
    if (first === undefined && hasFault(context, 'handled-comes-back')) {
      const count = (listsWithoutSequenceNo.get(company) ?? 0) + 1;
      listsWithoutSequenceNo.set(company, count);
      comesBack = count % 2 === 0;
    }
    for (const id of unknownType ? [] : ordered) {
      const document = store.inbound.get(id);
      if (document === undefined || document.Unlisted === true) continue;
      if (types.length > 0 && !types.includes(document.DocumentType)) continue;
      // With sequenceNo the caller tracks documents itself: the handled flag is ignored and only later documents are listed.
      const handled = document.Handled && !hasFault(context, 'handled-ignored') && !(comesBack && document.FetchedAfterHandled === true);
      if (first !== undefined ? document.SequenceNo < first || (document.Handled && hasFault(context, 'sequenceno-ignored')) : handled) continue;
      total++;
      if (documents.length >= listedAtMost || document.Unlisted === 'counted') continue;
      documents.push({
        Id: document.Id,
        DocumentType: document.DocumentType,
        DocumentFormat: document.DocumentFormat,
        InfoUrl: inboxUrl(context, request, `/documents/${document.Id}/info`),
        DownloadUrl: inboxUrl(context, request, `/documents/${document.Id}`),
        SequenceNo: hasFault(context, 'inbound-sequenceno-string') ? String(document.SequenceNo) : document.SequenceNo,
        CompanyId: document.CompanyId,
      });
    }
    // inbound-list-duplicate: the answer shows its first document a second time, at its end.
    if (hasFault(context, 'inbound-list-duplicate') && documents.length > 0) documents.push(documents[0]);
    return sendBody(context, reply, 200, { Total: total, Documents: documents });
  });

  app.get<{ Params: { id: string } }>('/documents/:id', document, async (request, reply) => {
    const document = ownInbound(context, request);
    if (document.Handled) document.FetchedAfterHandled = true;
    if (hasFault(context, 'inbound-download-headers-missing')) {
      const upload = uploadOf(context, document.UploadId, `document ${document.Id}`);
      return reply.code(200).header('content-type', upload.ContentType).send(upload.Bytes);
    }
    const upload = uploadOf(context, document.UploadId, `document ${document.Id}`);
    // The fault: the name's escapes decoded (a browser writes CRLF as %0D%0A) and written raw, so the lines after a CRLF become headers of their own.
    const injected = hasFault(context, 'inbound-filename-header-injection') ? Object.fromEntries(safeDecode(upload.Filename).split('\r\n').slice(1).map((line) => /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line)).filter((match) => match !== null).map((match) => [match[1].toLowerCase(), match[2]])) : {};
    return sendFile(reply, upload, { 'x-document-format': document.DocumentFormat, ...injected });
  });

  // The fault writes the list as one string: a type the spec does not give ("Attachments [string]").
  const attachmentsOf = (urls: string[]) => (hasFault(context, 'info-attachments-string') ? urls.join(',') : urls);
  app.get<{ Params: { id: string } }>('/documents/:id/info', document, async (request, reply) => {
    const document = ownInbound(context, request);
    return sendBody(context, reply, 200, withUnset({
      Id: document.Id,
      DocumentType: document.DocumentType,
      DocumentFormat: document.DocumentFormat,
      DocumentUrl: inboxUrl(context, request, `/documents/${document.Id}`),
      RenderedDocumentFormat: document.RenderedDocumentFormat ?? null,
      RenderedDocumentUrl: document.RenderedUploadId === undefined ? null : inboxUrl(context, request, `/documents/${document.Id}/rendered`),
      Attachments: attachmentsOf(document.AttachmentUploadIds.map((_id, index) => inboxUrl(context, request, `/documents/${document.Id}/attachments/${index}`))),
    }, unsetReading(context.variants), ['Attachments']));
  });

  app.get<{ Params: { id: string } }>('/documents/:id/rendered', clientToken, async (request, reply) => {
    const document = ownInbound(context, request);
    const upload = uploadOf(context, document.RenderedUploadId, `rendered document of ${document.Id}`);
    return sendFile(reply, upload, { 'x-document-format': document.RenderedDocumentFormat ?? upload.ContentType });
  });

  app.get<{ Params: { id: string; index: string } }>('/documents/:id/attachments/:index', clientToken, async (request, reply) => {
    const document = ownInbound(context, request);
    const index = /^\d+$/.test(request.params.index) ? Number(request.params.index) : -1;
    const upload = uploadOf(context, document.AttachmentUploadIds[index], `attachment ${request.params.index} of ${document.Id}`);
    return sendFile(reply, upload, { 'x-document-format': upload.ContentType });
  });

  app.post('/documents/handled', clientToken, async (request, reply) => {
    const ids = optionalStringArray(bodyOf(request), 'Documents', 'documents');
    if (ids === undefined) throw badRequest('fieldRequired', { field: 'documents' });
    const company = request.auth.company as Company;
    const ignoreUnknown = hasVariant(context, 'handled-unknown-ignored');
    const documents: InboundDocument[] = [];
    for (const id of ids) {
      const document = store.inbound.get(id.toLowerCase());
      // handled-unknown-ignored: an id the company does not own is skipped, never marked.
      // handled-any-company: another company's document is marked like one's own.
      if (document === undefined || (document.CompanyId !== company.CompanyId && !hasFault(context, 'handled-any-company'))) {
        if (ignoreUnknown) continue;
        throw foreignOrNotFound(context, document !== undefined, `document ${id}`);
      }
      documents.push(document);
    }
    for (const document of documents) document.Handled = true;
    return reply.code(200).send();
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
