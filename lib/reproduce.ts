// Reproduce a test with curl (issue 43): the calls of a test, and the calls that made what it used
// (the company, its client token, the upload), as a POSIX shell script anyone can run against the
// target. Secrets are shell variables; values the target handed out (CompanyId, Token, Location)
// are read from the earlier answers of the script itself with jq, so the script works after the
// run's cleanup deleted its companies. Pure module: no Node APIs (k6 may load it).

/** Where a value the target handed out sits in the answer that first carried it. */
export type ValueSource =
  | { json: Array<string | number> }
  /** The Location header, whole or (last-segment) what follows its last '/' or ':'. */
  | { header: 'location'; part?: 'last-segment' };

export type ReplayBody = { text: string } | { bytes: Uint8Array };

export type ReplayPart = { name: string; value: string } | { name: string; fileName: string; mimeType: string; bytes: Uint8Array };

/** One call as it was sent, unredacted (it never leaves the process as such), and what came back. */
export interface ReplayCall {
  /** Order of the call in its process. */
  sequence: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: ReplayBody;
  /** A body too large to keep: its size; the script sends the call without it, and says so. */
  bodyOmitted?: number;
  multipart?: ReplayPart[];
  /** The answer's status; undefined when none came. */
  status?: number;
  /** Leaves of the JSON answer (key: JSON of the path), for the condition that ends a repeated poll. */
  scalars?: Record<string, string | number | boolean | null>;
}

/** The first call that carried a value: one of ours (we sent it: an ErpId, a name), or the target's answer. */
export type ValueOrigin =
  /** sequence: only for an id of ours (one with the run prefix), whose first call made the entity. */
  | { ours: true; sequence?: number }
  | { ours: false; sequence: number; source: ValueSource; name: string };

export interface ScriptInput {
  /** What the script reproduces, for its header. */
  title: string;
  baseUrl: string;
  /** The calls to make, in order (selectCalls). */
  calls: readonly ReplayCall[];
  /** The target-origin values the calls use, with where they came from. */
  origins: ReadonlyMap<string, ValueOrigin>;
  /** Secret values that must appear as a shell variable (the configured API keys). */
  variables: ReadonlyArray<{ value: string; variable: string }>;
  /** The call a check failed (or warned) on, and what it said. */
  failing?: { sequence: number; note: string };
  /** File name stem for the files written beside the script. */
  stem: string;
  /** The command that made the script, for its header; default dxs test. */
  madeBy?: string;
  /**
   * Whether only the call the check judged decides "reproduced" (dxs test: the script's companies
   * are new, so a call before it may find another state than the run's shared company had); other
   * calls that answered otherwise are named beside the verdict. Otherwise every call decides.
   */
  judgedCallDecides?: boolean;
  /**
   * Whether a header value is a secret of the run (a ClientToken the target handed out): one whose
   * making the script does not hold becomes a variable the script asks for, never a literal.
   */
  isSecret?: (value: string) => boolean;
}

export interface Script {
  text: string;
  /** Files the script reads, relative to its own folder. */
  files: Array<{ name: string; bytes: Uint8Array }>;
  /** The curl command of the failing call, to print (its variables come from the script's earlier lines). */
  failingCall?: string;
}

/** Shorter values are words, not ids: replacing them would rewrite what the test sent. */
const MINIMUM_VALUE_LENGTH = 6;
/** Bodies above this go to a file beside the script. */
const INLINE_BODY_LIMIT = 8 * 1024;
const POLL_ATTEMPTS = 60;

export function isCandidateValue(value: string): boolean {
  return value.length >= MINIMUM_VALUE_LENGTH && !/^\s|\s$|\n/.test(value);
}

/**
 * A value the target handed out that a later call may use: an id, a token, a URL. A word of
 * letters only ("Document", "Registered") is the API's vocabulary, which a test writes itself:
 * read from an earlier answer, it would become whatever that answer holds in a replay.
 */
export function isHandedOutCandidate(value: string): boolean {
  return isCandidateValue(value) && /[^A-Za-z]/.test(value);
}

