// From findings to one verdict per client requirement, counted by the catalog's basis as the server
// suite counts its checks: a broken spec rule fails, a hardening or guide rule warns (fails with
// --strict for hardening), an observation informs. No finding at all: not exercised.
import { failureSeverity } from '../schemas/requirements.ts';
import type { ClientRequirement } from '../schemas/client-requirements.ts';
import type { Finding, FindingVerdict } from './graded-call.ts';
import { FLOWS } from './judges/endpoints.ts';
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

/** Why a requirement may go unexercised by a client that did everything it does right, where a switch of dxs would exercise it. */
export const NOT_EXERCISED_HINTS: Record<string, string> = {
  'CLI-PACE-01': 'no call was answered 429 (--provoke rate-limit answers some)',
  'CLI-PACE-04': 'no call was answered with a 5xx (--provoke server-error answers one)',
  'CLI-PACE-03': 'no resource was polled more than 5 times',
};

/** The reason a requirement is not exercised, for the report and the certificate. */
export function notExercisedReason(id: string, notTried: readonly string[]): string {
  return NOT_EXERCISED_HINTS[id] ?? `not exercised by the client${notTried.length > 0 ? ` (flows not tried: ${notTried.join(', ')})` : ''}`;
}
