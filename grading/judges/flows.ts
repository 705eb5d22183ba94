// Flows across calls: registration followed with the status call, services on a registered
// company, fetched inbox documents marked handled, sent documents followed.
import { before, fieldAt, lastSegment, same, succeeded, type Finding, type GradedCall, type Judge } from '../graded-call.ts';
import { OUTBOUND_STATUS_CALLS } from './endpoints.ts';
import { erpIdOf, issuedTokens, registeredErpIds, sentDocuments } from './facts.ts';

export const judgeFlows: Judge = ({ calls }) => {
  const findings: Finding[] = [];
  const tokens = issuedTokens(calls);
  const statusCalls = calls.filter((call) => call.endpoint === 'GET /companies/status' && succeeded(call));
  // A status call the service refused still follows the registration: the refusal is counted once, under its own requirement.
  const refusedStatusCalls = calls.filter((call) => call.endpoint === 'GET /companies/status' && call.answer !== undefined && !succeeded(call));
  for (const [erpId, register] of registeredErpIds(calls)) {
    const followed = statusCalls.find((call) => call.seq > register.seq && same(erpIdOf(call, tokens) ?? '', erpId));
    const refused = followed === undefined ? refusedStatusCalls.filter((call) => call.seq > register.seq && same(erpIdOf(call, tokens) ?? erpId, erpId)) : [];
    findings.push({
      id: 'CLI-FLOW-01', verdict: followed !== undefined || refused.length > 0 ? 'passed' : 'failed', seq: register.seq, check: `the registration of ${erpId} is followed with GET /companies/status`, expected: 'a status call for the company after its register',
      actual: followed !== undefined ? `status call #${followed.seq}` : refused.length > 0 ? `status calls ${refused.map((call) => `#${call.seq} (${call.answer?.status})`).join(', ')}, refused: see the requirement the refusal names` : 'no status call after it',
    });
  }
  for (const call of calls.filter((candidate) => candidate.endpoint === 'POST /companies/services' && candidate.provocation === undefined)) {
    const erpId = fieldAt(call.body, 'ErpId');
    if (typeof erpId !== 'string') continue;
    const registered = statusCalls.find((status) => before(status, call) && same(erpIdOf(status, tokens) ?? '', erpId) && fieldAt(status.answer?.body, 'Status') === 'Registered');
    findings.push({ id: 'CLI-FLOW-02', verdict: registered !== undefined ? 'passed' : 'failed', seq: call.seq, check: `services are activated on ${erpId} once it is registered`, expected: 'an earlier status answer with Status Registered', actual: registered !== undefined ? `Registered in status call #${registered.seq}` : 'no status answer said Registered before' });
  }
  // Inbox documents fetched after a list made without sequenceNo stay listed until marked handled.
  const handled = new Set<string>();
  for (const call of calls) {
    if (call.endpoint !== 'POST /documents/handled' || !succeeded(call)) continue;
    const documents = fieldAt(call.body, 'documents');
    if (Array.isArray(documents)) for (const id of documents) if (typeof id === 'string') handled.add(id.toLowerCase());
  }
  const listedWithoutSequence = calls.some((call) => call.endpoint === 'GET /documents/incoming' && !Object.keys(call.query).some((name) => name.toLowerCase() === 'sequenceno'));
  if (listedWithoutSequence) {
    const fetched = new Map<string, GradedCall>();
    for (const call of calls) if (call.endpoint === 'GET /documents/{id}' && succeeded(call)) fetched.set(lastSegment(call.path).toLowerCase(), call);
    for (const [id, call] of fetched) {
      findings.push({ id: 'CLI-FLOW-03', verdict: handled.has(id) ? 'passed' : 'failed', seq: call.seq, check: 'a fetched inbound document is marked handled', expected: 'the id in a later POST /documents/handled', actual: handled.has(id) ? 'marked handled' : 'never marked handled: it stays in the list' });
    }
  }
  for (const send of sentDocuments(calls)) {
    const followed = calls.filter((call) => OUTBOUND_STATUS_CALLS.has(call.endpoint) && call.seq > send.call.seq && succeeded(call) && (same(lastSegment(call.path), send.documentId) || (send.erpDocumentId !== undefined && same(lastSegment(call.path), send.erpDocumentId))));
    const last = followed[followed.length - 1];
    const status = last === undefined ? undefined : fieldAt(fieldAt(last.answer?.body, 'CurrentStatus'), 'Status');
    findings.push({ id: 'CLI-FLOW-04', verdict: 'info', seq: send.call.seq, check: `the status of document ${send.documentId} is followed`, expected: 'not shown', actual: last === undefined ? 'its status was never asked' : `${followed.length} status calls, last status seen ${String(status)}` });
  }
  return findings;
};
