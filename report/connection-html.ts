// The connection rows of the report's target section (report/connection.ts holds the record).
import { SYSTEM_ROOTS, type ConnectionInfo } from './connection.ts';
import { escapeHtml } from './escape-html.ts';

/** Rows of the report's target section. */
export function connectionRows(info: ConnectionInfo | undefined): Array<[string, string]> {
  if (info === undefined) return [];
  const rows: Array<[string, string]> = [];
  const how = [
    info.proxy === undefined ? 'direct' : `through the proxy ${escapeHtml(info.proxy)}`,
    info.caCert === undefined ? '' : info.caCert === SYSTEM_ROOTS ? escapeHtml(SYSTEM_ROOTS) : `CA bundle ${escapeHtml(info.caCert)}`,
    info.clientCert === undefined ? '' : `client certificate ${escapeHtml(info.clientCert)} (mutual TLS)`,
    info.insecure ? '<strong>--insecure: certificate not verified</strong>' : '',
  ].filter((part) => part !== '');
  rows.push(['Connection', how.join('; ')]);
  if (info.certificate !== undefined) {
    const certificate = info.certificate;
    rows.push(['Server certificate', `${escapeHtml(certificate.subject)}; issuer ${escapeHtml(certificate.issuer)}; valid until ${escapeHtml(certificate.validTo)} (${certificate.daysLeft} days left)`]);
  }
  for (const warning of info.warnings) rows.push(['Warning', `<span class="badge warning">warning</span> ${escapeHtml(warning)}`]);
  return rows;
}
