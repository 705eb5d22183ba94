// Every limit of the spec at its edge, both sides (issue 57): a lookup of exactly 500000 SSNs and an
// icon file of exactly 1 MB are sent and must be accepted, one past each refused. Behind a body limit
// smaller than what the spec permits (the sandbox variant body-limit-1mb answers 413 with nginx's
// page, as nginx's default client_max_body_size does), the edge's refusal fails plainly as "this
// deployment refuses what the spec permits", quoting the spec, and the call past the edge, refused
// by the deployment before the API, is not reached rather than failed on the wrong ground.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObservedResponse } from '../../lib/checks.ts';
import { NOT_REACHED_ANNOTATION, type Results, type TestRecord } from '../../report/results.ts';
import { acceptsSpecEdge, refusedByBodyLimit } from '../../suites/support/spec-limits.ts';
import { runDxs } from '../runner/helpers.ts';

const NGINX_PAGE = '<html><head><title>413 Request Entity Too Large</title></head></html>';

function answer(status: number, text: string, json?: unknown): ObservedResponse {
  return { status, headers: {}, text, json, size: text.length } as ObservedResponse;
}

test('a 413 is the body limit\'s when its body is not the API\'s JSON error, and the edge\'s refusal says the deployment refuses what the spec permits', () => {
  assert.equal(refusedByBodyLimit(answer(413, NGINX_PAGE)), true);
  assert.equal(refusedByBodyLimit(answer(413, '"too many SSNs"', 'too many SSNs')), false, 'the API\'s own 413 is its answer');
  assert.equal(refusedByBodyLimit(answer(400, NGINX_PAGE)), false);
  const check = acceptsSpecEdge('500000 SSNs in one lookup', 7_500_010, 200);
  assert.equal(check(answer(200, '{}', {})).ok, true);
  const refused = check(answer(413, NGINX_PAGE));
  assert.equal(refused.ok, false);
  assert.equal(refused.actual, 'status 413 to a body of 7.5 MB (7500010 bytes), from the body limit of the deployment in front of the API (not its JSON error): this deployment refuses what the spec permits');
  assert.match(check(answer(500, 'oops')).actual, /^status 500 to a body of 7\.5 MB \(7500010 bytes\)$/);
});

const GREP = 'exactly 500000 SSNs|valid 256x256|each icon that breaks';

async function limitsRun(variant: string | undefined): Promise<{ code: number | null; output: string; results: Results }> {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-spec-limits-'));
  try {
    const run = await runDxs(['test', '--workers', '2', '--grep', GREP, ...(variant === undefined ? [] : ['--sandbox-variant', variant]), '--report-dir', directory], { timeoutMs: 240_000 });
    const results = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
    return { code: run.code, output: `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`, results };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function testNamed(results: Results, start: string): TestRecord {
  const found = results.tests.find((item) => item.title.startsWith(start));
  assert.ok(found !== undefined, `${start}: ${results.tests.map((item) => item.title).join('; ')}`);
  return found;
}

test('the edges the spec permits are sent and accepted; behind a 1 MB body limit they fail as refused by the deployment, and the calls past them are not reached', { timeout: 600_000 }, async () => {
  const clean = await limitsRun(undefined);
  assert.equal(clean.code, 0, clean.output);
  assert.deepEqual(testNamed(clean.results, 'exactly 500000 SSNs').requirementVerdicts, { 'PRA-39': 'passed', 'PRA-40': 'passed', 'PRA-43': 'passed', 'PRA-52': 'info' });
  assert.equal(testNamed(clean.results, 'valid 256x256').requirementVerdicts['PRA-51'], 'passed');
  const observed = testNamed(clean.results, 'exactly 500000 SSNs').checks.find((check) => check.requirement === 'PRA-52');
  assert.match(observed?.actual ?? '', /^a lookup of 500000 SSNs, the most the spec permits, is a body of 7\.\d MB \(\d+ bytes\); the target answered 200$/);

  const limited = await limitsRun('body-limit-1mb');
  assert.equal(limited.code, 1, limited.output);
  const lookup = testNamed(limited.results, 'exactly 500000 SSNs');
  assert.deepEqual(lookup.requirementVerdicts, { 'PRA-39': 'skipped', 'PRA-40': 'failed', 'PRA-43': 'skipped', 'PRA-52': 'info' });
  assert.match(lookup.failure ?? '', /PRA-40 .*\n.*Basis: the spec says "at most 500000 \| provider A lookup; more gives 400"/);
  assert.match(lookup.failure ?? '', /actual status 413 to a body of 7\.\d MB .*: this deployment refuses what the spec permits/);
  const reasons = lookup.annotations.filter((annotation) => annotation.type === NOT_REACHED_ANNOTATION).map((annotation) => annotation.description ?? '');
  assert.ok(reasons.some((text) => /^PRA-39: not reached: the deployment answered 413 .* body of 500001 SSNs before the API could answer/.test(text)), reasons.join('\n'));
  const icon = testNamed(limited.results, 'valid 256x256');
  assert.equal(icon.requirementVerdicts['PRA-51'], 'failed');
  assert.equal(icon.requirementVerdicts['PRA-28'], 'passed');
  assert.match(icon.failure ?? '', /Basis: the spec says "up to 1 MB"[\s\S]*this deployment refuses what the spec permits/);
  // One past the edge, the deployment's 413 is a refusal too: the refusal tests pass.
  assert.equal(testNamed(limited.results, 'each icon that breaks').verdict, 'passed');
});
