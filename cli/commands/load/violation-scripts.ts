// dxs load's part of issue 43: each violation of the exchange gets a shell script of curl calls
// that re-checks it against the target, rendered by lib/reproduce.ts as dxs test's scripts are. A
// violation cannot be made again (it was one answer among thousands under load), so the script
// does not resend: it creates a ClientToken of each company involved with the API key (by ErpId,
// the token read with jq) and makes again the calls its evidence holds, on the very documents of
// the run: the recipient's incoming list (without sequenceNo and from sequenceNo 0), the download
// of the inbound id, the info, the mark, the sender's outbound status of the DocumentId. So the
// run's companies must still exist (--keep-data), and each status is compared with the run's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_KEY_HEADER, CLIENT_TOKEN_HEADER } from '../../../lib/defaults.ts';
import type { EvidenceEvent } from '../../../lib/exchange-check.ts';
import { renderScript, type ReplayCall, type ValueOrigin } from '../../../lib/reproduce.ts';
import type { ExchangeSummary } from './results.ts';

/** Stands for the API key in the calls: renderScript writes it as $DXS_API_KEY, so no key is ever in the script's input. */
const API_KEY_STAND_IN = 'dxs-load-api-key-stand-in';
/** The folder of the scripts, in the report folder. */
export const REPRODUCE_DIRECTORY = 'reproduce';
/** How long the script's tokens are valid: its calls take seconds. */
const TOKEN_VALIDITY_MS = 60 * 60_000;

type Violation = ExchangeSummary['violations'][number];

/** The calls that re-check one violation, and the origins of the tokens they use. */
export function violationCalls(violation: Violation, baseUrl: string, now = Date.now()): { calls: ReplayCall[]; origins: Map<string, ValueOrigin>; failing: number } {
  const base = baseUrl.replace(/\/+$/, '');
  const calls: ReplayCall[] = [];
  const origins = new Map<string, ValueOrigin>();
  const tokens = new Map<string, string>();
  const add = (call: Omit<ReplayCall, 'sequence'>): ReplayCall => {
    const made = { ...call, sequence: calls.length + 1 };
    calls.push(made);
    return made;
  };
  const tokenOf = (erpId: string): string => {
    const known = tokens.get(erpId);
    if (known !== undefined) return known;
    // A stand-in the script replaces with the token its own create call answered.
    const standIn = `dxs-token-stand-in-${tokens.size + 1}`;
    const call = add({ method: 'POST', url: `${base}/clienttokens/create`, headers: { [API_KEY_HEADER]: API_KEY_STAND_IN, 'content-type': 'application/json' }, body: { text: JSON.stringify({ ErpId: erpId, ValidTo: new Date(now + TOKEN_VALIDITY_MS).toISOString() }) }, status: 200 });
    origins.set(standIn, { ours: false, sequence: call.sequence, source: { json: ['Token'] }, name: 'Token' });
    tokens.set(erpId, standIn);
    return standIn;
  };
  const get = (actor: string, path: string, status: number, accept = 'application/json'): ReplayCall =>
    add({ method: 'GET', url: `${base}${path}`, headers: { accept, [CLIENT_TOKEN_HEADER]: tokenOf(actor) }, status });
  // One call per list: the list a send's recipient already made is the one that shows the violation.
  const listed = new Map<string, ReplayCall>();
  const list = (actor: string, sequenceNo: number | undefined, status: number): ReplayCall => {
    const key = `${actor} ${sequenceNo ?? ''}`;
    const known = listed.get(key);
    if (known !== undefined) return known;
    const call = get(actor, `/documents/incoming?type=invoice${sequenceNo === undefined ? '' : `&sequenceNo=${sequenceNo}`}`, status);
    listed.set(key, call);
    return call;
  };
  const evidence: readonly EvidenceEvent[] = violation.evidence;
  // The companies first, so each token is made before the calls that use it.
  for (const event of evidence) {
    tokenOf(event.actor);
    if (event.op === 'send' && event.recipient !== undefined) tokenOf(event.recipient);
  }
  let failing = calls.length;
  for (const event of evidence) {
    const status = event.status === 0 ? 200 : event.status;
    let made: ReplayCall | undefined;
    switch (event.op) {
      case 'send':
        // Not sent again: the sender reads the status of the DocumentId the run's send got.
        if (event.documentId !== undefined) made = get(event.actor, `/documents/outbound/${encodeURIComponent(event.documentId)}`, 200);
        if (event.recipient !== undefined) {
          list(event.recipient, undefined, 200);
          list(event.recipient, 0, 200);
        }
        break;
      case 'status':
        if (event.documentId !== undefined) made = get(event.actor, `/documents/outbound/${encodeURIComponent(event.documentId)}`, status);
        break;
      case 'list':
        made = list(event.actor, event.sequenceNo, status);
        // Both ways of listing: without sequenceNo (the unhandled documents) and from 0 (every one).
        list(event.actor, event.sequenceNo === undefined ? 0 : undefined, status);
        break;
      case 'fetch':
        if (event.id !== undefined) made = get(event.actor, `/documents/${encodeURIComponent(event.id)}`, status, '*/*');
        break;
      case 'info':
        if (event.id !== undefined) made = get(event.actor, `/documents/${encodeURIComponent(event.id)}/info`, status);
        break;
      case 'handled':
        made = add({ method: 'POST', url: `${base}/documents/handled`, headers: { [CLIENT_TOKEN_HEADER]: tokenOf(event.actor), 'content-type': 'application/json' }, body: { text: JSON.stringify({ documents: event.ids ?? [] }) }, status });
        break;
    }
    if (made !== undefined) failing = made.sequence;
  }
  return { calls, origins, failing };
}

/** The file name of a violation's script: the script, the rule and its place among the violations. */
function stemOf(script: string, violation: Violation, index: number): string {
  return `${script}-${violation.rule}-${index + 1}`.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/**
 * Writes reproduce/<script>-<rule>-<n>.sh into the report folder for each violation the summary
 * holds, and names it in the violation (`reproduce`, relative to the report folder).
 */
export function writeViolationScripts(reportDir: string, script: string, summary: ExchangeSummary, baseUrl: string): string[] {
  const written: string[] = [];
  for (const [index, violation] of summary.violations.entries()) {
    const { calls, origins, failing } = violationCalls(violation, baseUrl);
    if (calls.length === 0) continue;
    const stem = stemOf(script, violation, index);
    const rendered = renderScript({
      title: `dxs load ${script}: ${violation.rule}: ${violation.summary}`,
      baseUrl,
      calls,
      origins,
      variables: [{ value: API_KEY_STAND_IN, variable: 'DXS_API_KEY' }],
      failing: { sequence: failing, note: `${violation.rule}: the run's answer showed the violation; the run's companies must still exist (dxs load --keep-data)` },
      stem,
      madeBy: 'dxs load',
    });
    const directory = join(reportDir, REPRODUCE_DIRECTORY);
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `${stem}.sh`), rendered.text, { mode: 0o755 });
    for (const file of rendered.files) writeFileSync(join(directory, file.name), file.bytes);
    violation.reproduce = `${REPRODUCE_DIRECTORY}/${stem}.sh`;
    written.push(violation.reproduce);
  }
  return written;
}
