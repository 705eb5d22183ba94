// Upload, send, outbound status (by id on both paths and by ErpDocumentId), download and the
// paged outbound list.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireApiKey, requireClientToken, requireEither } from '../auth.ts';
import { foreignOrNotFound } from './companies.ts';
import { apiUrl, formatTime, hasFault, hasVariant, locationOf, sendBody, type AreaOptions, type Auth, type SandboxContext } from '../context.ts';
import { ApiError, badRequest, localise, notFound } from '../errors.ts';
import { normaliseOrgNo, type Company, type OutboundDocument, type Upload } from '../store.ts';
import { unsetReading } from '../views.ts';
import { declaresEntities, expandEntities } from '../xml.ts';
import {
  allowedValue, bodyOf, optionalDateTime, parseDateTime, optionalEmail, optionalInteger, optionalObject, optionalString, optionalStringArray, queryBoolean,
  requiredEmail, requiredObject, requiredString, type Body,
} from '../validate.ts';

export const SEND_TYPES = ['PDF', 'Paper', 'Electronic', 'BusinessToConsumer'];
export const B2C_PROVIDERS = ['ProviderA', 'ProviderB'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ADDRESS_FIELDS = ['Name', 'Department', 'StreetName', 'PostBox', 'PostalZone', 'City', 'CountryCode'];
const RECIPIENT_FIELDS = ['GLN', 'OrgNo', 'VatNo', 'Name', 'RecipientNo', 'CountryCode'];
const DEFAULT_TAKE = 100;
const MAX_TAKE = 1000;

/** The document reference of an upload: a URN ending in its uuid (urn:uuid:<uuid> with the upload-urn-uuid variant). */
export function uploadReference(id: string, context?: SandboxContext): string {
  return context !== undefined && hasVariant(context, 'upload-urn-uuid') ? `urn:uuid:${id}` : `urn:dxs:document:${id}`;
}

/** The upload that a reference names (a URN or URL ending in the uuid), if this company made it. */
export function uploadOfCompany(context: SandboxContext, company: Company, reference: string, field: string): Upload {
  const id = UUID.exec(reference.trim())?.[0]?.toLowerCase();
  const upload = id === undefined ? undefined : context.store.uploads.get(id);
  // send-foreign-upload: another company's upload is taken as the main document; send-foreign-attachment: as an attachment.
  const foreignTaken = (field === 'Document.DocumentUri' && hasFault(context, 'send-foreign-upload')) || (field.startsWith('Document.Attachments') && hasFault(context, 'send-foreign-attachment'));
  if (upload === undefined || (upload.CompanyId !== company.CompanyId && !foreignTaken)) throw badRequest('uploadUnknown', { field, value: reference });
  if (upload.Bytes === undefined) throw badRequest('uploadEvicted');
  return upload;
}

function stringFields(object: Body | undefined, names: readonly string[], path: string): void {
  if (object === undefined) return;
  for (const name of names) optionalString(object, name, `${path}.${name}`);
}

/** Whether the caller may see a record of this company: its own client token, or the APIkey that registered it. */
export function visibleTo(context: SandboxContext, auth: Auth, companyId: string): boolean {
  if (auth.company !== undefined) return auth.company.CompanyId === companyId;
  return context.store.companies.get(companyId)?.ApiKey === auth.apiKey;
}

/** outbound-read-by-idle-company: a company that has sent nothing reads and downloads any company's documents. */
function idleReader(context: SandboxContext, auth: Auth): boolean {
  if (!hasFault(context, 'outbound-read-by-idle-company') || auth.company === undefined) return false;
  const reader = auth.company.CompanyId;
  for (const document of context.store.outbound.values()) if (document.CompanyId === reader) return false;
  return true;
}

/** send-foreign-attachment: an upload the caller named as an attachment of a document it sent, whoever uploaded it. */
function attachedBy(context: SandboxContext, auth: Auth, uploadId: string): boolean {
  if (!hasFault(context, 'send-foreign-attachment') || auth.company === undefined) return false;
  const caller = auth.company.CompanyId;
  for (const document of context.store.outbound.values()) if (document.CompanyId === caller && document.AttachmentUploadIds.includes(uploadId)) return true;
  return false;
}

/** outbound-list-leak-after-sent: a document that reached Sent shows in every company's list. */
function listedOnceSent(context: SandboxContext, document: OutboundDocument): boolean {
  return hasFault(context, 'outbound-list-leak-after-sent') && document.StatusHistory.some((entry) => entry.Status === 'Sent');
}

function documentIdParam(context: SandboxContext, value: string): string {
  // odd-id-500: an id that holds a slash once decoded, or is longer than a uuid by far, breaks the lookup.
  if (hasFault(context, 'odd-id-500') && (value.includes('/') || value.length > 1024)) throw new Error(`lookup of document ${value.slice(0, 40)} failed`);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    // outbound-malformed-id-404: an id that is not a uuid names no document.
    if (hasVariant(context, 'outbound-malformed-id-404')) throw notFound(`document ${value}`);
    throw badRequest('fieldInvalid', { field: 'DocumentId', detail: 'expected a uuid' });
  }
  return value.toLowerCase();
}

