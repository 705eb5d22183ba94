// The run's setup (issue 42): `dxs test` makes the first workers' companies and access settings
// while Playwright starts them, and each worker takes its items from there. Only the time moves:
// the plan follows the selection, an outcome comes back to the worker as the making left it (a
// value, a broken prerequisite, an error), and a run with the setup gives every test the verdict
// the same selection gets without it (a --grep that matches every test makes no setup).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results, TestRecord } from '../../report/results.ts';
import { secrets } from '../../lib/redact.ts';
import { SetupFailed } from '../../suites/support/companies.ts';
import { PreparedSetup, writeStoredOutcome } from '../../suites/support/prepared.ts';
import type { RunContext, RunSetupPlan } from '../../suites/support/run-context.ts';
import { ACCESS_ITEMS, planRunSetup, removeRunSetup, ROLE_AREAS } from '../../suites/support/setup-items.ts';
import { runDxs } from './helpers.ts';

const context = (over: Partial<RunContext> = {}): RunContext => ({ baseUrl: 'http://127.0.0.1:1/v1/api', apiKey: 'k', asyncTimeoutSeconds: 30, casing: 'any', areas: [], destructive: false, profile: 'full', reportDir: '/nowhere', runPrefix: 'dxs-x-test', seed: 1, embedded: true, version: 'dev', startedAt: '', ...over });

test('the plan follows the selection: every role and the access settings for a whole profile, only what the areas use otherwise, nothing for a --grep', () => {
  const everything = planRunSetup(context(), 4, '/tmp/x');
  assert.deepEqual(everything?.items, [...Object.keys(ROLE_AREAS), ...ACCESS_ITEMS]);
  assert.equal(everything?.workers, 4);
  assert.deepEqual(planRunSetup(context({ areas: ['tokens'] }), 2, '/tmp/x')?.items, ['registeredCompany']);
  assert.deepEqual(planRunSetup(context({ areas: ['inbound'] }), 2, '/tmp/x')?.items, ['registeredCompany', 'otherCompany', 'recipientCompany']);
  assert.deepEqual(planRunSetup(context({ areas: ['access'] }), 2, '/tmp/x')?.items, ['registeredCompany', ...ACCESS_ITEMS]);
  assert.equal(planRunSetup(context({ grep: 'token' }), 4, '/tmp/x'), undefined);
  assert.equal(planRunSetup(context(), 0, '/tmp/x'), undefined);
});

