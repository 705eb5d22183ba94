// What `dxs test` hands to the Playwright processes (the runner, its reporter and every worker):
// one JSON document in the environment variable DXS_RUN_CONTEXT, never on a command line, since
// it carries the API keys. Workers re-register the keys in their own SecretRegistry.
import { API_PREFIX, DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT, SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../../lib/defaults.ts';
import { secrets } from '../../lib/redact.ts';
import { proxyCredentialValues, proxyFor } from '../../lib/proxy.ts';
import type { Connection } from '../../lib/transport.ts';

export const RUN_CONTEXT_ENV = 'DXS_RUN_CONTEXT';

export type CasingMode = 'strict-pascal' | 'strict-camel' | 'any';

/** Which credential a call carries: a key of the run by role, none, or a specific value (a wrong key, a revoked token). */
export type Auth = 'apiKey' | 'apiKeyWithoutDelete' | 'none' | { apiKey: string } | { clientToken: string };

export interface RunContext {
  baseUrl: string;
  apiKey: string;
  apiKeyWithoutDelete?: string;
  asyncTimeoutSeconds: number;
  casing: CasingMode;
  /** Areas selected by the profile and --area; empty means every area. */
  areas: string[];
  grep?: string;
  destructive: boolean;
  /** Hardening requirements fail the run instead of warning (--strict, or a profile that says so). */
  strict?: boolean;
  profile: string;
  reportDir: string;
  /** Prefix of every id this run invents, so parallel runs never collide. */
  runPrefix: string;
  seed: number;
  embedded: boolean;
  version: string;
  startedAt: string;
  /** Where workers leave the token values they saw, so the reporter can redact them too (outside the report directory). */
  secretsFile?: string;
  shard?: string;
  /** Proxy (credentials included) and TLS files of the run (issue 31); absent: a direct connection, Node's roots. */
  connection?: Connection;
  /** --max-rps: dxs's own calls, all workers together, stay under it (suites/support/gateway.ts). */
  maxRps?: number;
  /** The run's pace (suites/support/run-pace.ts, served by the dxs test process): every worker takes its send slots from it. */
  paceUrl?: string;
  /** Playwright workers of the run: without a run pace, each takes its share of maxRps. */
  workers?: number;
  /** --rate-limit-budget: seconds of waiting for 429s and 503s with Retry-After, in all, before tests that meet one are blocked. */
  rateLimitBudgetSeconds?: number;
  /** --call-timeout: each call's bound, in seconds (default 30); a call past it is the deployment's transport (issue 57). */
  callTimeoutSeconds?: number;
  /** The target's round trip as the preflight measured it: polls for background work pace themselves by it. */
  latencyMs?: number;
  /** The earlier run's long tests (--schedule-from, by default reports/latest), queued longest first (report/schedule.ts). */
  schedule?: ScheduledTest[];
  /** What `dxs test` makes for the workers while they start (run-setup.ts); absent, each worker makes its own. */
  setup?: RunSetupPlan;
}

/** The run's setup: for workers 0 to workers - 1 (Playwright's workerIndex), the items made for each. */
export interface RunSetupPlan {
  /** A folder of 0600 files outside the report directory (the outcomes carry tokens). */
  folder: string;
  workers: number;
  /** A company role of head-start.ts, or 'access' (access.ts). */
  items: string[];
}

/** A test the earlier run timed (report/schedule.ts): its file (under suites/) and its titles within the file, as results.json names them. */
export interface ScheduledTest {
  file: string;
  titlePath: string[];
  /** How long it took in the earlier run. */
  durationMs: number;
}

/**
 * The tag of a test that waits on a whole chain of background work, the longest waits of a run (a
 * document followed through its statuses to delivery, an invoice into an inbox): with no earlier
 * run to time it, it is queued first.
 */
export const BACKGROUND_CHAIN_TAG = '@background-chain';

let cached: RunContext | undefined;

/** In `dxs test` itself, where the run's setup runs the suites' code outside Playwright: the context it hands the workers. */
export function useRunContext(context: RunContext): void {
  cached = context;
}

/**
 * The context of this run. Without DXS_RUN_CONTEXT (someone ran `npx playwright test -c
 * suites/playwright.config.ts` directly) it falls back to the DXS_* variables and then to a
 * sandbox started by hand with `dxs sandbox` on its default port.
 */
export function runContext(env: Record<string, string | undefined> = process.env): RunContext {
  if (cached !== undefined && env === process.env) return cached;
  const raw = env[RUN_CONTEXT_ENV];
  const context: RunContext =
    raw !== undefined && raw !== ''
      ? (JSON.parse(raw) as RunContext)
      : {
          baseUrl: env.DXS_BASE_URL ?? `http://${DEFAULT_SANDBOX_HOST}:${DEFAULT_SANDBOX_PORT}${API_PREFIX}`,
          // The sandbox's keys only for the sandbox on its default port: a base URL of the user's needs the user's key.
          apiKey: env.DXS_API_KEY ?? (env.DXS_BASE_URL === undefined ? SANDBOX_API_KEY : ''),
          apiKeyWithoutDelete: env.DXS_API_KEY_WITHOUT_DELETE ?? (env.DXS_BASE_URL === undefined ? SANDBOX_API_KEY_WITHOUT_DELETE : undefined),
          asyncTimeoutSeconds: Number(env.DXS_ASYNC_TIMEOUT ?? 30),
          casing: (env.DXS_CASING as CasingMode | undefined) ?? 'any',
          areas: (env.DXS_AREA ?? '').split(',').map((area) => area.trim()).filter(Boolean),
          grep: env.DXS_GREP,
          destructive: /^(1|true)$/i.test(env.DXS_DESTRUCTIVE ?? ''),
          strict: /^(1|true)$/i.test(env.DXS_STRICT ?? ''),
          profile: env.DXS_PROFILE ?? 'full',
          reportDir: env.DXS_REPORT_DIR ?? 'reports/playwright-direct',
          runPrefix: `dxs-${Date.now().toString(36)}-pw00`,
          seed: 1,
          embedded: false,
          version: 'dev',
          startedAt: new Date().toISOString(),
          maxRps: env.DXS_MAX_RPS ? Number(env.DXS_MAX_RPS) : undefined,
          rateLimitBudgetSeconds: env.DXS_RATE_LIMIT_BUDGET ? Number(env.DXS_RATE_LIMIT_BUDGET) : undefined,
          callTimeoutSeconds: env.DXS_CALL_TIMEOUT ? Number(env.DXS_CALL_TIMEOUT) : undefined,
        };
  // Run directly, Playwright takes the proxy and the client certificate from the same variables as
  // dxs; a CA bundle only through NODE_EXTRA_CA_CERTS, which its processes read when they start.
  if (raw === undefined || raw === '') {
    context.connection = {
      proxy: proxyFor(context.baseUrl, env.DXS_PROXY, env),
      clientCert: env.DXS_CLIENT_CERT || undefined,
      clientKey: env.DXS_CLIENT_KEY || undefined,
      insecure: /^(1|true|yes|on)$/i.test(env.DXS_INSECURE ?? ''),
    };
  }
  secrets.add(context.apiKey);
  secrets.add(context.apiKeyWithoutDelete);
  if (context.connection?.proxy !== undefined) for (const value of proxyCredentialValues(context.connection.proxy)) secrets.add(value);
  if (env === process.env) cached = context;
  return context;
}