function activeB2cProviders(context: SandboxContext, company: Company): string[] {
  const providers: string[] = [];
  if (company.ProviderA?.Status === 'Completed') providers.push('ProviderA');
  const orgNo = company.Fields.OrgNo;
  if (orgNo !== undefined && context.store.config.providerBOrgNos.some((candidate) => normaliseOrgNo(candidate) === normaliseOrgNo(orgNo))) providers.push('ProviderB');
  return providers;
}

interface SendPlan {
  SendType: string;
  Provider?: string;
  RecipientKeys: string[];
}

function planSend(context: SandboxContext, company: Company, body: Body): SendPlan {
  const sendAs = requiredObject(body, 'SendDocumentAs');
  const typeValue = requiredString(sendAs, 'Type', 'SendDocumentAs.Type');
  if (hasFault(context, 'send-type-unchecked') && !SEND_TYPES.includes(typeValue)) return { SendType: typeValue, RecipientKeys: [] };
  const type = allowedValue(typeValue, SEND_TYPES, 'SendDocumentAs.Type');
  const paper = optionalObject(sendAs, 'Paper', 'SendDocumentAs.Paper');
  const recipientAddress = paper && optionalObject(paper, 'RecipientAddress', 'SendDocumentAs.Paper.RecipientAddress');
  stringFields(recipientAddress, ADDRESS_FIELDS, 'SendDocumentAs.Paper.RecipientAddress');
  stringFields(paper && optionalObject(paper, 'ReturnAddress', 'SendDocumentAs.Paper.ReturnAddress'), ADDRESS_FIELDS, 'SendDocumentAs.Paper.ReturnAddress');
  const electronic = optionalObject(sendAs, 'Electronic', 'SendDocumentAs.Electronic');
  const recipientId = electronic && optionalString(electronic, 'RecipientId', 'SendDocumentAs.Electronic.RecipientId');
  const pdf = optionalObject(sendAs, 'Pdf', 'SendDocumentAs.Pdf');
  stringFields(pdf, ['RecipientName', 'SenderName'], 'SendDocumentAs.Pdf');
  const b2c = optionalObject(sendAs, 'BusinessToConsumer', 'SendDocumentAs.BusinessToConsumer');
  stringFields(b2c, ['FMI', 'SSN', 'Provider'], 'SendDocumentAs.BusinessToConsumer');
  const recipient = optionalObject(body, 'RecipientInformation');
  stringFields(recipient, RECIPIENT_FIELDS, 'RecipientInformation');

  const plan: SendPlan = { SendType: type, RecipientKeys: [] };
  if (type === 'Paper') {
    if (recipientAddress === undefined) throw badRequest('fieldRequired', { field: 'SendDocumentAs.Paper.RecipientAddress' });
  } else if (type === 'PDF') {
    if (pdf === undefined) throw badRequest('fieldRequired', { field: 'SendDocumentAs.Pdf' });
    requiredEmail(pdf, 'RecipientEmail', 'SendDocumentAs.Pdf.RecipientEmail');
    optionalEmail(pdf, 'SenderEmail', 'SendDocumentAs.Pdf.SenderEmail');
  } else if (type === 'Electronic') {
    if (recipientId !== undefined && recipientId.trim() !== '') {
      plan.RecipientKeys.push(recipientId);
      // "iso6523-actorid-upis::0007:5567321707" also routes by its last part.
      const tail = recipientId.split(':').pop();
      if (tail !== undefined && tail !== recipientId && tail !== '') plan.RecipientKeys.push(tail);
    }
    for (const name of ['GLN', 'OrgNo', 'VatNo']) {
      const value = recipient?.[name];
      if (typeof value === 'string' && value.trim() !== '') plan.RecipientKeys.push(value);
    }
    if (plan.RecipientKeys.length === 0) throw badRequest('electronicRecipientMissing');
  } else {
    const providers = activeB2cProviders(context, company);
    if (providers.length === 0) throw badRequest('b2cNotActive');
    const requested = b2c && optionalString(b2c, 'Provider');
    let provider: string;
    if (requested !== undefined && requested !== '') {
      provider = allowedValue(requested, B2C_PROVIDERS, 'SendDocumentAs.BusinessToConsumer.Provider');
      if (!providers.includes(provider)) throw badRequest('b2cProviderNotActive', { value: provider });
    } else {
      if (providers.length > 1) throw badRequest('b2cProviderAmbiguous');
      provider = providers[0];
    }
    if (provider === 'ProviderA' && (b2c === undefined || !b2c.SSN)) throw badRequest('fieldRequired', { field: 'SendDocumentAs.BusinessToConsumer.SSN' });
    if (provider === 'ProviderB' && (b2c === undefined || !b2c.FMI)) throw badRequest('fieldRequired', { field: 'SendDocumentAs.BusinessToConsumer.FMI' });
    plan.Provider = provider;
  }
  return plan;
}

