// Tokens: handed out by the service, reused while valid, about 10 minutes long, not used once
// expired or revoked; search tokens with the SearchId resent.
import { extendedDateTimeMs } from '../../schemas/formats.ts';
import { before, fieldAt, header, same, succeeded, type Finding, type GradedCall, type Judge } from '../graded-call.ts';
import { erpIdOf, issuedTokens, registeredErpIds } from './facts.ts';

const TEN_MINUTES_MS = 10 * 60_000;
/** A ValidTo a minute past the recommendation is still "of 10 minutes": clocks and rounding differ. */
const VALID_TO_SLACK_MS = 60_000;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export const judgeTokens: Judge = ({ calls }) => {
  const findings: Finding[] = [];
  const tokens = issuedTokens(calls);
  const tokenCalls = calls.filter((call) => header(call, 'clienttoken') !== undefined);

  // CLI-TOK-01: the header carries a token the service returned before the call.
  for (const call of tokenCalls) {
    const issued = tokens.get(header(call, 'clienttoken') as string);
    const known = issued !== undefined && before(issued.issuedBy, call);
    findings.push({ id: 'CLI-TOK-01', verdict: known ? 'passed' : 'failed', seq: call.seq, check: 'the ClientToken header carries a token the service returned', expected: 'a Token of an earlier token answer', actual: known ? 'a token of an earlier answer' : 'a value no token answer returned before' });
  }

  // CLI-TOK-02: a new client token before every call.
  const uses = new Map<string, GradedCall[]>();
  for (const call of tokenCalls) uses.set(header(call, 'clienttoken') as string, [...(uses.get(header(call, 'clienttoken') as string) ?? []), call]);
  const clientTokens = [...tokens.values()].filter((token) => token.kind === 'client');
  if (clientTokens.length > 0) {
    const refused = (token: string): boolean => (uses.get(token) ?? []).some((call) => call.answer?.status === 401);
    const wasted = clientTokens.filter((token, index) => {
      const next = clientTokens.slice(index + 1).find((candidate) => candidate.erpId === token.erpId);
      if (next === undefined || (uses.get(token.token) ?? []).length > 1 || refused(token.token)) return false;
      return token.validTo === undefined || token.validTo > next.issuedBy.startedAt;
    });
    const many = clientTokens.length >= 3 && wasted.length * 2 > clientTokens.length;
    findings.push({
      id: 'CLI-TOK-02', verdict: many ? 'failed' : 'passed', seq: many ? wasted[wasted.length - 1].issuedBy.seq : undefined, check: 'client tokens are reused while valid',
      expected: 'a token used for several calls until it expires', actual: `${clientTokens.length} client tokens for ${tokenCalls.length} ClientToken calls; ${wasted.length} used at most once and replaced while still valid`,
    });
  }

  // CLI-TOK-03: tokens of about 10 minutes.
  for (const call of calls.filter((candidate) => candidate.endpoint === 'POST /clienttokens/create')) {
    const validTo = text(fieldAt(call.body, 'ValidTo'));
    const time = validTo === undefined ? Number.NaN : (extendedDateTimeMs(validTo) ?? Number.NaN);
    const ahead = time - call.startedAt;
    const ok = Number.isFinite(ahead) && ahead > 0 && ahead <= TEN_MINUTES_MS + VALID_TO_SLACK_MS;
    findings.push({
      id: 'CLI-TOK-03', verdict: ok ? 'passed' : 'failed', seq: call.seq, check: 'the token is asked for about 10 minutes', expected: 'ValidTo up to 10 minutes ahead',
      actual: validTo === undefined ? 'no ValidTo: a token without expiry' : Number.isFinite(ahead) ? `ValidTo ${Math.round(ahead / 1000)} s ahead` : `ValidTo ${validTo} is not a date-time`,
    });
  }

  // CLI-TOK-04: no use past ValidTo or after revoke; no repeats after a refusal.
  const revokedAt = new Map<string, GradedCall>();
  for (const call of calls) {
    const revoked = call.endpoint === 'POST /clienttokens/revoke' && succeeded(call) ? text(fieldAt(call.body, 'ClientToken')) : undefined;
    if (revoked !== undefined && !revokedAt.has(revoked)) revokedAt.set(revoked, call);
  }
  let tokenFindings = 0;
  for (const [token, used] of uses) {
    const issued = tokens.get(token);
    for (const call of used) {
      const revoke = revokedAt.get(token);
      if (revoke !== undefined && before(revoke, call)) {
        findings.push({ id: 'CLI-TOK-04', verdict: 'failed', seq: call.seq, check: 'a revoked token is not used', expected: 'a new token after a revoke', actual: `the token revoked by call #${revoke.seq}` });
        tokenFindings++;
      } else if (issued?.validTo !== undefined && call.startedAt > issued.validTo) {
        findings.push({ id: 'CLI-TOK-04', verdict: 'failed', seq: call.seq, check: 'a token is not used after its ValidTo', expected: 'a new token once ValidTo has passed', actual: `sent ${Math.round((call.startedAt - issued.validTo) / 1000)} s after the token's ValidTo` });
        tokenFindings++;
      }
    }
    const refusal = used.find((call) => call.answer?.status === 401);
    if (refusal !== undefined) {
      const repeats = used.filter((call) => before(refusal, call));
      if (repeats.length > 1) {
        findings.push({ id: 'CLI-TOK-04', verdict: 'failed', seq: repeats[1].seq, check: 'a refused token is replaced', expected: 'a new token after a 401', actual: `the token refused by call #${refusal.seq} was sent ${repeats.length} more times` });
        tokenFindings++;
      }
    }
  }
  if (tokenCalls.length > 0 && tokenFindings === 0) findings.push({ id: 'CLI-TOK-04', verdict: 'passed', check: 'tokens are used only while valid', expected: 'no use after ValidTo, revoke or refusal', actual: `${uses.size} tokens over ${tokenCalls.length} calls` });

  // CLI-TOK-05: the SearchId resent.
  const searchCalls = calls.filter((call) => call.endpoint === 'POST /clienttokens/createsearchtoken');
  if (searchCalls.length > 0) {
    const groups = new Map<string, { ids: Set<string>; last: GradedCall }>();
    for (const call of searchCalls) {
      const searchId = text(fieldAt(call.body, 'SearchId'));
      if (searchId === undefined) continue;
      const company = erpIdOf(call, tokens);
      const key = company === undefined ? 'the APIkey' : `company ${company}`;
      const group = groups.get(key) ?? { ids: new Set<string>(), last: call };
      group.ids.add(searchId);
      group.last = call;
      groups.set(key, group);
    }
    const companies = Math.max(1, registeredErpIds(calls).size);
    for (const [key, group] of groups) {
      const allowed = key === 'the APIkey' ? companies : 1;
      findings.push({
        id: 'CLI-TOK-05', verdict: group.ids.size > allowed ? 'failed' : 'passed', seq: group.ids.size > allowed ? group.last.seq : undefined, check: `search tokens under ${key} resend their SearchId`,
        expected: key === 'the APIkey' ? `at most one SearchId per registered company (${allowed})` : 'one SearchId', actual: `${group.ids.size} distinct SearchIds in ${searchCalls.length} search token calls`,
      });
    }
  }

  // CLI-TOK-06: tokens for companies the client registered.
  const registered = registeredErpIds(calls);
  for (const call of calls.filter((candidate) => candidate.endpoint === 'POST /clienttokens/create')) {
    const erpId = text(fieldAt(call.body, 'ErpId'));
    if (erpId === undefined) continue;
    const register = [...registered.entries()].find(([registeredId]) => same(registeredId, erpId))?.[1];
    const ok = register !== undefined && register.startedAt <= call.startedAt;
    findings.push({ id: 'CLI-TOK-06', verdict: ok ? 'passed' : 'failed', seq: call.seq, check: 'the token is created for a registered company', expected: 'the ErpId of an earlier register call', actual: ok ? `ErpId registered by call #${register.seq}` : 'an ErpId the client never registered' });
  }
  return findings;
};
