// References: what a call names must be what an earlier answer returned.
import { before, decoded, fieldAt, lastSegment, same, type Finding, type GradedCall, type Judge } from '../graded-call.ts';
import { listedInboundIds, returnedCompanyIds, sentDocuments, uploadReferences } from './facts.ts';

function strings(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : [];
}

/** What the service had handed out before the call, for a failure's "the client sent X; the service had handed out Y". */
function handedOut(what: string, values: ReadonlyArray<{ value: string; call: GradedCall }>, call: GradedCall): string {
  const earlier = values.filter((entry) => before(entry.call, call));
  if (earlier.length === 0) return `no ${what} had been handed out before`;
  const shown = earlier.slice(-3).map((entry) => `"${entry.value}" (#${entry.call.seq})`);
  return `the service had handed out ${shown.join(', ')}${earlier.length > 3 ? ` and ${earlier.length - 3} more` : ''}`;
}

export const judgeReferences: Judge = ({ calls }) => {
  const findings: Finding[] = [];
  const uploads = uploadReferences(calls);
  const uploaded = (reference: string, call: GradedCall) => uploads.find((upload) => same(upload.reference, reference) && before(upload.call, call));
  const checkUpload = (id: string, field: string, call: GradedCall): void => {
    for (const reference of strings(fieldAt(call.body, field))) {
      const upload = uploaded(reference, call);
      findings.push({
        id, verdict: upload !== undefined ? 'passed' : 'failed', seq: call.seq, check: `${field} is a reference an upload returned`, expected: 'the Location of an earlier upload (202)',
        actual: upload !== undefined ? `"${reference}", the Location upload #${upload.call.seq} returned` : `${field} "${reference}", which no upload returned; ${handedOut('upload Location', uploads.map((entry) => ({ value: entry.reference, call: entry.call })), call)}`,
      });
    }
  };
  const sends = sentDocuments(calls);
  const lists = listedInboundIds(calls);
  const companies = returnedCompanyIds(calls);
  for (const call of calls) {
    if (call.provocation !== undefined) continue;
    switch (call.endpoint) {
      case 'POST /documents/outbound':
        checkUpload('CLI-REF-01', 'Document.DocumentUri', call);
        checkUpload('CLI-REF-02', 'Document.RenderedDocumentUri', call);
        checkUpload('CLI-REF-02', 'Document.Attachments', call);
        break;
      case 'POST /network/setup':
        checkUpload('CLI-REF-03', 'AttachmentUri', call);
        break;
      case 'GET /documents/outbound/{DocumentId}':
      case 'GET /invoices/outbound/{DocumentId}':
      case 'GET /documents/outbound/download/{DocumentId}': {
        const id = lastSegment(call.path);
        const send = sends.find((candidate) => same(candidate.documentId, id) && before(candidate.call, call));
        findings.push({ id: 'CLI-REF-04', verdict: send !== undefined ? 'passed' : 'failed', seq: call.seq, check: 'the DocumentId is one a send returned', expected: 'the last path segment of an earlier send\'s Location', actual: send !== undefined ? `"${id}", the id send #${send.call.seq} returned` : `"${id}", which no send returned; ${handedOut('DocumentId', sends.map((entry) => ({ value: entry.documentId, call: entry.call })), call)}` });
        break;
      }
      case 'GET /invoices/outbound/byerpid/{DocumentId}': {
        const id = lastSegment(call.path);
        const send = sends.find((candidate) => candidate.erpDocumentId !== undefined && same(candidate.erpDocumentId, id) && before(candidate.call, call));
        findings.push({ id: 'CLI-REF-05', verdict: send !== undefined ? 'passed' : 'failed', seq: call.seq, check: 'the ErpDocumentId was given at send time', expected: 'the Document.ErpDocumentId of an earlier send', actual: send !== undefined ? `"${id}", given by send #${send.call.seq}` : `"${id}", which no send gave; ${handedOut('ErpDocumentId', sends.flatMap((entry) => (entry.erpDocumentId === undefined ? [] : [{ value: entry.erpDocumentId, call: entry.call }])), call)}` });
        break;
      }
      case 'GET /documents/{id}':
      case 'GET /documents/{id}/info':
      case 'POST /documents/handled': {
        const segments = call.path.split('/').filter((segment) => segment !== '');
        const pathId = decoded(segments[call.endpoint.endsWith('/info') ? segments.length - 2 : segments.length - 1] ?? '');
        const ids = call.endpoint === 'POST /documents/handled' ? strings(fieldAt(call.body, 'documents')) : [pathId];
        for (const id of ids) {
          const list = lists.find((candidate) => candidate.ids.has(id.toLowerCase()) && before(candidate.call, call));
          findings.push({ id: 'CLI-REF-06', verdict: list !== undefined ? 'passed' : 'failed', seq: call.seq, check: 'the inbound id is one the incoming list gave', expected: 'an Id (or URL) of an earlier incoming list answer', actual: list !== undefined ? `"${id}", listed by call #${list.call.seq}` : `"${id}", which no incoming list gave; ${handedOut('inbound id', lists.flatMap((entry) => [...entry.ids].map((value) => ({ value, call: entry.call }))), call)}` });
        }
        break;
      }
      case 'GET /companies/details/{CompanyId}': {
        const id = lastSegment(call.path);
        const known = companies.find((candidate) => same(candidate.companyId, id) && before(candidate.call, call));
        findings.push({ id: 'CLI-REF-07', verdict: known !== undefined ? 'passed' : 'failed', seq: call.seq, check: 'the CompanyId is one an answer gave', expected: 'a CompanyId of an earlier answer', actual: known !== undefined ? `"${id}", given by call #${known.call.seq}` : `"${id}", which no answer gave; ${handedOut('CompanyId', companies.map((entry) => ({ value: entry.companyId, call: entry.call })), call)}` });
        break;
      }
      default:
        break;
    }
  }
  return findings;
};
