// Flow: a second company receives electronic invoices. Each iteration the sender sends one
// invoice electronically to the receiver (so the inbox never runs dry), and the receiver lists
// its unhandled documents (GET /documents/incoming), downloads one (GET /documents/{id}) and
// marks it handled (POST /documents/handled).
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, downloadIncoming, listIncoming, markHandled, pollUntil, setupCompany, uploadAndSend, type IncomingEntry } from '../lib/api.ts';
import { verifyThat } from '../lib/observe.ts';
import { erpIdFor } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.incoming, ENDPOINTS.download, ENDPOINTS.handled];
export const options = buildOptions([...endpoints, ENDPOINTS.upload, ENDPOINTS.send, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

export interface InboxData {
  senderToken: string;
  receiverToken: string;
  receiverCompanyId: string;
}

export function setupInbox(): InboxData {
  const sender = setupCompany(`${settings.runPrefix}-inbox-sender`, ['SendInvoices']);
  const receiver = setupCompany(`${settings.runPrefix}-inbox-receiver`, ['ReceiveInvoices']);
  return { senderToken: sender.token, receiverToken: receiver.token, receiverCompanyId: receiver.companyId };
}

export function inbox(data: InboxData): void {
  const erpDocumentId = erpIdFor('inbound', exec.scenario.iterationInTest);
  uploadAndSend(data.senderToken, { Type: 'Electronic', Electronic: { RecipientId: data.receiverCompanyId } }, erpDocumentId);
  let documents: IncomingEntry[] = [];
  // Delivery runs in the background; bounded: 20 lists, 0.1 s apart.
  const found = pollUntil(20, 0.1, () => (documents = listIncoming(data.receiverToken)).length > 0);
  verifyThat('incoming list holds a document', ENDPOINTS.incoming, found);
  if (!found) return;
  // VUs spread over the list, so they seldom handle the same document.
  const document = documents[exec.vu.idInTest % documents.length];
  downloadIncoming(data.receiverToken, document.Id);
  markHandled(data.receiverToken, [document.Id]);
}

export const setup = setupInbox;
export default inbox;