function outboundBody(context: SandboxContext, request: FastifyRequest, document: OutboundDocument, includeFileInfo: boolean) {
  const time = (value: number) => (hasFault(context, 'status-time-malformed') ? new Date(value).toUTCString() : formatTime(context, value));
  const status = (value: string) => (hasFault(context, 'status-unlisted') && value === 'PendingInPlatform' ? 'InPlatform' : value);
  const history = document.StatusHistory.map((entry) => ({ Status: status(entry.Status), Time: time(entry.Time) }));
  const body: Record<string, unknown> = {
    Id: document.Id,
    DocumentType: hasFault(context, 'document-type-fixed') ? 'Document' : document.DocumentType,
    CurrentStatus: history[history.length - 1],
    StatusHistory: hasFault(context, 'status-history-missing') ? undefined : hasFault(context, 'status-history-current-only') ? history.slice(-1) : history,
    ErpDocumentId: hasFault(context, 'erp-document-id-dropped') ? null : document.ErpDocumentId ?? null,
    // conversion-error-no-errorinfo: a failed conversion shows in its status alone, with no ErrorInfo.
    Error: document.Error === undefined || hasVariant(context, 'conversion-error-no-errorinfo')
      ? null
      : {
        Message: localise(request, document.Error.Key, document.Error.Params),
        // moreinfouri-omitted: the spec calls the field optional, so an absent one is left out.
        MoreInfoUri: document.Error.MoreInfoUri === null && hasVariant(context, 'moreinfouri-omitted') ? undefined : document.Error.MoreInfoUri,
        Status: hasVariant(context, 'error-status-code') ? 'CONVERSION_FAILED' : document.Error.Status,
      },
  };
  // The unset-* readings of an ErpDocumentId not given at send time, and, left out, of no Error.
  const reading = unsetReading(context.variants);
  if (body.ErpDocumentId === null && reading === 'absent') delete body.ErpDocumentId;
  if (body.ErpDocumentId === null && reading === 'empty') body.ErpDocumentId = '';
  if (body.Error === null && reading === 'absent') delete body.Error;
  if (includeFileInfo && !hasFault(context, 'file-info-ignored')) {
    const info = fileInfo(context, request, document);
    // file-info-list: another structure for what the spec does not show.
    if (hasVariant(context, 'file-info-list')) {
      body.Files = info.Files.map((file) => ({ Name: file.Filename, ContentType: file.DocumentFormat, Url: file.DownloadUrl }));
    } else {
      body.FileInfo = info;
    }
  }
  return body;
}

