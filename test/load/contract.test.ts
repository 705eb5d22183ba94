// One contract (issue 29): the k6 scripts judge an answer's body by the rules `dxs test` applies to
// it (lib/contract.ts), with the bundled build of the same schemas. Proven here without k6: the
// table names the checks the contract suites make, with the catalog's IDs and bases; every body
// gets the same verdict from the bundle as from the Node validators dxs test uses, bodies with
// fields left out or null included; a failed check names its requirement and basis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import buildValidators from '../../scripts/build/10-validators.ts';
import { validate as validateInNode } from '../../schemas/index.ts';
import { requirementById } from '../../schemas/requirements.ts';
import { normaliseKeys, renderKeys } from '../../lib/casing.ts';
import { BODY_CONTRACT, requirementsOfCheckName, ruleCheck, ruleName } from '../../lib/contract.ts';
import { buildThresholds } from '../../load/lib/thresholds.ts';
import { checkBasis, summaryLine } from '../../cli/commands/load/report.ts';
import { SCHEMAS } from '../../load/lib/endpoints.ts';
import { MUTATIONS, VALID_SAMPLES } from '../schemas/samples.ts';
import type { SchemaValidator } from '../../lib/checks.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.dxs-tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.dxs-tmp', 'contract-test-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

test('the contract table holds every body the load flows validate, with IDs of the catalog on the basis the catalog gives', () => {
  assert.deepEqual(Object.values(SCHEMAS).sort(), Object.keys(BODY_CONTRACT).sort());
  for (const [schemaName, rules] of Object.entries(BODY_CONTRACT)) {
    assert.ok(rules.some((rule) => rule.basis === 'spec'), `${schemaName}: a rule of the spec`);
    for (const rule of rules) {
      for (const id of rule.requirements) {
        const requirement = requirementById(id);
        assert.ok(requirement !== undefined, `${id} is in the catalog`);
        assert.equal(requirement.basis, rule.basis, `${schemaName} ${id}: the basis of the catalog`);
        assert.ok(requirement.endpoints.length > 0);
      }
      assert.deepEqual(requirementsOfCheckName(ruleName('body', schemaName, rule)), [...rule.requirements]);
    }
  }
});

/** The checker a line of the suites applies, and its present fields. */
function checkerOf(line: string, schemaName: string): readonly string[] | 'all' | undefined {
  const literal = `'${schemaName}'`;
  const present = new RegExp(`schemaOfPresentFields\\(${literal}, \\[([^\\]]*)\\]\\)`).exec(line);
  if (present !== null) return present[1].split(',').map((item) => item.trim().replace(/'/g, '')).filter((item) => item !== '');
  if (line.includes(`schemaTypes(${literal})`) || /schemaTypes\([A-Z_]+\[kind\]\)/.test(line)) return [];
  if (line.includes(`schema(${literal})`) || /[^.\w]schema\([A-Z_]+\[kind\]\)/.test(line)) return 'all';
  return undefined;
}

function suiteLines(): string[] {
  const lines: string[] = [];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) lines.push(...readFileSync(path, 'utf8').split('\n'));
    }
  };
  walk(join(root, 'suites'));
  return lines;
}

test('each rule of the table is a check the contract suites make under the same ID, with the same presence rule', () => {
  const lines = suiteLines();
  for (const [schemaName, rules] of Object.entries(BODY_CONTRACT)) {
    for (const rule of rules) {
      for (const id of rule.requirements) {
        const found = lines.filter((line) => line.includes(`'${id}'`)).map((line) => checkerOf(line, schemaName)).filter((checker) => checker !== undefined);
        assert.ok(found.length > 0, `${schemaName} ${id}: no check of the suites under this ID`);
        assert.ok(found.some((checker) => JSON.stringify(checker) === JSON.stringify(rule.present)), `${schemaName} ${id}: the suites check ${JSON.stringify(found)}, the table ${JSON.stringify(rule.present)}`);
      }
    }
  }
});

