// Contract of POST /sellerparties/lookup: the lookup response of seller parties, the required
// PartyId, PaymentMeans (seller lookup only) and the scheme it takes (not shown: recorded).
import { randomUUID } from 'node:crypto';
import { checks, expectCheck, observe, schemaTypes, tags, test } from '../support/index.ts';
import { everyCriterion, expectLookupShape, LOOKUP_PATH, robustnessBodies, sellerLookup } from '../support/network.ts';

const { statusIs, isRejected, notServerError } = checks;
const PATH = LOOKUP_PATH.seller;

test.describe('seller lookup', () => {
  test('seller lookup answers 200 with the lookup response of seller parties', {
    tag: tags('network', 'NET-LKP-09', 'NET-LKP-04', 'NET-LKP-05', 'NET-LKP-06', 'NET-LKP-07', 'NET-LKP-10', 'NET-LKP-22'),
  }, async ({ api, registeredCompany, fixtures }) => {
    const response = await sellerLookup(api, registeredCompany.token, fixtures.sellerLookup(registeredCompany.input));
    await expectCheck(response, [statusIs(200)], { requirement: 'NET-LKP-09' });
    // The fields' own checks before the schema, so a wrong field fails under its own ID.
    await expectLookupShape(response, 'seller');
    await expectCheck(response, [schemaTypes('lookup-seller.response')], { requirement: 'NET-LKP-09' });
  });

  test('seller lookup without PartyId is rejected', { tag: tags('network', 'NET-LKP-02') }, async ({ api, registeredCompany, fixtures }) => {
    const { PartyId: _partyId, ...body } = fixtures.sellerLookup(registeredCompany.input);
    const response = await sellerLookup(api, registeredCompany.token, body);
    await expectCheck(response, [isRejected], { requirement: 'NET-LKP-02' });
  });

  test('any PartyId value is accepted on seller lookup', { tag: tags('network', 'NET-LKP-03') }, async ({ api, registeredCompany, fixtures }) => {
    for (const partyId of ['x', randomUUID()]) {
      const response = await sellerLookup(api, registeredCompany.token, { ...fixtures.sellerLookup(registeredCompany.input), PartyId: partyId });
      await expectCheck(response, [statusIs(200)], { requirement: 'NET-LKP-03' });
    }
  });

  test('seller lookup accepts PaymentMeans with every field as a string', { tag: tags('network', 'NET-LKP-13') }, async ({ api, registeredCompany, fixtures }) => {
    const body = fixtures.sellerLookup(registeredCompany.input, true);
    const [means] = body.PaymentMeans ?? [{}];
    body.PaymentMeans = [{ ...means, AccountNo: '5491-0000003', AccountTypeCode: 'BANKGIRO', FinancialInstitutionId: 'SWEDSESS' }];
    const response = await sellerLookup(api, registeredCompany.token, body);
    await expectCheck(response, [statusIs(200), schemaTypes('lookup-seller.response')], { requirement: 'NET-LKP-13' });
  });

  test('every search criterion, a PeppolParticipantIdentifier and a PostalCode alone are accepted on seller lookup', {
    tag: tags('network', 'NET-LKP-11', 'NET-LKP-12', 'NET-LKP-14'),
  }, async ({ api, registeredCompany, fixtures }) => {
    const company = registeredCompany.input;
    const partyId = fixtures.sellerLookup().PartyId;
    const every = everyCriterion(registeredCompany, partyId, 'Sales');
    await expectCheck(await sellerLookup(api, registeredCompany.token, every), [statusIs(200)], { requirement: 'NET-LKP-11' });
    const peppol = await sellerLookup(api, registeredCompany.token, { PartyId: partyId, PeppolParticipantIdentifier: '0007::5567321707' });
    await expectCheck(peppol, [statusIs(200)], { requirement: 'NET-LKP-12' });
    const postalCode = await sellerLookup(api, registeredCompany.token, { PartyId: partyId, PostalCode: company.PostalZone ?? '11134' });
    await expectCheck(postalCode, [statusIs(200)], { requirement: 'NET-LKP-14' });
  });

  test('which credential seller lookup takes is recorded', { tag: tags('network', 'NET-LKP-16') }, async ({ api, registeredCompany, fixtures }) => {
    const body = fixtures.sellerLookup(registeredCompany.input);
    const withApiKey = await api.post(PATH, { auth: 'apiKey', json: body });
    const withToken = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, json: body });
    await observe('NET-LKP-16', `seller lookup with only the APIkey header answered ${withApiKey.status}; with only the ClientToken header ${withToken.status}`, withToken);
    // At least one credential must be the one it takes: the client token, the APIkey, or a search token.
    await expectCheck(withToken.status === 200 ? withToken : withApiKey.status === 200 ? withApiKey : await sellerLookup(api, registeredCompany.token, body), [statusIs(200)], { requirement: 'NET-LKP-09' });
  });
});

test.describe('seller lookup security', () => {
  // Which scheme seller lookup takes is not shown (authentication rule 7): refusing an anonymous call is hardening.
  test('seller lookup without credentials is refused', { tag: tags('network', 'NET-LKP-23') }, async ({ api, fixtures }) => {
    const response = await api.post(PATH, { auth: 'none', json: fixtures.sellerLookup() });
    await expectCheck(response, [notServerError], { requirement: 'NET-LKP-18' });
    await expectCheck(response, [isRejected], { requirement: 'NET-LKP-23' });
  });

  test('malformed JSON, wrong types and an oversized body on seller lookup give no 5xx', { tag: tags('network', 'NET-LKP-18') }, async ({ api, registeredCompany, fixtures }) => {
    const valid = fixtures.sellerLookup(registeredCompany.input) as unknown as Record<string, unknown>;
    for (const { rawBody } of robustnessBodies(valid, { PaymentMeans: 'SE4550000000058398257466', Name: { first: 'x' } })) {
      const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, rawBody, contentType: 'application/json' });
      await expectCheck(response, [notServerError], { requirement: 'NET-LKP-18' });
    }
  });
});