test("a worker slot gets each item as the making left it, with its secrets; nothing for a slot beyond the plan or an item not planned", async () => {
  const folder = join(mkdtempSync(join(tmpdir(), 'dxs-setup-test-')), 'setup');
  const plan: RunSetupPlan = { folder, workers: 2, items: ['registeredCompany', 'otherCompany', 'access'] };
  const target = context({ setup: plan, asyncTimeoutSeconds: 1 });
  try {
    const token = `setup-token-${process.pid}-${Date.now()}-abcdefgh`;
    writeStoredOutcome(plan, 1, 'registeredCompany', { value: { erpId: 'e1', token }, secrets: [token] });
    writeStoredOutcome(plan, 1, 'otherCompany', { cause: { prerequisite: 'registration', requirement: 'CMP-STA-06', message: 'never Registered' }, secrets: [] });
    const prepared = PreparedSetup.of(target, 1) as PreparedSetup;
    assert.ok(prepared !== undefined);
    const own = { value: { erpId: 'own', token: 'made by the worker' } };
    const makeOwn = () => Promise.resolve(own);
    assert.deepEqual(await prepared.outcome('registeredCompany', makeOwn), { value: { erpId: 'e1', token } });
    assert.equal(secrets.redactText(`a ${token} b`).includes(token), false, "the item's token is redacted in the worker");
    assert.deepEqual(await prepared.outcome('otherCompany', makeOwn), { cause: { prerequisite: 'registration', requirement: 'CMP-STA-06', message: 'never Registered' } });
    assert.deepEqual(await prepared.outcome('swedishCompany', makeOwn), own, 'an item the plan does not make: the worker makes its own');
    // A lost call of the run's setup: the slot's first worker is blocked by it; a replacement (its tests run again) makes its own.
    const lost = { prerequisite: 'transport' as const, requirement: 'transport', message: 'the deployment gave no answer (reset) to 3 of 3 tries of POST /companies/register' };
    writeStoredOutcome(plan, 1, 'swedishCompany', { cause: lost, secrets: [] });
    const withTransport = { ...plan, items: [...plan.items, 'swedishCompany'] };
    assert.deepEqual(await (PreparedSetup.of({ ...target, setup: withTransport }, 1) as PreparedSetup).outcome('swedishCompany', makeOwn), { cause: lost });
    assert.deepEqual(await (PreparedSetup.of({ ...target, setup: withTransport }, 1, true) as PreparedSetup).outcome('swedishCompany', makeOwn), own);
    rmSync(join(folder, 'w1-swedishCompany.json'));
    assert.equal(PreparedSetup.of(target, 2), undefined, 'a worker slot beyond the plan makes its own (a replacement of slot 1 reads slot 1\'s items)');
    assert.equal(PreparedSetup.of(context(), 0), undefined, 'a run without a setup');

    // Written while the worker waits: read once whole (the file is renamed into place).
    const later = prepared.outcome('access', makeOwn);
    setTimeout(() => writeStoredOutcome(plan, 1, 'access', { error: 'no response from the target', secrets: [] }), 50);
    await assert.rejects(later as Promise<unknown>, (error: unknown) => error instanceof SetupFailed && error.message === 'no response from the target');
    assert.deepEqual(readdirSync(folder).sort(), ['w1-access.json', 'w1-otherCompany.json', 'w1-registeredCompany.json']);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(statSync(join(folder, 'w1-registeredCompany.json')).mode & 0o777, 0o600);

    // Never made: the wait is bounded and says what it waited for.
    await assert.rejects(new PreparedSetup(plan, 0, 100).outcome('access', () => Promise.resolve({ value: undefined })), /the run's setup never made access for worker 0/);
  } finally {
    removeRunSetup(plan);
    assert.throws(() => statSync(folder), 'the folder goes with the run');
    rmSync(join(folder, '..'), { recursive: true, force: true });
  }
});

const stable = (test: TestRecord): string => `${test.file} › ${test.titlePath.join(' › ')}`;

test('the same selection with the run setup and without it: the same tests with the same verdicts', { timeout: 300_000 }, async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-run-setup-'));
  try {
    const [withSetup, without] = [join(directory, 'with'), join(directory, 'without')];
    const args = ['test', '--area', 'access,inbound', '--workers', '2'];
    const first = await runDxs([...args, '--report-dir', withSetup], { timeoutMs: 140_000 });
    assert.equal(first.code, 0, first.stderr.slice(-2000));
    assert.match(first.stderr, /the run's setup: \d+ companies and settings for the first 2 workers/);
    // A --grep that every test matches: the same selection, no setup and no head start.
    const second = await runDxs([...args, '--grep', '.', '--report-dir', without], { timeoutMs: 140_000 });
    assert.equal(second.code, 0, second.stderr.slice(-2000));
    assert.doesNotMatch(second.stderr, /the run's setup/);
    const [a, b] = [withSetup, without].map((folder) => JSON.parse(readFileSync(join(folder, 'results.json'), 'utf8')) as Results);
    const verdicts = (results: Results): Array<[string, string]> => results.tests.map((test): [string, string] => [stable(test), test.verdict]).sort(([x], [y]) => x.localeCompare(y));
    assert.ok(a.tests.length > 20, `${a.tests.length} tests`);
    assert.deepEqual(verdicts(a), verdicts(b));
    // The setup's companies were the workers' (their ErpIds carry the setup's streams), and the cleanup deleted them.
    const created = JSON.parse(readFileSync(join(withSetup, 'created.json'), 'utf8')) as { companies: Array<{ ErpId: string }> };
    assert.ok(created.companies.some((company) => /-s[01](i\d+)?-/.test(company.ErpId)), 'companies of the run setup in the journal');
    assert.match(first.stderr, /cleanup: .*deleted/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