/** Bodies of a schema: the sample, each field (of the body and of its first nested objects) left out, then null, and the mutations. */
function bodiesOf(schemaName: string): unknown[] {
  const sample = VALID_SAMPLES[schemaName] as Record<string, unknown>;
  const bodies: unknown[] = [sample, ...MUTATIONS.filter((mutation) => mutation.schema === schemaName).map((mutation) => mutation.body)];
  const vary = (path: string[], target: Record<string, unknown>): void => {
    for (const key of Object.keys(target)) {
      for (const change of ['omit', 'null'] as const) {
        const copy = structuredClone(sample);
        let parent: Record<string, unknown> = copy;
        for (const step of path) parent = parent[step] as Record<string, unknown>;
        if (change === 'omit') delete parent[key];
        else parent[key] = null;
        bodies.push(copy);
      }
      const value = target[key];
      if (path.length < 2 && typeof value === 'object' && value !== null) vary([...path, key], value as Record<string, unknown>);
    }
  };
  vary([], sample);
  return bodies;
}

test('the k6 bundle and dxs test give every body the same verdict under each rule, fields left out or null included', async () => {
  const outfile = join(work, 'validators.js');
  await buildValidators(outfile);
  const bundle = (await import(pathToFileURL(outfile).href)) as { validate: SchemaValidator };
  let compared = 0;
  let rejected = 0;
  for (const [schemaName, rules] of Object.entries(BODY_CONTRACT)) {
    for (const body of bodiesOf(schemaName)) {
      for (const casing of ['pascal', 'camel'] as const) {
        const response = { status: 200, headers: {}, json: renderKeys(body, casing) };
        for (const rule of rules) {
          const inK6 = ruleCheck(schemaName, rule, bundle.validate)(response);
          const inDxsTest = ruleCheck(schemaName, rule, (name, json) => validateInNode(name, json))(response);
          assert.deepEqual(inK6, inDxsTest, `${schemaName} ${rule.requirements[0]}: ${JSON.stringify(normaliseKeys(body)).slice(0, 300)}`);
          compared++;
          if (!inK6.ok) rejected++;
        }
      }
    }
  }
  assert.ok(compared > 200 && rejected > 0, `${compared} verdicts compared, ${rejected} rejections`);
});

test('a field left out of company status Details is no failure of CMP-STA-01 but a warning of CMP-STA-13, as in dxs test', () => {
  const body = structuredClone(VALID_SAMPLES['company-status.response']) as { Details: Record<string, unknown> };
  delete body.Details.Processes;
  const response = { status: 200, headers: {}, json: body };
  const [types, full] = BODY_CONTRACT['company-status.response'];
  assert.equal(ruleCheck('company-status.response', types, validateInNode)(response).ok, true);
  assert.equal(ruleCheck('company-status.response', full, validateInNode)(response).ok, false);
  assert.equal(full.basis, 'hardening');
});

test('the contract has its own threshold, and a failed check names its requirement and the basis', () => {
  const thresholds = buildThresholds({ checks: 0.99, contract: 1 }, ['GET /companies/status']);
  assert.deepEqual(thresholds['checks{contract:spec}'], ['rate>=1']);
  const name = ruleName('company status', 'company-status.response', BODY_CONTRACT['company-status.response'][0]);
  assert.match(checkBasis(name, true), /^CMP-STA-01: Basis: the spec says "no body\. Response 200 with the company status response\."/);
  assert.equal(checkBasis(name, false), 'CMP-STA-01 (spec)');
  const defaults = JSON.parse(readFileSync(join(root, 'load', 'thresholds', 'default.json'), 'utf8')) as { contract?: number };
  assert.equal(defaults.contract, 1);
});

test('the console line of a script lists each failed contract check with its requirement and basis, and the hardening warnings apart', () => {
  const name = ruleName('company status', 'company-status.response', BODY_CONTRACT['company-status.response'][0]);
  const full = ruleName('company status', 'company-status.response', BODY_CONTRACT['company-status.response'][1]);
  const result = {
    script: 'register-and-poll', runners: 1, durationSeconds: 3, iterations: 3, requests: 12, endpoints: [],
    checks: [{ name, endpoint: 'GET /companies/status', passes: 0, fails: 3 }],
    warnings: [{ name: full, endpoint: 'GET /companies/status', passes: 0, fails: 3 }],
    thresholds: [{ metric: 'checks{contract:spec}', expression: 'rate>=1', ok: false, actual: 0 }],
    passed: false,
  };
  const line = summaryLine(result, 'report/index.html');
  assert.match(line, /register-and-poll: FAILED/);
  assert.match(line, /failed 3x: company status body .*\[CMP-STA-01\] \(GET \/companies\/status\)\. CMP-STA-01: Basis: the spec says "/);
  assert.match(line, /warnings \(hardening\): CMP-STA-13 3x on GET \/companies\/status/);
});
