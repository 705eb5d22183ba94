// Issue 16: a run leaves nothing behind and never collides with another run. Each test starts its
// own sandbox (port 0) and asks its state route (GET /_sandbox/state) what is left, by run prefix.
import type { ChildProcess } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox/index.ts';
import type { SandboxState } from '../../sandbox/state.ts';
import { deleteCompanies } from '../../cli/commands/cleanup.ts';
import { assembleJournal, parseJournalLines, readJournal, type Journal, type JournalCompany } from '../../suites/support/journal.ts';
import type { Results } from '../../report/results.ts';
import { createFixtures } from '../../fixtures/index.ts';
import { newRunPrefix, runSeed } from '../../fixtures/run-prefix.ts';
import { runDxs, type CliResult } from './helpers.ts';
import { isSharedErpId, sharedErpId } from '../../suites/support/shared-company.ts';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'dxs-cleanup-'));
}

async function state(sandbox: RunningSandbox, erpIdPrefix = ''): Promise<SandboxState> {
  const response = await fetch(`${new URL(sandbox.baseUrl).origin}/_sandbox/state?erpIdPrefix=${encodeURIComponent(erpIdPrefix)}`);
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.ok(!text.includes(sandbox.apiKey) && !text.includes(sandbox.apiKeyWithoutDelete), 'the state names keys by place, never by value');
  return JSON.parse(text) as SandboxState;
}

