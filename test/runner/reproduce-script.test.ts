// The reproduce script's builder (lib/reproduce.ts) on a made-up history: which calls it takes, and
// how it writes them (issue 43). The end-to-end proof against faulty sandboxes is reproduce.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderScript, selectCalls, shellQuote, type ReplayCall, type ValueOrigin } from '../../lib/reproduce.ts';

const BASE = 'http://127.0.0.1:4010/v1/api';
const KEY = 'key-of-the-run-0123';
const TOKEN = 'token-handed-out-4567';
const LOCATION = 'urn:dxs:document:5f0c2b6e-aaaa-bbbb-cccc-0123456789ab';
const ERP_ID = 'dxs-run1-abc-w0-company-se-1';

function call(sequence: number, method: string, path: string, headers: Record<string, string>, status: number, extra: Partial<ReplayCall> = {}): ReplayCall {
  return { sequence, method, url: `${BASE}${path}`, headers, status, ...extra };
}

// Set-up (a worker fixture): register, token, the status polled until Registered; another
// company's register; then the test: an upload and a send with the upload's Location.
const history: ReplayCall[] = [
  call(1, 'POST', '/companies/register', { APIkey: KEY, 'content-type': 'application/json' }, 202, { body: { text: JSON.stringify({ ErpId: ERP_ID, Name: "O'Brien AB" }) } }),
  call(2, 'POST', '/companies/register', { APIkey: KEY, 'content-type': 'application/json' }, 202, { body: { text: JSON.stringify({ ErpId: 'dxs-run1-abc-w0-company-se-2' }) } }),
  call(3, 'POST', '/clienttokens/create', { APIkey: KEY, 'content-type': 'application/json' }, 200, { body: { text: JSON.stringify({ ErpId: ERP_ID }) } }),
  call(4, 'GET', '/companies/status', { ClientToken: TOKEN }, 200, { scalars: { '["Status"]': 'Pending' } }),
  call(5, 'GET', '/companies/status', { ClientToken: TOKEN }, 200, { scalars: { '["Status"]': 'Registered' } }),
  call(6, 'POST', '/documents', { ClientToken: TOKEN }, 202, { multipart: [{ name: 'File', fileName: 'invoice.xml', mimeType: 'application/xml', bytes: new TextEncoder().encode('<Invoice/>') }] }),
  call(7, 'POST', '/documents/outbound', { ClientToken: TOKEN, 'content-type': 'application/json' }, 200, { body: { text: JSON.stringify({ Document: { DocumentUri: LOCATION }, SendDocumentAs: { Type: 'Pigeon' } }) } }),
];
const origins = new Map<string, ValueOrigin>([
  [ERP_ID, { ours: true, sequence: 1 }],
  ['dxs-run1-abc-w0-company-se-2', { ours: true, sequence: 2 }],
  ["O'Brien AB", { ours: true }],
  [TOKEN, { ours: false, sequence: 3, source: { json: ['Token'] }, name: 'Token' }],
  [LOCATION, { ours: false, sequence: 6, source: { header: 'location' }, name: 'location' }],
]);
const setup = new Set([1, 2, 3, 4, 5]);

test('the calls of a script: the test\'s own, what made the values they use, and the set-up that went on with them', () => {
  const chosen = selectCalls(history, history.slice(5), setup, origins);
  // The second company's register is no business of this test.
  assert.deepEqual(chosen.map((entry) => entry.sequence), [1, 3, 4, 5, 6, 7]);
});

