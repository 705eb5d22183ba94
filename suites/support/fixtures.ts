// The suites' `test`: Playwright's, extended with the fixtures every suite uses.
//   target            (worker) the run context: base URL, keys, async timeout, casing mode
//   fixtures          (worker) seeded data generators; ids start with this run's prefix
//   http              (worker) the HTTP transport: kept connections, the run's proxy and TLS settings
//   api               (test)   the client; its exchange log is attached to the test as dxs-log
//   transportGuard    (test, auto) a retry runs only after an attempt that failed on the deployment's transport (transport.ts)
//   registeredCompany (worker) a company registered, Status Registered, with a client token
//   otherCompany      (worker) a second one, for the checks that one company cannot see another
// A company is registered once per worker and the outcome kept (registeredCompanyOutcome): when
// registration is broken, each test that asks for the company ends at once as blocked
// (prerequisites.ts), so the fixture as a test sees it is test-scoped over the worker's outcome.
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test as base } from '@playwright/test';
import { createFixtures, type Fixtures } from '../../fixtures/index.ts';
import { secrets } from '../../lib/redact.ts';
import { usePrecompiledValidators } from '../../schemas/index.ts';
import { ApiClient } from './client.ts';
import type { RegisteredCompany } from './companies.ts';
import { LOG_ATTACHMENT, newLog, setCurrentLog } from './log.ts';
import { recordTestStarted, settle, unwrap, type Outcome } from './prerequisites.ts';
import { runContext, type RunContext } from './run-context.ts';
import { configuredIdentifierTypes } from './companies-more.ts';
import { HttpTransport } from './http.ts';
import { HeadStart, type CompanyRole } from './head-start.ts';
import { PreparedSetup } from './prepared.ts';
import { mayRunAgain, noteAttempt, NOT_RUN_AGAIN } from './transport.ts';
import { recordWorkerStarted, writeWorkerTiming } from './timing.ts';
import { REPRODUCE_ATTACHMENT, scriptStem, writeReproduction, writeSetupTraffic } from './replay.ts';

const suitesRoot = new URL('../', import.meta.url).pathname;

interface TestFixtures {
  /**
   * Playwright's browser-context options, which it merges for every test from 27 option fixtures
   * (viewport, locale, geolocation...), each set up and torn down as a step whose stack Playwright
   * captures and source-maps: 58 stacks a test, a fifth of a worker's CPU (issue 42). No suite opens
   * a browser context, so the merge is left out.
   */
  _combinedContextOptions: Record<string, never>;
  transportGuard: void;
  api: ApiClient;
  registeredCompany: RegisteredCompany;
  otherCompany: RegisteredCompany;
}

interface WorkerFixtures {
  target: RunContext;
  fixtures: Fixtures;
  /** One per worker, shared by its tests and its setup: a test's calls reuse the worker's connections. */
  http: HttpTransport;
  /** A client for worker-scoped setup: no test steps, its log is not attached to any test. */
  setupApi: ApiClient;
  /** What the run made for this worker's slot while it started (run-setup.ts); undefined for a slot beyond the plan. */
  prepared: PreparedSetup | undefined;
  /** The worker's companies, their register calls sent when the worker starts (head-start.ts). */
  headStart: HeadStart;
  registeredCompanyOutcome: Outcome<RegisteredCompany>;
  otherCompanyOutcome: Outcome<RegisteredCompany>;
  /** Writes where the worker's time went when it stops (timing.ts). */
  workerTiming: void;
  /** The schemas' precompiled validators, when built (schemas/index.ts): no ajv in the worker. */
  validators: void;
}

