// What the run's setup (run-setup.ts) made for one worker, as the worker reads it: an item's
// outcome, written by `dxs test` to a file of its own once made. The outcome is what the worker's
// fixture would have had making the item itself (a value, a broken prerequisite, or the error it
// threw), so the fixture goes on exactly as before: only when the calls were made has moved.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secrets } from '../../lib/redact.ts';
import { SetupFailed } from './companies.ts';
import { importSetupCalls, type StoredReplay } from './replay.ts';
import type { Outcome, RootCause } from './prerequisites.ts';
import type { RunContext, RunSetupPlan } from './run-context.ts';

/**
 * An item's outcome as stored: with the secrets its calls received, which the worker redacts too,
 * and the set-up calls made for the worker so far, for its reproduce scripts (replay.ts).
 */
export type StoredOutcome<T> = ({ value: T } | { cause: RootCause } | { error: string }) & { secrets: string[]; replay?: StoredReplay };

function itemFile(plan: RunSetupPlan, workerIndex: number, item: string): string {
  return join(plan.folder, `w${workerIndex}-${item}.json`);
}

/** Written whole under another name first, then renamed: a worker never reads half a file. */
export function writeStoredOutcome<T>(plan: RunSetupPlan, workerIndex: number, item: string, stored: StoredOutcome<T>): void {
  mkdirSync(plan.folder, { recursive: true, mode: 0o700 });
  const file = itemFile(plan, workerIndex, item);
  writeFileSync(`${file}.part`, JSON.stringify(stored), { mode: 0o600 });
  renameSync(`${file}.part`, file);
}

/**
 * How long a worker waits for an item the run is still making: every wait of its making is bounded
 * by the async timeout, and an item chains a few (registration, activation, a token's expiry).
 */
export function preparedWaitMs(target: RunContext): number {
  return target.asyncTimeoutSeconds * 1000 * 4 + 60_000;
}

export class PreparedSetup {
  private readonly plan: RunSetupPlan;
  private readonly workerIndex: number;
  private readonly waitMs: number;
  /** A worker Playwright started to replace one of this slot (a test run again goes to a new worker). */
  private readonly replacement: boolean;

  constructor(plan: RunSetupPlan, workerIndex: number, waitMs: number, replacement = false) {
    this.plan = plan;
    this.workerIndex = workerIndex;
    this.waitMs = waitMs;
    this.replacement = replacement;
  }

  /**
   * What the run's setup made for a worker slot (Playwright's parallelIndex), if anything: a worker
   * started to replace one takes over its items, as the same worker going on would.
   */
  static of(target: RunContext, workerIndex: number, replacement = false): PreparedSetup | undefined {
    const plan = target.setup;
    return plan === undefined || workerIndex >= plan.workers ? undefined : new PreparedSetup(plan, workerIndex, preparedWaitMs(target), replacement);
  }

  has(item: string): boolean {
    return this.plan.items.includes(item);
  }

  /**
   * The item's outcome, once the run has made it, or `make`'s when the run makes none for this
   * worker. An error the making threw is thrown here, where the fixture would have thrown it. A
   * replacement worker makes its own where the run's setup met the deployment's transport: its
   * tests run again (transport.ts) to try anew, not to read the same lost call back (issue 57).
   */
  async outcome<T>(item: string, make: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    if (!this.has(item)) return make();
    const stored = await this.read<T>(item);
    return this.replacement && 'cause' in stored && stored.cause.prerequisite === 'transport' ? make() : stored;
  }

  private async read<T>(item: string): Promise<Outcome<T>> {
    const file = itemFile(this.plan, this.workerIndex, item);
    const deadline = Date.now() + this.waitMs;
    let pause = 10;
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new SetupFailed(`the run's setup never made ${item} for worker ${this.workerIndex} (waited ${Math.round(this.waitMs / 1000)} s)`);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 200);
    }
    const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredOutcome<T>;
    for (const secret of stored.secrets) secrets.add(secret);
    importSetupCalls(stored.replay);
    if ('error' in stored) throw new SetupFailed(stored.error);
    return 'cause' in stored ? { cause: stored.cause } : { value: stored.value };
  }
}
