// The ids of a fuzz run's own data as examples in its copy of the OpenAPI document: Schemathesis'
// examples phase sends them, so every operation that takes an id meets one that exists, whatever
// its stateful phase reaches in the time given.
import { renderKeys, type Casing } from '../../../lib/casing.ts';
import type { FuzzData } from './setup.ts';

type Json = Record<string, any>;

/** Returns the document with the run's examples on path parameters and on the revoke body. */
export function withRunExamples(document: Json, examples: FuzzData['examples'], casing: Casing): Json {
  const copy = structuredClone(document);
  const pathExamples: Record<string, Record<string, string>> = {
    '/companies/details/{CompanyId}': { CompanyId: examples.companyId },
    '/documents/outbound/{DocumentId}': { DocumentId: examples.outboundDocumentId },
    '/invoices/outbound/{DocumentId}': { DocumentId: examples.outboundDocumentId },
    '/documents/outbound/download/{DocumentId}': { DocumentId: examples.outboundDocumentId },
    '/invoices/outbound/byerpid/{DocumentId}': { DocumentId: examples.erpDocumentId },
    '/documents/{id}': { id: examples.inboundDocumentId },
    '/documents/{id}/info': { id: examples.inboundDocumentId },
  };
  for (const [path, values] of Object.entries(pathExamples)) {
    for (const operation of Object.values(copy.paths[path] as Record<string, Json>)) {
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'path' && parameter.name in values) parameter.example = values[parameter.name];
    }
  }
  copy.paths['/clienttokens/revoke'].post.requestBody.content['application/json'].example = renderKeys({ ClientToken: examples.revocableToken }, casing);
  copy.paths['/documents/handled'].post.requestBody.content['application/json'].example = renderKeys({ Documents: [examples.inboundDocumentId] }, casing);
  return copy;
}
