// The run's setup (issue 42): the companies of the first workers' fixtures and their access
// settings, made by `dxs test` itself while Playwright loads the suites and starts its workers.
// On two cores sixteen workers take about 16 s to start, and each then spent 8 to 12 s in
// registration chains (a background step of a second each, on a slow staging) before its tests
// could run; made during the start, a worker mostly finds them done (prepared.ts).
//
// Each item is made by the code the worker's fixture runs, inside settle(), so its outcome (a
// value, a broken prerequisite recorded for the run, or the error it threw) is what the fixture
// would have had; the fixture judges it as before. Each worker's items are drawn from streams of
// their own (run prefix `<prefix>-s<worker>`), apart from the worker's own, so nothing collides.
// A worker Playwright starts to replace one (after a failed test) takes over its slot's items (issue 58).
import { appendFileSync } from 'node:fs';
import { createFixtures, deriveSeed, type Fixtures } from '../../fixtures/index.ts';
import { atMostAtOnce } from '../../lib/concurrency.ts';
import { secrets } from '../../lib/redact.ts';
import { AccessWork } from './access.ts';
import { ApiClient } from './client.ts';
import { configuredIdentifierTypes } from './companies-more.ts';
import { HeadStart, type RoleContext } from './head-start.ts';
import { HttpTransport } from './http.ts';
import { newLog } from './log.ts';
import { writeStoredOutcome, type StoredOutcome } from './prepared.ts';
import { settle, type Outcome } from './prerequisites.ts';
import { exportSetupCalls, writeSetupTraffic } from './replay.ts';
import { useRunContext, type RunContext, type RunSetupPlan } from './run-context.ts';
import { ACCESS_INBOX_ITEM, ACCESS_ITEM, ACCESS_ITEMS, FOREIGN_ITEM, type CompanyRole, type RunSetupSummary } from './setup-items.ts';
import { writeSetupTiming } from './timing.ts';

/** A worker's items from streams of their own: made side by side, one item's draws must not shift another's. */
function streamFixtures(context: RunContext, workerIndex: number, label: string, streamIndex: number): Fixtures {
  return createFixtures({ seed: deriveSeed(context.seed, `setup:w${workerIndex}:${label}`), runPrefix: `${context.runPrefix}-s${workerIndex}${streamIndex === 0 ? '' : `i${streamIndex}`}`, identifierTypes: configuredIdentifierTypes() });
}

/**
 * How each of a worker's items is made: a role's company as its fixture makes it; the access
 * settings by one AccessWork, as a worker's would be, with the foreign setting asked for first (its
 * inbound document and the inbox's then come in one wait, as when a foreign test runs first).
 */
function workerItems(api: ApiClient, context: RunContext, plan: RunSetupPlan, workerIndex: number): Map<string, Promise<Outcome<unknown>>> {
  const items = new Map<string, Promise<Outcome<unknown>>>();
  const roles = plan.items.filter((item) => !ACCESS_ITEMS.includes(item)) as CompanyRole[];
  roles.forEach((role, index) => {
    const roleContext: RoleContext = { fixtures: streamFixtures(context, workerIndex, role, index), target: context, stream: `s${workerIndex}` };
    // As the worker's head start would: the register call sent at once, judged by the making.
    const headStart = new HeadStart(roleContext);
    headStart.startRole(role, api);
    items.set(role, settle(() => headStart.company(role, api)));
  });
  if (plan.items.some((item) => ACCESS_ITEMS.includes(item))) {
    const work = new AccessWork(api, context, streamFixtures(context, workerIndex, ACCESS_ITEM, roles.length), undefined);
    items.set(FOREIGN_ITEM, work.foreignOutcome());
    items.set(ACCESS_ITEM, work.accessOutcome());
    items.set(ACCESS_INBOX_ITEM, work.accessInboxOutcome());
  }
  return items;
}

/**
 * Makes every item of the plan, all at once, and writes each outcome for its worker as soon as it
 * is known. Every wait inside is bounded by the async timeout, so this ends; `dxs test` awaits it
 * before its cleanup, which then deletes what it registered (journal.ts saw every call).
 */
export async function runSetup(context: RunContext, plan: RunSetupPlan, runStartedAt: number): Promise<RunSetupSummary> {
  const startMs = Date.now() - runStartedAt;
  // The suites' code reads the run's context (prerequisites.ts: the file of broken prerequisites).
  useRunContext(context);
  const received: string[] = [];
  let collecting = true;
  secrets.onAdd((secret) => {
    if (!collecting) return;
    received.push(secret);
    // The reporter, in Playwright's process, redacts with what the workers and this setup saw.
    if (context.secretsFile !== undefined) appendFileSync(context.secretsFile, `${secret}\n`, { mode: 0o600 });
  });
  const http = new HttpTransport(context.connection);
  // As many calls at once as the run has workers: the load the target was measured to take, and
  // what the workers' own fixtures sent it when each made its own (behind a gateway, no burst
  // before the run's pace has learnt its rate).
  const atOnce = atMostAtOnce(plan.workers);
  // A client (and a log) per worker: each worker is handed the calls made for it, for its reproduce scripts.
  const logs = Array.from({ length: plan.workers }, () => newLog());
  let made = 0;
  try {
    const work: Array<Promise<void>> = [];
    for (let workerIndex = 0; workerIndex < plan.workers; workerIndex++) {
      const log = logs[workerIndex];
      const api = new ApiClient(http, context, log, { steps: false, atOnce });
      for (const [item, making] of workerItems(api, context, plan, workerIndex)) {
        work.push(
          (async () => {
            let stored: StoredOutcome<unknown>;
            try {
              const outcome = await making;
              stored = { ...outcome, secrets: [...received], replay: exportSetupCalls(log) };
              if ('value' in outcome) made++;
            } catch (error) {
              stored = { error: secrets.redactText(String((error as Error).message ?? error)), secrets: [...received], replay: exportSetupCalls(log) };
            }
            writeStoredOutcome(plan, workerIndex, item, stored);
          })(),
        );
      }
    }
    await Promise.all(work);
  } finally {
    collecting = false;
    await http.close();
    writeSetupTraffic(context, 'run', { exchanges: logs.flatMap((log) => log.exchanges), checks: [] });
    writeSetupTiming(context);
  }
  return { workers: plan.workers, items: plan.workers * plan.items.length, made, startMs, endMs: Date.now() - runStartedAt };
}
