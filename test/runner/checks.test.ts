// The checks the suites and k6 share (lib/checks.ts) that dxs test added.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyIsEmpty, bodyIsJsonString, bodyMentionsAny, casingIs, fieldSatisfies, type ObservedResponse } from '../../lib/checks.ts';

const response = (json: unknown, status = 200): ObservedResponse => ({ status, headers: {}, json, text: json === undefined ? '' : JSON.stringify(json) });

test('an empty body is no body, {}, or an object of fields the spec does not name', () => {
  assert.equal(bodyIsEmpty(response(undefined)).ok, true);
  assert.equal(bodyIsEmpty(response({})).ok, true);
  assert.equal(bodyIsEmpty(response({ sandboxExtension: { note: 'x' } })).ok, true);
  assert.equal(bodyIsEmpty(response({ companyId: 'x' })).ok, false);
  assert.equal(bodyIsEmpty(response(['x'])).ok, false);
});

test('casing, JSON string errors, mentions and fields', () => {
  assert.equal(casingIs('camel')(response({ erpId: 'x' })).ok, true);
  const pascal = casingIs('camel')(response({ ErpId: 'x' }));
  assert.equal(pascal.ok, false);
  assert.match(pascal.actual, /\$\.ErpId \(expected erpId\)/);
  assert.equal(bodyIsJsonString(response('user name taken', 409)).ok, true);
  // Both readings of "a JSON string with a message"; a body without a message is neither.
  assert.equal(bodyIsJsonString(response({ message: 'x' }, 409)).ok, true);
  assert.equal(bodyIsJsonString(response({ Message: 'x' }, 409)).ok, true);
  assert.equal(bodyIsJsonString(response({ error: 'x' }, 409)).ok, false);
  assert.equal(bodyIsJsonString(response({ message: '' }, 409)).ok, false);
  assert.equal(bodyIsJsonString(response('', 409)).ok, false);
  assert.equal(bodyMentionsAny(['GLN', 'OrgNo'], 'the expected types')(response('expected one of GLN, OrgNo', 400)).ok, true);
  assert.equal(fieldSatisfies('Token', 'is a string', (value) => typeof value === 'string')(response({ token: 'abc' })).ok, true);
});
