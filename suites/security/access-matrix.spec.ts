// The access matrix (issue 40): every operation of the spec, each with a valid body of the
// fixtures so that a refusal is the credential's, tried with every credential form of
// schemas/access-matrix.ts. One test per operation, one step per cell; every cell is judged
// (soft), so one accepted door does not hide the others.
import { ACCESS_OPERATIONS, cellExpectation, CREDENTIAL_FORMS, CREDENTIAL_FORM_TITLES, NO_SERVER_ERROR_REQUIREMENT, OTHER_INTEGRATOR_OPERATIONS, requirementsOf, type AccessOperation, type CredentialForm } from '../../schemas/access-matrix.ts';
import { fixtureFile, iconRequestBody } from '../../fixtures/index.ts';
import { CLIENT_TOKEN_HEADER } from '../../lib/defaults.ts';
import { checks, expectCheck, observe, step, tags, test, type ApiClient, type ApiResponse, type Auth, type CallOptions, type RunContext } from '../support/index.ts';
import { fact } from '../support/outbound.ts';
import type { AccessInbox, AccessSetting } from '../support/access.ts';
import { nearMisses } from '../../lib/near-miss.ts';
import { companiesOfRun, createClientToken, neverRefusedFinding, type RefusedKind } from '../support/companies.ts';
import { runFinding } from '../support/run-findings.ts';
import type { Integrators } from '../support/integrators.ts';
import { sharedCompany } from '../support/shared-company.ts';
import type { Check } from '../../lib/checks.ts';
import { unwrap } from '../support/prerequisites.ts';
import type { Fixtures } from '../../fixtures/index.ts';
import { accessCellAnnotation, type AccessCell } from '../../report/access-cells.ts';
import { forEachAtOnce } from '../../lib/concurrency.ts';

const { isRejected, notServerError, statusIs } = checks;
const WRONG_API_KEY = 'dxs-access-wrong-api-key-0000000000';
const RANDOM_TOKEN = 'dxs-access-random-client-token-0000000000';
const PROVIDER_A = '/companies/deliverymethods/b2c/providera';
/** Enough to hide a slow target's round trips, few enough that a row is no burst at a gateway (the run's pace meters each call too). */
const CELLS_AT_ONCE = 4;


interface Call {
  method: string;
  path: string;
  options: CallOptions;
}

