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

/** A word in single quotes, for sh. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function variableName(name: string, number: number): string {
  const word = name.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'VALUE';
  return `${word}_${number}`;
}

type Piece = { literal: string } | { variable: string };

/** Splits a text at every value that becomes a variable. */
function piecesOf(text: string, replacements: ReadonlyArray<{ value: string; variable: string }>): Piece[] {
  let pieces: Piece[] = [{ literal: text }];
  for (const { value, variable } of replacements) {
    pieces = pieces.flatMap((piece): Piece[] => {
      if (!('literal' in piece) || !piece.literal.includes(value)) return [piece];
      const parts = piece.literal.split(value);
      return parts.flatMap((part, index): Piece[] => [...(part === '' ? [] : [{ literal: part }]), ...(index < parts.length - 1 ? [{ variable }] : [])]);
    });
  }
  return pieces;
}

/** One shell word: literals single-quoted, variables double-quoted, side by side. */
function word(pieces: readonly Piece[]): string {
  if (pieces.length === 0) return "''";
  return pieces.map((piece) => ('literal' in piece ? shellQuote(piece.literal) : `"$${piece.variable}"`)).join('');
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

/** Every text of a request where a value may sit. */
function requestTexts(call: ReplayCall): string[] {
  const texts = [call.url, ...Object.values(call.headers)];
  if (call.body !== undefined && 'text' in call.body) texts.push(call.body.text);
  for (const part of call.multipart ?? []) if ('value' in part) texts.push(part.value);
  return texts;
}

// Where a value may end inside a request: JSON's quotes and brackets, spaces, a query's ? and &.
// A value with one of these inside (a name with a space) is never looked for; ids, tokens, URNs and
// URLs have none. A token's own '=', '/' and ':' split it once more (a query's name=value, an id
// at the end of a path or a URN).
const VALUE_BOUNDARIES = /[\s"',{}[\]()<>;?&#\\]+/;
const INNER_BOUNDARIES = /[=/:]/;

function wordsOf(texts: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const text of texts) {
    for (const word of text.split(VALUE_BOUNDARIES)) {
      if (word === '') continue;
      words.add(word);
      for (const inner of word.split(INNER_BOUNDARIES)) if (inner !== '') words.add(inner);
    }
  }
  return words;
}

/** The values a call's request uses that an earlier call carried first, each with that call. */
export function usedOrigins(call: ReplayCall, origins: ReadonlyMap<string, ValueOrigin>): Array<{ value: string; sequence: number; ours: boolean }> {
  const used: Array<{ value: string; sequence: number; ours: boolean }> = [];
  for (const value of wordsOf(requestTexts(call))) {
    const origin = origins.get(value);
    if (origin === undefined || origin.sequence === undefined || origin.sequence >= call.sequence) continue;
    used.push({ value, sequence: origin.sequence, ours: origin.ours });
  }
  return used;
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

function stepsOf(calls: readonly ReplayCall[]): Step[] {
  const steps: Step[] = [];
  for (const call of calls) {
    const previous = steps.at(-1);
    if (previous !== undefined && requestKey(previous.last) === requestKey(call)) {
      previous.last = call;
      previous.sequences.push(call.sequence);
    } else steps.push({ first: call, last: call, sequences: [call.sequence] });
  }
  return steps;
}

/** The jq test that the poll reached what the run's last poll saw: the leaves that changed on the way. */
function pollCondition(step: Step): string | undefined {
  const first = step.first.scalars ?? {};
  const last = step.last.scalars ?? {};
  const changed = Object.keys(last).filter((path) => JSON.stringify(first[path]) !== JSON.stringify(last[path]));
  if (changed.length === 0) return undefined;
  return changed.map((path) => `getpath(${path}) == ${JSON.stringify(last[path])}`).join(' and ');
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '') || 'file';
}

/** The curl arguments of a call (after `curl`), each a shell word. */
function curlArguments(call: ReplayCall, number: number, replace: (text: string) => string, files: Script['files'], stem: string): string[] {
  const words = ['-X', call.method, replace(call.url)];
  for (const [name, value] of Object.entries(call.headers)) {
    // curl sets the multipart boundary itself.
    if (call.multipart !== undefined && name.toLowerCase() === 'content-type') continue;
    words.push('-H', replace(`${name}: ${value}`));
  }
  if (call.body !== undefined) {
    const text = textOf(call.body);
    if (text !== undefined && text.length <= INLINE_BODY_LIMIT) words.push('--data-binary', replace(text));
    else {
      const name = `${stem}.${number}.body`;
      files.push({ name, bytes: 'bytes' in call.body ? call.body.bytes : new TextEncoder().encode(text) });
      words.push('--data-binary', `@${name}`);
    }
  }
  for (const [index, part] of (call.multipart ?? []).entries()) {
    if ('value' in part) words.push('--form-string', replace(`${part.name}=${part.value}`));
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
  // Each value becomes a variable once its call ran (after: the call's number); the API keys from the start.
  const replacements: Array<{ value: string; variable: string; after: number }> = input.variables.map((entry) => ({ ...entry, after: 0 }));
  const definitions = new Map<number, string[]>();
  const defined = new Set<string>();
  for (const step of steps) {
    for (const call of [step.first, step.last]) {
      for (const { value, sequence } of usedOrigins(call, input.origins)) {
        const number = numberOf.get(sequence);
        const origin = input.origins.get(value);
        if (number === undefined || origin === undefined || origin.ours || defined.has(value)) continue;
        defined.add(value);
        const variable = variableName(origin.name, number);
        const unique = replacements.some((entry) => entry.variable === variable) ? `${variable}_${replacements.length}` : variable;
        replacements.push({ value, variable: unique, after: number });
        definitions.set(number, [...(definitions.get(number) ?? []), extraction(unique, number, origin.source)]);
      }
    }
  }
  const byLength = [...replacements].sort((a, b) => b.value.length - a.value.length);
  const baseUrl = input.baseUrl.replace(/\/+$/, '');
  const replacer = (number: number) => (text: string): string => {
    const pieces = piecesOf(text, byLength.filter((entry) => entry.after < number));
    // The target's base URL is a variable too, so the script runs against another deployment.
    const first = pieces[0];
    if (first !== undefined && 'literal' in first && first.literal.startsWith(baseUrl)) {
      const rest = first.literal.slice(baseUrl.length);
      return word([{ variable: 'DXS_BASE_URL' }, ...(rest === '' ? [] : [{ literal: rest }]), ...pieces.slice(1)]);
    }
    return word(pieces);
  };
  const lines = [
    '#!/bin/sh',
    `# Reproduces: ${input.title.replace(/\n/g, ' ')}`,
    ...(input.failing === undefined ? [] : [`# ${input.failing.note.replace(/\n/g, ' ')}`]),
    `# Made by ${input.madeBy ?? 'dxs test'}. Needs curl and jq. Against the same target each call should answer the status`,
    '# the run recorded; the last line says whether every one did (exit 0) or which did not (exit 1).',
    '# Values the target handed out (CompanyId, Token, Location) are read from its earlier answers.',
    'set -u',
    'cd "$(dirname "$0")" || exit 2',
    `: "\${DXS_BASE_URL:=${baseUrl.replace(/["`$\\]/g, '\\$&')}}"`,
    '',
    'out=${DXS_REPRODUCE_OUT:-$(mktemp -d)}',
    'differs=""',
    '# curl -sS: the status on stdout, the answer in $out/N.body and its headers in $out/N.headers.',
    'answered() { echo "$1. $2: $3 (the run got $4)"; [ "$3" = "$4" ] || differs="$differs call $1 answered $3, the run got $4;"; }',
    '',
  ];
  let failingCall: string | undefined;
  for (const [index, step] of steps.entries()) {
    const number = index + 1;
    const call = step.last;
    const title = `${call.method} ${call.url.startsWith(baseUrl) ? call.url.slice(baseUrl.length).split('?')[0] : call.url.split('?')[0]}`;
    const words = curlArguments(call, number, replacer(number), files, input.stem);
    const curl = `curl -sS --max-time 30 -o "$out/${number}.body" -D "$out/${number}.headers" -w '%{http_code}' ${words.join(' ')}`;
    const recorded = call.status === undefined ? 'no answer' : String(call.status);
    const isFailing = input.failing !== undefined && step.sequences.includes(input.failing.sequence);
    if (isFailing) failingCall = `curl -i ${words.join(' ')}`;
    lines.push(`# ${number}. ${title}${isFailing ? ` (the call the check judged: ${input.failing?.note.split('\n')[0]})` : ''}`);
    if (call.bodyOmitted !== undefined) lines.push(`# Its body of ${call.bodyOmitted} bytes was too large to keep: sent here without it, it may be answered otherwise.`);
    const condition = step.sequences.length > 1 ? pollCondition(step) : undefined;
    if (condition !== undefined) {
      lines.push(
        `# The run asked ${step.sequences.length} times until the answer changed; so does the script, at most ${POLL_ATTEMPTS} times.`,
        'attempt=0',
        `while [ "$attempt" -lt ${POLL_ATTEMPTS} ]; do`,
        `  status=$(${curl})`,
        `  [ "$status" = ${shellQuote(recorded)} ] && jq -e ${shellQuote(condition)} "$out/${number}.body" >/dev/null 2>&1 && break`,
        '  attempt=$((attempt + 1)); sleep 0.5',
        'done',
      );
    } else lines.push(`status=$(${curl})`);
    lines.push(`answered ${number} ${shellQuote(title)} "$status" ${shellQuote(recorded)}`);
    lines.push(...(definitions.get(number) ?? []), '');
  }
  const failingNumber = input.failing === undefined ? undefined : numberOf.get(input.failing.sequence);
  if (failingNumber !== undefined) lines.push(`echo "the answer the check judged (call ${failingNumber}):"`, `cat "$out/${failingNumber}.headers" "$out/${failingNumber}.body"; echo`);
  lines.push(
    'echo "answers in $out"',
    'if [ -n "$differs" ]; then echo "not reproduced:$differs"; exit 1; fi',
    'echo "reproduced: every call answered the status the run recorded"',
    '',
  );
  // A value held whole by a longer one (a Location's last segment) may never be used on its own.
  const unused = (line: string): boolean => {
    const variable = /^([A-Z0-9_]+)=/.exec(line)?.[1];
    return variable !== undefined && !lines.some((other) => other !== line && other.includes(`"$${variable}"`));
  };
  // Only the keys the calls send must be set.
  const body = lines.filter((line) => !unused(line)).join('\n');
  const needed = input.variables.filter(({ variable }) => body.includes(`"$${variable}"`)).map(({ variable }) => `: "\${${variable}:?set ${variable}}"`);
  return { text: body.replace('\n\n', `\n${needed.join('\n')}${needed.length > 0 ? '\n' : ''}`), files, failingCall };
}
