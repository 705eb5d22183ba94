// Flow: upload an invoice (POST /documents), send it as a PDF by e-mail (POST /documents/outbound)
// and poll its status (GET /documents/outbound/{DocumentId}) until it is Sent or Delivered.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, outboundStatus, pollUntil, setupCompany, uploadAndSend, type Actor } from '../lib/api.ts';
import { verifyThat } from '../lib/observe.ts';
import { erpIdFor } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.upload, ENDPOINTS.send, ENDPOINTS.outboundStatus];
export const options = buildOptions([...endpoints, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

const SENT_OR_DELIVERED = ['Sent', 'Delivered'];

/** The sender: its ErpId names it in the history of the exchange. */
export type SendData = Actor;

export function setupSend(): SendData {
  const { erpId, token } = setupCompany(`${settings.runPrefix}-sender`, ['SendInvoices']);
  return { erpId, token };
}

export function sendAndPoll(data: SendData): void {
  const erpDocumentId = erpIdFor('invoice', exec.scenario.iterationInTest);
  const sendAs = { Type: 'PDF', Pdf: { RecipientEmail: 'buyer@load.example', RecipientName: 'Load Buyer', SenderEmail: 'seller@load.example', SenderName: 'Load Seller' } };
  const documentId = uploadAndSend(data, sendAs, erpDocumentId);
  if (documentId === undefined) return;
  // Bounded: 30 polls, 0.1 s apart. A document sent by e-mail may rest in Sent: "Transitions: not
  // shown", and e-mail may report no delivery (FLOW-03 and outbound-final take Sent as its last status too).
  const sent = pollUntil(30, 0.1, () => SENT_OR_DELIVERED.includes(outboundStatus(data, documentId) ?? ''));
  verifyThat('sent document reaches status Sent or Delivered', ENDPOINTS.outboundStatus, sent);
}

export const setup = setupSend;
export default sendAndPoll;
