import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { SPEC_QUOTES } from '../../schemas/openapi-spec.ts';
import { SPEC_PATH } from '../../schemas/requirements.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.dxs-tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.dxs-tmp', 'openapi-test-'));
const file = join(work, 'openapi.json');

const exactFile = join(work, 'openapi-sandbox-exact.json');
test.after(() => rmSync(work, { recursive: true, force: true }));

function exportTo(target: string, ...flags: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(root, 'cli', 'index.ts'), 'schemas', 'openapi', ...flags, '--out', target], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}
const generate = exportTo(file);
const generateExact = exportTo(exactFile, '--sandbox-exact');
/** The spec export, the default. */
const document = generate.status === 0 ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>) : {};
/** The sandbox-exact export, for the sandbox's self-check. */
const exact = generateExact.status === 0 ? (JSON.parse(readFileSync(exactFile, 'utf8')) as Record<string, any>) : {};

test('dxs schemas openapi writes the spec export, and with --sandbox-exact the sandbox-exact one', () => {
  assert.equal(generate.status, 0, generate.stderr);
  assert.equal(generateExact.status, 0, generateExact.stderr);
  assert.equal(document.openapi, '3.1.0');
  assert.match(document.info.description, /spec export/);
  assert.match(exact.info.description, /sandbox-exact export/);
});

test('both documents have every path of the spec with its methods', () => {
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
  for (const exported of [document, exact]) {
    const actual = Object.entries(exported.paths as Record<string, object>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    assert.deepEqual(actual.sort(), expected.sort());
  }
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

test('the sandbox-exact export documents every status the sandbox answers per operation: 401 wherever credentials are needed, 400 of every body, 404 of ids', () => {
  for (const [path, item] of Object.entries(exact.paths as Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown; parameters?: Array<{ in: string }> }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const codes = Object.keys(operation.responses);
      assert.ok(codes.includes('401'), `${method} ${path}: ${codes.join(', ')}`);
      if (operation.requestBody !== undefined) for (const code of ['400', '413', '415']) assert.ok(codes.includes(code), `${method} ${path} lacks ${code}`);
      if ((operation.parameters ?? []).some((parameter) => parameter.in === 'path')) assert.ok(codes.includes('404'), `${method} ${path} lacks 404`);
    }
  }
  assert.ok('400' in exact.paths['/companies/delete'].post.responses);
});

test('the export is in the sandbox casing (camel) by default and in PascalCase with --casing pascal', () => {
  assert.ok('token' in document.components.schemas.ClientToken.properties);
  assert.deepEqual(document.components.schemas.ClientTokenCreateRequest.required, ['erpId']);
  const pascalFile = join(work, 'openapi-pascal.json');
  const pascal = exportTo(pascalFile, '--casing', 'pascal');
  assert.equal(pascal.status, 0, pascal.stderr);
  const pascalDocument = JSON.parse(readFileSync(pascalFile, 'utf8')) as Record<string, any>;
  assert.ok('Token' in pascalDocument.components.schemas.ClientToken.properties);
  assert.equal(pascalDocument.paths['/companies/status'].get.responses['200'].links.Details.parameters['path.CompanyId'], '$response.body#/CompanyId');
  const wrong = exportTo(join(work, 'never.json'), '--casing', 'kebab');
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

test('request examples come from the fixtures; the sandbox rules JSON Schema cannot state are in the sandbox-exact descriptions only', () => {
  const example = document.paths['/companies/register'].post.requestBody.content['application/json'].example as Record<string, unknown>;
  assert.match(String(example.erpId), /^dxs-example-/);
  assert.equal(example.countryCode, 'SE');
  assert.match(exact.paths['/clienttokens/create'].post.description, /ErpId must be registered/);
  assert.match(exact.paths['/companies/register'].post.description, /check digits/);
  assert.doesNotMatch(document.paths['/companies/register'].post.description, /check digits/);
});

test('every reference resolves to a component and every operation names its requirements', () => {
  const text = JSON.stringify(document);
  for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) assert.ok(name in document.components.schemas, name);
  assert.doesNotMatch(text, /dxs-date-time|\.schema\.json|"\$defs"/);
  for (const item of Object.values(document.paths as Record<string, Record<string, { 'x-requirements': string[] }>>)) {
    for (const operation of Object.values(item)) assert.ok(operation['x-requirements'].length > 0);
  }
});

test('both documents lint clean with Redocly', () => {
  for (const target of [file, exactFile]) {
    const lint = spawnSync(join(root, 'node_modules', '.bin', 'redocly'), ['lint', target, '--config', join(root, 'schemas', 'redocly.yaml')], {
      cwd: root, encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const output = `${lint.stdout}${lint.stderr}`;
    assert.equal(lint.status, 0, output);
    assert.match(output, /valid/);
    assert.doesNotMatch(output, /You have \d+ warnings?/, output);
  }
});

// The spec export: what every implementation must do, and nothing the sandbox chose where the spec is silent.
const specText = readFileSync(SPEC_PATH, 'utf8');
const normalised = (text: string) => text.replace(/\s+/g, ' ').trim();

function collect(value: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) collect(item, key, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [name, inner] of Object.entries(value)) {
      if (name === key) found.push(inner);
      collect(inner, key, found);
    }
  }
  return found;
}

test('every x-dxs-spec note of the spec export quotes the spec verbatim, and the spec quotes behind it and dxs fuzz do too', () => {
  const notes = collect(document, 'x-dxs-spec').flatMap((note) => (Array.isArray(note) ? note : [note])) as Array<{ reason: string; quotes: string[] }>;
  assert.ok(notes.length >= 20, `${notes.length} notes`);
  const spec = normalised(specText);
  for (const note of notes) {
    assert.ok(note.reason.length > 10 && note.quotes.length > 0, JSON.stringify(note));
    for (const quote of note.quotes) assert.ok(spec.includes(normalised(quote)), `not in the spec: ${quote}`);
  }
  for (const [name, quote] of Object.entries(SPEC_QUOTES)) assert.ok(spec.includes(normalised(quote)), `SPEC_QUOTES.${name} is not in the spec: ${quote}`);
  assert.equal(collect(exact, 'x-dxs-spec').length, 0);
  // Nothing in it speaks of the sandbox's own choices (the info and the server's default URL name the two exports and the sandbox).
  const { info: _info, servers: _servers, ...rest } = document;
  assert.doesNotMatch(JSON.stringify(rest), /sandbox/i);
});

test('the spec export gives no enum, const or format the spec does not give', () => {
  const spec = normalised(specText);
  for (const values of [...collect(document, 'enum'), ...collect(document, 'const').map((value) => [value])] as unknown[][]) {
    for (const value of values) if (typeof value === 'string') assert.ok(spec.includes(value), `enum value not in the spec: ${value}`);
  }
  assert.deepEqual([...new Set(collect(document, 'format'))].sort(), ['binary', 'date-time', 'email', 'uuid']);
  const incoming = document.paths['/documents/incoming'].get.parameters as Array<{ name: string; schema: Record<string, unknown> }>;
  assert.deepEqual(incoming.find((parameter) => parameter.name === 'type')?.schema, { type: 'string' });
  assert.ok(Array.isArray(exact.paths['/documents/incoming'].get.parameters[0].schema.enum), 'the sandbox-exact export keeps its list of types');
  for (const path of ['/documents/outbound/{DocumentId}', '/invoices/outbound/{DocumentId}', '/documents/outbound/download/{DocumentId}']) {
    assert.equal(document.paths[path].get.parameters[0].schema.format, 'uuid', path);
    assert.match(document.paths[path].get.parameters[0].example, /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/, path);
  }
  assert.equal(document.components.schemas.OutboundDocument.properties.id.format, 'uuid');
});

test('the spec export lists the statuses the spec lists, 4XX where it leaves them open, and no status of the sandbox alone', () => {
  const codes = (path: string, method = 'post') => Object.keys(document.paths[path][method].responses).sort();
  assert.deepEqual(codes('/companies/status', 'get'), ['200', '4XX']);
  assert.deepEqual(codes('/documents/outbound/{DocumentId}', 'get'), ['200', '4XX']);
  assert.deepEqual(codes('/companies/users'), ['200', '400', '401', '409', '429', '500']);
  assert.deepEqual(codes('/companies/delete'), ['200', '202', '400', '401', '429', '500', '501']);
  for (const item of Object.values(document.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>)) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses)) assert.doesNotMatch(response.description, /as the sandbox answers/, status);
    }
  }
});

