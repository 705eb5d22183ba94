// traffic.har's entries (report/har.ts, issue 43) against har-schema: a JSON call, an upload, a
// call that got no answer. The traffic.har of real runs is checked in reproduce.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAR_FILE, harEntry, harOf, mergeTrafficAndScripts } from '../../report/har.ts';
import type { Exchange } from '../../lib/run-record.ts';
import { harErrors } from './har-schema.ts';

const owner = { test: 'contract/tokens.spec.ts › client tokens › a token', testId: 'abc-1', requirements: ['TOK-01'], verdict: 'passed' };

test('the entries of traffic.har are HAR 1.2, each naming its test and requirement IDs', () => {
  const json: Exchange = {
    title: 'POST /clienttokens/create',
    endpoint: 'POST /clienttokens/create',
    sentAt: '2026-12-01T20:00:00.000Z',
    durationMs: 12,
    request: { method: 'POST', url: 'http://127.0.0.1:4010/v1/api/clienttokens/create?x=1', headers: { APIkey: '[REDACTED]', 'content-type': 'application/json' }, body: { ErpId: 'dxs-1' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { Token: '[REDACTED]', ValidTo: '2026-12-01T20:10:00Z' }, size: 80 },
  };
  const upload: Exchange = {
    title: 'POST /documents',
    endpoint: 'POST /documents',
    sentAt: '2026-12-01T20:00:01.000Z',
    durationMs: 5,
    request: { method: 'POST', url: 'http://127.0.0.1:4010/v1/api/documents', headers: { ClientToken: '[REDACTED]' }, body: { File: '(file invoice.xml, application/xml, 812 bytes)' } },
    response: { status: 202, headers: { location: 'urn:dxs:document:1' }, size: 0 },
  };
  const unanswered: Exchange = { title: 'GET /companies/status', endpoint: 'GET /companies/status', sentAt: '2026-12-01T20:00:02.000Z', durationMs: 30000, request: { method: 'GET', url: 'http://127.0.0.1:4010/v1/api/companies/status', headers: {} }, error: 'no answer within 30 s' };
  const har = harOf([harEntry(upload, owner), harEntry(json, { ...owner, checked: ['TOK-01'] }), harEntry(unanswered, owner)], '0.1.0');
  assert.deepEqual(harErrors(har), []);
  assert.deepEqual(har.log.entries.map((entry) => entry.request.url.split('/').at(-1)), ['create?x=1', 'documents', 'status'], 'in the order the calls were sent');
  assert.deepEqual(har.log.entries[0]._dxs.checked, ['TOK-01']);
  assert.equal(har.log.entries[1].request.postData?.params?.[0].fileName, 'invoice.xml');
  assert.equal(har.log.entries[1].response.redirectURL, 'urn:dxs:document:1');
  assert.equal(har.log.entries[2].response.status, 0);
  // The schema does catch a broken entry.
  assert.notDeepEqual(harErrors({ log: { version: '1.2', creator: { name: 'dxs', version: '1' }, entries: [{ request: {} }] } }), []);
});

test('dxs report merge keeps the shards\' traffic.har as one and their reproduce scripts side by side', () => {
  const root = mkdtempSync(join(tmpdir(), 'dxs-har-merge-'));
  try {
    const exchange: Exchange = { title: 'GET /companies/status', endpoint: 'GET /companies/status', sentAt: '2026-12-01T20:00:00.000Z', durationMs: 1, request: { method: 'GET', url: 'http://127.0.0.1:4010/v1/api/companies/status', headers: {} }, response: { status: 200, headers: {}, size: 2 } };
    for (const shard of ['1', '2']) {
      mkdirSync(join(root, shard, 'reproduce'), { recursive: true });
      writeFileSync(join(root, shard, HAR_FILE), JSON.stringify(harOf([harEntry(exchange, { ...owner, testId: `t-${shard}` })], '0.1.0')));
      writeFileSync(join(root, shard, 'reproduce', `test-${shard}.sh`), '#!/bin/sh\n');
    }
    mkdirSync(join(root, 'out'));
    mergeTrafficAndScripts([join(root, '1'), join(root, '2')], join(root, 'out'), '0.1.0');
    const merged = JSON.parse(readFileSync(join(root, 'out', HAR_FILE), 'utf8'));
    assert.deepEqual(harErrors(merged), []);
    assert.deepEqual(merged.log.entries.map((entry: { _dxs: { testId: string } }) => entry._dxs.testId), ['t-1', 't-2']);
    assert.deepEqual(readdirSync(join(root, 'out', 'reproduce')).sort(), ['test-1.sh', 'test-2.sh']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