/** A valid call of each operation, so that a refusal is the credential's and not the body's. */
function validCall(operation: AccessOperation, setting: AccessSetting, fixtures: Fixtures, inbox: AccessInbox | undefined): Call {
  const [method, template] = operation.endpoint.split(' ') as [string, string];
  const { company } = setting;
  const json = (body: unknown): CallOptions => ({ json: body });
  const inboundId = encodeURIComponent(inbox?.documentId ?? '');
  const bodies: Record<string, () => Call> = {
    'POST /clienttokens/create': () => ({ method, path: template, options: json({ ErpId: company.erpId }) }),
    'POST /clienttokens/revoke': () => ({ method, path: template, options: json({ ClientToken: setting.spare }) }),
    'POST /clienttokens/createsearchtoken': () => ({ method, path: template, options: json({ SearchId: fixtures.searchId() }) }),
    // A new company: an accepted cell registers it (journaled, deleted at the end), never changes the setting's.
    'POST /companies/register': () => ({ method, path: template, options: json(fixtures.company('SE')) }),
    'POST /companies/details': () => ({ method, path: template, options: json(fixtures.companyDetails(company.input)) }),
    'POST /companies/services': () => ({ method, path: template, options: json(fixtures.servicesActivation(company.input, { registrationId: company.companyId })) }),
    'GET /companies/status': () => ({ method, path: template, options: {} }),
    'GET /companies/details/{CompanyId}': () => ({ method, path: `/companies/details/${encodeURIComponent(company.companyId)}`, options: {} }),
    'POST /companies/users': () => ({ method, path: template, options: json(fixtures.user()) }),
    'POST /companies/identifiers': () => ({ method, path: template, options: json(fixtures.identifier()) }),
    // The Id of no registration: a cell the target accepts deletes nothing.
    'POST /companies/delete': () => ({ method, path: template, options: json({ Id: `${company.erpId}-access-none` }) }),
    'POST /buyerparties/lookup': () => ({ method, path: template, options: json(fixtures.buyerLookup(company.input)) }),
    'POST /sellerparties/lookup': () => ({ method, path: template, options: json(fixtures.sellerLookup(company.input)) }),
    'POST /network/setup': () => ({ method, path: template, options: json(fixtures.networkSetupRequest('SE')) }),
    'POST /documents': () => ({ method, path: template, options: { multipart: { File: { name: 'invoice.xml', mimeType: fixtureFile('invoice.xml').contentType, buffer: fixtureFile('invoice.xml').bytes } } } }),
    'POST /documents/outbound': () => ({ method, path: template, options: json(fixtures.sendDocument('PDF', { documentUri: setting.documentUri, documentFormat: fixtureFile('invoice.xml').documentFormat })) }),
    'GET /invoices/outbound/{DocumentId}': () => ({ method, path: `/invoices/outbound/${setting.documentId}`, options: {} }),
    'GET /documents/outbound/{DocumentId}': () => ({ method, path: `/documents/outbound/${setting.documentId}`, options: {} }),
    'GET /invoices/outbound/byerpid/{DocumentId}': () => ({ method, path: `/invoices/outbound/byerpid/${encodeURIComponent(setting.erpDocumentId)}`, options: {} }),
    'GET /documents/outbound/download/{DocumentId}': () => ({ method, path: `/documents/outbound/download/${setting.documentId}`, options: {} }),
    'POST /documents/outbound/list': () => ({ method, path: template, options: json({ Take: 10 }) }),
    'GET /documents/incoming': () => ({ method, path: template, options: { query: { type: 'invoice' } } }),
    'GET /documents/{id}': () => ({ method, path: `/documents/${inboundId}`, options: {} }),
    'GET /documents/{id}/info': () => ({ method, path: `/documents/${inboundId}/info`, options: {} }),
    'POST /documents/handled': () => ({ method, path: template, options: json({ documents: [inbox?.documentId ?? ''] }) }),
    [`POST ${PROVIDER_A}`]: () => ({ method, path: template, options: json(fixtures.providerARegistration(company.input)) }),
    [`GET ${PROVIDER_A}`]: () => ({ method, path: template, options: {} }),
    [`PATCH ${PROVIDER_A}`]: () => ({ method, path: template, options: json(fixtures.providerAUpdate(company.input)) }),
    [`POST ${PROVIDER_A}/icon`]: () => ({ method, path: template, options: json(iconRequestBody('256')) }),
    [`POST ${PROVIDER_A}/offboard`]: () => ({ method, path: template, options: {} }),
    [`POST ${PROVIDER_A}/lookup`]: () => ({ method, path: template, options: json({ Ssns: fixtures.ssns(2) }) }),
  };
  const make = bodies[operation.endpoint];
  if (make === undefined) throw new Error(`the access matrix has no valid call of ${operation.endpoint}`);
  return make();
}

interface Credential {
  auth: Auth;
  headers?: Record<string, string>;
  /** Where a cell sends several values of its form (the near misses), what this one is. */
  label?: string;
}

/**
 * A token of the column still accepted after the async timeout is a finding of the run (issue 58),
 * said once: on company status, the call the wait made, the cell is judged (its call is the
 * evidence); the other rows say not tried, with the finding, instead of failing again on it (and
 * costing a new worker process for each failed row).
 */
function neverRefused(kind: RefusedKind, operation: AccessOperation): string | undefined {
  if (operation.endpoint === 'GET /companies/status') return undefined;
  const finding = runFinding(neverRefusedFinding(kind));
  return finding === undefined ? undefined : `${finding.message}: judged once, on GET /companies/status`;
}