test('answers in the spec export require no field and admit null and fields the spec does not name; requests keep the required fields the spec marks', () => {
  const schemas = document.components.schemas as Record<string, Record<string, any>>;
  for (const name of ['ClientToken', 'CompanyStatusResponse', 'CompanyDetailsResponse', 'IncomingDocuments', 'OutboundDocument', 'ProviderARegistrationRecord']) {
    assert.deepEqual(collect(schemas[name], 'required'), [], name);
    assert.notEqual(schemas[name].additionalProperties, false, name);
  }
  assert.deepEqual(schemas.CompanyStatusResponse.properties.status.type, ['string', 'null']);
  assert.deepEqual(schemas.ClientTokenCreateRequest.required, ['erpId']);
  assert.deepEqual(schemas.ProviderARegistrationRequest.properties.pubAgreement.const, true);
  assert.equal(schemas.SearchTokenCreateRequest.required, undefined, 'SearchId is not marked required');
  assert.equal(schemas.CompanyInput.properties.countryCode.pattern, undefined, 'formats of company fields: not shown');
});

test('operations whose scheme the spec does not name take optional credentials in the spec export', () => {
  assert.deepEqual(document.paths['/sellerparties/lookup'].post.security, [{}, { ApiKeyAuth: [] }, { ClientTokenAuth: [] }]);
  assert.deepEqual(document.paths['/companies/status'].get.security, [{ ClientTokenAuth: [] }]);
  assert.deepEqual(exact.paths['/sellerparties/lookup'].post.security, [{ ApiKeyAuth: [] }, { ClientTokenAuth: [] }]);
});
