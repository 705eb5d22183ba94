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
  const codes = (path: string, method = 'post') => Object.keys(document.paths[path][method].responses);
  const includes = (actual: string[], expected: string[]) => assert.deepEqual(expected.filter((code) => !actual.includes(code)), [], `missing from ${actual.join(', ')}`);
  includes(codes('/companies/users'), ['200', '400', '401', '409', '500']);
  includes(codes('/companies/delete'), ['200', '202', '401', '500', '501']);
  includes(codes('/companies/identifiers'), ['200', '201', '400', '500']);
  includes(codes('/network/setup'), ['200', '202', '400']);
  includes(codes('/companies/deliverymethods/b2c/providera'), ['200', '400', '409']);
  includes(codes('/companies/deliverymethods/b2c/providera/lookup'), ['200', '400']);
});

test('every status the sandbox answers is documented per operation: 401 wherever credentials are needed, 400 of every body, 404 of ids', () => {
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown; parameters?: Array<{ in: string }> }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const codes = Object.keys(operation.responses);
      assert.ok(codes.includes('401'), `${method} ${path}: ${codes.join(', ')}`);
      if (operation.requestBody !== undefined) for (const code of ['400', '413', '415']) assert.ok(codes.includes(code), `${method} ${path} lacks ${code}`);
      if ((operation.parameters ?? []).some((parameter) => parameter.in === 'path')) assert.ok(codes.includes('404'), `${method} ${path} lacks 404`);
    }
  }
  assert.ok('400' in document.paths['/companies/delete'].post.responses);
});

test('the export is in the sandbox casing (camel) by default and in PascalCase with --casing pascal', () => {
  assert.ok('token' in document.components.schemas.ClientToken.properties);
  assert.deepEqual(document.components.schemas.ClientTokenCreateRequest.required, ['erpId']);
  const pascalFile = join(work, 'openapi-pascal.json');
  const pascal = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'cli', 'index.ts'), 'schemas', 'openapi', '--casing', 'pascal', '--out', pascalFile], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  assert.equal(pascal.status, 0, pascal.stderr);
  const pascalDocument = JSON.parse(readFileSync(pascalFile, 'utf8')) as Record<string, any>;
  assert.ok('Token' in pascalDocument.components.schemas.ClientToken.properties);
  assert.equal(pascalDocument.paths['/companies/status'].get.responses['200'].links.Details.parameters['path.CompanyId'], '$response.body#/CompanyId');
  const wrong = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'cli', 'index.ts'), 'schemas', 'openapi', '--casing', 'kebab'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  assert.equal(wrong.status, 2);
});

test('links chain register -> token -> status -> details and upload -> send -> status -> download, in the casing of the bodies', () => {
  const linksOf = (path: string, method: string, status: string) => document.paths[path][method].responses[status].links as Record<string, { operationId: string; parameters?: Record<string, string>; requestBody?: unknown }>;
  assert.deepEqual(linksOf('/companies/register', 'post', '202').ClientToken.requestBody, { erpId: '$request.body#/erpId' });
  assert.equal(linksOf('/clienttokens/create', 'post', '200').CompanyStatus.parameters?.['header.ClientToken'], '$response.body#/token');
  assert.equal(linksOf('/companies/status', 'get', '200').Details.operationId, 'getCompanyDetails');
  assert.equal(linksOf('/documents', 'post', '202').Send.operationId, 'sendDocument');
  assert.deepEqual(Object.values(linksOf('/documents/outbound', 'post', '200')).map((link) => link.operationId).sort(),
    ['downloadOutboundDocument', 'getOutboundDocument', 'getOutboundInvoice', 'getOutboundInvoiceByErpId']);
  assert.equal(linksOf('/documents/incoming', 'get', '200').Download.parameters?.['path.id'], '$response.body#/documents/0/id');
});

test('request examples come from the fixtures and the rules JSON Schema cannot state are in the descriptions', () => {
  const example = document.paths['/companies/register'].post.requestBody.content['application/json'].example as Record<string, unknown>;
  assert.match(String(example.erpId), /^dxs-example-/);
  assert.equal(example.countryCode, 'SE');
  assert.match(document.paths['/clienttokens/create'].post.description, /ErpId must be registered/);
  assert.match(document.paths['/companies/register'].post.description, /check digits/);
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