/** The headers of a cell (several calls for the near misses); a string says why the form could not be sent. */
function credentialOf(form: CredentialForm, operation: AccessOperation, setting: AccessSetting, token: string, target: RunContext): Credential | Credential[] | string {
  const made = (value: string | { missing: string }): { auth: Auth } | string => (typeof value === 'string' ? { auth: { clientToken: value } } : value.missing);
  switch (form) {
    case 'none': return { auth: 'none' };
    // The empty header is the one the operation's scheme names (the ClientToken where none is named).
    case 'empty-header': return { auth: operation.scheme === 'APIkey' ? { apiKey: '' } : { clientToken: '' } };
    case 'wrong-api-key': return { auth: { apiKey: WRONG_API_KEY } };
    case 'api-key-alone': return { auth: 'apiKey' };
    case 'client-token-alone': return { auth: { clientToken: token } };
    case 'random-token': return { auth: { clientToken: RANDOM_TOKEN } };
    // A target that compares by a prefix takes these (issue 58): each is the real one but for its end.
    case 'near-miss-token': return nearMisses(token).map(({ value, label }) => ({ auth: { clientToken: value }, label }));
    case 'near-miss-key': return nearMisses(target.apiKey).map(({ value, label }) => ({ auth: { apiKey: value }, label }));
    case 'revoked-token': return neverRefused('revoked', operation) ?? made(setting.revoked);
    case 'expired-token': return neverRefused('expired', operation) ?? made(setting.expired);
    case 'search-token': return made(setting.search);
    case 'key-without-delete': return target.apiKeyWithoutDelete === undefined ? 'no API key without the DeleteRegistration role configured (--api-key-without-delete)' : { auth: 'apiKeyWithoutDelete' };
    // Judged by otherIntegratorCell, never sent as a plain credential.
    case 'other-integrator-key': return 'another integrator\'s cells are their own';
    // The run's key as the auth, the token as an extra header: a company an accepted register cell makes is then
    // journaled under that key (the journal reads the auth, not extra headers) and deleted at the end.
    case 'both-headers': return { auth: 'apiKey', headers: { [CLIENT_TOKEN_HEADER]: token } };
  }
}

interface RowFixtures {
  api: ApiClient;
  target: RunContext;
  fixtures: Fixtures;
  access: AccessSetting;
  integrators?: Integrators;
}

type CellRecorder = (rest: Omit<AccessCell, 'endpoint' | 'form' | 'requirement'>) => void;

/**
 * Another integrator's key on an ErpId only the run's key registered (issue 58): a token of it acts
 * for none of the first key's companies, the second key's register of an ErpId the first key holds
 * leaves the first key's company its details, and its delete leaves the first key's company in
 * place. Judged where the target keeps the two keys apart, observed where it makes them one
 * integrator (its delete is then not sent: it would delete the first key's company), not tried with one key.
 */