/** A worker fixture's company: made by the run for this worker, or registered (from its early register call, if any) and Registered; or why not. */
export function registerRole(headStart: HeadStart, setupApi: ApiClient, role: CompanyRole): Promise<Outcome<RegisteredCompany>> {
  return settle(() => headStart.company(role, setupApi));
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  _combinedContextOptions: [{}, { box: true }],

  transportGuard: [
    async ({ target }, use, testInfo) => {
      // Playwright allows every failed test a retry; only one that failed on the transport alone takes it.
      if (!mayRunAgain(target, testInfo)) {
        throw new Error(`${NOT_RUN_AGAIN} its attempt before failed on its own, not on the deployment's transport; that attempt's failure is its verdict`);
      }
      await use();
      noteAttempt(target, testInfo);
    },
    { auto: true, box: true },
  ],

  target: [
    async ({}, use) => {
      const context = runContext();
      // Tokens this worker receives must be redacted by the reporter too, which runs in another process.
      if (context.secretsFile !== undefined) {
        const file = context.secretsFile;
        secrets.onAdd((secret) => appendFileSync(file, `${secret}\n`, { mode: 0o600 }));
      }
      await use(context);
    },
    { scope: 'worker', auto: true },
  ],

  fixtures: [
    async ({ target }, use, workerInfo) => {
      // One stream of data per worker: the same seed gives the same run, workers never collide.
      await use(createFixtures({ seed: target.seed * 1000 + workerInfo.workerIndex, runPrefix: `${target.runPrefix}-w${workerInfo.workerIndex}`, identifierTypes: configuredIdentifierTypes() }));
    },
    { scope: 'worker' },
  ],

  http: [
    async ({ target }, use) => {
      const http = new HttpTransport(target.connection);
      await use(http);
      await http.close();
    },
    { scope: 'worker' },
  ],

  setupApi: [
    async ({ http, target }, use, workerInfo) => {
      const log = newLog();
      await use(new ApiClient(http, target, log, { steps: false }));
      // Only `dxs test` (which alone hands out a secrets file) adds these calls to traffic.har.
      if (target.secretsFile !== undefined) writeSetupTraffic(target, workerInfo.workerIndex, log);
    },
    { scope: 'worker' },
  ],

  workerTiming: [
    async ({ target }, use, workerInfo) => {
      recordWorkerStarted();
      await use();
      // Only `dxs test` (which alone hands out a secrets file) collects the figures and removes their folder.
      if (target.secretsFile !== undefined) writeWorkerTiming(target, workerInfo.workerIndex);
    },
    { scope: 'worker', auto: true },
  ],

  // By the worker's slot: a worker Playwright starts to replace one that ended on a failed test takes
  // over its items, as the same worker going on would (issue 58: a target failing many tests no longer
  // has every replacement register its companies and make its access settings again).
  prepared: [async ({ target }, use, workerInfo) => use(PreparedSetup.of(target, workerInfo.parallelIndex, workerInfo.workerIndex !== workerInfo.parallelIndex)), { scope: 'worker' }],

  headStart: [
    async ({ setupApi, target, fixtures, prepared }, use, workerInfo) => {
      const headStart = new HeadStart({ fixtures, target, stream: `w${workerInfo.workerIndex}`, prepared });
      headStart.start(setupApi);
      await use(headStart);
      await headStart.settled();
    },
    { scope: 'worker', auto: true },
  ],

  validators: [
    async ({}, use) => {
      await usePrecompiledValidators();
      await use();
    },
    // After the head start: its register calls are out while the validators load.
    { scope: 'worker', auto: true },
  ],

  registeredCompanyOutcome: [
    async ({ setupApi, headStart }, use) => {
      await use(await registerRole(headStart, setupApi, 'registeredCompany'));
    },
    { scope: 'worker' },
  ],

  otherCompanyOutcome: [
    async ({ setupApi, headStart }, use) => {
      await use(await registerRole(headStart, setupApi, 'otherCompany'));
    },
    { scope: 'worker' },
  ],

  registeredCompany: async ({ registeredCompanyOutcome }, use) => use(unwrap(registeredCompanyOutcome)),
  otherCompany: async ({ otherCompanyOutcome }, use) => use(unwrap(otherCompanyOutcome)),

  api: async ({ http, target }, use, testInfo) => {
    recordTestStarted(testInfo);
    const log = newLog();
    setCurrentLog(log);
    try {
      await use(new ApiClient(http, target, log));
    } finally {
      setCurrentLog(undefined);
      // A failed or warning test gets a script of curl commands that makes its calls again (issue 43).
      const failed = testInfo.status === 'failed' || testInfo.status === 'timedOut';
      const warned = testInfo.status === 'passed' && (log.checks.some((check) => check.verdict === 'warning') || testInfo.annotations.some((annotation) => annotation.type === 'warning'));
      if ((failed || warned) && log.exchanges.length > 0) {
        try {
          const reproduction = writeReproduction(target, log, { title: testInfo.titlePath.slice(1).join(' › '), stem: scriptStem(relative(suitesRoot, testInfo.file), testInfo.titlePath.slice(1), testInfo.testId) });
          if (reproduction !== undefined) await testInfo.attach(REPRODUCE_ATTACHMENT, { body: JSON.stringify(reproduction), contentType: 'application/json' });
        } catch (error) {
          // A script that cannot be written must not change the test's verdict: the report says so.
          await testInfo.attach(REPRODUCE_ATTACHMENT, { body: JSON.stringify({ error: secrets.redactText(String((error as Error).message)) }), contentType: 'application/json' });
        }
      }
      if (log.exchanges.length > 0 || log.checks.length > 0) {
        // Redacted once more: a token first seen in a later answer may sit in an earlier record.
        await testInfo.attach(LOG_ATTACHMENT, { body: secrets.redactText(JSON.stringify(log, null, 1)), contentType: 'application/json' });
      }
    }
  },
});

export { expect } from '@playwright/test';