/** The spec does not show the file information; the sandbox lists each stored file with its download URL. */
function fileInfo(context: SandboxContext, request: FastifyRequest, document: OutboundDocument) {
  const files: Array<{ Role: string; DocumentUri: string; DocumentFormat: string | null; Filename: string | null; Size: number | null; Available: boolean; DownloadUrl: string }> = [];
  const add = (role: string, uploadId: string, format: string | undefined, downloadId: string) => {
    const upload = context.store.uploads.get(uploadId);
    files.push({
      Role: role,
      DocumentUri: uploadReference(uploadId, context),
      DocumentFormat: format ?? upload?.ContentType ?? null,
      Filename: upload?.Filename ?? null,
      Size: upload?.Size ?? null,
      Available: upload?.Bytes !== undefined,
      DownloadUrl: apiUrl(request, `/documents/outbound/download/${downloadId}`),
    });
  };
  add('Document', document.UploadId, document.DocumentFormat, document.Id);
  if (document.RenderedUploadId !== undefined) add('RenderedDocument', document.RenderedUploadId, document.RenderedDocumentFormat, document.RenderedUploadId);
  for (const id of document.AttachmentUploadIds) add('Attachment', id, undefined, id);
  return { Files: files };
}

export function sendFile(reply: FastifyReply, upload: Upload, headers: Record<string, string> = {}): FastifyReply {
  if (upload.Bytes === undefined) throw new ApiError(410, 'uploadEvicted');
  const filename = upload.Filename.replace(/["\\\r\n]/g, '_');
  return reply
    .code(200)
    .headers({
      'content-type': reply.request.variants?.has('downloads-octet-stream') ? 'application/octet-stream' : upload.ContentType,
      'content-disposition': `attachment; filename="${filename}"`,
      'x-filename': encodeURIComponent(upload.Filename),
      ...headers,
    })
    .send(upload.Bytes);
}

/** What the fault xml-external-entity-read puts where an entity stood: a line of /etc/passwd, made up (no file is read). */
const FAKE_LOCAL_FILE = 'root:x:0:0:root:/root:/bin/bash';
/** The fault xml-entities-expanded: past this many characters the naive expansion gives up, late, with a 500. */
const EXPANSION_LIMIT = 1024 * 1024;
const EXPANSION_STALL_MS = 2_000;

async function expandedUpload<File extends { bytes: Buffer }>(file: File): Promise<File> {
  const expanded = expandEntities(file.bytes.toString('utf8'), EXPANSION_LIMIT);
  if (expanded === undefined) {
    await new Promise((resolve) => setTimeout(resolve, EXPANSION_STALL_MS));
    throw new Error('entity expansion ran out of memory');
  }
  return { ...file, bytes: Buffer.from(expanded) };
}

export async function outboundArea(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const { store, engine } = context;

  app.post('/documents', { preHandler: requireClientToken(context) }, async (request, reply) => {
    if (!request.isMultipart()) throw new ApiError(415, 'uploadNotMultipart');
    let file: { bytes: Buffer; filename: string; mimetype: string } | undefined;
    try {
      for await (const part of request.parts()) {
        if (part.type !== 'file') {
          // The spec asks for "the part File (binary)", not for a filename: a part without one counts.
          if (file === undefined && part.fieldname.toLowerCase() === 'file' && typeof part.value === 'string') {
            // Answered as a file over the limit is (the error handler knows the limit).
            if (part.valueTruncated) throw Object.assign(new Error('file too large'), { code: 'FST_REQ_FILE_TOO_LARGE', statusCode: 413 });
            file = { bytes: Buffer.from(part.value, 'latin1'), filename: 'document', mimetype: part.mimetype };
          }
          continue;
        }
        const bytes = await part.toBuffer();
        if (file === undefined && part.fieldname.toLowerCase() === 'file') file = { bytes, filename: part.filename || 'document', mimetype: part.mimetype };
      }
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== undefined && status >= 400 && status < 500) throw error;
      throw badRequest('fieldInvalid', { field: 'multipart body', detail: (error as Error).message });
    }
    if (file === undefined) throw badRequest('uploadMissingFile');
    // No entity is ever expanded or fetched: a document that declares one is refused at once.
    if (declaresEntities(file.bytes)) {
      if (hasFault(context, 'xml-entities-expanded')) file = await expandedUpload(file);
      else if (hasFault(context, 'xml-external-entity-read')) file = { ...file, bytes: Buffer.from(file.bytes.toString('utf8').replace(/&\w+;/g, FAKE_LOCAL_FILE)) };
      else throw badRequest('xmlEntitiesRefused');
    }
    const upload = store.addUpload((request.auth.company as Company).CompanyId, file.filename, file.mimetype || 'application/octet-stream', file.bytes);
    if (hasFault(context, 'upload-location-missing')) return reply.code(202).send();
    const location = hasFault(context, 'upload-location-url') ? apiUrl(request, `/documents/${upload.Id}`) : uploadReference(upload.Id, context);
    return reply.code(hasFault(context, 'upload-200') ? 200 : 202).header('location', location).send();
  });

  app.post('/documents/outbound', { preHandler: requireClientToken(context) }, async (request, reply) => {
    if (request.isMultipart()) throw new ApiError(415, 'outboundMultipartUnsupported');
    const company = request.auth.company as Company;
    const body = bodyOf(request);
    const plan = planSend(context, company, body);
    const document = requiredObject(body, 'Document');
    const documentFormat = hasFault(context, 'send-format-optional')
      ? optionalString(document, 'DocumentFormat', 'Document.DocumentFormat') ?? 'application/octet-stream'
      : requiredString(document, 'DocumentFormat', 'Document.DocumentFormat');
    const main = uploadOfCompany(context, company, requiredString(document, 'DocumentUri', 'Document.DocumentUri'), 'Document.DocumentUri');
    const erpDocumentId = optionalString(document, 'ErpDocumentId', 'Document.ErpDocumentId');
    const renderedFormat = optionalString(document, 'RenderedDocumentFormat', 'Document.RenderedDocumentFormat');
    const renderedUri = optionalString(document, 'RenderedDocumentUri', 'Document.RenderedDocumentUri');
    const rendered = renderedUri === undefined || renderedUri === '' ? undefined : uploadOfCompany(context, company, renderedUri, 'Document.RenderedDocumentUri');
    optionalString(document, 'Language', 'Document.Language');
    optionalString(document, 'Culture', 'Document.Culture');
    const attachments = (optionalStringArray(document, 'Attachments', 'Document.Attachments') ?? [])
      .map((reference, index) => uploadOfCompany(context, company, reference, `Document.Attachments[${index}]`));
    const now = Date.now();
    const outbound: OutboundDocument = {
      Id: randomUUID(),
      CompanyId: company.CompanyId,
      ErpDocumentId: erpDocumentId === '' ? undefined : erpDocumentId,
      DocumentType: 'Document',
      StatusHistory: [{ Status: 'Pending', Time: now }],
      SendType: plan.SendType,
      Provider: plan.Provider,
      RecipientKeys: plan.RecipientKeys,
      DocumentFormat: documentFormat,
      UploadId: main.Id,
      RenderedDocumentFormat: renderedFormat,
      RenderedUploadId: rendered?.Id,
      AttachmentUploadIds: attachments.map((upload) => upload.Id),
      CreatedAt: now,
      UpdatedAt: now,
    };
    store.addOutbound(outbound);
    engine.sendDocument(outbound);
    if (hasFault(context, 'send-location-missing')) return reply.code(200).send();
    return reply.code(hasFault(context, 'send-202') ? 202 : 200).header('location', locationOf(context, request, `/${hasVariant(context, 'send-location-invoices') ? 'invoices' : 'documents'}/outbound/${outbound.Id}`)).send();
  });

  const byId = async (request: FastifyRequest, reply: FastifyReply) => {
    const includeFileInfo = queryBoolean(request.query, 'IncludeFileInfo');
    const { DocumentId } = request.params as { DocumentId: string };
    if (hasFault(context, 'outbound-bad-uuid-500') && !UUID.test(DocumentId)) throw new Error(`cannot parse ${DocumentId} as a uuid`);
    const document = store.outbound.get(documentIdParam(context, DocumentId));
    const visible = (companyId: string) => hasFault(context, 'outbound-status-any-company') || visibleTo(context, request.auth, companyId) || idleReader(context, request.auth);
    // The fault: an unknown DocumentId is answered 200 with an empty body, an error no status signals.
    if (document === undefined && hasFault(context, 'outbound-unknown-200')) return sendBody(context, reply, 200, {});
    if (document === undefined || !visible(document.CompanyId)) throw foreignOrNotFound(context, document !== undefined, `document ${DocumentId}`);
    return sendBody(context, reply, 200, outboundBody(context, request, document, includeFileInfo));
  };
  // GET /{documentType}/outbound/{id}: the spec names invoices and documents, and orders follow the pattern.
  for (const documentType of ['invoices', 'documents', 'orders']) {
    app.get(`/${documentType}/outbound/:DocumentId`, { preHandler: requireClientToken(context) }, byId);
  }

  app.get<{ Params: { ErpDocumentId: string } }>('/invoices/outbound/byerpid/:ErpDocumentId', { preHandler: requireClientToken(context) }, async (request, reply) => {
    const includeFileInfo = queryBoolean(request.query, 'IncludeFileInfo');
    // byerpid-any-company: the latest document of that ErpDocumentId, whichever company sent it.
    const document = hasFault(context, 'byerpid-any-company')
      ? [...store.outbound.values()].reverse().find((candidate) => candidate.ErpDocumentId === request.params.ErpDocumentId)
      : store.outboundByErpDocumentId((request.auth.company as Company).CompanyId, request.params.ErpDocumentId);
    if (document === undefined) throw notFound(`ErpDocumentId ${request.params.ErpDocumentId}`);
    return sendBody(context, reply, 200, outboundBody(context, request, document, includeFileInfo));
  });

  // The scheme of the download and the list is not shown: either, or a ClientToken alone with a variant.
  const downloadAuth = hasVariant(context, 'outbound-download-token-only') ? requireClientToken(context)
    : hasVariant(context, 'outbound-download-apikey-only') ? requireApiKey(context) : requireEither(context);
  const listAuth = hasVariant(context, 'outbound-list-token-only') ? requireClientToken(context)
    : hasVariant(context, 'outbound-list-apikey-only') ? requireApiKey(context) : requireEither(context);

  // The fault: a download with no credential at all is served, whoever owns the document.
  const downloadOpen = hasFault(context, 'outbound-download-unauthenticated');
  const downloadPreHandler: typeof downloadAuth = (request, reply, done) => {
    if (!downloadOpen || request.headers.clienttoken !== undefined || request.headers.apikey !== undefined) return downloadAuth(request, reply, done);
    request.auth = {};
    done();
  };
  app.get<{ Params: { DocumentId: string } }>('/documents/outbound/download/:DocumentId', { preHandler: downloadPreHandler }, async (request, reply) => {
    const id = documentIdParam(context, request.params.DocumentId);
    const document = store.outbound.get(id);
    const upload = document !== undefined ? store.uploads.get(document.UploadId) : store.uploads.get(id);
    const owner = document?.CompanyId ?? upload?.CompanyId;
    if (upload === undefined || owner === undefined || !(hasFault(context, 'outbound-download-any-company') || (downloadOpen && request.auth.apiKey === undefined && request.auth.company === undefined) || visibleTo(context, request.auth, owner) || idleReader(context, request.auth) || attachedBy(context, request.auth, id))) {
      throw foreignOrNotFound(context, owner !== undefined, `document ${request.params.DocumentId}`);
    }
    return sendFile(reply, upload, { 'x-document-format': document?.DocumentFormat ?? upload.ContentType });
  });

  app.post('/documents/outbound/list', { preHandler: listAuth }, async (request, reply) => {
    const body = bodyOf(request);
    // grading-open: paging limits are not shown, and UpdatedAfter has no type in the spec.
    const open = hasVariant(context, 'grading-open');
    const integer = (name: string, minimum: number, maximum: number): number | undefined => {
      const value = optionalInteger(body, name, open ? Number.MIN_SAFE_INTEGER : minimum, open ? Number.MAX_SAFE_INTEGER : maximum);
      return value === undefined ? undefined : Math.min(Math.max(value, minimum), maximum);
    };
    const asked = integer('Take', 0, MAX_TAKE) ?? (hasVariant(context, 'outbound-list-take-10') ? 10 : DEFAULT_TAKE);
    // outbound-list-max-take-5: a page holds at most 5 documents, whatever Take asks; Skip reaches the rest.
    const take = hasVariant(context, 'outbound-list-max-take-5') ? Math.min(asked, 5) : asked;
    const skip = integer('Skip', 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const createdFrom = optionalDateTime(body, 'CreatedFrom')?.getTime();
    const createdTo = optionalDateTime(body, 'CreatedTo')?.getTime();
    const updatedText = open ? optionalString(body, 'UpdatedAfter') : undefined;
    const updatedAfter = open ? (updatedText === undefined ? undefined : parseDateTime(updatedText)?.getTime()) : optionalDateTime(body, 'UpdatedAfter')?.getTime();
    const selected: OutboundDocument[] = [];
    let total = 0;
    // Oldest first (creation order), so that Skip pages stay stable while new documents arrive;
    // newest first with the outbound-list-newest-first variant.
    const all = hasVariant(context, 'outbound-list-newest-first') ? [...store.outbound.values()].reverse() : store.outbound.values();
    for (const document of all) {
      if (!visibleTo(context, request.auth, document.CompanyId) && !hasFault(context, 'outbound-list-all-companies') && !listedOnceSent(context, document)) continue;
      if (createdFrom !== undefined && document.CreatedAt < createdFrom) continue;
      if (createdTo !== undefined && document.CreatedAt > createdTo) continue;
      if (updatedAfter !== undefined && document.UpdatedAt <= updatedAfter) continue;
      if (total >= skip && selected.length < take) selected.push(document);
      total++;
    }
    const documents = selected.map((document) => outboundBody(context, request, document, false));
    // The response schema is not shown: {Total, Documents}, a bare array, or a paged object.
    if (hasVariant(context, 'outbound-list-array')) return sendBody(context, reply, 200, documents);
    if (hasVariant(context, 'outbound-list-paged')) return sendBody(context, reply, 200, { Items: documents, TotalCount: total, Take: take, Skip: skip });
    return sendBody(context, reply, 200, { Total: total, Documents: documents });
  });
}