async function otherIntegratorCell(operation: AccessOperation, { api, target, access }: RowFixtures, integrators: Integrators, cell: CellRecorder): Promise<void> {
  const title = CREDENTIAL_FORM_TITLES['other-integrator-key'];
  if (typeof integrators.apart === 'string') {
    await observe('ACC-21', `${operation.endpoint} with ${title}: not tried, ${integrators.apart}`);
    cell({ outcome: 'not tried', note: integrators.apart });
    return;
  }
  const apart = integrators.apart;
  const judge = async (response: ApiResponse, check: Check, what: string): Promise<void> => {
    const records = [...(await expectCheck(response, [notServerError], { requirement: NO_SERVER_ERROR_REQUIREMENT, soft: true }))];
    if (apart) records.push(...(await expectCheck(response, [check], { requirement: 'ACC-21', soft: true })));
    else await observe('ACC-21', `${what}; not judged: ${integrators.reason}`, response);
    const failed = records.some((record) => record.verdict === 'failed');
    cell({ outcome: failed ? 'failed' : apart ? 'passed' : 'observed', status: response.status, note: apart ? 'two integrators: the first key\'s company is not the second key\'s' : 'one integrator' });
  };
  await step(title, async () => {
    if (operation.endpoint === 'POST /clienttokens/create') {
      const { response, token } = await createClientToken(api, access.company.erpId, {}, 'apiKeyWithoutDelete');
      if (token === undefined) {
        await judge(response, fact('no token of the first key\'s company', true, 'refused, or a token that acts for none of the first key\'s companies', `${response.status}, no token`), `the second key's token request for ErpId ${access.company.erpId} answered ${response.status}`);
        return;
      }
      const status = await api.get('/companies/status', { auth: { clientToken: token } });
      const firstKey = new Set([access.company.companyId, ...companiesOfRun().filter((company) => company.key === 'apiKey').map((company) => company.companyId)]);
      const companyId = status.status >= 200 && status.status < 300 ? String(status.data?.CompanyId ?? '') : '';
      await judge(status, fact('acts for none of the first key\'s companies', !firstKey.has(companyId), 'refused, or a token that acts for none of the first key\'s companies', `the second key's token for ErpId ${access.company.erpId}: company status answered ${status.status}${companyId === '' ? '' : ` naming CompanyId ${companyId}${firstKey.has(companyId) ? ', a company the first key registered' : ''}`}`), `the second key's token for ErpId ${access.company.erpId} read company status ${status.status}`);
      return;
    }
    if (operation.endpoint === 'POST /companies/register') {
      // The ErpId both keys registered: the second key's register is then an update of its own
      // registration, which every run makes again, never a company no key can delete.
      const erpId = integrators.erpId ?? '';
      const theirs = sharedCompany(target.apiKeyWithoutDelete as string);
      const { token } = await createClientToken(api, erpId);
      const before = token === undefined ? undefined : await api.get('/companies/status', { auth: { clientToken: token } });
      if (token === undefined || before?.status !== 200) {
        const why = `the first key's registration of ErpId ${erpId} answers no company status now (CMP-DEL-09 deletes it)`;
        await observe('ACC-21', `${operation.endpoint} with ${title}: not tried, ${why}`, before);
        cell({ outcome: 'not tried', note: why });
        return;
      }
      const register = await api.post('/companies/register', { auth: 'apiKeyWithoutDelete', json: theirs });
      await expectCheck(register, [notServerError], { requirement: NO_SERVER_ERROR_REQUIREMENT, soft: true });
      const after = await api.get('/companies/status', { auth: { clientToken: token } });
      // Only the second key's own details count as taken: the first key's registration may be updated meanwhile by another test of it.
      const name = (response: ApiResponse): unknown => (response.data?.Details as Record<string, unknown> | undefined)?.Name;
      const took = name(after) === theirs.Name && name(before) !== theirs.Name;
      await judge(after, fact('the first key\'s company keeps its details', after.status === 200 && !took, `the first key's company status still 200, without the Name the second key registered (${theirs.Name})`, `${after.status}${took ? `, Name ${JSON.stringify(name(after))}: the second key's register of ErpId ${erpId} changed the first key's company` : ''}`), `after the second key registered ErpId ${erpId} (${register.status}), the first key's company status answered ${after.status}`);
      return;
    }
    if (!apart) {
      const why = `not sent: ${integrators.reason}, so its delete would delete the first key's company`;
      await observe('ACC-21', `${operation.endpoint} with ${title}: ${why}`);
      cell({ outcome: 'not tried', note: why });
      return;
    }
    const deleted = await api.post('/companies/delete', { auth: 'apiKeyWithoutDelete', json: { Id: access.company.erpId } });
    await expectCheck(deleted, [notServerError], { requirement: NO_SERVER_ERROR_REQUIREMENT, soft: true });
    const after = await api.get('/companies/status', { auth: { clientToken: access.company.token } });
    await judge(after, fact('the first key\'s company stays', after.status === 200 && after.data?.Status === 'Registered', 'the first key\'s company status still 200 Registered', `the second key's delete of ErpId ${access.company.erpId} answered ${deleted.status}; the first key's company status then answered ${after.status}${after.status === 200 ? ` with Status ${JSON.stringify(after.data?.Status)}` : ''}`), `after the second key's delete of ErpId ${access.company.erpId} (${deleted.status})`);
  });
}

