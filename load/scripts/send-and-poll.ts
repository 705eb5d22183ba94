// Flow: upload an invoice (POST /documents), send it as a PDF by e-mail (POST /documents/outbound)
// and poll its status (GET /documents/outbound/{DocumentId}) until it is sent (Sent, Delivered or Sold).
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS, outboundStatus, pollWithinAsyncTimeout, setupCompany, uploadAndSend, type Actor } from '../lib/api.ts';
import { isFinalStatus, SENT_STATUSES } from '../../lib/document-statuses.ts';
import { verifyThat } from '../lib/observe.ts';
import { erpIdFor } from '../lib/data.ts';
import { settings } from '../lib/settings.ts';

export const endpoints = [ENDPOINTS.upload, ENDPOINTS.send, ENDPOINTS.outboundStatus];
export const options = buildOptions([...endpoints, ENDPOINTS.register, ENDPOINTS.createToken, ENDPOINTS.status]);

/** The sender: its ErpId names it in the history of the exchange. */
export type SendData = Actor;

const POLL_INTERVAL_SECONDS = 0.1;

export function setupSend(): SendData {
  const { erpId, token } = setupCompany(`${settings.runPrefix}-sender`, ['SendInvoices']);
  return { erpId, token };
}

export function sendAndPoll(data: SendData): void {
  const erpDocumentId = erpIdFor('invoice', exec.scenario.iterationInTest);
  const sendAs = { Type: 'PDF', Pdf: { RecipientEmail: 'buyer@load.example', RecipientName: 'Load Buyer', SenderEmail: 'seller@load.example', SenderName: 'Load Seller' } };
  const documentId = uploadAndSend(data, sendAs, erpDocumentId);
  if (documentId === undefined) return;
  // Bounded by the async timeout, as dxs test's polls are, and ended at once by a final status that
  // is not a sent one (ConversionFailed, Stopped). A document sent by e-mail may rest in Sent or
  // Sold: "Transitions: not shown" (dxs test's MAY_BE_LAST_STATUSES read it so too).
  let status: string | undefined;
  pollWithinAsyncTimeout(POLL_INTERVAL_SECONDS, () => {
    status = outboundStatus(data, documentId);
    return status !== undefined && (SENT_STATUSES.includes(status) || isFinalStatus(status));
  });
  verifyThat('sent document reaches status Sent, Delivered or Sold', ENDPOINTS.outboundStatus, status !== undefined && SENT_STATUSES.includes(status));
}

export const setup = setupSend;
export default sendAndPoll;
