// Checks are small named functions of a response, in the shape of Schemathesis's checks. The
// Playwright suites and the k6 scripts call the same functions: each side only adapts its own
// response object into an ObservedResponse.
//
// Pure module: no Node APIs, explicit .ts imports, so k6 can load it as it is.

import { canonicalFieldName, casingViolations, normaliseKeys } from './casing.ts';

export interface ObservedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ObservedResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON when the body was JSON, otherwise undefined. */
  json?: unknown;
  /** Raw text of the body (empty for no body; not set for binary bodies). */
  text?: string;
  /** Byte length of the body. */
  size?: number;
}

/** What one check concluded. `severity` tells how a failed check counts: a MUST is a failure, a GUIDE a warning. */
export interface CheckOutcome {
  check: string;
  ok: boolean;
  expected: string;
  actual: string;
  severity: 'failure' | 'warning' | 'info';
}

export type Check = (response: ObservedResponse) => CheckOutcome;

/** Validates a body against one of our schemas; Node passes the ajv build, k6 the bundled standalone one. */
export type SchemaValidator = (schemaName: string, body: unknown) => { valid: boolean; errors: string[] };

function outcome(check: string, ok: boolean, expected: string, actual: string): CheckOutcome {
  return { check, ok, expected, actual, severity: 'failure' };
}

/** The same check, counted as a warning when it fails (a deviation from the guide or a recommendation). */
export function asWarning(check: Check): Check {
  return (response) => ({ ...check(response), severity: 'warning' });
}

export function statusIs(...statuses: number[]): Check {
  const expected = statuses.length === 1 ? `status ${statuses[0]}` : `status one of ${statuses.join(', ')}`;
  return (response) => outcome('statusIs', statuses.includes(response.status), expected, `status ${response.status}`);
}

export const notServerError: Check = (response) =>
  outcome('notServerError', response.status < 500, 'a status below 500', `status ${response.status}`);

export const isClientError: Check = (response) =>
  outcome('isClientError', response.status >= 400 && response.status < 500, 'a 4xx status', `status ${response.status}`);

/** Rejected, where the spec does not say which code: any 4xx except the ones that mean "not found" would not do. */
export const isRejected: Check = (response) =>
  outcome('isRejected', response.status >= 400 && response.status < 500, 'the call rejected with a 4xx', `status ${response.status}`);

export const isSuccess: Check = (response) =>
  outcome('isSuccess', response.status >= 200 && response.status < 300, 'a 2xx status', `status ${response.status}`);

export function hasHeader(name: string, pattern?: RegExp): Check {
  const lower = name.toLowerCase();
  return (response) => {
    const value = response.headers[lower];
    const ok = value !== undefined && value !== '' && (pattern === undefined || pattern.test(value));
    const expected = pattern === undefined ? `header ${name} present` : `header ${name} matching ${pattern}`;
    return outcome('hasHeader', ok, expected, value === undefined ? `no ${name} header` : `${name}: ${value}`);
  };
}

const UUID_AT_END = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Location holds something whose last part is a uuid: a URN after upload, a link after send. */
export const locationEndsWithUuid: Check = (response) => {
  const value = response.headers['location'];
  const ok = value !== undefined && UUID_AT_END.test(value.replace(/\/+$/, ''));
  return outcome('locationEndsWithUuid', ok, 'a Location header that ends in a uuid', value === undefined ? 'no Location header' : `Location: ${value}`);
};

/**
 * "202 with an empty body or {}" and "200, no body": an empty body, or an empty JSON object. A
 * target may add fields the spec does not name, so an object holding only such fields passes too;
 * one that carries a field the spec names (a company, a token) does not.
 */
export const bodyIsEmpty: Check = (response) => {
  const text = (response.text ?? '').trim();
  const json = response.json;
  const onlyUnnamedFields =
    typeof json === 'object' && json !== null && !Array.isArray(json) && Object.keys(json).every((key) => canonicalFieldName(key) === undefined);
  const ok = text === '' || text === '{}' || text === 'null' || onlyUnnamedFields;
  return outcome('bodyIsEmpty', ok, 'no body, or {}', text === '' ? 'no body' : `body ${truncate(text, 200)}`);
};

export const isJson: Check = (response) =>
  outcome('isJson', response.json !== undefined, 'a JSON body', response.json === undefined ? `body ${truncate(response.text ?? '', 200) || '(empty)'}` : 'a JSON body');

export function matchesSchema(schemaName: string, validate: SchemaValidator): Check {
  return (response) => {
    if (response.json === undefined) return outcome('matchesSchema', false, `a JSON body matching ${schemaName}`, 'no JSON body');
    const result = validate(schemaName, normaliseKeys(response.json));
    return outcome('matchesSchema', result.valid, `body matches ${schemaName}`, result.valid ? 'body matches' : result.errors.join('; '));
  };
}

/** Field names of a JSON body written in one casing (the strict modes of dxs test); "mixed" accepts either per key. */
export function casingIs(casing: 'pascal' | 'camel' | 'mixed'): Check {
  return (response) => {
    const violations = response.json === undefined ? [] : casingViolations(response.json, casing);
    const shown = violations.slice(0, 5).map((violation) => `${violation.path} (expected ${violation.expected})`).join(', ');
    const expected = casing === 'mixed' ? 'field names in PascalCase or camelCase' : `field names in ${casing === 'pascal' ? 'PascalCase' : 'camelCase'}`;
    return outcome('casingIs', violations.length === 0, expected, violations.length === 0 ? 'as expected' : `${violations.length} field(s) otherwise: ${shown}`);
  };
}

/**
 * "A JSON string with a message": the error body of the cases the spec's Errors table lists. Read
 * as a JSON string value (the message itself) or as a JSON text carrying the message in a field
 * named message (any casing): both readings pass, anything without a message does not.
 */
export const bodyIsJsonString: Check = (response) => {
  const json = response.json;
  const messageField =
    typeof json === 'object' && json !== null && !Array.isArray(json)
      ? Object.entries(json).find(([key]) => key.toLowerCase() === 'message')?.[1]
      : undefined;
  const ok = (typeof json === 'string' && json.trim() !== '') || (typeof messageField === 'string' && messageField.trim() !== '');
  return outcome(
    'bodyIsJsonString',
    ok,
    'a JSON string with a message (a JSON string, or a JSON object with a message field)',
    json === undefined ? `body ${truncate(response.text ?? '', 200) || '(empty)'}` : `body ${truncate(JSON.stringify(json), 200)}`,
  );
};

/** A field of the normalised body satisfies a predicate; `describe` says what was expected. */
export function fieldSatisfies(name: string, describe: string, predicate: (value: unknown) => boolean): Check {
  return (response) => {
    const body = normaliseKeys<Record<string, unknown> | undefined>(response.json);
    const value = typeof body === 'object' && body !== null ? body[name] : undefined;
    return outcome(`field ${name}`, predicate(value), `${name} ${describe}`, value === undefined ? `no ${name}` : `${name} = ${truncate(JSON.stringify(value), 200)}`);
  };
}

/** The body text mentions at least one of the words (an error message naming the expected values). */
export function bodyMentionsAny(words: readonly string[], describe: string): Check {
  return (response) => {
    const text = response.text ?? '';
    return outcome('bodyMentionsAny', words.some((word) => text.includes(word)), `${describe} (one of ${words.join(', ')})`, `body ${truncate(text, 200) || '(empty)'}`);
  };
}

export function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text;
}

/** Runs the checks in order; all outcomes are kept so a report can show each. */
export function runChecks(response: ObservedResponse, checks: Check[]): CheckOutcome[] {
  return checks.map((check) => check(response));
}