const INBOX_ROWS = new Set(['GET /documents/incoming', 'GET /documents/{id}', 'GET /documents/{id}/info', 'POST /documents/handled']);

/**
 * The rows whose effect a refused call must not have, where it can be seen afterwards (ACC-19): the
 * refused cells of the row all send one body, then the company makes the call or reads its result
 * with its own token. (A refused upload leaves nothing a caller can look for; mark handled is ACC-12's.)
 */
interface Effect {
  /** What the company's own call answered; effect: true when it shows the refused call's effect, undefined when it cannot tell. */
  seen: (api: ApiClient, token: string, call: Call) => Promise<{ response: ApiResponse; effect: boolean | undefined; what: string }>;
}

const EFFECTS: Record<string, Effect> = {
  // The same user again: "already taken" (409) says a refused call added it.
  'POST /companies/users': {
    seen: async (api, token, call) => {
      const response = await api.post('/companies/users', { auth: { clientToken: token }, json: call.options.json });
      return { response, effect: response.status === 409 ? true : response.status >= 200 && response.status < 300 ? false : undefined, what: 'the user the refused cells sent, added with the company\'s token' };
    },
  },
  // The ErpDocumentId the refused sends carried: found by byerpid, a refused send went through.
  'POST /documents/outbound': {
    seen: async (api, token, call) => {
      const erpDocumentId = (call.options.json as { Document: { ErpDocumentId: string } }).Document.ErpDocumentId;
      const response = await api.get(`/invoices/outbound/byerpid/${encodeURIComponent(erpDocumentId)}`, { auth: { clientToken: token } });
      return { response, effect: response.status >= 200 && response.status < 300 ? true : response.status >= 400 && response.status < 500 ? false : undefined, what: `GET /invoices/outbound/byerpid/{ErpDocumentId} of the send the refused cells sent` };
    },
  },
};

