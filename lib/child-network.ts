// The run's proxy and TLS settings for the programs dxs starts (Playwright, k6, Schemathesis), in
// the forms each reads: the proxy variables, replaced by the one decision dxs made for the target
// (so --proxy, NO_PROXY and "" for none mean the same to every client); the CA bundle as
// NODE_EXTRA_CA_CERTS for Node, and as SSL_CERT_FILE for Go, where it replaces the system roots,
// so dxs writes the system roots and the bundle into one file (also what Schemathesis'
// --tls-verify takes).
//
// Node-only module.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from './transport.ts';

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];
/** Where Debian (and most Linux distributions) keep the system's trusted roots. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

export interface ChildNetwork {
  /** The environment for the child: the given one with the proxy and CA variables set. */
  env: Record<string, string | undefined>;
  /** System roots and the CA bundle in one PEM file, when a CA bundle is given (Schemathesis --tls-verify). */
  fullBundle?: string;
  /** Removes the files written for the child. */
  dispose(): void;
}

function readable(path: string | undefined): string | undefined {
  if (path === undefined || path === '') return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export function childNetwork(connection: Connection | undefined, env: Record<string, string | undefined> = process.env): ChildNetwork {
  const childEnv: Record<string, string | undefined> = { ...env };
  if (connection === undefined) return { env: childEnv, dispose: () => {} };
  for (const name of PROXY_VARIABLES) delete childEnv[name];
  if (connection.proxy !== undefined) {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) childEnv[name] = connection.proxy;
  }
  if (connection.caCert === undefined) return { env: childEnv, dispose: () => {} };
  const directory = mkdtempSync(join(tmpdir(), 'dxs-ca-'));
  const bundle = readFileSync(connection.caCert, 'utf8');
  const extra = readable(env.NODE_EXTRA_CA_CERTS);
  if (extra !== undefined) {
    childEnv.NODE_EXTRA_CA_CERTS = join(directory, 'node-extra.pem');
    writeFileSync(childEnv.NODE_EXTRA_CA_CERTS, `${extra.trimEnd()}\n${bundle}`, { mode: 0o600 });
  } else childEnv.NODE_EXTRA_CA_CERTS = connection.caCert;
  // The roots SSL_CERT_FILE names already are the whole set: Go and Schemathesis keep them as they are.
  if (env.SSL_CERT_FILE === connection.caCert) return { env: childEnv, fullBundle: connection.caCert, dispose: () => rmSync(directory, { recursive: true, force: true }) };
  const system = readable(env.SSL_CERT_FILE) ?? SYSTEM_BUNDLES.map((path) => (existsSync(path) ? readable(path) : undefined)).find((text) => text !== undefined) ?? '';
  const fullBundle = join(directory, 'roots.pem');
  writeFileSync(fullBundle, `${system.trimEnd()}\n${bundle}`, { mode: 0o600 });
  childEnv.SSL_CERT_FILE = fullBundle;
  return { env: childEnv, fullBundle, dispose: () => rmSync(directory, { recursive: true, force: true }) };
}