/** A word in single quotes, for sh. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function variableName(name: string, number: number): string {
  const word = name.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'VALUE';
  return `${word}_${number}`;
}

type Piece = { literal: string } | { variable: string };

/** The variable standing for a value at a value's place in a request, if one does. */
type Lookup = (value: string) => string | undefined;

function literal(text: string): Piece[] {
  return text === '' ? [] : [{ literal: text }];
}

/** Neighbouring literals as one, so each shell word stays as short as it reads. */
function joined(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    const previous = out.at(-1);
    if ('literal' in piece && previous !== undefined && 'literal' in previous) out[out.length - 1] = { literal: previous.literal + piece.literal };
    else out.push(piece);
  }
  return out;
}

/** Splits a text at every (secret) value that becomes a variable, wherever it sits. */
function piecesOf(text: string, replacements: ReadonlyArray<{ value: string; variable: string }>): Piece[] {
  let pieces: Piece[] = [{ literal: text }];
  for (const { value, variable } of replacements) {
    pieces = pieces.flatMap((piece): Piece[] => {
      if (!('literal' in piece) || !piece.literal.includes(value)) return [piece];
      const parts = piece.literal.split(value);
      return parts.flatMap((part, index): Piece[] => [...literal(part), ...(index < parts.length - 1 ? [{ variable }] : [])]);
    });
  }
  return pieces;
}

/** One shell word: literals single-quoted, variables double-quoted, side by side. */
function word(pieces: readonly Piece[]): string {
  if (pieces.length === 0) return "''";
  return joined(pieces).map((piece) => ('literal' in piece ? shellQuote(piece.literal) : `"$${piece.variable}"`)).join('');
}

function textOf(body: ReplayBody): string | undefined {
  if ('text' in body) return body.text;
  return undefined;
}

function requestKey(call: ReplayCall): string {
  const body = call.body === undefined ? '' : 'text' in call.body ? call.body.text : `${call.body.bytes.length} bytes`;
  const parts = (call.multipart ?? []).map((part) => ('value' in part ? `${part.name}=${part.value}` : `${part.name}@${part.fileName}`)).join('&');
  return `${call.method} ${call.url} ${JSON.stringify(call.headers)} ${body} ${parts}`;
}

