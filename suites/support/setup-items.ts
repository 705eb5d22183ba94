// What a run's selection needs of each worker before its tests (issue 42): the company roles of the
// worker fixtures (head-start.ts) and the access setting (access.ts). Apart from the code that makes
// them, so that `dxs test` plans the run's setup (run-setup.ts) before it loads any suite code.
import { rmSync } from 'node:fs';
import type { RunContext, RunSetupPlan } from './run-context.ts';

/** The areas whose tests use each role's company, in the order the roles are drawn. */
export const ROLE_AREAS = {
  registeredCompany: 'all',
  otherCompany: ['companies', 'outbound', 'provider-a', 'security', 'inbound', 'flows'],
  outboundRecipient: ['outbound', 'flows'],
  b2cSender: ['outbound', 'provider-a', 'flows'],
  recipientCompany: ['inbound', 'flows'],
  providerACompany: ['provider-a', 'flows'],
  swedishCompany: ['provider-a'],
} as const satisfies Record<string, readonly string[] | 'all'>;

export type CompanyRole = keyof typeof ROLE_AREAS;

/** The run's setup items of the access settings (access.ts), and the area whose tests use them. */
export const ACCESS_ITEM = 'access';
export const ACCESS_INBOX_ITEM = 'access-inbox';
export const FOREIGN_ITEM = 'foreign';
export const ACCESS_ITEMS: readonly string[] = [ACCESS_ITEM, ACCESS_INBOX_ITEM, FOREIGN_ITEM];
const ACCESS_AREA = 'access';

const selects = (target: RunContext, areas: readonly string[] | 'all'): boolean => areas === 'all' || target.areas.length === 0 || areas.some((area) => target.areas.includes(area));

/** The roles whose company the run's selection may use; a run narrowed by --grep uses none early (a handful of tests should not register companies they may not use). */
export function selectedRoles(target: RunContext): CompanyRole[] {
  if (target.grep !== undefined && target.grep !== '') return [];
  return (Object.entries(ROLE_AREAS) as Array<[CompanyRole, readonly string[] | 'all']>).filter(([, areas]) => selects(target, areas)).map(([role]) => role);
}

/** The items the run makes for each of its first `workers` workers: every role its selection may use, and the access settings when the access area runs. */
export function planRunSetup(context: RunContext, workers: number, folder: string): RunSetupPlan | undefined {
  const items: string[] = selectedRoles(context);
  if (items.length === 0 || workers < 1) return undefined;
  if (selects(context, [ACCESS_AREA])) items.push(...ACCESS_ITEMS);
  return { folder, workers, items };
}

/** The folder goes with the run: its files carry tokens. */
export function removeRunSetup(plan: RunSetupPlan | undefined): void {
  if (plan !== undefined) rmSync(plan.folder, { recursive: true, force: true });
}

export interface RunSetupSummary {
  workers: number;
  items: number;
  /** Items whose outcome was a value (the others, a broken prerequisite or an error, are judged by the workers' tests). */
  made: number;
  /** Milliseconds from the run's start. */
  startMs: number;
  endMs: number;
}

/** One line for the console. */
export function runSetupLine(summary: RunSetupSummary): string {
  const failed = summary.items - summary.made;
  return `the run's setup: ${summary.items} companies and settings for the first ${summary.workers} workers, made while they started (${((summary.startMs) / 1000).toFixed(1)} s to ${(summary.endMs / 1000).toFixed(1)} s)${failed === 0 ? '' : `; ${failed} not made: the tests that need them say why`}`;
}
