// The server certificate a run over HTTPS saw, and when its expiry is worth a warning.
//
// Pure module.

/** The server certificate a run over HTTPS saw: recorded in the report, a warning when it expires soon. */
export interface ServerCertificate {
  subject: string;
  issuer: string;
  validTo: string;
  daysLeft: number;
  /** The run did not verify it (--insecure). */
  verified: boolean;
}

/** Fewer days than this until the server certificate expires: a warning, never a failure. */
export const CERTIFICATE_WARNING_DAYS = 14;

/** A line for the console and the report when the certificate expires within CERTIFICATE_WARNING_DAYS. */
export function certificateWarning(certificate: ServerCertificate | undefined): string | undefined {
  if (certificate === undefined || certificate.daysLeft >= CERTIFICATE_WARNING_DAYS) return undefined;
  return certificate.daysLeft < 0
    ? `the server certificate (${certificate.subject}) expired on ${certificate.validTo}`
    : `the server certificate (${certificate.subject}) expires in ${certificate.daysLeft} day${certificate.daysLeft === 1 ? '' : 's'} (${certificate.validTo}), fewer than ${CERTIFICATE_WARNING_DAYS}`;
}

