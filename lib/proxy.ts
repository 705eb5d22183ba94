// Which proxy, if any, carries a request: --proxy (DXS_PROXY, config key "proxy") first, then the
// variables curl, k6, Python's requests and Schemathesis read (HTTPS_PROXY for https, HTTP_PROXY
// for http, lower case first, as curl does), and NO_PROXY matched the way curl matches it: a
// comma-separated list of host names (a suffix match on whole labels, a leading dot optional),
// IP addresses, `host:port` for one port only, and `*` for every host. NO_PROXY applies to
// --proxy too, as it does to curl's --proxy. A target on this machine (localhost, 127.0.0.0/8,
// ::1) is never proxied: k6 (Go) and Schemathesis (Python) skip such addresses by themselves, and
// every client of a run must take the same path.
//
// Pure module: no Node APIs.

export interface ProxyEnvironment {
  HTTPS_PROXY?: string;
  https_proxy?: string;
  HTTP_PROXY?: string;
  http_proxy?: string;
  NO_PROXY?: string;
  no_proxy?: string;
  [name: string]: string | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The NO_PROXY list in effect (either case, lower case first). */
export function noProxyOf(env: ProxyEnvironment): string | undefined {
  return nonEmpty(env.no_proxy) ?? nonEmpty(env.NO_PROXY);
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/** Whether NO_PROXY names the host (and port) of the URL. */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const port = target.port === '' ? defaultPort(target.protocol) : target.port;
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed !== null) {
      entry = bracketed[1];
      entryPort = bracketed[2];
    } else {
      const withPort = /^([^:]+):(\d+)$/.exec(entry);
      if (withPort !== null) {
        entry = withPort[1];
        entryPort = withPort[2];
      }
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    entry = entry.replace(/^\*?\./, '').replace(/\.$/, '');
    if (entry === '') continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/** Checks the form of a proxy URL; returns a message when it cannot be used. */
export function proxyUrlProblem(proxy: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`);
  } catch {
    return 'is not a URL (expected e.g. http://proxy.example:3128)';
  }
  if (parsed.protocol !== 'http:') return `uses ${parsed.protocol.replace(':', '')}: dxs speaks to a proxy in plain HTTP (http://HOST:PORT), as curl and k6 do by default`;
  if (parsed.pathname !== '/' && parsed.pathname !== '') return 'must not carry a path';
  return undefined;
}

/** The proxy URL with a scheme: curl and requests take `host:port` as http://host:port. */
export function normaliseProxyUrl(proxy: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/**
 * The proxy a request to targetUrl goes through, or undefined for a direct connection. `explicit`
 * is --proxy; an empty string there means "no proxy at all", as curl's --proxy "" does.
 */
export function proxyFor(targetUrl: string, explicit: string | undefined, env: ProxyEnvironment): string | undefined {
  const target = new URL(targetUrl);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host)) return undefined;
  const fromEnv = target.protocol === 'https:' ? nonEmpty(env.https_proxy) ?? nonEmpty(env.HTTPS_PROXY) : nonEmpty(env.http_proxy) ?? nonEmpty(env.HTTP_PROXY);
  const chosen = explicit !== undefined ? nonEmpty(explicit) : fromEnv;
  if (chosen === undefined || bypassesProxy(target, noProxyOf(env))) return undefined;
  return normaliseProxyUrl(chosen);
}

/** The proxy URL as shown in a report or a log: the credentials, if any, replaced. */
export function displayProxy(proxy: string): string {
  try {
    const parsed = new URL(normaliseProxyUrl(proxy));
    if (parsed.username === '' && parsed.password === '') return `${parsed.protocol}//${parsed.host}`;
    return `${parsed.protocol}//[REDACTED]@${parsed.host}`;
  } catch {
    return '[a proxy URL that does not parse]';
  }
}

/** The values of a proxy URL that must never reach a report: its password, user:password, and both encoded. */
export function proxyCredentialValues(proxy: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(normaliseProxyUrl(proxy));
  } catch {
    return [proxy];
  }
  if (parsed.username === '' && parsed.password === '') return [];
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const pair = `${user}:${password}`;
  return [password, parsed.password, pair, `${parsed.username}:${parsed.password}`, btoa(pair), proxy];
}

/** The Proxy-Authorization header value for a proxy URL with credentials. */
export function proxyAuthorization(proxy: string): string | undefined {
  const parsed = new URL(normaliseProxyUrl(proxy));
  if (parsed.username === '' && parsed.password === '') return undefined;
  return `Basic ${btoa(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`)}`;
}
