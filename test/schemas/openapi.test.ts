import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.dxs-tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.dxs-tmp', 'openapi-test-'));
const file = join(work, 'openapi.json');
test.after(() => rmSync(work, { recursive: true, force: true }));

const generate = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'cli', 'index.ts'), 'schemas', 'openapi', '--out', file], {
  cwd: root, encoding: 'utf8', timeout: 60_000,
});
const document = generate.status === 0 ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>) : {};

test('dxs schemas openapi writes the document', () => {
  assert.equal(generate.status, 0, generate.stderr);
  assert.equal(document.openapi, '3.1.0');
});

test('the document has every path of the spec with its methods', () => {
  const expected = [
    'post /clienttokens/create', 'post /clienttokens/revoke', 'post /clienttokens/createsearchtoken', 'post /companies/register', 'post /companies/details',
    'post /companies/services', 'get /companies/status', 'get /companies/details/{CompanyId}', 'post /companies/users', 'post /companies/identifiers',
    'post /companies/delete', 'post /buyerparties/lookup', 'post /sellerparties/lookup', 'post /network/setup', 'post /documents', 'post /documents/outbound',
    'get /invoices/outbound/{DocumentId}', 'get /documents/outbound/{DocumentId}', 'get /invoices/outbound/byerpid/{DocumentId}',
    'get /documents/outbound/download/{DocumentId}', 'post /documents/outbound/list', 'get /documents/incoming', 'get /documents/{id}', 'get /documents/{id}/info',
    'post /documents/handled', 'post /companies/deliverymethods/b2c/providera', 'get /companies/deliverymethods/b2c/providera',
    'patch /companies/deliverymethods/b2c/providera', 'post /companies/deliverymethods/b2c/providera/icon',
    'post /companies/deliverymethods/b2c/providera/offboard', 'post /companies/deliverymethods/b2c/providera/lookup',
  ];
  const actual = Object.entries(document.paths as Record<string, object>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
  assert.deepEqual(actual.sort(), expected.sort());
});

test('both security schemes are headers named as in the spec, and the Errors table codes are there', () => {
  assert.deepEqual(document.components.securitySchemes.ApiKeyAuth, { type: 'apiKey', in: 'header', name: 'APIkey', description: document.components.securitySchemes.ApiKeyAuth.description });
  assert.equal(document.components.securitySchemes.ClientTokenAuth.name, 'ClientToken');
  const codes = (path: string, method = 'post') => Object.keys(document.paths[path][method].responses).sort();
  assert.deepEqual(codes('/companies/users'), ['200', '400', '401', '409', '500']);
  assert.deepEqual(codes('/companies/delete'), ['200', '202', '401', '500', '501']);
  assert.deepEqual(codes('/companies/identifiers'), ['200', '201', '400', '500']);
  assert.deepEqual(codes('/network/setup'), ['200', '202', '400']);
  assert.deepEqual(codes('/companies/deliverymethods/b2c/providera'), ['200', '400', '409']);
  assert.deepEqual(codes('/companies/deliverymethods/b2c/providera/lookup'), ['200', '400']);
});

test('every reference resolves to a component and every operation names its requirements', () => {
  const text = JSON.stringify(document);
  for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) assert.ok(name in document.components.schemas, name);
  assert.doesNotMatch(text, /dxs-date-time|\.schema\.json|"\$defs"/);
  for (const item of Object.values(document.paths as Record<string, Record<string, { 'x-requirements': string[] }>>)) {
    for (const operation of Object.values(item)) assert.ok(operation['x-requirements'].length > 0);
  }
});

test('the document lints clean with Redocly', () => {
  const lint = spawnSync(join(root, 'node_modules', '.bin', 'redocly'), ['lint', file, '--config', join(root, 'schemas', 'redocly.yaml')], {
    cwd: root, encoding: 'utf8', timeout: 120_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  const output = `${lint.stdout}${lint.stderr}`;
  assert.equal(lint.status, 0, output);
  assert.match(output, /valid/);
  assert.doesNotMatch(output, /You have \d+ warnings?/, output);
});
