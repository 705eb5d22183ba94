// The data a fuzz run starts from, made the way `dxs test` makes it (suites/support): a company
// registered and a client token created for it, a second ("scratch") company for the calls that
// change the company they are made for, and one document in the first company's inbox, sent
// electronically by the second, and one it sent itself, so the operations that take an id have
// something to find.
import type { Casing } from '../../../lib/casing.ts';
import type { Target } from '../../../lib/target.ts';
import { createFixtures } from '../../../fixtures/generators.ts';
import { newRunPrefix } from '../../../fixtures/run-prefix.ts';
import { ApiClient } from '../../../suites/support/client.ts';
import { SetupFailed, pollUntil, registerCompany } from '../../../suites/support/companies.ts';
import { newLog } from '../../../suites/support/log.ts';
import { uploadAndSend } from '../../../suites/support/outbound.ts';
import { entriesOf, listIncoming } from '../../../suites/support/inbound.ts';
import { runContext } from '../../../suites/support/run-context.ts';
import { HttpTransport } from '../../../suites/support/http.ts';

export interface FuzzData {
  clientToken: string;
  scratchClientToken: string;
  /** Ids of this run's own data, given to Schemathesis as examples so that every operation meets something that exists. */
  examples: {
    companyId: string;
    outboundDocumentId: string;
    erpDocumentId: string;
    inboundDocumentId: string;
    /** A search token made only to be revoked by the run. */
    revocableToken: string;
  };
  /** The casing the target answers in, read from its company status answer. */
  casing: Casing;
  /** The run prefix of the journal, and the ErpIds of the two companies, whose tokens Schemathesis sends. */
  runPrefix: string;
  erpIds: { company: string; scratch: string };
  /**
   * The longest the setup waited for background work (a registration, a delivery to the inbox):
   * how long this target takes to make a created resource appear, which bounds hooks.py's repeat
   * of a call that missed one (ST302) instead of the whole async timeout (issue 36).
   */
  backgroundMs: number;
}

/** What the setup creates is journaled in reportDir (created.jsonl), so that the run can delete it afterwards as dxs test does. */
export async function prepareFuzzData(target: Pick<Target, 'baseUrl' | 'apiKey' | 'connection'>, asyncTimeoutSeconds: number, reportDir: string): Promise<FuzzData> {
  const context = { ...runContext({ DXS_BASE_URL: target.baseUrl, DXS_API_KEY: target.apiKey, DXS_ASYNC_TIMEOUT: String(asyncTimeoutSeconds), DXS_REPORT_DIR: reportDir }), connection: target.connection };
  const runPrefix = newRunPrefix();
  const fixtures = createFixtures({ runPrefix });
  const http = new HttpTransport(target.connection);
  try {
    const api = new ApiClient(http, context, newLog(), { steps: false });
    const registering = performance.now();
    const company = await registerCompany(api, context, fixtures.company('SE'));
    const registrationMs = performance.now() - registering;
    const scratch = await registerCompany(api, context, fixtures.company('SE'));
    const delivering = performance.now();
    await uploadAndSend(api, fixtures, scratch.token, 'Electronic', { recipient: company, sender: scratch });
    const outbound = await uploadAndSend(api, fixtures, company.token, 'PDF', { sender: company });
    if (outbound.documentId === undefined || outbound.erpDocumentId === undefined) throw new SetupFailed(`cannot send a document from the fuzz company: answered ${outbound.response.status}`);
    const inboundDocumentId = await pollUntil(context, 'a document in the inbox of the fuzz company', async () => {
      // With the type the guide uses: whether the type query may be left out is open (only sequenceNo is called optional).
      const inbox = await listIncoming(api, company.token);
      return inbox.status === 200 ? entriesOf(inbox)[0]?.Id : undefined;
    });
    const deliveryMs = performance.now() - delivering;
    const search = await api.post('/clienttokens/createsearchtoken', { auth: 'apiKey', json: { SearchId: fixtures.searchId() } });
    const revocableToken: unknown = search.data?.Token;
    if (typeof revocableToken !== 'string') throw new SetupFailed(`cannot create a search token: answered ${search.status}`);
    const status = await api.get('/companies/status', { auth: { clientToken: company.token } });
    const casing: Casing = typeof status.json === 'object' && status.json !== null && 'Status' in status.json ? 'pascal' : 'camel';
    return {
      clientToken: company.token, scratchClientToken: scratch.token, casing, runPrefix: context.runPrefix, erpIds: { company: company.erpId, scratch: scratch.erpId },
      examples: { companyId: company.companyId, outboundDocumentId: outbound.documentId, erpDocumentId: outbound.erpDocumentId, inboundDocumentId, revocableToken },
      backgroundMs: Math.round(Math.max(registrationMs, deliveryMs)),
    };
  } finally {
    await http.close();
  }
}
