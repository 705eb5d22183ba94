// Turns a thresholds file (load/thresholds/default.json, or --thresholds FILE) into k6 thresholds
// for the endpoints a script calls. Every request and check is named after its endpoint (k6's
// `name` tag, "POST /documents"), so each endpoint gets its own p95, p99 and error-rate
// thresholds, and its own checks rate.
//
// Pure module, shared by k6 (options) and the CLI (validating a file before a run).

import { ENDPOINTS } from './endpoints.ts';

export interface EndpointLimits {
  p95?: number;
  p99?: number;
  errorRate?: number;
}

export interface ThresholdsFile {
  defaults?: EndpointLimits;
  endpoints?: Record<string, EndpointLimits>;
  checks?: number;
  /** The share of the contract's spec checks (lib/contract.ts) that must pass; 1: one body dxs test rejects fails the run. */
  contract?: number;
  abortOnFail?: { errorRate: number; delayAbortEval?: string };
  /**
   * Milliseconds from an accepted send to the first incoming list of its recipient that shows the
   * document (issue 35): judged by dxs load from the history once k6 has ended, not by k6. The
   * limits apply to every delivery type; `types` overrides them per SendDocumentAs.Type.
   */
  deliveryTime?: DeliveryTimeLimits;
  k6?: Record<string, Array<string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string }>>;
}

export interface DeliveryTimeLimit {
  p50?: number;
  p95?: number;
  p99?: number;
}

export interface DeliveryTimeLimits extends DeliveryTimeLimit {
  types?: Record<string, DeliveryTimeLimit>;
}

const DELIVERY_LIMIT_KEYS = ['p50', 'p95', 'p99'];

/** The limits of one delivery type: its own over the shared ones. */
export function deliveryTimeLimit(limits: DeliveryTimeLimits | undefined, deliveryType: string): DeliveryTimeLimit {
  const { types, ...shared } = limits ?? {};
  return { ...shared, ...types?.[deliveryType] };
}

export type K6Thresholds = Record<string, Array<string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string }>>;

const LIMIT_KEYS = ['p95', 'p99', 'errorRate'];

/** Throws with a message naming the bad key; the CLI turns it into exit 2. */
export function validateThresholdsFile(value: unknown): ThresholdsFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('a thresholds file holds one JSON object');
  const file = value as Record<string, unknown>;
  const known = ['$comment', 'defaults', 'endpoints', 'checks', 'contract', 'abortOnFail', 'deliveryTime', 'k6'];
  for (const key of Object.keys(file)) if (!known.includes(key)) throw new Error(`unknown key "${key}" (known: ${known.join(', ')})`);
  const limits = (where: string, item: unknown): void => {
    if (typeof item !== 'object' || item === null) throw new Error(`${where} must be an object`);
    for (const [key, limit] of Object.entries(item)) {
      if (!LIMIT_KEYS.includes(key)) throw new Error(`${where}.${key}: unknown limit (known: ${LIMIT_KEYS.join(', ')})`);
      if (typeof limit !== 'number' || !(limit >= 0)) throw new Error(`${where}.${key} must be a number >= 0`);
    }
  };
  if (file.defaults !== undefined) limits('defaults', file.defaults);
  if (file.endpoints !== undefined) {
    if (typeof file.endpoints !== 'object' || file.endpoints === null) throw new Error('endpoints must be an object');
    // A misspelt endpoint would get no thresholds at all, and the run would not say so.
    const endpointNames: readonly string[] = Object.values(ENDPOINTS);
    for (const [name, item] of Object.entries(file.endpoints)) {
      if (!endpointNames.includes(name)) throw new Error(`endpoints["${name}"]: unknown endpoint (known: ${endpointNames.join(', ')})`);
      limits(`endpoints["${name}"]`, item);
    }
  }
  if (file.checks !== undefined && (typeof file.checks !== 'number' || file.checks < 0)) throw new Error('checks must be a number (the share of checks that must pass)');
  if (file.contract !== undefined && (typeof file.contract !== 'number' || file.contract < 0 || file.contract > 1)) throw new Error('contract must be a number from 0 to 1 (the share of contract checks that must pass)');
  if (file.abortOnFail !== undefined) {
    const abort = file.abortOnFail as Record<string, unknown>;
    if (typeof abort.errorRate !== 'number') throw new Error('abortOnFail.errorRate must be a number');
  }
  if (file.deliveryTime !== undefined) validateDeliveryTime(file.deliveryTime);
  if (file.k6 !== undefined && (typeof file.k6 !== 'object' || file.k6 === null || Array.isArray(file.k6))) throw new Error('k6 must map metric names to threshold lists');
  // The requests carried an `endpoint` tag before they carried only `name`: such a threshold would
  // now match no point and pass without judging anything.
  for (const metric of Object.keys((file.k6 ?? {}) as object)) {
    if (/\{[^}]*\bendpoint:/.test(metric)) throw new Error(`k6["${metric}"]: the endpoint is in k6's name tag, write {name:...}`);
  }
  return file as ThresholdsFile;
}

function validateDeliveryTime(value: unknown): void {
  const limit = (where: string, item: unknown, allowTypes: boolean): void => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Error(`${where} must be an object`);
    for (const [key, inner] of Object.entries(item)) {
      if (allowTypes && key === 'types') {
        if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) throw new Error(`${where}.types must map delivery types (Electronic, PDF, Paper, BusinessToConsumer) to limits`);
        for (const [type, limits] of Object.entries(inner)) limit(`${where}.types.${type}`, limits, false);
        continue;
      }
      if (!DELIVERY_LIMIT_KEYS.includes(key)) throw new Error(`${where}.${key}: unknown limit (known: ${DELIVERY_LIMIT_KEYS.join(', ')}${allowTypes ? ', types' : ''})`);
      if (typeof inner !== 'number' || !(inner >= 0)) throw new Error(`${where}.${key} must be a number of milliseconds >= 0`);
    }
  };
  limit('deliveryTime', value, true);
}

export function buildThresholds(file: ThresholdsFile, endpoints: readonly string[]): K6Thresholds {
  const thresholds: K6Thresholds = {};
  const add = (metric: string, entry: K6Thresholds[string][number]): void => {
    (thresholds[metric] ??= []).push(entry);
  };
  for (const endpoint of endpoints) {
    const limits = { ...file.defaults, ...file.endpoints?.[endpoint] };
    if (limits.p95 !== undefined) add(`http_req_duration{name:${endpoint}}`, `p(95)<${limits.p95}`);
    if (limits.p99 !== undefined) add(`http_req_duration{name:${endpoint}}`, `p(99)<${limits.p99}`);
    if (limits.errorRate !== undefined) add(`http_req_failed{name:${endpoint}}`, `rate<=${limits.errorRate}`);
    if (file.checks !== undefined) add(`checks{name:${endpoint}}`, `rate>=${file.checks}`);
  }
  if (file.checks !== undefined) add('checks', `rate>=${file.checks}`);
  if (file.contract !== undefined) add('checks{contract:spec}', `rate>=${file.contract}`);
  if (file.abortOnFail !== undefined) {
    add('http_req_failed', {
      threshold: `rate<${file.abortOnFail.errorRate}`,
      abortOnFail: true,
      delayAbortEval: file.abortOnFail.delayAbortEval ?? '10s',
    });
  }
  for (const [metric, entries] of Object.entries(file.k6 ?? {})) for (const entry of entries) add(metric, entry);
  return thresholds;
}
