// What `dxs load` tells a k6 run, and the environment variable that carries each value. The CLI
// writes these variables, load/lib/settings.ts reads them, so the two sides share one list.
//
// Pure module, shared by k6 and the CLI.

export interface RunSettings {
  baseUrl: string;
  /** Never printed: the summary and the reports leave it out. */
  apiKey: string;
  profile: string;
  vus?: number;
  rate?: number;
  duration?: string;
  /** A fixed total of iterations (shared between the VUs): makes a run's count deterministic. */
  iterations?: number;
  /** Absolute path of the thresholds file; the default file when not set. */
  thresholdsFile?: string;
  /** Milliseconds between two responses (per VU and endpoint) that have the shared checks recorded, the first response always; 0 = every response. Every status is judged by k6. */
  checkInterval?: number;
  /** One checked response in N is also validated against its schema (0 = never). */
  schemaSample?: number;
  /** Number of SSNs per provider A lookup. */
  ssnCount?: number;
  /** Seed of all generated data. */
  seed?: number;
  /** Keeps the ErpIds of different runs (and runners) apart. */
  runPrefix?: string;
  /** Keeps the invoices and per-iteration ErpIds of one run's scripts apart (cli/commands/load/run.ts scriptTag). */
  scriptTag?: string;
  /** Absolute path of the fixture pack (fixtures/pack.ts) the run's data comes from. */
  fixturePack?: string;
  /** Mutual TLS (issue 31): PEM files k6 opens in the init context for options.tlsAuth. */
  clientCert?: string;
  clientKey?: string;
  /** --insecure: options.insecureSkipTLSVerify. */
  insecure?: boolean;
  /** Seconds the end of a document flow waits for the documents still being delivered (teardown's drain), as dxs test waits for background work. */
  asyncTimeout?: number;
}

/** The samples when none is given: the k6 side, the CLI's help and the bench print the same. */
export const DEFAULT_CHECK_INTERVAL = 1000;
export const DEFAULT_SCHEMA_SAMPLE = 1;
export const DEFAULT_ASYNC_TIMEOUT = 30;

export const SETTING_ENV_NAMES: Record<keyof RunSettings, string> = {
  baseUrl: 'DXS_BASE_URL',
  apiKey: 'DXS_API_KEY',
  profile: 'DXS_PROFILE',
  vus: 'DXS_VUS',
  rate: 'DXS_RATE',
  duration: 'DXS_DURATION',
  iterations: 'DXS_ITERATIONS',
  thresholdsFile: 'DXS_THRESHOLDS_FILE',
  checkInterval: 'DXS_CHECK_INTERVAL',
  schemaSample: 'DXS_SCHEMA_SAMPLE',
  ssnCount: 'DXS_SSN_COUNT',
  seed: 'DXS_SEED',
  runPrefix: 'DXS_RUN_PREFIX',
  scriptTag: 'DXS_SCRIPT_TAG',
  fixturePack: 'DXS_FIXTURE_PACK',
  clientCert: 'DXS_CLIENT_CERT',
  clientKey: 'DXS_CLIENT_KEY',
  insecure: 'DXS_INSECURE',
  asyncTimeout: 'DXS_ASYNC_TIMEOUT',
};

/** The environment of a k6 run; without the API key for an archive that leaves the machine. */
export function settingsEnvironment(settings: RunSettings, includeSecrets: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, name] of Object.entries(SETTING_ENV_NAMES) as Array<[keyof RunSettings, string]>) {
    const value = settings[key];
    if (value === undefined || (key === 'apiKey' && !includeSecrets)) continue;
    env[name] = String(value);
  }
  return env;
}
