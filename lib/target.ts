// The target of a run: either a base URL given by the user, probed before anything runs, or the
// embedded sandbox started on a free port. Shared by dxs test and dxs load.
//
// Node-only module (it starts servers and opens sockets); k6 never loads it.
import { ConfigError, flagName, type OptionSource, describeSetting } from './config.ts';
import { API_PREFIX } from './defaults.ts';
import { preflight, type PreflightKey } from './preflight.ts';
import { secrets, type SecretRegistry } from './redact.ts';
import { connectionFor, networkOptionsOf, send, TransportError, type Connection, type NetworkOptions, type ServerCertificate } from './transport.ts';
import { isTransientReason, sendAgainOnTransient } from './transient.ts';
import type { RunningSandbox } from '../sandbox/index.ts';

/** The target did not answer: refused, unknown host, TLS failure or timeout. Exit 2, like a configuration error. */
export class TargetUnreachable extends ConfigError {
  override readonly name: string = 'TargetUnreachable';
  readonly url: string;
  readonly reason: string;
  constructor(url: string, reason: string) {
    super(`target ${url} is unreachable: ${reason}`);
    this.url = url;
    this.reason = reason;
  }
}

export interface TargetOptions {
  baseUrl?: string;
  apiKey?: string;
  apiKeyWithoutDelete?: string;
  /** Casing the embedded sandbox answers in. */
  sandboxCasing?: 'pascal' | 'camel';
  /** Deliberate faults and variants of the embedded sandbox (see sandbox/faults.ts), to see the suites fail or tolerate. */
  sandboxFaults?: string[];
  sandboxVariants?: string[];
  /** Bound on the reachability probe. */
  probeTimeoutMs?: number;
  /** Proxy and TLS settings (--proxy, --ca-cert, --client-cert/--client-key, --insecure). */
  network?: NetworkOptions;
  /** false: the caller measures the latency itself (dxs test, alongside its background probe). */
  measureLatency?: boolean;
  /** Where each setting came from, so that a configuration error names it (resolveCommandOptions's sources). */
  sources?: Record<string, OptionSource>;
  configPath?: string;
  /** false: no preflight of the keys and the base URL (lib/preflight.ts). */
  preflight?: boolean;
  /** --max-rps, which the preflight's calls keep to. */
  maxRps?: number;
}

/** The target options among a command's resolved options (TARGET_OPTIONS of lib/config.ts). */
export function targetOptionsOf(options: Record<string, unknown>, origin: { sources?: Record<string, OptionSource>; configPath?: string } = {}): TargetOptions {
  return {
    baseUrl: options.baseUrl as string | undefined,
    apiKey: options.apiKey as string | undefined,
    apiKeyWithoutDelete: options.apiKeyWithoutDelete as string | undefined,
    sources: origin.sources,
    configPath: origin.configPath,
    maxRps: options.maxRps as number | undefined,
    sandboxCasing: options.sandboxCasing as 'pascal' | 'camel' | undefined,
    sandboxFaults: options.sandboxFault as string[] | undefined,
    sandboxVariants: options.sandboxVariant as string[] | undefined,
    network: networkOptionsOf(options),
  };
}

export interface Target {
  baseUrl: string;
  apiKey: string;
  /** Undefined when the user gave none: the checks that need it are skipped, with that reason. */
  apiKeyWithoutDelete?: string;
  /** True when dxs started the sandbox itself. */
  embedded: boolean;
  /** Warnings worth showing (e.g. a base URL that does not end in /v1/api). */
  warnings: string[];
  /** How every client of the run reaches the target: proxy and TLS files. */
  connection: Connection;
  /** The server's certificate, when the target speaks HTTPS. */
  certificate?: ServerCertificate;
  /** The quickest round trip of a few probes at the start: how long each call waits on the network and the target. */
  latencyMs?: number;
  close(): Promise<void>;
}

