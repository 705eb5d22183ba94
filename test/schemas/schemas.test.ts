import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validate, validateRaw, schemaNames, schemaDocuments } from '../../schemas/index.ts';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { EMAIL, UUID, isDxsDateTime } from '../../schemas/formats.ts';
import { renderKeys, normaliseKeys } from '../../lib/casing.ts';
import { SPEC_FIELD_NAMES } from '../../lib/field-names.ts';
import { VALID_SAMPLES, MUTATIONS } from './samples.ts';

test('the email and uuid formats (PRA-08, PRA-09, OUT-STA-03) are ajv-formats\' full ones, written out', () => {
  assert.equal(String(EMAIL), String(fullFormats.email));
  assert.equal(String(UUID), String(fullFormats.uuid));
});

test('every schema has a sample body', () => {
  assert.deepEqual(schemaNames().filter((name) => !(name in VALID_SAMPLES)), []);
});

for (const [name, body] of Object.entries(VALID_SAMPLES)) {
  test(`${name} accepts its sample in PascalCase and in camelCase, once normalised`, () => {
    assert.deepEqual(validate(name, body), { valid: true, errors: [] });
    assert.deepEqual(validateRaw(name, renderKeys(body, 'camel')), { valid: true, errors: [] });
  });
}

for (const mutation of MUTATIONS) {
  test(`${mutation.schema} rejects a body with a ${mutation.breaks}`, () => {
    for (const body of [mutation.body, renderKeys(mutation.body, 'camel')]) {
      const result = validate(mutation.schema, normaliseKeys(body));
      assert.equal(result.valid, false, JSON.stringify(body));
      assert.ok(result.errors.length > 0);
    }
  });
}

test('extra fields are allowed (the schemas are open where the spec is)', () => {
  assert.equal(validate('company-status.response', { ...(VALID_SAMPLES['company-status.response'] as object), Status: 'Pending', SomethingNew: 1 }).valid, true);
  assert.equal(validate('company-details.response', { ...(VALID_SAMPLES['company-details.response'] as object), ReceiveElectronicInvoiceCapability: 'ReceivesEverything' }).valid, true);
});

test('answers may carry null for unset optional fields; requests and required answer fields may not', () => {
  const status = VALID_SAMPLES['company-status.response'] as { Details: object };
  assert.equal(validate('company-status.response', { ...status, Details: { ...status.Details, City: null, PostalCode: null } }).valid, true);
  assert.equal(validate('company-details.response', { ...(VALID_SAMPLES['company-details.response'] as object), SendsElectronicOrderCapability: null }).valid, true);
  assert.equal(validate('company-status.response', { Status: null }).valid, false);
  assert.equal(validate('company-register.request', { ...(VALID_SAMPLES['company-register.request'] as object), City: null }).valid, false);
  // Every field the spec lists in an answer is required (present, if null where it may be unset).
  const { Address2: _address2, ...details } = status.Details as Record<string, unknown>;
  assert.equal(validate('company-status.response', { ...status, Details: details }).valid, false);
  assert.equal(validate('company-status.response', { Status: 'Registered', Details: status.Details }).valid, false);
});

test('error messages name the place and the allowed values', () => {
  const result = validate('outbound-document.response', { Id: 'x', DocumentType: 'Document', CurrentStatus: { Status: 'Lost', Time: 'now' }, StatusHistory: [] });
  assert.ok(result.errors.some((error) => error.startsWith('/CurrentStatus/Status') && error.includes('Pending, PendingInPlatform')), result.errors.join('\n'));
  assert.ok(result.errors.some((error) => error.startsWith('/Id')));
  assert.deepEqual(validate('no-such-schema', {}), { valid: false, errors: ['unknown schema no-such-schema'] });
});

test('strict casing reports names outside the required casing', () => {
  const pascal = VALID_SAMPLES['client-token.response'];
  const camel = renderKeys(pascal, 'camel');
  assert.equal(validateRaw('client-token.response', pascal, { casing: 'pascal' }).valid, true);
  assert.equal(validateRaw('client-token.response', camel, { casing: 'camel' }).valid, true);
  assert.equal(validateRaw('client-token.response', camel, { casing: 'mixed' }).valid, true);
  const strict = validateRaw('client-token.response', camel, { casing: 'pascal' });
  assert.equal(strict.valid, false);
  assert.match(strict.errors.join(), /\$\.token should be written Token/);
});

test('dxs-date-time accepts Z, +hh:mm, +hhmm and +hh offsets and the basic format, and rejects impossible dates', () => {
  for (const value of ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00+0000', '2026-11-22T10:00:00.1234567+01:00', '2024-02-29T00:00:00-0530', '2026-11-22T10:00', '2024-01-01T10:00:00+00', '2024-01-01T10:00:00,5Z', '20240101T100000Z', '20240101T100000+0100']) {
    assert.equal(isDxsDateTime(value), true, value);
  }
  for (const value of ['2026-11-22', '2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-22T24:00:00Z', '2026-11-22T10:00:00+2500', '22/11/2026 10:00', '2024-01-01T10:00:00+0', '20240101T10:00:00Z', 'Mon, 01 Jan 2024 10:00:00 GMT']) {
    assert.equal(isDxsDateTime(value), false, value);
  }
});

function propertyNames(schema: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(schema)) schema.forEach((item) => propertyNames(item, found));
  else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) Object.keys(value).forEach((name) => found.add(name));
      if (key === 'required' && Array.isArray(value)) value.forEach((name) => found.add(String(name)));
      propertyNames(value, found);
    }
  }
  return found;
}

test('every property name in the schemas is in the field-name dictionary', () => {
  const names = propertyNames([...schemaDocuments().values()], new Set());
  assert.ok(names.size > 100, `only ${names.size} names found`);
  const missing = [...names].filter((name) => !SPEC_FIELD_NAMES.includes(name));
  assert.deepEqual(missing, []);
});
