// Contract of POST /buyerparties/lookup: the lookup response of buyer parties, the required
// PartyId, the accepted search criteria and the client token it is called with.
import { randomUUID } from 'node:crypto';
import { checks, expectCheck, observe, schemaTypes, tags, test } from '../support/index.ts';
import { everyCriterion, expectLookupShape, LOOKUP_PATH, partiesOf, robustnessBodies } from '../support/network.ts';

const { statusIs, isRejected, notServerError } = checks;
const PATH = LOOKUP_PATH.buyer;

test.describe('buyer lookup', () => {
  test('buyer lookup with a client token answers 200 with the lookup response of buyer parties', {
    tag: tags('network', 'NET-LKP-01', 'NET-LKP-04', 'NET-LKP-05', 'NET-LKP-06', 'NET-LKP-07', 'NET-LKP-08', 'NET-LKP-15', 'NET-LKP-22'),
  }, async ({ api, registeredCompany, fixtures }) => {
    const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, json: fixtures.buyerLookup(registeredCompany.input) });
    await expectCheck(response, [statusIs(200)], { requirement: 'NET-LKP-01' });
    await expectCheck(response, [statusIs(200)], { requirement: 'NET-LKP-15' });
    // The fields' own checks before the schema, so a wrong field fails under its own ID.
    await expectLookupShape(response, 'buyer');
    await expectCheck(response, [schemaTypes('lookup-buyer.response')], { requirement: 'NET-LKP-01' });
  });

  test('buyer lookup without PartyId is rejected', { tag: tags('network', 'NET-LKP-02') }, async ({ api, registeredCompany, fixtures }) => {
    const { PartyId: _partyId, ...body } = fixtures.buyerLookup(registeredCompany.input);
    const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, json: body });
    await expectCheck(response, [isRejected], { requirement: 'NET-LKP-02' });
  });

  test('any PartyId value is accepted on buyer lookup', { tag: tags('network', 'NET-LKP-03') }, async ({ api, registeredCompany, fixtures }) => {
    for (const partyId of ['x', randomUUID()]) {
      const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, json: { ...fixtures.buyerLookup(registeredCompany.input), PartyId: partyId } });
      await expectCheck(response, [statusIs(200)], { requirement: 'NET-LKP-03' });
    }
  });

  test('every search criterion, a PeppolParticipantIdentifier and a PostalCode alone are accepted on buyer lookup', {
    tag: tags('network', 'NET-LKP-11', 'NET-LKP-12', 'NET-LKP-14'),
  }, async ({ api, registeredCompany, fixtures }) => {
    const company = registeredCompany.input;
    const every = everyCriterion(registeredCompany, fixtures.buyerLookup().PartyId, 'Accounts payable');
    const auth = { clientToken: registeredCompany.token };
    await expectCheck(await api.post(PATH, { auth, json: every }), [statusIs(200)], { requirement: 'NET-LKP-11' });
    const peppol = await api.post(PATH, { auth, json: { PartyId: every.PartyId, PeppolParticipantIdentifier: '0007::5567321707' } });
    await expectCheck(peppol, [statusIs(200)], { requirement: 'NET-LKP-12' });
    const postalCode = await api.post(PATH, { auth, json: { PartyId: every.PartyId, PostalCode: company.PostalZone ?? '11134' } });
    await expectCheck(postalCode, [statusIs(200)], { requirement: 'NET-LKP-14' });
  });

  test('what buyer lookup does with PaymentMeans is recorded', { tag: tags('network', 'NET-LKP-18', 'NET-LKP-21') }, async ({ api, registeredCompany, fixtures }) => {
    const body = fixtures.sellerLookup(registeredCompany.input, true);
    const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, json: body });
    await expectCheck(response, [notServerError], { requirement: 'NET-LKP-18' });
    await observe('NET-LKP-21', `buyer lookup with PaymentMeans answered ${response.status}`, response);
  });

  test('the answer to a buyer lookup with no hit is recorded', { tag: tags('network', 'NET-LKP-20') }, async ({ api, registeredCompany, fixtures }) => {
    const body = { PartyId: fixtures.buyerLookup().PartyId, Name: `${fixtures.searchId()} no such company` };
    const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, json: body });
    await expectCheck(response, [statusIs(200)], { requirement: 'NET-LKP-01' });
    await observe(
      'NET-LKP-20',
      `no-hit buyer lookup: status ${response.status}, PotentialMatches ${JSON.stringify(response.data?.PotentialMatches)}, ExactHit ${JSON.stringify(response.data?.ExactHit)}, ${partiesOf(response).length} parties`,
      response,
    );
    // The catalog names both lookups: the seller side may answer a miss otherwise.
    const seller = await api.post('/sellerparties/lookup', { auth: { clientToken: registeredCompany.token }, json: { PartyId: fixtures.sellerLookup().PartyId, Name: `${fixtures.searchId()} no such company` } });
    await expectCheck(seller, [notServerError], { requirement: 'NET-LKP-20' });
    await observe(
      'NET-LKP-20',
      `no-hit seller lookup: status ${seller.status}, PotentialMatches ${JSON.stringify(seller.data?.PotentialMatches)}, ExactHit ${JSON.stringify(seller.data?.ExactHit)}, ${partiesOf(seller).length} parties`,
      seller,
    );
  });
});

test.describe('buyer lookup security', () => {
  test('buyer lookup without credentials is refused', { tag: tags('network', 'NET-LKP-17') }, async ({ api, fixtures }) => {
    const response = await api.post(PATH, { auth: 'none', json: fixtures.buyerLookup() });
    await expectCheck(response, [isRejected], { requirement: 'NET-LKP-17' });
  });

  test('malformed JSON, wrong types and an oversized body on buyer lookup give no 5xx', { tag: tags('network', 'NET-LKP-18') }, async ({ api, registeredCompany, fixtures }) => {
    const valid = fixtures.buyerLookup(registeredCompany.input) as unknown as Record<string, unknown>;
    for (const { rawBody } of robustnessBodies(valid, { Name: { first: 'x' }, OrgNo: 5567321707 })) {
      const response = await api.post(PATH, { auth: { clientToken: registeredCompany.token }, rawBody, contentType: 'application/json' });
      await expectCheck(response, [notServerError], { requirement: 'NET-LKP-18' });
    }
  });
});
