// Options of the CLI commands, resolved with one precedence everywhere:
//   command-line flag > DXS_* environment variable > config file (JSON) > default.
// One table per command describes each option once; the flag, the environment variable, the
// config-file key and the help text are all derived from it, so they cannot drift apart.
//
// Node-free on purpose (the file is read by the caller), although only the CLI uses it.

import { DEFAULT_RATE_LIMIT_BUDGET_SECONDS } from './gateway.ts';

/** A usage or configuration error: the CLI prints the message and exits 2. */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
  readonly exitCode = 2;
}

export type OptionKind = 'string' | 'integer' | 'number' | 'boolean' | 'list';

export interface OptionSpec {
  /** camelCase name: the config-file key and the commander attribute. */
  key: string;
  kind: OptionKind;
  /** Placeholder in help, e.g. "URL". Not used for booleans. */
  argument?: string;
  description: string;
  choices?: readonly string[];
  default?: unknown;
  /** Extra check after parsing; returns an error message or undefined. */
  check?: (value: unknown) => string | undefined;
  /** A string option whose flag may come without its value (`--last-failed [DIR]`): this value then. */
  optionalArgument?: string;
}

/** --base-url for baseUrl. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** DXS_BASE_URL for baseUrl. */
export function envName(key: string): string {
  return `DXS_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;
}

export type ResolvedOptions = Record<string, unknown>;

/** Where each value came from, so error messages can name the source. */
export type OptionSource = 'flag' | 'env' | 'config' | 'default';

function parseValue(spec: OptionSpec, raw: unknown, source: string): unknown {
  const where = `${source} ${source === 'flag' ? flagName(spec.key) : source === 'env' ? envName(spec.key) : `key "${spec.key}"`}`;
  let value: unknown;
  if (spec.optionalArgument !== undefined && raw === true) raw = spec.optionalArgument;
  switch (spec.kind) {
    case 'string':
      if (typeof raw !== 'string' && typeof raw !== 'number') throw new ConfigError(`${where}: expected a string, got ${JSON.stringify(raw)}`);
      value = String(raw);
      break;
    case 'integer':
    case 'number': {
      const number = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (!Number.isFinite(number) || (spec.kind === 'integer' && !Number.isInteger(number))) {
        throw new ConfigError(`${where}: expected ${spec.kind === 'integer' ? 'an integer' : 'a number'}, got ${JSON.stringify(raw)}`);
      }
      value = number;
      break;
    }
    case 'boolean':
      if (typeof raw === 'boolean') value = raw;
      else if (typeof raw === 'string' && /^(1|true|yes|on)$/i.test(raw)) value = true;
      else if (typeof raw === 'string' && /^(0|false|no|off|)$/i.test(raw)) value = false;
      else throw new ConfigError(`${where}: expected true or false, got ${JSON.stringify(raw)}`);
      break;
    case 'list':
      if (Array.isArray(raw)) value = raw.flatMap((item) => String(item).split(',')).map((item) => item.trim()).filter(Boolean);
      else if (typeof raw === 'string') value = raw.split(',').map((item) => item.trim()).filter(Boolean);
      else throw new ConfigError(`${where}: expected a list, got ${JSON.stringify(raw)}`);
      break;
  }
  if (spec.choices !== undefined) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (!spec.choices.includes(String(item))) throw new ConfigError(`${where}: ${JSON.stringify(item)} is not one of ${spec.choices.join(', ')}`);
    }
  }
  const problem = spec.check?.(value);
  if (problem !== undefined) throw new ConfigError(`${where}: ${problem}`);
  return value;
}

/** Parses a config file's text into an object of option values. */
export function parseConfigFile(text: string, path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`config file ${path} must hold a JSON object`);
  // Keys that no spec names are let through: one config file may serve dxs test and dxs load.
  return parsed as Record<string, unknown>;
}

export interface ResolveInput {
  specs: readonly OptionSpec[];
  /** Values given on the command line (undefined = not given). */
  flags: Record<string, unknown>;
  env: Record<string, string | undefined>;
  /** Parsed config file, if any. */
  file?: Record<string, unknown>;
}

export function resolveOptions(input: ResolveInput): { options: ResolvedOptions; sources: Record<string, OptionSource> } {
  const options: ResolvedOptions = {};
  const sources: Record<string, OptionSource> = {};
  for (const spec of input.specs) {
    const fromFlag = input.flags[spec.key];
    const fromEnv = input.env[envName(spec.key)];
    const fromFile = input.file?.[spec.key];
    if (fromFlag !== undefined) {
      options[spec.key] = parseValue(spec, fromFlag, 'flag');
      sources[spec.key] = 'flag';
    } else if (fromEnv !== undefined && fromEnv !== '') {
      options[spec.key] = parseValue(spec, fromEnv, 'env');
      sources[spec.key] = 'env';
    } else if (fromFile !== undefined && fromFile !== null) {
      options[spec.key] = parseValue(spec, fromFile, 'config');
      sources[spec.key] = 'config';
    } else {
      options[spec.key] = spec.default;
      sources[spec.key] = 'default';
    }
  }
  return { options, sources };
}

export const positive = (value: unknown): string | undefined => ((value as number) > 0 ? undefined : 'must be greater than 0');

/** Options every command that talks to a target shares (dxs test and dxs load). */
export const TARGET_OPTIONS: readonly OptionSpec[] = [
  { key: 'baseUrl', kind: 'string', argument: 'URL', description: 'base URL of the target, ending in /v1/api (default: start the embedded sandbox)' },
  { key: 'apiKey', kind: 'string', argument: 'KEY', description: 'API key (header APIkey) (default for a target on this machine: the sandbox key)' },
  { key: 'apiKeyWithoutDelete', kind: 'string', argument: 'KEY', description: 'a second API key without the DeleteRegistration role (enables the 401 checks of delete)' },
  { key: 'config', kind: 'string', argument: 'FILE', description: 'JSON config file; keys are the camelCase option names (e.g. {"baseUrl": "https://staging.example/v1/api"})' },
  { key: 'asyncTimeout', kind: 'number', argument: 'SECONDS', default: 30, check: positive, description: 'how long to wait for background work (registration, delivery) to complete' },
  { key: 'reportDir', kind: 'string', argument: 'DIR', description: 'where to write the report (default: reports/<timestamp>/, with reports/latest pointing to it)' },
  { key: 'sandboxCasing', kind: 'string', argument: 'CASING', choices: ['pascal', 'camel'], description: 'field-name casing the embedded sandbox answers in (default camel)' },
  { key: 'sandboxFault', kind: 'list', argument: 'NAME...', description: 'start the embedded sandbox with deliberate deviations from the spec (names: dxs sandbox --help), e.g. revoked-token-accepted' },
  { key: 'sandboxVariant', kind: 'list', argument: 'NAME...', description: 'start the embedded sandbox with legitimate differences from it that dxs must accept, e.g. pascal, gzip, slow, or contrarian (the other defensible choice on every point the spec leaves open)' },
  // A deployment: proxy and TLS (issue 31). Every client of a run gets them: the probe, Playwright, k6, Schemathesis, the cleanup.
  { key: 'proxy', kind: 'string', argument: 'URL', description: 'HTTP proxy for every call to the target, e.g. http://USER:PASSWORD@proxy.example:3128 (default: HTTPS_PROXY / HTTP_PROXY, either case; NO_PROXY applies to both; "" for none); its credentials are redacted like API keys' },
  { key: 'caCert', kind: 'string', argument: 'FILE', description: "PEM bundle of CA certificates added to the trusted roots, for a target whose certificate a private CA signed (NODE_EXTRA_CA_CERTS and SSL_CERT_FILE keep working)" },
  { key: 'clientCert', kind: 'string', argument: 'FILE', description: 'PEM client certificate for a target that requires mutual TLS (with --client-key)' },
  { key: 'clientKey', kind: 'string', argument: 'FILE', description: 'PEM private key of --client-cert' },
  { key: 'insecure', kind: 'boolean', default: false, description: "do not verify the target's TLS certificate (never the default; the report and the certificate say the run used it)" },
  { key: 'maxRps', kind: 'number', argument: 'N', check: positive, description: "at most N requests per second from dxs, all workers together, to stay under a gateway's known limit (dxs load: k6's rps; dxs fuzz: Schemathesis --rate-limit)" },
];

/** What shared options mean to dxs test alone: the other commands' help is not to carry it. */
const TEST_WORDING: Record<string, string> = {
  apiKey: 'API key (header APIkey), with the DeleteRegistration role for the destructive checks and to delete the run\'s companies at the end (default for a target on this machine: the sandbox key)',
  sandboxCasing: 'field-name casing the embedded sandbox answers in (default camel; pascal with --casing strict-pascal)',
};

/** Options of dxs test. */
export const TEST_OPTIONS: readonly OptionSpec[] = [
  ...TARGET_OPTIONS.map((spec) => (TEST_WORDING[spec.key] === undefined ? spec : { ...spec, description: TEST_WORDING[spec.key] })),
  { key: 'area', kind: 'list', argument: 'AREA...', description: 'run only these areas (comma-separated or repeated), e.g. tokens,companies' },
  { key: 'grep', kind: 'string', argument: 'PATTERN', description: 'run only tests whose title or tags match this regular expression (e.g. @TOK-01)' },
  { key: 'profile', kind: 'string', argument: 'NAME', default: 'full', description: 'which areas an integrator uses (see profiles below)' },
  { key: 'destructive', kind: 'boolean', default: false, description: 'also run destructive checks (company deletion)' },
  { key: 'strict', kind: 'boolean', default: false, description: 'hardening checks (good practice the spec does not require: size limits, strict Content-Type, 405 rather than 404) fail the run instead of warning' },
  // No fixed default: the run is I/O-bound against a remote target (issue 14), CPU-bound against this machine.
  { key: 'workers', kind: 'integer', argument: 'N', check: positive, description: 'parallel Playwright workers (default: from the target\'s latency and one timed registration at the start, within cores, memory and the size of a narrow selection)' },
  { key: 'maxFailures', kind: 'integer', argument: 'N', check: positive, description: 'stop the run after N failed tests (Playwright\'s --max-failures; blocked tests do not count, the rest are reported not run)' },
  { key: 'failFast', kind: 'boolean', default: false, description: 'stop at the first failed test (--max-failures 1)' },
  { key: 'keepData', kind: 'boolean', default: false, description: 'keep what the run created at the target (by default, with a key holding DeleteRegistration, its companies are deleted at the end; see created.json)' },
  {
    key: 'shard',
    kind: 'string',
    argument: 'I/N',
    check: (value) => {
      const match = /^(\d+)\/(\d+)$/.exec(String(value));
      return match !== null && Number(match[1]) >= 1 && Number(match[1]) <= Number(match[2]) ? undefined : 'expected I/N with 1 <= I <= N, e.g. 1/3';
    },
    description: 'run one shard of the suites (merge the reports with dxs report merge)',
  },
  {
    key: 'casing',
    kind: 'string',
    argument: 'MODE',
    choices: ['strict-pascal', 'strict-camel', 'any'],
    default: 'any',
    description: 'field-name casing required of responses: any accepts PascalCase and camelCase',
  },
  { key: 'baseline', kind: 'string', argument: 'PATH', description: 'results.json or report directory of an earlier run: exit 1 only for failures it did not have; its failures are listed as known, its fixed ones as fixed' },
  { key: 'scheduleFrom', kind: 'string', argument: 'PATH', description: "results.json or report directory of an earlier run whose durations order the queue, the longest tests first (default reports/latest when there is one; the tests tagged @background-chain first in any case); none keeps Playwright's file order. What each test checks is unchanged (docs/timeline.md)" },
  { key: 'lastFailed', kind: 'string', argument: 'DIR', optionalArgument: 'reports/latest', description: 'run again only the tests that failed or were blocked in that report (default reports/latest); says which are fixed now, exit 0 when all are' },
  { key: 'expectFailures', kind: 'string', argument: 'FILE', description: 'JSON file of accepted failures (requirement or test id, reason, optional expiry date): they do not fail the run until they expire' },
  {
    key: 'rateLimitBudget',
    kind: 'number',
    argument: 'SECONDS',
    default: DEFAULT_RATE_LIMIT_BUDGET_SECONDS,
    check: (value) => ((value as number) >= 0 ? undefined : 'must be 0 or more'),
    description: "waiting, in all, for a gateway's 429s and 503s with Retry-After (each call waits as Retry-After asks and is sent again); once spent, tests that meet one are blocked, \"rate limited by the target\"",
  },
];

/** Resolves the options of a command: flags, then env, then the config file named by --config or DXS_CONFIG. */
export function resolveCommandOptions(
  specs: readonly OptionSpec[],
  flags: Record<string, unknown>,
  env: Record<string, string | undefined>,
  readFile: (path: string) => string,
): { options: ResolvedOptions; sources: Record<string, OptionSource> } {
  const configPath = (flags.config as string | undefined) ?? (env.DXS_CONFIG || undefined);
  let file: Record<string, unknown> | undefined;
  if (configPath !== undefined) {
    let text: string;
    try {
      text = readFile(configPath);
    } catch (error) {
      throw new ConfigError(`cannot read config file ${configPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    file = parseConfigFile(text, configPath);
  }
  return resolveOptions({ specs, flags, env, file });
}
