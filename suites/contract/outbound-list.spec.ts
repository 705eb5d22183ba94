// Contract of the outbound list: POST /documents/outbound/list. Its response schema, ordering,
// paging defaults and credential are not shown: those are recorded, and only what the spec
// names (Take, Skip, CreatedFrom, CreatedTo, UpdatedAfter accepted; a JSON answer) is asserted.
import { BACKGROUND_CHAIN_TAG, checks, expectCheck, observe, tags, type ApiClient, type ApiResponse, type Auth } from '../support/index.ts';
import { fact, sentDocument, shapeOf } from '../support/outbound.ts';
import { crossReads, documentsMovedOn, isolationSetting } from '../support/isolation.ts';
import { test } from '../support/index.ts';

const { isSuccess, isJson, isRejected, notServerError } = checks;
const LIST_PATH = '/documents/outbound/list';

/**
 * Lists with the company's client token (the guide's credential for company-level calls), and
 * with the APIkey when the token is refused: which scheme applies is not shown.
 */
async function list(api: ApiClient, token: string, body: unknown): Promise<ApiResponse> {
  const withToken = await api.post(LIST_PATH, { auth: { clientToken: token }, json: body });
  if (withToken.status !== 401 && withToken.status !== 403) return withToken;
  return api.post(LIST_PATH, { auth: 'apiKey', json: body });
}

/** Positions of the ids in the body text (-1 when absent): the response schema is not shown, so the ids are looked for as text. */
function positionsIn(response: ApiResponse, ids: string[]): number[] {
  const text = (response.text ?? '').toLowerCase();
  return ids.map((id) => text.indexOf(id.toLowerCase()));
}

