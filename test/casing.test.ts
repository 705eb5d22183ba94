import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCamel, normaliseKeys, renderKeys, casingViolations, readField } from '../lib/casing.ts';

test('camelCases names the way System.Text.Json does', () => {
  assert.deepEqual(['GLN', 'ErpId', 'SSN', 'IsVatRegistered', 'Address2', 'URLValue'].map(toCamel), ['gln', 'erpId', 'ssn', 'isVatRegistered', 'address2', 'urlValue']);
});

test('normalises any casing of a spec field onto the spec spelling, deeply', () => {
  assert.deepEqual(normaliseKeys({ gln: '1', erpId: 'a', details: { peppolParticipantIdentifiers: [] }, registeredSsns: ['x'] }), {
    GLN: '1', ErpId: 'a', Details: { PeppolParticipantIdentifiers: [] }, RegisteredSsns: ['x'],
  });
});

test('renders PascalCase bodies in camelCase and back', () => {
  const body = { GLN: '1', Details: { OrgNo: '2', Processes: ['SendInvoices'] } };
  const camel = renderKeys(body, 'camel');
  assert.deepEqual(camel, { gln: '1', details: { orgNo: '2', processes: ['SendInvoices'] } });
  assert.deepEqual(normaliseKeys(camel), body);
});

test('reports keys outside the required casing', () => {
  assert.deepEqual(casingViolations({ Gln: 1, erpId: 2 }, 'camel').map((violation) => violation.key), ['Gln']);
  assert.deepEqual(casingViolations({ erpId: 2, OrgNo: 3 }, 'mixed'), []);
  assert.equal(readField({ erpid: 'x' }, 'ErpId'), 'x');
});
