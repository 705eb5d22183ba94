// The sandbox as a deployment serves it (variants tls, mtls, tls-expiring): HTTPS with a CA made
// for this one run, a server certificate it signed, and for mutual TLS a client certificate it
// signed too. Made with Debian's openssl (ca-certificates depends on it, so it is wherever HTTPS
// works): node:crypto makes keys but cannot sign X.509, and an npm package for it (node-forge,
// @peculiar/x509) would be a dependency of every install for a test variant. EC P-256 keys: a
// run's three certificates take a fraction of a second.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The deployment variants and what each puts in front of the sandbox. */
export const DEPLOYMENT_VARIANTS: Record<string, string> = {
  tls: 'HTTPS with a CA made for the run (its file: the ready line of dxs sandbox; dxs test with the embedded sandbox trusts it by itself)',
  mtls: 'HTTPS that requires a client certificate signed by the run\'s CA (mutual TLS); dxs sandbox prints the files of one',
  'tls-expiring': 'HTTPS (as tls) with a server certificate that expires in 5 days',
};

export interface SandboxTlsFiles {
  /** The run's CA certificate (PEM): what a client passes as --ca-cert. */
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** A client certificate and key signed by the CA (mutual TLS only). */
  clientCert?: string;
  clientKey?: string;
  directory: string;
}

export type TlsMode = 'tls' | 'mtls';

/** Which TLS mode the variants ask for, if any. */
export function tlsModeOf(variants: ReadonlySet<string>): { mode: TlsMode; serverDays: number } | undefined {
  if (variants.has('mtls')) return { mode: 'mtls', serverDays: variants.has('tls-expiring') ? 5 : 30 };
  if (variants.has('tls') || variants.has('tls-expiring')) return { mode: 'tls', serverDays: variants.has('tls-expiring') ? 5 : 30 };
  return undefined;
}

function openssl(args: string[], directory: string): void {
  const result = spawnSync('openssl', args, { cwd: directory, encoding: 'utf8' });
  if (result.error !== undefined) {
    throw new Error(`the TLS variants need openssl (Debian package openssl): ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}`);
  }
  if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr.trim()}`);
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function signed(directory: string, name: string, subject: string, days: number, extensions: string[]): void {
  openssl(['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], directory);
  writeFileSync(join(directory, `${name}.ext`), `${extensions.join('\n')}\n`);
  const serial = `0x${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', serial, '-days', String(days), '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.pem`], directory);
}

/**
 * Makes the CA, the server certificate (for localhost, 127.0.0.1, ::1 and the extra host names)
 * and, for mutual TLS, a client certificate, in a private temporary directory.
 */
export function makeRunCertificates(input: { mode: TlsMode; serverDays: number; hostNames?: readonly string[] }): SandboxTlsFiles {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-sandbox-tls-'));
  try {
    openssl(['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-sha256', '-subj', '/O=dxs sandbox/CN=dxs sandbox run CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], directory);
    const names = ['DNS:localhost', 'IP:127.0.0.1', 'IP:::1', ...(input.hostNames ?? []).map((name) => (/^[\d.]+$/.test(name) ? `IP:${name}` : `DNS:${name}`))];
    signed(directory, 'server', '/O=dxs sandbox/CN=dxs sandbox', input.serverDays, [
      'basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', `subjectAltName=${names.join(',')}`,
    ]);
    const files: SandboxTlsFiles = { caCert: join(directory, 'ca.pem'), serverCert: join(directory, 'server.pem'), serverKey: join(directory, 'server.key'), directory };
    if (input.mode === 'mtls') {
      signed(directory, 'client', '/O=dxs sandbox/CN=dxs client', 30, ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth']);
      files.clientCert = join(directory, 'client.pem');
      files.clientKey = join(directory, 'client.key');
    }
    // The CA's key is of no more use: nothing else is signed with it.
    rmSync(join(directory, 'ca.key'));
    return files;
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/** The options of node:https (and fastify's `https`) for the sandbox's server. */
export function httpsServerOptions(files: SandboxTlsFiles, mode: TlsMode): { key: string; cert: string; ca?: string; requestCert?: boolean; rejectUnauthorized?: boolean } {
  const base = { key: readFileSync(files.serverKey, 'utf8'), cert: readFileSync(files.serverCert, 'utf8') };
  return mode === 'mtls' ? { ...base, ca: readFileSync(files.caCert, 'utf8'), requestCert: true, rejectUnauthorized: true } : base;
}
