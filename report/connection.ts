// How a run reached its target (issue 31): the proxy (its credentials never written), the TLS
// files, --insecure, and the server certificate the run saw, with a warning when it expires
// within CERTIFICATE_WARNING_DAYS days. A part of results.json (run.connection), rendered by
// connection-html.ts and the console; a warning here never fails a run.
import { basename } from 'node:path';
import { displayProxy } from '../lib/proxy.ts';
import { certificateWarning, type ServerCertificate } from '../lib/server-certificate.ts';
import type { Connection } from '../lib/transport.ts';

export interface ConnectionInfo {
  /** The proxy the run went through, without its credentials. */
  proxy?: string;
  caCert?: string;
  clientCert?: string;
  /** The server's certificate was not verified (--insecure). */
  insecure: boolean;
  certificate?: ServerCertificate;
  /** Lines for the console and the report: a certificate that expires soon, --insecure. */
  warnings: string[];
}

/** How a report names the roots SSL_CERT_FILE gives (the system's bundle, as a rule), rather than by its path. */
export const SYSTEM_ROOTS = "the system's trusted roots (SSL_CERT_FILE)";

export const INSECURE_WARNING = "--insecure: the target's TLS certificate was not verified; the run proves nothing about who answered";

export function connectionInfo(connection: Connection, certificate: ServerCertificate | undefined): ConnectionInfo {
  const warnings: string[] = [];
  if (connection.insecure) warnings.push(INSECURE_WARNING);
  const expiry = certificateWarning(certificate);
  if (expiry !== undefined) warnings.push(expiry);
  return {
    ...(connection.proxy === undefined ? {} : { proxy: displayProxy(connection.proxy) }),
    // A report names no path of the machine it ran on (issue 59): a file by its name, SSL_CERT_FILE's bundle as what it is.
    ...(connection.caCert === undefined ? {} : { caCert: connection.caCertFromEnvironment === true ? SYSTEM_ROOTS : basename(connection.caCert) }),
    ...(connection.clientCert === undefined ? {} : { clientCert: basename(connection.clientCert) }),
    insecure: connection.insecure,
    ...(certificate === undefined ? {} : { certificate }),
    warnings,
  };
}

export function certificateLine(certificate: ServerCertificate): string {
  return `server certificate: ${certificate.subject}, issued by ${certificate.issuer}, valid until ${certificate.validTo} (${certificate.daysLeft} days left)${certificate.verified ? '' : ', not verified'}`;
}

/** Lines for the console: the proxy, the certificate, then each warning. */
export function connectionLines(info: ConnectionInfo | undefined): string[] {
  if (info === undefined) return [];
  const lines: string[] = [];
  if (info.proxy !== undefined) lines.push(`through the proxy ${info.proxy}`);
  if (info.clientCert !== undefined) lines.push(`client certificate ${info.clientCert} (mutual TLS)`);
  if (info.certificate !== undefined) lines.push(certificateLine(info.certificate));
  for (const warning of info.warnings) lines.push(`warning: ${warning}`);
  return lines;
}

/** Plain-text notes for the load report: how the target was reached, and the warnings. */
export function connectionNotes(info: ConnectionInfo | undefined): string[] {
  if (info === undefined) return [];
  const notes: string[] = [];
  if (info.proxy !== undefined) notes.push(`Through the proxy ${info.proxy}.`);
  if (info.clientCert !== undefined) notes.push(`Mutual TLS with the client certificate ${info.clientCert}.`);
  if (info.certificate !== undefined) notes.push(`${certificateLine(info.certificate).replace(/^s/, 'S')}.`);
  for (const warning of info.warnings) notes.push(`Warning: ${warning}.`);
  return notes;
}