// Where a value handed out may sit in a request, and nowhere else: a whole JSON string value, a
// whole header value, a whole form field, a segment of a URL or URN (a path segment, a query's
// value, a URN's last part). Never a JSON key, never part of a longer word: "Document" handed out
// once must not turn "SendDocumentAs" into "Send$DOCUMENTTYPEAs".
const URI_SEPARATORS = /([/:?&=#])/;
/** What a non-JSON body splits at: JSON's and XML's quotes and brackets, spaces, a query's ? and &. */
const TEXT_SEPARATORS = /([\s"',{}[\]()<>;?&#\\=/:]+)/;
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Each part between separators looked up whole; the separators kept as they are. */
function segmentPieces(text: string, separators: RegExp, lookup: Lookup): Piece[] {
  return text.split(separators).flatMap((part, index): Piece[] => {
    const variable = index % 2 === 0 && part !== '' ? lookup(part) : undefined;
    return variable === undefined ? literal(part) : [{ variable }];
  });
}

/** A value whole (a DownloadUrl, a token), or, in a URL or URN, each of its segments. */
function valuePieces(value: string, lookup: Lookup): Piece[] {
  const whole = lookup(value);
  if (whole !== undefined) return [{ variable: whole }];
  return HAS_SCHEME.test(value) ? segmentPieces(value, URI_SEPARATORS, lookup) : literal(value);
}

/** A JSON text's string values (never its keys) looked up; undefined when the text is no JSON. */
function jsonPieces(text: string, lookup: Lookup): Piece[] | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const pieces: Piece[] = [];
  let from = 0;
  // In valid JSON every '"' outside a string opens one, so this finds each string whole.
  for (const match of text.matchAll(/"(?:[^"\\]|\\.)*"/g)) {
    const start = (match.index ?? 0) + 1;
    const end = start + match[0].length - 2;
    const raw = text.slice(start, end);
    // A key, or a string with escapes (no id has one: a variable could not stand for it as written).
    if (/^\s*:/.test(text.slice(end + 1)) || raw.includes('\\')) continue;
    const inner = valuePieces(raw, lookup);
    if (!inner.some((piece) => 'variable' in piece)) continue;
    pieces.push(...literal(text.slice(from, start)), ...inner);
    from = end;
  }
  pieces.push(...literal(text.slice(from)));
  return pieces;
}

/** A request text by what it is, split where a value handed out sits. */
type RequestText = { url: string } | { header: string; value: string } | { field: string; value: string } | { body: string };

function requestPieces(text: RequestText, lookup: Lookup): Piece[] {
  if ('url' in text) return valuePieces(text.url, lookup);
  if ('header' in text) return [{ literal: `${text.header}: ` }, ...valuePieces(text.value, lookup)];
  if ('field' in text) return [{ literal: `${text.field}=` }, ...valuePieces(text.value, lookup)];
  return jsonPieces(text.body, lookup) ?? segmentPieces(text.body, TEXT_SEPARATORS, lookup);
}

/** Every text of a request where a value may sit. */
function requestTexts(call: ReplayCall): RequestText[] {
  const texts: RequestText[] = [{ url: call.url }, ...Object.entries(call.headers).map(([header, value]) => ({ header, value }))];
  if (call.body !== undefined && 'text' in call.body) texts.push({ body: call.body.text });
  for (const part of call.multipart ?? []) if ('value' in part) texts.push({ field: part.name, value: part.value });
  return texts;
}

/** The values a call's request uses that an earlier call carried first, each with that call. */
export function usedOrigins(call: ReplayCall, origins: ReadonlyMap<string, ValueOrigin>): Array<{ value: string; sequence: number; ours: boolean }> {
  const used = new Map<string, { value: string; sequence: number; ours: boolean }>();
  const look: Lookup = (value) => {
    const origin = origins.get(value);
    if (origin === undefined || origin.sequence === undefined || origin.sequence >= call.sequence || used.has(value)) return undefined;
    // What the target handed out is used only where it reads as a value of its own; an id of ours anywhere.
    if (origin.ours || isHandedOutCandidate(value)) used.set(value, { value, sequence: origin.sequence, ours: origin.ours });
    return undefined;
  };
  for (const text of requestTexts(call)) requestPieces(text, look);
  return [...used.values()];
}

/**
 * The calls a script needs: the test's own, the calls that handed out what they use (and what
 * those used), the set-up call that first sent a value of ours they send again (the register call
 * of the ErpId a token is asked for), and the set-up calls before the test that went on with a
 * value handed out to a chosen set-up call (the polls until a company is Registered, its
 * details): the state the test found.
 */
export function selectCalls(history: readonly ReplayCall[], own: readonly ReplayCall[], setup: ReadonlySet<number>, origins: ReadonlyMap<string, ValueOrigin>): ReplayCall[] {
  const bySequence = new Map(history.map((call) => [call.sequence, call]));
  const chosen = new Map(own.map((call) => [call.sequence, call]));
  const firstOwn = Math.min(...own.map((call) => call.sequence));
  const usedBy = new Map<number, Array<{ value: string; sequence: number; ours: boolean }>>();
  const uses = (call: ReplayCall) => {
    let used = usedBy.get(call.sequence);
    if (used === undefined) usedBy.set(call.sequence, (used = usedOrigins(call, origins)));
    return used;
  };
  for (let round = 0; round < 4; round++) {
    const before = chosen.size;
    const queue = [...chosen.values()];
    while (queue.length > 0) {
      const call = queue.pop() as ReplayCall;
      for (const { sequence, ours } of uses(call)) {
        const origin = bySequence.get(sequence);
        // What another test sent first is that test's business, not a state this one needs.
        if (origin !== undefined && !chosen.has(sequence) && (!ours || setup.has(sequence))) {
          chosen.set(sequence, origin);
          queue.push(origin);
        }
      }
    }
    for (const call of history) {
      if (chosen.has(call.sequence) || !setup.has(call.sequence) || call.sequence >= firstOwn) continue;
      if (uses(call).some(({ sequence, ours }) => !ours && chosen.has(sequence) && setup.has(sequence))) chosen.set(call.sequence, call);
    }
    if (chosen.size === before) break;
  }
  return [...chosen.values()].sort((a, b) => a.sequence - b.sequence);
}

/** Calls in a row with the same request: one call, or a poll that repeats until the answer the run last saw. */
interface Step {
  first: ReplayCall;
  last: ReplayCall;
  sequences: number[];
}

/** A call that changes nothing (a read), which may be made again earlier or later with no other effect. */
function isRead(call: ReplayCall): boolean {
  return call.method === 'GET' || call.method === 'HEAD';
}

/**
 * The calls as steps: a call like an earlier step's joins it, as a poll, when only reads came
 * between (two polls side by side, each until its own invoice arrives, interleave: A B A B A).
 */
function stepsOf(calls: readonly ReplayCall[]): Step[] {
  const steps: Step[] = [];
  for (const call of calls) {
    let joins: Step | undefined;
    if (isRead(call)) {
      const key = requestKey(call);
      for (let index = steps.length - 1; index >= 0; index--) {
        const step = steps[index];
        if (requestKey(step.last) === key) {
          joins = step;
          break;
        }
        if (!isRead(step.last)) break;
      }
    } else if (steps.length > 0 && requestKey(steps[steps.length - 1].last) === requestKey(call)) joins = steps[steps.length - 1];
    if (joins !== undefined) {
      joins.last = call;
      joins.sequences.push(call.sequence);
    } else steps.push({ first: call, last: call, sequences: [call.sequence] });
  }
  return steps;
}

/** A word of the API's vocabulary (a Status, a type), not a value of this run: the same in a replay. */
function isVocabulary(value: unknown): boolean {
  return typeof value === 'boolean' || (typeof value === 'string' && /^[A-Za-z][A-Za-z _-]*$/.test(value));
}

/**
 * The jq test that the poll reached what the run's last poll saw, from the leaves that changed on
 * the way: a word of the vocabulary reached (Status Registered); a leaf that came (the invoice in
 * the inbox) present; an id or a count that moved, no longer what the run first saw. The run's own
 * ids and counts are never awaited: a replay's company and documents have others.
 */
function pollCondition(step: Step): string | undefined {
  const first = step.first.scalars ?? {};
  const last = step.last.scalars ?? {};
  const changed = Object.keys(last).filter((path) => JSON.stringify(first[path]) !== JSON.stringify(last[path]));
  if (changed.length === 0) return undefined;
  return changed
    .map((path) => {
      const before = first[path];
      const after = last[path];
      if (isVocabulary(after)) return `getpath(${path}) == ${JSON.stringify(after)}`;
      if (before === undefined || before === null) return `getpath(${path}) != null`;
      return `getpath(${path}) != ${JSON.stringify(before)}`;
    })
    .join(' and ');
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '') || 'file';
}

/** The curl arguments of a call (after `curl`), each a shell word. */
function curlArguments(call: ReplayCall, number: number, replace: (text: RequestText) => string, files: Script['files'], stem: string): string[] {
  const words = ['-X', call.method, replace({ url: call.url })];
  for (const [header, value] of Object.entries(call.headers)) {
    // curl sets the multipart boundary itself.
    if (call.multipart !== undefined && header.toLowerCase() === 'content-type') continue;
    words.push('-H', replace({ header, value }));
  }
  if (call.body !== undefined) {
    const text = textOf(call.body);
    if (text !== undefined && text.length <= INLINE_BODY_LIMIT) words.push('--data-binary', replace({ body: text }));
    else {
      const name = `${stem}.${number}.body`;
      files.push({ name, bytes: 'bytes' in call.body ? call.body.bytes : new TextEncoder().encode(text) });
      words.push('--data-binary', `@${name}`);
    }
  }
  for (const [index, part] of (call.multipart ?? []).entries()) {
    if ('value' in part) words.push('--form-string', replace({ field: part.name, value: part.value }));
    else {
      const name = `${stem}.${number}.${index + 1}.${safeFileName(part.fileName)}`;
      files.push({ name, bytes: part.bytes });
      words.push('-F', shellQuote(`${part.name}=@${name};type=${part.mimeType};filename=${safeFileName(part.fileName)}`));
    }
  }
  return words;
}

function extraction(variable: string, number: number, source: ValueSource): string {
  if ('json' in source) return `${variable}=$(jq -r ${shellQuote(`getpath(${JSON.stringify(source.json)})`)} "$out/${number}.body")`;
  const whole = `$(sed -n 's/^[Ll]ocation:[[:space:]]*//p' "$out/${number}.headers" | tr -d '\\r')`;
  if (source.part !== 'last-segment') return `${variable}=${whole}`;
  // The DocumentId is what follows the last '/' (an URL) or ':' (a URN) of the Location.
  return `${variable}=${whole}; ${variable}=\${${variable}##*/}; ${variable}=\${${variable}##*:}`;
}

/** The script: a header that says what it reproduces, one curl per call, and a line per status. */
export function renderScript(input: ScriptInput): Script {
  const files: Script['files'] = [];
  const steps = stepsOf(input.calls);
  const numberOf = new Map<number, number>();
  steps.forEach((step, index) => step.sequences.forEach((sequence) => numberOf.set(sequence, index + 1)));
  // Each value handed out becomes a variable once its call ran (after: the call's number).
  const handedOut: Array<{ value: string; variable: string; after: number }> = [];
  const taken = new Set(input.variables.map(({ variable }) => variable));
  const definitions = new Map<number, string[]>();
  for (const step of steps) {
    for (const call of [step.first, step.last]) {
      for (const { value, sequence } of usedOrigins(call, input.origins)) {
        const number = numberOf.get(sequence);
        const origin = input.origins.get(value);
        if (number === undefined || origin === undefined || origin.ours || handedOut.some((entry) => entry.value === value)) continue;
        const variable = variableName(origin.name, number);
        const unique = taken.has(variable) ? `${variable}_${taken.size}` : variable;
        taken.add(unique);
        handedOut.push({ value, variable: unique, after: number });
        definitions.set(number, [...(definitions.get(number) ?? []), extraction(unique, number, origin.source)]);
      }
    }
  }
  // A secret of the run whose making the script does not hold: a variable to set, never a literal.
  const askedFor = new Map<string, { variable: string; header: string }>();
  const askFor = (value: string, header: string): string => {
    const known = askedFor.get(value);
    if (known !== undefined) return known.variable;
    const stem = header.toLowerCase() === 'clienttoken' ? 'CLIENT_TOKEN' : variableName(header, 0).replace(/_0$/, '');
    let variable = stem;
    for (let count = 2; taken.has(variable); count++) variable = `${stem}_${count}`;
    taken.add(variable);
    askedFor.set(value, { variable, header });
    return variable;
  };
  const baseUrl = input.baseUrl.replace(/\/+$/, '');
  const replacer = (number: number) => (text: RequestText): string => {
    const ready = new Map(handedOut.filter((entry) => entry.after < number).map((entry) => [entry.value, entry.variable]));
    // The API keys are variables wherever they sit; what the target handed out, only where it is a value.
    let pieces = joined(requestPieces(text, (value) => ready.get(value)).flatMap((piece) => ('literal' in piece ? piecesOf(piece.literal, input.variables) : [piece])));
    if ('header' in text && !pieces.some((piece) => 'variable' in piece) && input.isSecret?.(text.value) === true) pieces = [{ literal: `${text.header}: ` }, { variable: askFor(text.value, text.header) }];
    // The target's base URL is a variable too, so the script runs against another deployment.
    const first = pieces[0];
    if (first !== undefined && 'literal' in first && first.literal.startsWith(baseUrl)) {
      const rest = first.literal.slice(baseUrl.length);
      return word([{ variable: 'DXS_BASE_URL' }, ...literal(rest), ...pieces.slice(1)]);
    }
    return word(pieces);
  };
  const failingStep = input.failing === undefined ? undefined : steps.find((step) => step.sequences.includes((input.failing as { sequence: number }).sequence));
  const judgedDecides = input.judgedCallDecides === true && failingStep !== undefined;
  const lines = [
    '#!/bin/sh',
    `# Reproduces: ${input.title.replace(/\n/g, ' ')}`,
    ...(input.failing === undefined ? [] : [`# ${input.failing.note.replace(/\n/g, ' ')}`]),
    ...(judgedDecides
      ? [
          `# Made by ${input.madeBy ?? 'dxs test'}. Needs curl and jq. It registers its own companies and makes their tokens with`,
          '# $DXS_API_KEY as the run did. Against the same target the call the check judged should answer the status the',
          '# run recorded: the last line says whether it did (exit 0) or not (exit 1), and names other calls that differed.',
        ]
      : [
          `# Made by ${input.madeBy ?? 'dxs test'}. Needs curl and jq. Against the same target each call should answer the status`,
          '# the run recorded; the last line says whether every one did (exit 0) or which did not (exit 1).',
        ]),
    '# Values the target handed out (CompanyId, Token, Location) are read from its earlier answers.',
    'set -u',
    'cd "$(dirname "$0")" || exit 2',
    `: "\${DXS_BASE_URL:=${baseUrl.replace(/["`$\\]/g, '\\$&')}}"`,
    '',
    'out=${DXS_REPRODUCE_OUT:-$(mktemp -d)}',
    'differs=""',
    ...(judgedDecides ? ['judged=""'] : []),
    '# curl -sS: the status on stdout, the answer in $out/N.body and its headers in $out/N.headers.',
    // The call the check judged ("judged") is named on its own in the last line.
    'answered() { echo "$1. $2: $3 (the run got $4)"; [ "$3" = "$4" ] || [ "${5:-}" = judged ] || differs="$differs call $1 answered $3, the run got $4;"; }',
    '',
  ];
  let failingCall: string | undefined;
  let judgedRecorded = '';
  for (const [index, step] of steps.entries()) {
    const number = index + 1;
    const call = step.last;
    const title = `${call.method} ${call.url.startsWith(baseUrl) ? call.url.slice(baseUrl.length).split('?')[0] : call.url.split('?')[0]}`;
    const words = curlArguments(call, number, replacer(number), files, input.stem);
    const curl = `curl -sS --max-time 30 -o "$out/${number}.body" -D "$out/${number}.headers" -w '%{http_code}' ${words.join(' ')}`;
    const recorded = call.status === undefined ? 'no answer' : String(call.status);
    const isFailing = step === failingStep;
    if (isFailing) {
      failingCall = `curl -i ${words.join(' ')}`;
      judgedRecorded = recorded;
    }
    lines.push(`# ${number}. ${title}${isFailing ? ` (the call the check judged: ${input.failing?.note.split('\n')[0]})` : ''}`);
    if (call.bodyOmitted !== undefined) lines.push(`# Its body of ${call.bodyOmitted} bytes was too large to keep: sent here without it, it may be answered otherwise.`);
    const condition = step.sequences.length > 1 ? pollCondition(step) : undefined;
    // A read whose answer hands out values later calls use: the run's answer held them at once, the
    // script's may hold them a moment later (a delivery the background work has not made yet), so it
    // asks again, at most POLL_ATTEMPTS times, until each is there.
    const defined = handedOut.filter((entry) => entry.after === number).map((entry) => entry.variable);
    const awaitsValues = condition === undefined && defined.length > 0 && call.method.toUpperCase() === 'GET';
    const making =
      condition === undefined && !awaitsValues
        ? [`status=$(${curl})`]
        : awaitsValues
          ? [
              `# Read again until the answer holds what later calls use, at most ${POLL_ATTEMPTS} times.`,
              'attempt=0',
              `while [ "$attempt" -lt ${POLL_ATTEMPTS} ]; do`,
              `  status=$(${curl})`,
              ...(definitions.get(number) ?? []).map((line) => `  ${line}`),
              `  held=yes; for value in ${defined.map((variable) => `"$${variable}"`).join(' ')}; do case "$value" in ''|null) held=no;; esac; done`,
              '  [ "$held" = yes ] && break',
              '  attempt=$((attempt + 1)); sleep 0.5',
              'done',
            ]
          : [
            `# The run asked ${step.sequences.length} times until the answer changed; so does the script, at most ${POLL_ATTEMPTS} times.`,
            'attempt=0',
            `while [ "$attempt" -lt ${POLL_ATTEMPTS} ]; do`,
            `  status=$(${curl})`,
            `  [ "$status" = ${shellQuote(recorded)} ] && jq -e ${shellQuote(condition ?? 'true')} "$out/${number}.body" >/dev/null 2>&1 && break`,
            '  attempt=$((attempt + 1)); sleep 0.5',
            'done',
          ];
    // A value an earlier answer of the run held and the script's did not (a list of the run's
    // shared company held documents of earlier tests; the script's new company's holds none): the
    // call is not made with "null" in it, and the line says so.
    const needs = [...new Set(handedOut.filter((entry) => entry.after < number && words.some((item) => item.includes(`"$${entry.variable}"`))).map((entry) => entry.variable))];
    if (needs.length === 0) lines.push(...making);
    else {
      lines.push(
        'missing=""',
        ...needs.map((variable) => `case "$${variable}" in ''|null) missing="$missing ${variable}";; esac`),
        'if [ -n "$missing" ]; then',
        `  status='not made'; echo "${number}. not made: an earlier answer held no value for$missing, where the run's held one"`,
        'else',
        ...making.map((line) => `  ${line}`),
        'fi',
      );
    }
    lines.push(`answered ${number} ${shellQuote(title)} "$status" ${shellQuote(recorded)}${isFailing && judgedDecides ? ' judged' : ''}`);
    if (isFailing && judgedDecides) lines.push('judged="$status"');
    lines.push(...(definitions.get(number) ?? []), '');
  }
  const failingNumber = input.failing === undefined ? undefined : numberOf.get(input.failing.sequence);
  if (failingNumber !== undefined) lines.push(`echo "the answer the check judged (call ${failingNumber}):"`, `cat "$out/${failingNumber}.headers" "$out/${failingNumber}.body"; echo`);
  lines.push('echo "answers in $out"');
  if (judgedDecides) {
    lines.push(
      `if [ "$judged" != ${shellQuote(judgedRecorded)} ]; then echo "not reproduced: the call the check judged (call ${failingNumber}) answered $judged, the run got ${judgedRecorded};$differs"; exit 1; fi`,
      // A company of the script is new where the run's had a history (earlier tests' documents).
      '[ -z "$differs" ] || echo "other calls answered otherwise (the script\'s companies are new, the run\'s had a history):$differs"',
      `echo "reproduced: the call the check judged (call ${failingNumber}) answered ${judgedRecorded}, as in the run"`,
      '',
    );
  } else {
    lines.push(
      'if [ -n "$differs" ]; then echo "not reproduced:$differs"; exit 1; fi',
      'echo "reproduced: every call answered the status the run recorded"',
      '',
    );
  }
  // A value held whole by a longer one (a Location's last segment) may never be used on its own.
  const unused = (line: string): boolean => {
    const variable = /^([A-Z0-9_]+)=/.exec(line)?.[1];
    return variable !== undefined && !lines.some((other) => other !== line && other.includes(`"$${variable}"`));
  };
  // Only the keys the calls send must be set.
  const body = lines.filter((line) => !unused(line)).join('\n');
  const needed = [
    ...input.variables.filter(({ variable }) => body.includes(`"$${variable}"`)).map(({ variable }) => `: "\${${variable}:?set ${variable}}"`),
    ...[...askedFor.values()].map(({ variable, header }) => `: "\${${variable}:?set ${variable}: the ${header} the run used, made by a call this script does not hold}"`),
  ];
  return { text: body.replace('\n\n', `\n${needed.join('\n')}${needed.length > 0 ? '\n' : ''}`), files, failingCall };
}
