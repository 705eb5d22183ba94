// Whether a load run loaded its target (issue 57). Behind a gateway that refuses fast (nginx's
// limit_req answers 429 in a millisecond), a run's calls can be almost all the gateway's: the
// target then was hardly loaded, and its latency, measured over the few calls that reached it,
// proves nothing about the profile's rate. Such a run is not a pass nor a failure of the target:
// it did not measure what it was asked to (exit 2), and says which endpoint the gateway refused.
import type { EndpointResult, RunResult } from './results.ts';

/** The share of an endpoint's answers (percent) the gateway may give before the run no longer counts. */
export const DEFAULT_MAX_GATEWAY_SHARE = 5;

export interface GatewayRefusal {
  endpoint: string;
  /** The endpoint's calls: its requests less the gateway's answers a flow waited out and sent again. */
  calls: number;
  /** Calls the gateway had the last word on. */
  answers: number;
  /** Percent of the endpoint's answers that were the gateway's. */
  share: number;
  byStatus: Record<string, number>;
}

export interface GatewayJudgement {
  /** Answers of the gateway over the whole script. */
  answers: number;
  /** Endpoints whose share is above the limit, the largest share first. */
  refused: GatewayRefusal[];
  maxShare: number;
  /** Calls a second the gateway let through to the target over the run: a pace that keeps under its limit. */
  passedPerSecond?: number;
}

function gatewayAnswers(item: EndpointResult): number {
  return Object.values(item.gateway ?? {}).reduce((total, count) => total + count, 0);
}

/**
 * An endpoint's calls and those the gateway refused for good. An answer waited out (Retry-After)
 * and sent again is left out of both: that call went on, and reached the target at what the
 * gateway's limit allows, which is what a run behind a known limit asks for.
 */
function shareOf(item: EndpointResult): { calls: number; refusedCalls: number } {
  const waited = item.gatewayWaited ?? 0;
  return { calls: item.requests - waited, refusedCalls: Math.max(0, gatewayAnswers(item) - waited) };
}

export function judgeGatewayShare(result: Pick<RunResult, 'endpoints'> & Partial<Pick<RunResult, 'durationSeconds'>>, maxShare: number = DEFAULT_MAX_GATEWAY_SHARE): GatewayJudgement {
  const refused: GatewayRefusal[] = [];
  let answers = 0;
  for (const item of result.endpoints) {
    answers += gatewayAnswers(item);
    const { calls, refusedCalls } = shareOf(item);
    if (refusedCalls === 0 || calls === 0) continue;
    const share = (refusedCalls / calls) * 100;
    if (share > maxShare) refused.push({ endpoint: item.endpoint, calls, answers: refusedCalls, share, byStatus: item.gateway ?? {} });
  }
  refused.sort((a, b) => b.share - a.share || a.endpoint.localeCompare(b.endpoint));
  const requests = result.endpoints.reduce((total, item) => total + item.requests, 0);
  const duration = result.durationSeconds ?? 0;
  return { answers, refused, maxShare, ...(duration > 0 ? { passedPerSecond: (requests - answers) / duration } : {}) };
}

/** 94 % from 94.6 (never 100 % unless all were); 0.4 % stays 0.4 %, not 0 %. */
function formatShare(share: number): string {
  return share >= 10 || Number.isInteger(share) ? `${Math.floor(share)} %` : `${share.toFixed(1)} %`;
}

function statusList(byStatus: Record<string, number>): string {
  return Object.entries(byStatus).sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${count}x ${status}`).join(', ');
}

/**
 * "the gateway refused 95 % of POST /clienttokens/create (...): the target was not loaded at the
 * profile's rate; lower the rate or raise the limit", or undefined when the run loaded its target.
 */
export function gatewayRefusalMessage(judgement: GatewayJudgement): string | undefined {
  if (judgement.refused.length === 0) return undefined;
  const endpoints = judgement.refused.map((item) => `${formatShare(item.share)} of ${item.endpoint} (${item.answers} of ${item.calls} calls; answers ${statusList(item.byStatus)})`);
  // The pace dxs test keeps behind a gateway, offered here as k6's --rps: what the gateway let through.
  const pace = judgement.passedPerSecond === undefined || judgement.passedPerSecond < 1 ? 'or --max-rps under the gateway\'s limit' : `or --max-rps ${Math.floor(judgement.passedPerSecond)}: the gateway let about ${judgement.passedPerSecond.toFixed(1)} calls a second through`;
  return `the gateway refused ${endpoints.join('; ')}: the target was not loaded at the profile's rate (more than --max-gateway-share ${judgement.maxShare} %); lower the rate (--rate, --vus, ${pace}) or raise the limit`;
}

/**
 * "GET /companies/status: 4x 429, all waited out; POST /clienttokens/create: 4000x 429, 95 % of its
 * calls refused": the gateway's answers per endpoint, for the console line.
 */
export function gatewayCounts(result: Pick<RunResult, 'endpoints'>): string | undefined {
  const parts = result.endpoints
    .filter((item) => gatewayAnswers(item) > 0)
    .sort((a, b) => gatewayAnswers(b) - gatewayAnswers(a))
    .map((item) => {
      const { calls, refusedCalls } = shareOf(item);
      const waited = item.gatewayWaited ?? 0;
      const fate = refusedCalls === 0 ? 'all waited out' : `${formatShare((refusedCalls / calls) * 100)} of its calls refused${waited > 0 ? `, ${waited} waited out` : ''}`;
      return `${item.endpoint}: ${statusList(item.gateway ?? {})}, ${fate}`;
    });
  return parts.length === 0 ? undefined : parts.join('; ');
}

/**
 * Judges a script's result: when the gateway refused more than `maxShare` of an endpoint's calls,
 * the result is not measured (gatewayRefused, not passed) and the message is returned. Shared by
 * dxs load and dxs load merge (and the collector Job of dxs load k8s).
 */
export function markGatewayRefusal(result: RunResult, maxShare: number = DEFAULT_MAX_GATEWAY_SHARE): string | undefined {
  const message = gatewayRefusalMessage(judgeGatewayShare(result, maxShare));
  if (message === undefined) return undefined;
  result.gatewayRefused = message;
  result.passed = false;
  return message;
}

export { gatewayAnswers };