/** Checks the form of a base URL; returns warnings, throws ConfigError when it cannot be used at all. */
export function checkBaseUrl(baseUrl: string): { url: string; warnings: string[] } {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new ConfigError(`base URL ${JSON.stringify(baseUrl)} is not a URL (expected e.g. https://staging.example.com/v1/api)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`base URL ${baseUrl} must use http or https, not ${parsed.protocol.replace(':', '')}`);
  }
  if (parsed.search !== '' || parsed.hash !== '') throw new ConfigError(`base URL ${baseUrl} must not carry a query or fragment`);
  const url = baseUrl.replace(/\/+$/, '');
  const warnings: string[] = [];
  if (!url.endsWith(API_PREFIX)) warnings.push(`base URL ${url} does not end in ${API_PREFIX}, the version prefix the spec names`);
  return { url, warnings };
}

/** Whether the URL names this machine (127.0.0.0/8, ::1 or localhost). */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Any HTTP answer counts as reachable (even 404 or 401): only the transport is judged here. Goes
 * through the proxy and with the TLS settings every other client of the run uses; node:http
 * rather than fetch, which refuses the ports that browsers block (such as 1 or 6000). Resolves
 * with the server's certificate over HTTPS.
 */
export async function probe(baseUrl: string, timeoutMs = 5000, connection: Connection = { insecure: false }): Promise<ServerCertificate | undefined> {
  try {
    // A connection reset or closed by the deployment on this one call is no unreachable target: it is
    // sent again (issue 57). A probe left unanswered is not: a target that does not answer is said at once.
    const answer = await sendAgainOnTransient(
      () => send(baseUrl, { method: 'GET', headers: { accept: '*/*' }, timeoutMs }, connection),
      ({ error }) => error instanceof TransportError && isTransientReason(error.reason) && !error.reason.startsWith('no answer within'),
    );
    return answer.certificate;
  } catch (error) {
    if (error instanceof TransportError) {
      // A staging host that only a company proxy resolves looks like a typo without one.
      const hint = connection.proxy === undefined && error.reason.startsWith('host name not found') ? '; if the host is reached through a proxy, set HTTPS_PROXY (or HTTP_PROXY) or pass --proxy URL' : '';
      throw new TargetUnreachable(baseUrl, `${error.reason}${hint}`);
    }
    throw error;
  }
}

async function startEmbeddedSandbox(options: TargetOptions): Promise<RunningSandbox> {
  // Loaded only when needed: a run against a remote target never pays for the sandbox.
  const { startSandbox } = await import('../sandbox/index.ts');
  try {
    return await startSandbox({
      port: 0,
      host: '127.0.0.1',
      casing: options.sandboxCasing,
      faults: options.sandboxFaults,
      variants: options.sandboxVariants,
    });
  } catch (error) {
    throw new ConfigError(`cannot start the embedded sandbox: ${(error as Error).message}`);
  }
}

/** Opens the target: starts the sandbox when no base URL is given, otherwise checks and probes the URL. */
export async function openTarget(options: TargetOptions, registry: SecretRegistry = secrets): Promise<Target> {
  if (options.baseUrl === undefined || options.baseUrl === '') {
    const sandbox = await startEmbeddedSandbox(options);
    const baseUrl = sandbox.baseUrl.replace(/\/+$/, '');
    let connection: Connection;
    try {
      // The sandbox's own CA and client certificate (variants tls, mtls) unless the user gave others.
      connection = connectionFor(baseUrl, {
        ...options.network,
        caCert: options.network?.caCert ?? sandbox.tls?.caCert,
        clientCert: options.network?.clientCert ?? sandbox.tls?.clientCert,
        clientKey: options.network?.clientKey ?? sandbox.tls?.clientKey,
      }, undefined, registry);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    const target: Target = {
      baseUrl,
      apiKey: options.apiKey ?? sandbox.apiKey,
      apiKeyWithoutDelete: options.apiKeyWithoutDelete ?? sandbox.apiKeyWithoutDelete,
      embedded: true,
      warnings: [],
      connection,
      close: () => sandbox.close(),
    };
    registerTargetSecrets(target, registry);
    if (baseUrl.startsWith('https:')) {
      try {
        target.certificate = await probe(baseUrl, options.probeTimeoutMs ?? 5000, connection);
      } catch (error) {
        await sandbox.close();
        throw error;
      }
    }
    // Keys the user gave the embedded sandbox are theirs to get right; its own need no preflight.
    try {
      await preflightTarget(target, options, registry, (key) => (key === 'apiKey' ? options.apiKey : options.apiKeyWithoutDelete) !== undefined);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    if (options.measureLatency !== false) target.latencyMs = await measureLatency(target.baseUrl, connection).catch(() => undefined);
    return target;
  }
  const { url, warnings } = checkBaseUrl(options.baseUrl);
  const apiKey = options.apiKey;
  const apiKeyWithoutDelete = options.apiKeyWithoutDelete || undefined;
  if (apiKey === undefined || apiKey === '') {
    // The sandbox's own keys go only to the sandbox dxs started itself: any base URL the user gives,
    // on this machine too (a port-forward to a staging looks the same), needs the user's key.
    throw new ConfigError(
      `no API key for ${url}, the base URL of ${settingOf(options, 'baseUrl')}: the API key is missing; pass --api-key, set DXS_API_KEY, or put "apiKey" in the config file` +
        `${isLoopback(url) ? "; a sandbox started with dxs sandbox prints its keys when it starts" : ''}`,
    );
  }
  const connection = connectionFor(url, options.network ?? {}, undefined, registry);
  const target: Target = {
    baseUrl: url,
    apiKey,
    apiKeyWithoutDelete,
    embedded: false,
    warnings,
    connection,
    close: async () => {},
  };
  registerTargetSecrets(target, registry);
  target.certificate = await probe(url, options.probeTimeoutMs ?? 5000, connection);
  await preflightTarget(target, options, registry, () => true);
  if (options.measureLatency !== false) target.latencyMs = await measureLatency(url, connection).catch(() => undefined);
  return target;
}

/** The setting and its source, as a configuration error names it: "--api-key (flag)". */
function settingOf(options: TargetOptions, key: string): string {
  return options.sources === undefined ? flagName(key) : describeSetting(key, options.sources[key], options.configPath);
}

/** The preflight of lib/preflight.ts with the target's keys that `given` selects; prints what it could not judge. */
async function preflightTarget(target: Target, options: TargetOptions, registry: SecretRegistry, given: (key: 'apiKey' | 'apiKeyWithoutDelete') => boolean): Promise<void> {
  if (options.preflight === false) return;
  const keys: PreflightKey[] = [];
  for (const key of ['apiKey', 'apiKeyWithoutDelete'] as const) {
    const value = target[key];
    if (value !== undefined && value !== '' && given(key)) keys.push({ value, setting: settingOf(options, key), flag: flagName(key) });
  }
  // The embedded sandbox with its own keys: nothing the user set to check.
  if (target.embedded && keys.length === 0) return;
  const outcome = await preflight({ baseUrl: target.baseUrl, connection: target.connection, baseSetting: settingOf(options, 'baseUrl'), keys, registry, maxRps: options.maxRps });
  for (const line of outcome.notJudged) target.warnings.push(`preflight: ${line}`);
}

/**
 * The target's latency: the quickest of a few probes after a first that may open a connection (a
 * name to resolve, a TLS handshake) and warm up a sandbox just started. The quickest, not the
 * median: on a busy machine a probe also waits for a core, which is not the target's latency.
 * Cheap: no credential, nothing created, under a second on a slow target.
 */
export async function measureLatency(baseUrl: string, connection: Connection = { insecure: false }, samples = 6, timeoutMs = 5000): Promise<number> {
  const timed = async (): Promise<number> => {
    const started = performance.now();
    await probe(baseUrl, timeoutMs, connection);
    return performance.now() - started;
  };
  await timed();
  let quickest = Infinity;
  for (let index = 0; index < samples; index++) quickest = Math.min(quickest, await timed());
  return quickest;
}

export function registerTargetSecrets(target: { apiKey?: string; apiKeyWithoutDelete?: string }, registry: SecretRegistry = secrets): void {
  registry.add(target.apiKey);
  registry.add(target.apiKeyWithoutDelete);
}