test('the script: keys as variables, the token and the Location read from earlier answers, the poll repeated until Registered, the upload beside it', () => {
  const calls = selectCalls(history, history.slice(5), setup, origins);
  const script = renderScript({ title: 'send › a send with a Type outside the four is rejected', baseUrl: BASE, calls, origins, variables: [{ value: KEY, variable: 'DXS_API_KEY' }], failing: { sequence: 7, note: 'OUT-SEND-07 failed: expected a 4xx; actual 200' }, stem: 'send-type' });
  assert.ok(!script.text.includes(KEY) && !script.text.includes(TOKEN), 'no key or token in the script');
  assert.ok(!script.text.includes(LOCATION), 'the Location is read, not pasted');
  assert.match(script.text, /: "\$\{DXS_API_KEY:\?set DXS_API_KEY\}"/);
  assert.match(script.text, /TOKEN_2=\$\(jq -r 'getpath\(\["Token"\]\)' "\$out\/2\.body"\)/);
  assert.match(script.text, /LOCATION_4=\$\(sed -n 's\/\^\[Ll\]ocation:/);
  assert.match(script.text, /while \[ "\$attempt" -lt 60 \]; do/);
  assert.match(script.text, /jq -e 'getpath\(\["Status"\]\) == "Registered"'/);
  assert.ok(script.text.includes(`${shellQuote(JSON.stringify({ ErpId: ERP_ID, Name: "O'Brien AB" }))}`), 'a quote in a body is escaped for sh');
  assert.deepEqual(script.files.map((file) => file.name), ['send-type.4.1.invoice.xml']);
  assert.equal(script.failingCall, `curl -i -X POST "$DXS_BASE_URL"'/documents/outbound' -H 'ClientToken: '"$TOKEN_2" -H 'content-type: application/json' --data-binary '{"Document":{"DocumentUri":"'"$LOCATION_4"'"},"SendDocumentAs":{"Type":"Pigeon"}}'`);
  assert.match(script.text, /^# 5\. POST \/documents\/outbound \(the call the check judged: OUT-SEND-07/m);

  // shellcheck (npm test's dev tools) finds nothing to say about it.
  const directory = mkdtempSync(join(tmpdir(), 'dxs-reproduce-script-'));
  try {
    writeFileSync(join(directory, 'script.sh'), script.text);
    execFileSync('shellcheck', ['-s', 'sh', join(directory, 'script.sh')], { stdio: 'pipe' });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a value handed out is a variable only where the test sent it as a value: never in a JSON key, never inside a word, never a word of the vocabulary', () => {
  const id = 'doc-id-8f3a2c';
  const calls: ReplayCall[] = [
    call(1, 'GET', '/documents/incoming', { ClientToken: TOKEN }, 200),
    call(2, 'POST', '/documents/outbound', { ClientToken: TOKEN, 'content-type': 'application/json' }, 200, {
      body: { text: JSON.stringify({ SendDocumentAs: { Type: 'Pigeon' }, Document: { DocumentUri: `urn:dxs:document:${id}`, Note: `see ${id}` }, [id]: id }) },
    }),
    call(3, 'GET', `/documents/${id}/info?sequenceNo=${id}`, { ClientToken: TOKEN }, 200),
  ];
  const handedOut = new Map<string, ValueOrigin>([
    [TOKEN, { ours: false, sequence: 0, source: { json: ['Token'] }, name: 'Token' }],
    // An answer once said "Document" (a type) and gave an id: both were handed out by the target.
    ['Document', { ours: false, sequence: 1, source: { json: ['Documents', 0, 'DocumentType'] }, name: 'DocumentType' }],
    [id, { ours: false, sequence: 1, source: { json: ['Documents', 0, 'Id'] }, name: 'Id' }],
  ]);
  const script = renderScript({ title: 'values', baseUrl: BASE, calls, origins: handedOut, variables: [], stem: 'values', isSecret: (value) => value === TOKEN, failing: { sequence: 2, note: 'OUT-SEND-07 failed' } });
  assert.ok(!script.text.includes('DOCUMENTTYPE'), 'a word of letters is the API\'s vocabulary, never read from an answer');
  assert.ok(script.failingCall?.includes(`"SendDocumentAs":{"Type":"Pigeon"}`), script.failingCall);
  // As a whole value and as a URN's segment it is the id; as a key and inside a sentence it stays as sent.
  assert.ok(script.failingCall?.includes(`"DocumentUri":"urn:dxs:document:'"$ID_1"'"`), script.failingCall);
  assert.ok(script.failingCall?.includes(`"Note":"see ${id}"`) && script.failingCall.includes(`"${id}":"'"$ID_1"'"`), script.failingCall);
  assert.match(script.text, /"\$DXS_BASE_URL"'\/documents\/'"\$ID_1"'\/info\?sequenceNo='"\$ID_1"/);
  // The token's making is not among the calls: it is asked for, never pasted nor [REDACTED].
  assert.ok(!script.text.includes(TOKEN));
  assert.ok(script.failingCall?.startsWith(`curl -i -X POST "$DXS_BASE_URL"'/documents/outbound' -H 'ClientToken: '"$CLIENT_TOKEN"`), script.failingCall);
  assert.match(script.text, /^: "\$\{CLIENT_TOKEN:\?set CLIENT_TOKEN: /m);
  // Where the script's own answer held no such id (its new company's list is empty), the call is not made with "null" in it.
  assert.match(script.text, /^case "\$ID_1" in ''\|null\) missing="\$missing ID_1";; esac$/m);
  assert.match(script.text, /^ {2}status='not made'; echo "2\. not made: an earlier answer held no value for\$missing, where the run's held one"$/m);
});

test('polls side by side are each one poll, awaiting what arrived and not the run\'s own ids; only the judged call decides "reproduced"', () => {
  const list = (sequence: number, token: string, scalars: Record<string, string | number>) => call(sequence, 'GET', '/documents/incoming?type=invoice', { ClientToken: token }, 200, { scalars });
  const calls: ReplayCall[] = [
    call(1, 'POST', '/clienttokens/create', { APIkey: KEY }, 200),
    list(2, 'token-a-000001', { '["total"]': 0 }),
    list(3, 'token-b-000002', { '["total"]': 0 }),
    list(4, 'token-a-000001', { '["total"]': 1, '["documents",0,"id"]': 'run-id-0001', '["documents",0,"documentType"]': 'Invoice' }),
    list(5, 'token-b-000002', { '["total"]': 1, '["documents",0,"id"]': 'run-id-0002' }),
    call(6, 'GET', '/documents/run-id-0001', { ClientToken: 'token-b-000002' }, 200),
  ];
  const script = renderScript({ title: 'polls', baseUrl: BASE, calls, origins: new Map(), variables: [{ value: KEY, variable: 'DXS_API_KEY' }], stem: 'polls', judgedCallDecides: true, failing: { sequence: 6, note: 'INB-20 failed' } });
  assert.equal((script.text.match(/^while /gm) ?? []).length, 2, 'two polls, one per company');
  assert.match(script.text, /^# 4\. GET \/documents\/run-id-0001 \(the call the check judged/m);
  assert.ok(script.text.includes(`jq -e 'getpath(["total"]) != 0 and getpath(["documents",0,"id"]) != null and getpath(["documents",0,"documentType"]) == "Invoice"'`), script.text);
  assert.ok(!/== "run-id-/.test(script.text), 'the run\'s ids are never awaited');
  assert.match(script.text, /^judged="\$status"$/m);
  assert.match(script.text, /^if \[ "\$judged" != '200' \]; then echo "not reproduced: the call the check judged \(call 4\)/m);
});