/** The live ErpIds of the run per key (key 1 holds DeleteRegistration), once the sandbox's background deletes have run (bounded). */
async function liveAfterDeletes(sandbox: RunningSandbox, runPrefix: string): Promise<{ withDelete: string[]; withoutDelete: string[] }> {
  let live = { withDelete: [] as string[], withoutDelete: [] as string[] };
  for (let attempt = 0; attempt < 50; attempt++) {
    const { byApiKey } = await state(sandbox, `${runPrefix}-`);
    live = { withDelete: byApiKey[0].liveErpIds, withoutDelete: byApiKey[1].liveErpIds };
    if (live.withDelete.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return live;
}

function results(directory: string): Results {
  return JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as Results;
}

function journalOf(directory: string): Journal {
  const journal = readJournal(directory);
  assert.ok(journal !== undefined, `a journal in ${directory}`);
  return journal;
}

async function withSandbox<T>(options: SandboxOptions, body: (sandbox: RunningSandbox) => Promise<T>): Promise<T> {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', ...options });
  try {
    return await body(sandbox);
  } finally {
    await sandbox.close();
  }
}

/** `dxs test --area companies` against the sandbox, sent SIGTERM once its journal holds three companies. */
async function killedRun(sandbox: RunningSandbox, reportDir: string, extra: string[]): Promise<{ run: CliResult; killed: boolean }> {
  const linesFile = join(reportDir, 'created.jsonl');
  let killed = false;
  let running: ChildProcess | undefined;
  // Watched on a timer, not on output: the journal grows between the lines Playwright prints.
  const watch = setInterval(() => {
    if (killed || running === undefined || !existsSync(linesFile)) return;
    if (assembleJournal(parseJournalLines(readFileSync(linesFile, 'utf8'))).companies.length >= 3) {
      killed = true;
      running.kill('SIGTERM');
    }
  }, 50);
  const run = await runDxs(['test', '--area', 'companies', ...extra, '--base-url', sandbox.baseUrl, '--report-dir', reportDir], {
    onOutput: (_output, child) => {
      running = child;
    },
  }).finally(() => clearInterval(watch));
  return { run, killed };
}

test('the journal assembles what workers wrote: a delete ends a company, a registration after it revives it, a cut last line is skipped', () => {
  const lines = [
    '{"at":"t0","runPrefix":"dxs-a-b","kind":"run","target":"http://127.0.0.1:1/v1/api","embedded":false}',
    '{"at":"t1","runPrefix":"dxs-a-b","kind":"company","key":"apiKey","ErpId":"dxs-a-b-w0-company-se-1","OrgNo":"556677-8899"}',
    '{"at":"t2","runPrefix":"dxs-a-b","kind":"company","key":"apiKey","ErpId":"dxs-a-b-w0-company-se-1","Id":"c1"}',
    '{"at":"t3","runPrefix":"dxs-a-b","kind":"company","key":"apiKeyWithoutDelete","ErpId":"dxs-a-b-w0-company-se-1"}',
    '{"at":"t4","runPrefix":"dxs-a-b","kind":"delete","key":"apiKey","ErpId":"dxs-a-b-w0-company-se-1"}',
    '{"at":"t5","runPrefix":"dxs-a-b","kind":"company","key":"apiKey","ErpId":"dxs-a-b-w1-company-dk-1"}',
    '{"at":"t6","runPrefix":"dxs-a-b","kind":"delete","key":"apiKey","ErpId":"dxs-a-b-w1-company-dk-1"}',
    '{"at":"t7","runPrefix":"dxs-a-b","kind":"company","key":"apiKey","ErpId":"dxs-a-b-w1-company-dk-1"}',
    '{"at":"t8","runPrefix":"dxs-a-b","kind":"user","key":"apiKey","ErpId":"dxs-a-b-w1-company-dk-1","UserName":"someone"}',
    '{"at":"t9","runPrefix":"dxs-a-b","kind":"company","key":"apiKey","ErpId":"dxs-a-b-w1-comp',
  ].join('\n');
  const journal = assembleJournal(parseJournalLines(lines));
  assert.equal(journal.runPrefix, 'dxs-a-b');
  assert.equal(journal.target, 'http://127.0.0.1:1/v1/api');
  const byKey = (company: JournalCompany) => `${company.key} ${company.ErpId} ${company.deleteRequested}`;
  assert.deepEqual(journal.companies.map(byKey), [
    'apiKey dxs-a-b-w0-company-se-1 true',
    'apiKeyWithoutDelete dxs-a-b-w0-company-se-1 false',
    'apiKey dxs-a-b-w1-company-dk-1 false',
  ]);
  assert.equal(journal.companies[0].Id, 'c1');
  assert.equal(journal.companies[0].OrgNo, '556677-8899');
  assert.equal(journal.users.length, 1);
});

test('runs started at once get their own seeds: no shared company name, ErpId, OrgNo or SSN, and the same prefix gives the same data', () => {
  const now = Date.now();
  const prefixes = [newRunPrefix(now), newRunPrefix(now), newRunPrefix(now)];
  // As the suites make them: one stream per worker, seeded from the run's seed.
  const fixturesOf = (prefix: string, worker: number) => createFixtures({ seed: runSeed(prefix) * 1000 + worker, runPrefix: `${prefix}-w${worker}` });
  const seen = { ErpId: new Map<string, string>(), OrgNo: new Map<string, string>(), Name: new Map<string, string>(), SSN: new Map<string, string>() };
  for (const prefix of prefixes) {
    for (const worker of [0, 1]) {
      const fixtures = fixturesOf(prefix, worker);
      const values = { ErpId: [] as string[], OrgNo: [] as string[], Name: [] as string[], SSN: fixtures.ssns(200) };
      for (const company of fixtures.companies(40)) {
        values.ErpId.push(company.ErpId);
        values.OrgNo.push(company.OrgNo);
        values.Name.push(company.Name);
      }
      for (const [field, list] of Object.entries(values) as Array<[keyof typeof seen, string[]]>) {
        for (const value of list) {
          const owner = seen[field].get(value);
          assert.ok(owner === undefined || owner === prefix, `${field} ${value} made by ${owner} and ${prefix}`);
          seen[field].set(value, prefix);
        }
      }
    }
  }
  assert.deepEqual(fixturesOf(prefixes[0], 1).companies(3), fixturesOf(prefixes[0], 1).companies(3));
});

test('deleteCompanies deletes with the key each company is under and says why the others are left (no role, 501, unknown key)', async () => {
  const directory = scratch();
  try {
    await withSandbox({}, async (sandbox) => {
      const register = (apiKey: string, erpId: string) =>
        fetch(`${sandbox.baseUrl}/companies/register`, {
          method: 'POST',
          headers: { APIkey: apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ ErpId: erpId, ErpProduct: 'dxs test', Name: 'Cleanup AB', Email: 'cleanup@example.com', CountryCode: 'SE', OrgNo: '556677-8899' }),
        });
      const ids = ['dxs-x-y-1', 'dxs-x-y-2', 'dxs-x-y-3'];
      for (const erpId of ids) assert.equal((await register(sandbox.apiKey, erpId)).status, 202);
      assert.equal((await register(sandbox.apiKeyWithoutDelete, 'dxs-x-y-4')).status, 202);
      const companies: JournalCompany[] = [
        ...ids.map((ErpId): JournalCompany => ({ ErpId, key: 'apiKey', createdAt: '', deleteRequested: false })),
        { ErpId: 'dxs-x-y-4', key: 'apiKeyWithoutDelete', createdAt: '', deleteRequested: false },
        { ErpId: 'dxs-x-y-5', key: 'other', createdAt: '', deleteRequested: false },
      ];
      const keys = { apiKey: sandbox.apiKey, apiKeyWithoutDelete: sandbox.apiKeyWithoutDelete };
      const first = await deleteCompanies(companies, { baseUrl: sandbox.baseUrl, keys, concurrency: 2 });
      assert.deepEqual(first.deleted.map((company) => company.ErpId).sort(), ids);
      assert.ok(first.deleted.every((company) => company.status === 202));
      const left = Object.fromEntries(first.left.map((company) => [company.ErpId, company.reason]));
      assert.match(left['dxs-x-y-4'] ?? '', /no DeleteRegistration role .*401/);
      assert.match(left['dxs-x-y-5'] ?? '', /API key dxs was not given/);
      assert.deepEqual((await liveAfterDeletes(sandbox, 'dxs-x-y')).withDelete, []);
      // Idempotent: the spec answers a duplicate delete with 200.
      const again = await deleteCompanies(companies.slice(0, 3), { baseUrl: sandbox.baseUrl, keys });
      assert.deepEqual(again.deleted.map((company) => company.status), [200, 200, 200]);
    });
    const config = join(directory, 'sandbox.json');
    writeFileSync(config, JSON.stringify({ deletesEnabled: false }));
    await withSandbox({ configFile: config }, async (sandbox) => {
      const outcome = await deleteCompanies([{ ErpId: 'dxs-x-y-1', key: 'apiKey', createdAt: '', deleteRequested: false }, { ErpId: 'dxs-x-y-2', key: 'apiKey', createdAt: '', deleteRequested: false }], { baseUrl: sandbox.baseUrl, keys: { apiKey: sandbox.apiKey }, concurrency: 1 });
      assert.equal(outcome.deleted.length, 0);
      assert.ok(outcome.left.every((company) => /deletes are disabled .*501/.test(company.reason ?? '')), JSON.stringify(outcome.left));
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('dxs clean exits 2 without a journal, 0 for a run of the embedded sandbox (gone with it), 1 when a company cannot be deleted', async () => {
  const directory = scratch();
  try {
    const none = await runDxs(['clean', '--from', directory], { timeoutMs: 30_000 });
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /holds no journal/);
    const line = (fields: Record<string, unknown>) => `${JSON.stringify({ at: new Date().toISOString(), runPrefix: 'dxs-c-d', ...fields })}\n`;
    writeFileSync(join(directory, 'created.jsonl'), line({ kind: 'run', target: 'http://127.0.0.1:9/v1/api', embedded: true }) + line({ kind: 'company', key: 'apiKey', ErpId: 'dxs-c-d-1' }));
    const embedded = await runDxs(['clean', '--from', directory], { timeoutMs: 30_000 });
    assert.equal(embedded.code, 0, embedded.stderr);
    assert.match(embedded.stderr, /embedded sandbox .* stopped with the run/);
    await withSandbox({}, async (sandbox) => {
      writeFileSync(join(directory, 'created.jsonl'), line({ kind: 'run', target: sandbox.baseUrl, embedded: false }) + line({ kind: 'company', key: 'apiKeyWithoutDelete', ErpId: 'dxs-c-d-2' }));
      // The journal's target is no sandbox dxs started for clean: the user's keys go with it.
      const left = await runDxs(['clean', '--from', directory], { timeoutMs: 30_000, env: { DXS_API_KEY: sandbox.apiKey, DXS_API_KEY_WITHOUT_DELETE: sandbox.apiKeyWithoutDelete } });
      assert.equal(left.code, 1, left.stderr);
      assert.match(left.stdout, /^left +dxs-c-d-2 \(apiKeyWithoutDelete\): the key has no DeleteRegistration role/m);
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a run stopped with SIGTERM deletes the companies it registered before it exits', async () => {
  const directory = scratch();
  try {
    await withSandbox({ asyncDelayMs: 200 }, async (sandbox) => {
      const reportDir = join(directory, 'stopped');
      const { run, killed } = await killedRun(sandbox, reportDir, []);
      assert.ok(killed, `the run was stopped before it ended: ${run.stderr}`);
      assert.match(run.stderr, /SIGTERM received[\s\S]*cleanup: every company the run registered is deleted/);
      // 128 + SIGTERM's number, as dxs load exits and as a shell reports it; the report says interrupted.
      assert.equal(run.code, 143, run.stderr);
      assert.equal(results(reportDir).run.status, 'interrupted');
      const journal = journalOf(reportDir);
      const cleanup = results(reportDir).cleanup;
      assert.equal(cleanup?.status, 'done');
      assert.equal(cleanup.deleted.length + cleanup.alreadyDeleted, journal.companies.length);
      const journaled = new Set(journal.companies.map((company) => company.ErpId));
      assert.deepEqual((await liveAfterDeletes(sandbox, journal.runPrefix)).withDelete.filter((erpId) => journaled.has(erpId)), []);
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a run killed with SIGTERM (--keep-data) leaves its companies, and dxs clean --from deletes them, twice without harm', async () => {
  const directory = scratch();
  try {
    // Slow background steps keep the run going long enough to be killed in the middle.
    await withSandbox({ asyncDelayMs: 200 }, async (sandbox) => {
      const reportDir = join(directory, 'killed');
      const { run, killed } = await killedRun(sandbox, reportDir, ['--keep-data']);
      assert.ok(killed, `the run was killed before it ended: ${run.stderr}`);
      assert.equal(run.code, 143, run.stderr);
      assert.match(run.stderr, /SIGTERM received/);
      assert.equal(results(reportDir).cleanup?.status, 'kept');
      const journal = journalOf(reportDir);
      assert.ok(journal.companies.length >= 3);
      const before = await state(sandbox, `${journal.runPrefix}-`);
      assert.ok(before.byApiKey[0].liveErpIds.length >= 3, 'the killed run left companies');

      const keys = { DXS_API_KEY: sandbox.apiKey, DXS_API_KEY_WITHOUT_DELETE: sandbox.apiKeyWithoutDelete };
      const clean = await runDxs(['clean', '--from', reportDir], { timeoutMs: 60_000, env: keys });
      assert.equal(clean.code, 0, clean.stdout + clean.stderr);
      assert.match(clean.stdout, /^deleted /m);
      const journaled = new Set(journal.companies.map((company) => company.ErpId));
      const live = (await liveAfterDeletes(sandbox, journal.runPrefix)).withDelete;
      assert.deepEqual(live.filter((erpId) => journaled.has(erpId)), [], 'every company of the journal is deleted');
      // A registration in flight when the workers were stopped may escape the journal: at most one per worker.
      assert.ok(live.length <= 2, `left outside the journal: ${live.join(', ')}`);
      assert.ok(journalOf(reportDir).companies.every((company) => company.deleteRequested), 'the deletes are recorded');

      const again = await runDxs(['clean', '--from', reportDir], { timeoutMs: 60_000, env: keys });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /nothing left to delete/);
      assert.doesNotMatch(readFileSync(join(reportDir, 'created.json'), 'utf8') + readFileSync(join(reportDir, 'created.jsonl'), 'utf8'), new RegExp(sandbox.apiKey));
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('three destructive runs at once against one sandbox, with both keys, all pass, share no name, ErpId or OrgNo, and leave at most one company between them', async () => {
  const directory = scratch();
  try {
    await withSandbox({}, async (sandbox) => {
      const reportDirs = [1, 2, 3].map((index) => join(directory, `run-${index}`));
      const runs = await Promise.all(reportDirs.map((reportDir) => runDxs(['test', '--destructive', '--base-url', sandbox.baseUrl, '--report-dir', reportDir], { timeoutMs: 240_000 })));
      runs.forEach((run, index) => assert.equal(run.code, 0, `run ${index + 1}: ${run.stderr.slice(-3000)}`));
      const journals = reportDirs.map(journalOf);
      assert.equal(new Set(journals.map((journal) => journal.runPrefix)).size, 3);
      for (const field of ['ErpId', 'OrgNo', 'Name'] as const) {
        const seen = new Map<string, number>();
        journals.forEach((journal, index) => {
          // The shared company of the key without DeleteRegistration is the same in every run on purpose.
          for (const value of new Set(journal.companies.filter((company) => !isSharedErpId(company.ErpId)).map((company) => company[field]))) {
            if (value === undefined) continue;
            assert.ok(!seen.has(value) || seen.get(value) === index, `${field} ${value} in runs ${seen.get(value)! + 1} and ${index + 1}`);
            seen.set(value, index);
          }
        });
      }
      for (const [index, journal] of journals.entries()) {
        assert.ok(journal.companies.length > 20, `run ${index + 1} journaled its companies`);
        const cleanup = results(reportDirs[index]).cleanup;
        assert.ok(cleanup !== undefined && cleanup.deleted.length > 0, `run ${index + 1} cleaned up`);
        const live = await liveAfterDeletes(sandbox, journal.runPrefix);
        assert.deepEqual(live.withDelete, [], `run ${index + 1}: nothing left under the key with DeleteRegistration`);
        assert.deepEqual(live.withoutDelete, [], `run ${index + 1}: nothing of its own under the key without DeleteRegistration`);
        // The delete tests register one company under the second key, which cannot delete it: the same one in every run, reported as left, with why.
        assert.deepEqual(cleanup.left.map((company) => company.ErpId), [sharedErpId(sandbox.apiKeyWithoutDelete)]);
        assert.ok(cleanup.left.every((company) => company.key === 'apiKeyWithoutDelete' && /every run registers again/.test(company.reason ?? '')));
        assert.match(readFileSync(join(reportDirs[index], 'index.html'), 'utf8'), /Data created and cleanup/);
      }
      // Between them, the three runs left one company: the shared one of the key without DeleteRegistration.
      let current = await state(sandbox);
      // The sandbox runs deletes in the background: bounded wait for the last ones.
      for (let attempt = 0; attempt < 50 && current.byApiKey[0].live > 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        current = await state(sandbox);
      }
      const { byApiKey, companies } = current;
      assert.equal(byApiKey[0].live, 0, `under the delete key: ${byApiKey[0].liveErpIds.join(', ')}`);
      assert.deepEqual(byApiKey[1].liveErpIds, [sharedErpId(sandbox.apiKeyWithoutDelete)]);
      assert.equal(companies.live, 1);
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
