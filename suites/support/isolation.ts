// The setting of the isolation checks (issue 28). A leak may show only where a single read of one
// company's data does not look: in the reads of a company that holds nothing itself, in one
// direction only, or in a list read once the document moved on. So both companies hold a sent
// document before anything is read, each reads the other's, and a third company that sent and
// received nothing reads both.
import type { Fixtures } from '../../fixtures/index.ts';
import type { Check } from '../../lib/checks.ts';
import type { ApiClient } from './client.ts';
import { registerCompany, type RegisteredCompany } from './companies.ts';
import { SETTLED_STATUSES } from '../../lib/document-statuses.ts';
import { currentStatusOf, pollStatus, sentDocument, type UploadedAndSent } from './outbound.ts';
import { brokenPrerequisite } from './prerequisites.ts';
import type { RunContext } from './run-context.ts';

export interface Holder {
  company: RegisteredCompany;
  sent: UploadedAndSent & { documentId: string };
}

export interface Reader {
  /** How the failure names the reader. */
  name: string;
  company: RegisteredCompany;
}

export interface IsolationSetting {
  holders: Holder[];
  third: RegisteredCompany;
}

/** Each of the two companies sends a PDF document; then a third company is registered that holds nothing. */
export async function isolationSetting(api: ApiClient, context: RunContext, fixtures: Fixtures, companies: readonly [RegisteredCompany, RegisteredCompany]): Promise<IsolationSetting> {
  // At once: no read is made before all three are done, so the order of the sends and the
  // registration changes nothing, and their background work runs side by side (issue 27).
  const [third, ...holders] = await Promise.all([
    registerCompany(api, context, fixtures.company('SE')),
    ...companies.map(async (company): Promise<Holder> => ({ company, sent: await sentDocument(api, fixtures, company.token, 'PDF') })),
  ]);
  return { holders, third };
}

/** Every company of the setting but the holder: the other holder, and the third company. */
export function readersOf(setting: IsolationSetting, holder: Holder): Reader[] {
  const other = setting.holders.find((item) => item !== holder) as Holder;
  return [
    { name: `company ${other.company.companyId}, which holds a document of its own`, company: other.company },
    { name: `a third company ${setting.third.companyId} that sent and received nothing`, company: setting.third },
  ];
}

/** Pairs of (holder, reader): each holder's document read by every other company. */
export function crossReads(setting: IsolationSetting): Array<{ holder: Holder; reader: Reader }> {
  return setting.holders.flatMap((holder) => readersOf(setting, holder).map((reader) => ({ holder, reader })));
}

/**
 * Waits (bounded by the async timeout) until each holder's document has gone as far as sending
 * goes (Sent, or a final status), the last moment a target that shows documents elsewhere only
 * once they move on would start to: lists are read again after it. Both are followed at once, so
 * neither holds the other back; and once no document was seen to get that far in the run (the
 * outbound-final prerequisite), leaving Pending is enough, so a stuck target is not waited for in
 * every isolation test.
 */
export async function documentsMovedOn(api: ApiClient, context: RunContext, setting: IsolationSetting): Promise<void> {
  const far = brokenPrerequisite('outbound-final') === undefined ? SETTLED_STATUSES : undefined;
  await Promise.all(setting.holders.map((holder) => pollStatus(api, context, holder.company.token, holder.sent.documentId, (data) => {
    const status = currentStatusOf(data);
    return status !== undefined && (far === undefined ? status !== 'Pending' : far.includes(status));
  })));
}

/** The check, with the reader named in what it expected, so a failure says whose read leaked. */
export function asReadBy(check: Check, reader: Reader): Check {
  return (response) => {
    const outcome = check(response);
    return { ...outcome, expected: `${outcome.expected} (read by ${reader.name})` };
  };
}
