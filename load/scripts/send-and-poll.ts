// Flow: upload an invoice (POST /documents), send it as a PDF by e-mail (POST /documents/outbound)
// and poll its status (GET /documents/outbound/{DocumentId}) until it is Delivered.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, outboundStatus, pollUntil, setupCompany, uploadAndSend } from '../lib/api.ts';
import { verifyThat } from '../lib/observe.ts';
import { erpIdFor } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.upload, ENDPOINTS.send, ENDPOINTS.outboundStatus];
export const options = buildOptions([...endpoints, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

export interface SendData {
  token: string;
}

export function setupSend(): SendData {
  return { token: setupCompany(`${settings.runPrefix}-sender`, ['SendInvoices']).token };
}

export function sendAndPoll(data: SendData): void {
  const erpDocumentId = erpIdFor('invoice', exec.scenario.iterationInTest);
  const sendAs = { Type: 'PDF', Pdf: { RecipientEmail: 'buyer@load.example', RecipientName: 'Load Buyer', SenderEmail: 'seller@load.example', SenderName: 'Load Seller' } };
  const documentId = uploadAndSend(data.token, sendAs, erpDocumentId);
  if (documentId === undefined) return;
  // Bounded: 30 polls, 0.1 s apart.
  const delivered = pollUntil(30, 0.1, () => outboundStatus(data.token, documentId) === 'Delivered');
  verifyThat('sent document reaches status Delivered', ENDPOINTS.outboundStatus, delivered);
}

export const setup = setupSend;
export default sendAndPoll;
