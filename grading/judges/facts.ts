// What the traffic established, in the order the client learnt it: the tokens the service handed
// out, the references uploads returned, the ids sends returned, the inbound ids the list gave.
import { extendedDateTimeMs } from '../../schemas/formats.ts';
import { normaliseKeys } from '../../lib/casing.ts';
import { decoded, fieldAt, header, lastSegment, succeeded, type GradedCall } from '../graded-call.ts';

export interface IssuedToken {
  token: string;
  kind: 'client' | 'search';
  /** The call that returned it. */
  issuedBy: GradedCall;
  /** The ErpId it was created for (client tokens). */
  erpId?: string;
  /** Its ValidTo as answered, in ms since the epoch. */
  validTo?: number;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function issuedTokens(calls: readonly GradedCall[]): Map<string, IssuedToken> {
  const tokens = new Map<string, IssuedToken>();
  for (const call of calls) {
    if (!succeeded(call) || (call.endpoint !== 'POST /clienttokens/create' && call.endpoint !== 'POST /clienttokens/createsearchtoken')) continue;
    const token = text(fieldAt(call.answer?.body, 'Token'));
    if (token === undefined) continue;
    const validTo = text(fieldAt(call.answer?.body, 'ValidTo'));
    const parsed = validTo === undefined ? Number.NaN : (extendedDateTimeMs(validTo) ?? Number.NaN);
    tokens.set(token, {
      token,
      kind: call.endpoint === 'POST /clienttokens/create' ? 'client' : 'search',
      issuedBy: call,
      erpId: text(fieldAt(call.body, 'ErpId')),
      validTo: Number.isFinite(parsed) ? parsed : undefined,
    });
  }
  return tokens;
}

/** The ErpId of the company a call acts for, through its ClientToken. */
export function erpIdOf(call: GradedCall, tokens: ReadonlyMap<string, IssuedToken>): string | undefined {
  const token = header(call, 'clienttoken');
  return token === undefined ? undefined : tokens.get(token)?.erpId;
}

/** Each upload reference (the Location of a successful upload) with the call that returned it. */
export function uploadReferences(calls: readonly GradedCall[]): Array<{ reference: string; call: GradedCall }> {
  return calls
    .filter((call) => call.endpoint === 'POST /documents' && succeeded(call) && call.answer?.headers.location !== undefined)
    .map((call) => ({ reference: call.answer?.headers.location as string, call }));
}

/** Each DocumentId a send returned (the last path segment of its Location), with the send. */
export function sentDocuments(calls: readonly GradedCall[]): Array<{ documentId: string; erpDocumentId?: string; call: GradedCall }> {
  return calls
    .filter((call) => call.endpoint === 'POST /documents/outbound' && succeeded(call) && call.answer?.headers.location !== undefined)
    .map((call) => ({ documentId: lastSegment(call.answer?.headers.location as string), erpDocumentId: text(fieldAt(call.body, 'Document.ErpDocumentId')), call }));
}

/** The inbound ids each incoming list answer gave: Id, and the last segments of InfoUrl and DownloadUrl's paths. */
export function listedInboundIds(calls: readonly GradedCall[]): Array<{ ids: Set<string>; call: GradedCall }> {
  const result: Array<{ ids: Set<string>; call: GradedCall }> = [];
  for (const call of calls) {
    if (call.endpoint !== 'GET /documents/incoming' || !succeeded(call)) continue;
    const documents = fieldAt(normaliseKeys(call.answer?.body), 'Documents');
    const ids = new Set<string>();
    if (Array.isArray(documents)) {
      for (const document of documents) {
        const id = text(fieldAt(document, 'Id'));
        if (id !== undefined) ids.add(id.toLowerCase());
        for (const name of ['InfoUrl', 'DownloadUrl']) {
          const url = text(fieldAt(document, name));
          if (url === undefined) continue;
          const segments = url.split('?')[0].split('/').filter((segment) => segment !== '');
          // .../documents/{id}/info or .../documents/{id}
          const index = segments.findIndex((segment) => segment.toLowerCase() === 'documents');
          if (index !== -1 && segments[index + 1] !== undefined) ids.add(decoded(segments[index + 1]).toLowerCase());
        }
      }
    }
    result.push({ ids, call });
  }
  return result;
}

/** Every CompanyId any answer carried, with the call that carried it. */
export function returnedCompanyIds(calls: readonly GradedCall[]): Array<{ companyId: string; call: GradedCall }> {
  const result: Array<{ companyId: string; call: GradedCall }> = [];
  const visit = (value: unknown, call: GradedCall): void => {
    if (Array.isArray(value)) value.forEach((item) => visit(item, call));
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key.toLowerCase() === 'companyid' && (typeof inner === 'string' || typeof inner === 'number')) result.push({ companyId: String(inner), call });
        else visit(inner, call);
      }
    }
  };
  for (const call of calls) if (succeeded(call)) visit(call.answer?.body, call);
  return result;
}

/** ErpIds the client registered, each with its first register call. */
export function registeredErpIds(calls: readonly GradedCall[]): Map<string, GradedCall> {
  const registered = new Map<string, GradedCall>();
  for (const call of calls) {
    if (call.endpoint !== 'POST /companies/register' || !succeeded(call)) continue;
    const erpId = text(fieldAt(call.body, 'ErpId'));
    if (erpId !== undefined && !registered.has(erpId)) registered.set(erpId, call);
  }
  return registered;
}
