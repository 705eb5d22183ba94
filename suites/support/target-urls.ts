// URLs the target hands out (InfoUrl, DownloadUrl, the file information's URLs) are followed only
// under the base URL: a token is never sent to another scheme, host or port. A URL dxs will not
// follow is a finding of its own (issue 57): a warning that names the URL, the base and what
// differs (behind a proxy that passes Host without the port, "the port is missing"), and the checks
// that would have followed it are marked not reached, for that reason, instead of passing unseen.
import { asWarning } from '../../lib/checks.ts';
import type { ApiResponse } from './client.ts';
import { fact, pathUnderBase } from './outbound.ts';
import { expectCheck, notReached } from './verdict.ts';

function schemeOf(url: URL): string {
  return url.protocol.replace(/:$/, '');
}

/** What keeps a URL from lying under the base URL, or undefined when it does (then pathUnderBase gives its path). */
export function urlDifference(url: string, baseUrl: string): string | undefined {
  const base = new URL(baseUrl.replace(/\/+$/, ''));
  let resolved: URL;
  try {
    resolved = new URL(url, base);
  } catch {
    return 'not a URL';
  }
  const differences: string[] = [];
  if (resolved.protocol !== base.protocol) differences.push(`another scheme (${schemeOf(resolved)} instead of ${schemeOf(base)})`);
  if (resolved.hostname !== base.hostname) differences.push(`another host (${resolved.hostname} instead of ${base.hostname})`);
  // URL gives '' for a scheme's default port: compared as written, as a client would connect.
  if (resolved.port !== base.port && resolved.protocol === base.protocol) {
    if (resolved.port === '') differences.push(`the port is missing (the base URL has :${base.port})`);
    else if (base.port === '') differences.push(`another port (:${resolved.port}; the base URL has none)`);
    else differences.push(`another port (:${resolved.port} instead of :${base.port})`);
  }
  if (differences.length === 0 && !resolved.pathname.startsWith(`${base.pathname}/`)) differences.push(`not under the base path ${base.pathname}`);
  return differences.length === 0 ? undefined : differences.join(', ');
}

export interface GivenUrl {
  /** Where the answer gives it: "InfoUrl", "DownloadUrl", "Files[0].DownloadUrl". */
  where: string;
  url: unknown;
}

/**
 * The path under the base URL to follow a URL the target gave, or undefined. A URL that cannot be
 * followed is a warning under `requirement` (the URL, the base, what differs), and each of `reaches`
 * (the requirements whose checks would have followed it) is marked not reached with that reason.
 */
export async function followGivenUrl(response: ApiResponse, given: GivenUrl, baseUrl: string, requirement: string, reaches: readonly string[]): Promise<string | undefined> {
  const text = typeof given.url === 'string' ? given.url : undefined;
  const path = text === undefined ? undefined : pathUnderBase(text, baseUrl);
  const difference = text === undefined ? `no URL given (${JSON.stringify(given.url) ?? 'absent'})` : path === undefined ? (urlDifference(text, baseUrl) ?? 'not under the base URL') : undefined;
  const base = baseUrl.replace(/\/+$/, '');
  await expectCheck(response, [asWarning(fact(
    'URL under the base URL',
    difference === undefined,
    `${given.where} a URL dxs can follow: under the base URL ${base} (same scheme, host and port)`,
    difference === undefined ? `${given.where} ${text}` : `${given.where} ${text ?? ''}${text === undefined ? '' : ': '}${difference}`,
  ))], { requirement });
  if (difference === undefined) return path;
  for (const id of reaches) notReached(id, `${given.where} ${text ?? '(none)'} is not under the base URL ${base}: ${difference}; dxs did not follow it`);
  return undefined;
}

