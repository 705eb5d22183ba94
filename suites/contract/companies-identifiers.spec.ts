// POST /companies/identifiers beyond companies.spec.ts: a company not allowed to add identifiers,
// credentials, malformed bodies, and what the spec leaves open (the agreed types, adding twice).
// Every answer is held to the shape of the 500 the spec names (CMP-IDN-06), which nothing provokes.
import { checks, createClientToken, expectCheck, observe, tags, test, type ApiClient, type ApiResponse, type Auth } from '../support/index.ts';
import { postHoldingServerErrors, targetSettings, TRUNCATED_JSON } from '../support/companies-more.ts';

const { statusIs, isClientError, isRejected, notServerError } = checks;

function addIdentifier(api: ApiClient, auth: Auth, body: { json?: unknown; rawBody?: string }): Promise<ApiResponse> {
  return postHoldingServerErrors(api, '/companies/identifiers', auth, body, 'CMP-IDN-06');
}

test('adding the same identifier twice is recorded', { tag: tags('companies', 'CMP-IDN-10', 'CMP-IDN-01', 'CMP-IDN-06') }, async ({ api, registeredCompany, fixtures, target }) => {
  const identifier = fixtures.identifier();
  const auth = { clientToken: registeredCompany.token };
  const first = await addIdentifier(api, auth, { json: identifier });
  // A 400 on a target whose agreed types the run does not know is judged in companies.spec.ts (recorded there).
  test.skip(first.status === 400 && !targetSettings(target).identifierTypesKnown, `the type ${identifier.Type} this run assumes is not agreed on this target (400); set --identifier-types (DXS_IDENTIFIER_TYPES)`);
  await expectCheck(first, [statusIs(200, 201)], { requirement: 'CMP-IDN-01' });
  const second = await addIdentifier(api, auth, { json: identifier });
  await observe('CMP-IDN-10', `the same Type and Value added twice answered ${first.status} then ${second.status}`, second);
});

test('the identifier types named by the 400 answer are recorded', { tag: tags('companies', 'CMP-IDN-09', 'CMP-IDN-03', 'CMP-IDN-06') }, async ({ api, registeredCompany, fixtures }) => {
  const response = await addIdentifier(api, { clientToken: registeredCompany.token }, { json: fixtures.unsupportedIdentifier() });
  await expectCheck(response, [statusIs(400)], { requirement: 'CMP-IDN-03' });
  const message = typeof response.json === 'string' ? response.json : (response.text ?? '');
  const named = fixtures.identifierTypes.filter((type) => message.includes(type));
  await observe('CMP-IDN-09', `the 400 message reads ${JSON.stringify(message.slice(0, 300))}; of the types this run assumes (${fixtures.identifierTypes.join(', ')}) it names ${named.length > 0 ? named.join(', ') : 'none'}`, response);
});

test('a company not allowed to add identifiers gets 400', { tag: tags('companies', 'CMP-IDN-05', 'CMP-IDN-06') }, async ({ api, target, fixtures }) => {
  const erpId = targetSettings(target).erpIdWithoutIdentifiers;
  test.skip(erpId === undefined, 'no company that is not allowed to add identifiers configured (--erp-id-without-identifiers, DXS_ERP_ID_WITHOUT_IDENTIFIERS)');
  const { response: created, token } = await createClientToken(api, erpId as string);
  await expectCheck(created, [statusIs(200)], { requirement: 'TOK-01' });
  const response = await addIdentifier(api, { clientToken: token as string }, { json: fixtures.identifier() });
  await expectCheck(response, [statusIs(400)], { requirement: 'CMP-IDN-05' });
});

test('adding an identifier without a ClientToken is refused', { tag: tags('companies', 'CMP-IDN-08', 'CMP-IDN-06', 'SEC-25') }, async ({ api, fixtures }) => {
  const response = await addIdentifier(api, 'none', { json: fixtures.identifier() });
  await expectCheck(response, [isRejected], { requirement: 'CMP-IDN-08' });
  await expectCheck(response, [statusIs(401, 403)], { requirement: 'SEC-25' });
});

test('malformed JSON on add identifier gives no server error (and a 4xx: hardening)', { tag: tags('companies', 'CMP-IDN-11', 'CMP-IDN-06', 'SEC-21') }, async ({ api, registeredCompany }) => {
  const response = await addIdentifier(api, { clientToken: registeredCompany.token }, { rawBody: TRUNCATED_JSON });
  await expectCheck(response, [notServerError], { requirement: 'CMP-IDN-11' });
  await expectCheck(response, [isClientError], { requirement: 'SEC-21' });
});

test('an identifier Value that is a number is refused with 400 (hardening)', { tag: tags('companies', 'CMP-IDN-07', 'CMP-IDN-06') }, async ({ api, registeredCompany, fixtures }) => {
  const response = await addIdentifier(api, { clientToken: registeredCompany.token }, { json: { ...fixtures.identifier(), Value: 7350000000001 } });
  await expectCheck(response, [statusIs(400)], { requirement: 'CMP-IDN-07' });
});
