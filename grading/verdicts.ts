// From findings to one verdict per client requirement, counted by the catalog's basis as the server
// suite counts its checks: a broken spec rule fails, a hardening or guide rule warns (fails with
// --strict for hardening), an observation informs. No finding at all: not exercised.
import { failureSeverity } from '../schemas/requirements.ts';
import type { ClientRequirement } from '../schemas/client-requirements.ts';
import type { Finding, FindingVerdict } from './graded-call.ts';
import { FLOW_IDS, FLOW_PROFILES, FLOWS } from './judges/endpoints.ts';
import type { GradedCall } from './graded-call.ts';

export type ClientVerdict = 'passed' | 'failed' | 'warning' | 'info' | 'not exercised';

export interface RequirementOutcome {
  requirement: ClientRequirement;
  verdict: ClientVerdict;
  /** The findings, each with the verdict it counts as. */
  findings: Finding[];
}

const ORDER: ClientVerdict[] = ['not exercised', 'passed', 'info', 'warning', 'failed'];

function counted(verdict: FindingVerdict, requirement: ClientRequirement, strict: boolean): FindingVerdict {
  if (verdict !== 'failed') return verdict === 'warning' && strict && requirement.basis === 'hardening' ? 'failed' : verdict;
  const severity = failureSeverity(requirement as never, strict);
  return severity === 'failure' ? 'failed' : severity;
}

export function gradeRequirements(findings: readonly Finding[], catalog: readonly ClientRequirement[], strict: boolean): RequirementOutcome[] {
  return catalog.map((requirement) => {
    const own = findings.filter((finding) => finding.id === requirement.id).map((finding) => ({ ...finding, verdict: counted(finding.verdict, requirement, strict) }));
    let verdict: ClientVerdict = 'not exercised';
    for (const finding of own) if (ORDER.indexOf(finding.verdict) > ORDER.indexOf(verdict)) verdict = finding.verdict;
    return { requirement, verdict, findings: own };
  });
}

/** Which of the main flows the client tried, and which it did not. */
export function flowsOf(calls: readonly GradedCall[]): { tried: string[]; notTried: string[] } {
  const endpoints = new Set(calls.map((call) => call.endpoint));
  const tried: string[] = [];
  const notTried: string[] = [];
  for (const [flow, members] of Object.entries(FLOWS)) (members.some((endpoint) => endpoints.has(endpoint)) ? tried : notTried).push(flow);
  return { tried, notTried };
}

/** Where one call (or its absence) does not tell: what exercises the requirement, in words. */
export const NOT_EXERCISED_HINTS: Record<string, string> = {
  'CLI-PACE-01': 'exercised when a call is answered 429: --provoke rate-limit answers some',
  'CLI-PACE-03': 'exercised when one resource is polled more than 5 times',
  'CLI-PACE-04': 'exercised when a call is answered with a 5xx: --provoke server-error answers the first upload 500',
  'CLI-BODY-06': 'exercised by a register, set details, services or network setup body that carries Processes',
  'CLI-BODY-09': 'exercised by an add-user body (POST /companies/users) that carries CultureCode',
  'CLI-BODY-16': 'exercised by a send body that carries SendDocumentAs.Type',
  'CLI-REF-02': 'exercised by a send that names Document.RenderedDocumentUri or Document.Attachments',
  'CLI-REF-03': 'exercised by a network setup (POST /network/setup) that names an AttachmentUri',
  'CLI-TOK-02': 'exercised once the client has created client tokens (POST /clienttokens/create) for a company',
  'CLI-FLOW-02': 'exercised by POST /companies/services on a company the client registered (flow: activate services)',
  'CLI-FLOW-03': 'exercised when the client downloads inbound documents after listing the inbox without sequenceNo',
};

const flowOf = (endpoint: string): string | undefined => Object.entries(FLOWS).find(([, members]) => members.includes(endpoint))?.[0];

/**
 * Why a requirement was not exercised, for the report and the certificate: the call or flow that
 * would exercise it, and, where the client tried that flow by other calls, that it did.
 */
export function notExercisedReason(requirement: Pick<ClientRequirement, 'id' | 'endpoints' | 'basis'>, tried: readonly string[]): string {
  const hint = NOT_EXERCISED_HINTS[requirement.id];
  if (hint !== undefined) return hint;
  const verb = requirement.basis === 'observe' ? 'observed when the client makes' : 'exercised by';
  const endpoints = requirement.endpoints.filter((endpoint) => endpoint !== '*');
  if (endpoints.length === 0) return `${verb} any call: the client made none`;
  const flows = [...new Set(endpoints.map(flowOf).filter((flow): flow is string => flow !== undefined))];
  const triedOtherwise = flows.filter((flow) => tried.includes(flow));
  const calls = endpoints.length <= 3 ? `${endpoints.join(' or ')} (${flows.length === 1 ? 'flow' : 'flows'}: ${flows.join(', ')})` : `a call of ${flows.length === 1 ? 'the flow' : 'the flows'} ${flows.join(', ')}`;
  return `${verb} ${calls}; the client made no such call${triedOtherwise.length > 0 ? ` (it tried ${triedOtherwise.join(', ')} by other calls)` : ''}`;
}

/** The flows --require-flows names (a flow's name or short id, or a profile: all, core); unknown words are returned apart. */
export function resolveRequiredFlows(words: readonly string[]): { flows: string[]; unknown: string[] } {
  const flows = new Set<string>();
  const unknown: string[] = [];
  for (const word of words.map((item) => item.trim()).filter((item) => item !== '')) {
    const profile = FLOW_PROFILES[word.toLowerCase()];
    const flow = Object.keys(FLOWS).find((name) => name.toLowerCase() === word.toLowerCase() || FLOW_IDS[name] === word.toLowerCase());
    if (profile !== undefined) profile.forEach((name) => flows.add(name));
    else if (flow !== undefined) flows.add(flow);
    else unknown.push(word);
  }
  return { flows: Object.keys(FLOWS).filter((name) => flows.has(name)), unknown };
}