test.describe('outbound list', () => {
  test('listing with Take and Skip answers a success status with a JSON body', { tag: tags('outbound', 'OUT-LIST-01') }, async ({ api, registeredCompany }) => {
    const response = await list(api, registeredCompany.token, { Take: 10, Skip: 0 });
    await expectCheck(response, [isSuccess, isJson], { requirement: 'OUT-LIST-01' });
  });

  test('listing with Take, Skip, CreatedFrom, CreatedTo and UpdatedAfter answers a success status', { tag: tags('outbound', 'OUT-LIST-02') }, async ({ api, registeredCompany }) => {
    const now = Date.now();
    const body = { Take: 5, Skip: 0, CreatedFrom: new Date(now - 86_400_000).toISOString(), CreatedTo: new Date(now + 3_600_000).toISOString(), UpdatedAfter: new Date(now - 86_400_000).toISOString() };
    const response = await list(api, registeredCompany.token, body);
    await expectCheck(response, [isSuccess, isJson], { requirement: 'OUT-LIST-02' });
  });

  test('the shape, order and paging defaults of the list are recorded', { tag: tags('outbound', 'OUT-LIST-03', 'OUT-LIST-08') }, async ({ api, fixtures, otherCompany }) => {
    // otherCompany sends little else, so its list is short and our two documents are on the first page.
    const since = new Date(Date.now() - 60_000).toISOString();
    const first = await sentDocument(api, fixtures, otherCompany.token, 'PDF');
    const second = await sentDocument(api, fixtures, otherCompany.token, 'PDF');
    const response = await list(api, otherCompany.token, { Take: 100, Skip: 0, CreatedFrom: since });
    await expectCheck(response, [isSuccess, isJson], { requirement: 'OUT-LIST-01' });
    await observe('OUT-LIST-03', `body shape ${JSON.stringify(shapeOf(response.data))}`, response);
    const [firstAt, secondAt] = positionsIn(response, [first.documentId, second.documentId]);
    const order = firstAt < 0 || secondAt < 0 ? `the two documents just sent were ${firstAt < 0 && secondAt < 0 ? 'both absent' : 'not both listed'}` : firstAt < secondAt ? 'oldest first' : 'newest first';
    await observe('OUT-LIST-03', `order of two documents sent one after the other: ${order}`, response);
    const defaults = await list(api, otherCompany.token, {});
    const entries = Array.isArray(defaults.data?.Documents) ? `${defaults.data.Documents.length} entries` : Array.isArray(defaults.data) ? `${defaults.data.length} entries` : 'an unrecognised shape';
    await observe('OUT-LIST-03', `an empty body answered ${defaults.status} with ${entries}`, defaults);
    const takeOne = await list(api, otherCompany.token, { Take: 1, Skip: 0, CreatedFrom: since });
    await observe('OUT-LIST-03', `Take 1 listed ${positionsIn(takeOne, [first.documentId, second.documentId]).filter((at) => at >= 0).length} of the two documents`, takeOne);
    await observe('OUT-LIST-08', 'not exercised: request fields beyond Take, Skip, CreatedFrom, CreatedTo and UpdatedAfter are not shown');
  });

  test('which credential the list takes is recorded', { tag: tags('outbound', 'OUT-LIST-04', 'OUT-LIST-05') }, async ({ api, registeredCompany }) => {
    const withToken = await api.post(LIST_PATH, { auth: { clientToken: registeredCompany.token }, json: { Take: 1, Skip: 0 } });
    await observe('OUT-LIST-04', `list with only the ClientToken header answered ${withToken.status}`, withToken);
    const withApiKey = await api.post(LIST_PATH, { auth: 'apiKey', json: { Take: 1, Skip: 0 } });
    await observe('OUT-LIST-04', `list with only the APIkey header answered ${withApiKey.status}`, withApiKey);
    await expectCheck(withToken, [notServerError], { requirement: 'OUT-LIST-05' });
    await expectCheck(withApiKey, [notServerError], { requirement: 'OUT-LIST-05' });
  });

  test("company A's list never holds company B's documents: both ways, in a third company's list, and once they moved on", { tag: tags('outbound', 'OUT-LIST-07', BACKGROUND_CHAIN_TAG) }, async ({ api, target, fixtures, registeredCompany, otherCompany }) => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const setting = await isolationSetting(api, target, fixtures, [registeredCompany, otherCompany]);
    // Followed while the first reads go out (issue 27): the wait changes nothing the reads see.
    const movedOn = documentsMovedOn(api, target, setting);
    movedOn.catch(() => {});
    const noLeak = async (moment: string) => {
      for (const { holder, reader } of crossReads(setting)) {
        const response = await api.post(LIST_PATH, { auth: { clientToken: reader.company.token }, json: { Take: 100, Skip: 0, CreatedFrom: since } });
        test.skip(response.status === 401 || response.status === 403, `the target refuses a client token on the outbound list (${response.status}), so the list is not per company`);
        const [at] = positionsIn(response, [holder.sent.documentId]);
        const check = fact(`company ${holder.company.companyId}'s document absent from the list of ${reader.name}, ${moment}`, at < 0, `no ${holder.sent.documentId} in the list`, at < 0 ? 'absent' : `listed at character ${at}`);
        await expectCheck(response, [isSuccess, check], { requirement: 'OUT-LIST-07' });
      }
    };
    await noLeak('right after the sends');
    await movedOn;
    await noLeak('once both documents were sent (or left Pending, where no document was seen sent)');
  });
});

test.describe('outbound list refusals', () => {
  test('wrong types on the list give no server error', { tag: tags('outbound', 'OUT-LIST-05') }, async ({ api, registeredCompany }) => {
    const takeAsString = await list(api, registeredCompany.token, { Take: 'ten', Skip: 0 });
    await expectCheck(takeAsString, [notServerError], { requirement: 'OUT-LIST-05' });
    const createdFromAsNumber = await list(api, registeredCompany.token, { Take: 10, CreatedFrom: 20240101 });
    await expectCheck(createdFromAsNumber, [notServerError], { requirement: 'OUT-LIST-05' });
  });

  test('the list without credentials is rejected', { tag: tags('outbound', 'OUT-LIST-06') }, async ({ api }) => {
    const response = await api.post(LIST_PATH, { auth: 'none', json: { Take: 10, Skip: 0 } });
    await expectCheck(response, [isRejected], { requirement: 'OUT-LIST-06' });
  });

  test('malformed JSON on the list gives no server error, and is rejected', { tag: tags('outbound', 'OUT-LIST-05', 'OUT-LIST-09') }, async ({ api, registeredCompany }) => {
    const auth: Auth = { clientToken: registeredCompany.token };
    const response = await api.post(LIST_PATH, { auth, rawBody: '{"Take": 10, "Skip":', contentType: 'application/json' });
    await expectCheck(response, [notServerError], { requirement: 'OUT-LIST-05' });
    await expectCheck(response, [isRejected], { requirement: 'OUT-LIST-09' });
  });
});
