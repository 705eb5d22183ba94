// Which credential each call carries (the spec's Authentication rules 1-7).
import { decoded, describeCall, fieldAt, header, type Finding, type GradedCall, type Judge } from '../graded-call.ts';
import { API_KEY_CALLS, CLIENT_TOKEN_CALLS, OPEN_SCHEME_CALLS } from './endpoints.ts';
import { issuedTokens } from './facts.ts';

function credentials(call: GradedCall): string {
  const sent = [header(call, 'apikey') !== undefined ? 'APIkey' : undefined, header(call, 'clienttoken') !== undefined ? 'ClientToken' : undefined].filter(Boolean);
  return sent.length === 0 ? 'no credential' : sent.join(' and ');
}

export const judgeAuth: Judge = ({ calls, apiKey, apiKeyWithoutDelete }) => {
  const findings: Finding[] = [];
  const apiKeyRule: Record<string, string> = { 'POST /clienttokens/create': 'CLI-AUTH-01', 'POST /companies/register': 'CLI-AUTH-02', 'POST /companies/delete': 'CLI-AUTH-03' };
  const open = new Map<string, Map<string, number>>();
  for (const call of calls) {
    const id = apiKeyRule[call.endpoint];
    if (id !== undefined) {
      findings.push({ id, verdict: header(call, 'apikey') !== undefined ? 'passed' : 'failed', seq: call.seq, check: `${call.endpoint} carries APIkey`, expected: 'header APIkey', actual: credentials(call) });
    }
    if (call.endpoint === 'POST /companies/delete' && header(call, 'apikey') !== undefined) {
      const key = header(call, 'apikey');
      findings.push({
        id: 'CLI-AUTH-04', verdict: key === apiKey ? 'passed' : 'failed', seq: call.seq, check: 'delete is sent with the key that holds DeleteRegistration',
        expected: 'the key of DXS_CLIENT_API_KEY', actual: key === apiKeyWithoutDelete ? 'the key without DeleteRegistration (DXS_CLIENT_API_KEY_WITHOUT_DELETE)' : key === apiKey ? 'the key of DXS_CLIENT_API_KEY' : 'a key the grading sandbox did not hand out',
      });
    }
    if (CLIENT_TOKEN_CALLS.has(call.endpoint)) {
      findings.push({ id: 'CLI-AUTH-05', verdict: header(call, 'clienttoken') !== undefined ? 'passed' : 'failed', seq: call.seq, check: `${call.endpoint} carries ClientToken`, expected: 'header ClientToken', actual: credentials(call) });
    }
    if (call.endpoint === 'POST /companies/details') {
      const registrationId = fieldAt(call.body, 'RegistrationId');
      const ok = header(call, 'clienttoken') !== undefined || (typeof registrationId === 'string' && registrationId.trim() !== '');
      findings.push({ id: 'CLI-AUTH-06', verdict: ok ? 'passed' : 'failed', seq: call.seq, check: 'set details names the company by ClientToken or RegistrationId', expected: 'header ClientToken, or RegistrationId in the body', actual: `${credentials(call)}, ${typeof registrationId === 'string' && registrationId !== '' ? 'a RegistrationId' : 'no RegistrationId'}` });
    }
    if (OPEN_SCHEME_CALLS.has(call.endpoint)) {
      const byCredential = open.get(call.endpoint) ?? new Map<string, number>();
      byCredential.set(credentials(call), (byCredential.get(credentials(call)) ?? 0) + 1);
      open.set(call.endpoint, byCredential);
    }
    // Only beside the right credential: a ClientToken in the APIkey's place is CLI-AUTH-01/02/03's, counted there once.
    if ((API_KEY_CALLS.has(call.endpoint) && header(call, 'apikey') !== undefined) || CLIENT_TOKEN_CALLS.has(call.endpoint)) {
      const extra = API_KEY_CALLS.has(call.endpoint) ? header(call, 'clienttoken') !== undefined : header(call, 'apikey') !== undefined && header(call, 'clienttoken') !== undefined;
      findings.push({ id: 'CLI-AUTH-08', verdict: extra ? 'failed' : 'passed', seq: call.seq, check: 'only the credential the call takes is sent', expected: API_KEY_CALLS.has(call.endpoint) ? 'APIkey alone' : 'ClientToken alone', actual: credentials(call) });
    }
  }
  for (const [endpoint, byCredential] of open) {
    findings.push({ id: 'CLI-AUTH-07', verdict: 'info', check: `credential sent on ${endpoint} (the spec does not show which applies)`, expected: 'either', actual: [...byCredential].map(([credential, count]) => `${credential} ×${count}`).join(', ') });
  }
  const secretValues = [apiKey, apiKeyWithoutDelete, ...issuedTokens(calls).keys()];
  for (const call of calls) {
    const leaked = secretValues.some((secret) => secret.length >= 6 && (call.url.includes(secret) || decoded(call.url).includes(secret)));
    if (leaked) findings.push({ id: 'CLI-AUTH-09', verdict: 'failed', seq: call.seq, check: 'no credential in the URL', expected: 'API keys and tokens in headers only', actual: `${describeCall(call).split(' ')[0]} carries a key or token in its URL` });
  }
  if (calls.length > 0 && !findings.some((finding) => finding.id === 'CLI-AUTH-09')) findings.push({ id: 'CLI-AUTH-09', verdict: 'passed', check: 'no credential in the URL', expected: 'API keys and tokens in headers only', actual: `none in ${calls.length} URLs` });
  return findings;
};