for (const operation of ACCESS_OPERATIONS) {
  const forms = CREDENTIAL_FORMS.filter((form) => cellExpectation(operation, form) !== undefined);
  const row = async ({ api, target, fixtures, access, integrators }: RowFixtures, inbox: AccessInbox | undefined): Promise<void> => {
    // The inbox rows act for the receiving company, with its token.
    const token = inbox?.company.token ?? access.company.token;
    const effect = EFFECTS[operation.endpoint];
    // One body for every cell expected to be refused, so that what it left can be looked for.
    const refusedCall = effect === undefined ? undefined : validCall(operation, access, fixtures, inbox);
    let refusedCalls = 0;
    let acceptedDespite = false;
    // The cells of a row are independent calls: a few at once keep a slow target's round trips off the
    // run's length (issue 42), each judged on its own answer.
    await forEachAtOnce(forms, CELLS_AT_ONCE, async (form) => {
      const expectation = cellExpectation(operation, form) as NonNullable<ReturnType<typeof cellExpectation>>;
      const credential = credentialOf(form, operation, access, token, target);
      const cell: CellRecorder = (rest) => {
        test.info().annotations.push(accessCellAnnotation({ endpoint: operation.endpoint, form, requirement: expectation.requirement, ...rest }));
      };
      if (form === 'other-integrator-key' && integrators !== undefined) {
        await otherIntegratorCell(operation, { api, target, fixtures, access }, integrators, cell);
        return;
      }
      if (typeof credential === 'string') {
        await observe(expectation.requirement, `${operation.endpoint} with ${CREDENTIAL_FORM_TITLES[form]}: not tried, ${credential}`);
        cell({ outcome: 'not tried', note: credential });
        return;
      }
      const call = refusedCall !== undefined && expectation.expect !== 'observe' ? refusedCall : validCall(operation, access, fixtures, inbox);
      await step(`${CREDENTIAL_FORM_TITLES[form]}`, async () => {
        let failed = false;
        let shown: number | undefined;
        const statuses: string[] = [];
        for (const sent of Array.isArray(credential) ? credential : [credential]) {
          const response = await api.call(call.method, call.path, { ...call.options, auth: sent.auth, headers: { ...call.options.headers, ...sent.headers } });
          if (call === refusedCall) {
            refusedCalls++;
            if (response.status < 400) acceptedDespite = true;
          }
          const title = `${CREDENTIAL_FORM_TITLES[form]}${sent.label === undefined ? '' : ` (${sent.label})`}`;
          const records = [...(await expectCheck(response, [notServerError], { requirement: NO_SERVER_ERROR_REQUIREMENT, soft: true }))];
          if (expectation.expect === 'observe') {
            await observe(expectation.requirement, `${operation.endpoint} with ${title} answered ${response.status}`, response);
          } else {
            records.push(...(await expectCheck(response, [expectation.expect === '401' ? statusIs(401) : isRejected], { requirement: expectation.requirement, soft: true })));
          }
          const thisFailed = records.some((record) => record.verdict === 'failed');
          // The cell shows the first call that failed, else the first answer.
          if (shown === undefined || (thisFailed && !failed)) shown = response.status;
          failed ||= thisFailed;
          statuses.push(sent.label === undefined ? String(response.status) : `${sent.label}: ${response.status}`);
        }
        const expected = expectation.expect === 'observe' ? undefined : expectation.expect === '401' ? 'expected 401' : 'expected a refusal (4xx)';
        const note = statuses.length > 1 ? [expected, statuses.join(', ')].filter((part) => part !== undefined).join('; ') : expected;
        cell({ outcome: failed ? 'failed' : expectation.expect === 'observe' ? 'observed' : 'passed', status: shown, note });
      });
    });
    if (effect !== undefined && refusedCall !== undefined && refusedCalls > 0) {
      await step('the refused calls left no effect', async () => {
        // A cell that was accepted failed already; what it did is then no refusal's effect.
        if (acceptedDespite) {
          await observe('ACC-19', `not judged: a cell expected to be refused was accepted, so the effect is that cell's`);
          return;
        }
        const seen = await effect.seen(api, token, refusedCall);
        if (seen.effect === undefined) {
          await observe('ACC-19', `${seen.what} answered ${seen.response.status}: whether a refused call left an effect cannot be told`, seen.response);
          return;
        }
        await expectCheck(seen.response, [fact('no effect of a refused call', !seen.effect, `${refusedCalls} refused calls of ${operation.endpoint} left nothing (${seen.what})`, `${seen.what} answered ${seen.response.status}${seen.effect ? ': a refused call had its effect' : ''}`)], { requirement: 'ACC-19', soft: true });
      });
    }
  };
  const title = `${operation.endpoint} is refused with every credential form that is no credential for it`;
  const details = { tag: tags('access', ...requirementsOf(operation), ...(operation.endpoint in EFFECTS ? ['ACC-19'] : [])) };
  // Only the inbox rows ask for the inbox: a worker that runs none of them never delivers its invoice (issue 42).
  if (INBOX_ROWS.has(operation.endpoint)) test(title, details, async ({ api, target, fixtures, accessInboxOutcome, access }) => row({ api, target, fixtures, access }, unwrap(accessInboxOutcome)));
  // Only the rows another integrator's key tries ask whether the run's keys are two integrators.
  else if (OTHER_INTEGRATOR_OPERATIONS.includes(operation.endpoint)) test(title, details, async ({ api, target, fixtures, access, integrators }) => row({ api, target, fixtures, access, integrators }, undefined));
  else test(title, details, async ({ api, target, fixtures, access }) => row({ api, target, fixtures, access }, undefined));
}
