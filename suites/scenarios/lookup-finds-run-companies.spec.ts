// Buyer and seller lookup find the companies that this run registered (registeredCompany in SE,
// otherCompany in DK; both with SendInvoices and ReceiveInvoices), by each identifier the spec
// lists as a criterion. Whether a fresh registration is found at once is not shown, so the first
// lookup is repeated within the async timeout before it counts as not found (once per test, so a
// target that never lists them costs one wait); a company not found is a warning (FLOW-16 and
// FLOW-22 are GUIDE), never a failure.
import { checks, expectCheck, observe, pollUntil, schemaTypes, tags, test, type ApiClient, type ApiResponse, type RegisteredCompany, type RunContext, unlessTransport } from '../support/index.ts';
import { isCompany, lookup, LOOKUP_SCHEMA, partiesInclude, partiesOf, peppolIdentifiersOf, unlistedCapabilityValues, type LookupKind } from '../support/network.ts';

const { statusIs } = checks;

/** The search bodies for one company: one identifier (or the name) each, as the spec lists them. */
function criteriaOf(company: RegisteredCompany): Array<[string, Record<string, string>]> {
  const input = company.input;
  const criteria: Array<[string, Record<string, string>]> = [
    ['OrgNo', { OrgNo: input.OrgNo, CountryCode: input.CountryCode }],
    ['Name', { Name: input.Name, CountryCode: input.CountryCode }],
  ];
  if (input.GLN !== undefined) criteria.push(['GLN', { GLN: input.GLN }]);
  if (input.VatNo !== undefined) criteria.push(['VatNo', { VatNo: input.VatNo }]);
  const [peppol] = peppolIdentifiersOf(company);
  if (peppol !== undefined) criteria.push(['PeppolParticipantIdentifier', { PeppolParticipantIdentifier: peppol }]);
  return criteria;
}

/** The first lookup, repeated (bounded) until the company is among the parties; the last answer either way. */
async function firstLookup(api: ApiClient, context: RunContext, kind: LookupKind, company: RegisteredCompany, body: Record<string, string>): Promise<ApiResponse> {
  let last: ApiResponse | undefined;
  await pollUntil(context, `company ${company.companyId} found by ${kind} lookup`, async () => {
    last = await lookup(api, kind, company.token, body);
    return last.status === 200 && partiesOf(last).some((party) => isCompany(party, company)) ? true : undefined;
  }).catch(unlessTransport(undefined));
  return last as ApiResponse;
}

const SCENARIOS: Array<{ kind: LookupKind; requirement: string; success: string; title: string; tag: string[] }> = [
  { kind: 'buyer', requirement: 'FLOW-16', success: 'NET-LKP-01', tag: tags('flows', 'FLOW-16', 'NET-LKP-01', 'NET-LKP-19'), title: 'buyer lookup finds the companies this run registered by OrgNo, Name, GLN, VatNo and PeppolParticipantIdentifier' },
  { kind: 'seller', requirement: 'FLOW-22', success: 'NET-LKP-09', tag: tags('flows', 'FLOW-22', 'NET-LKP-09', 'NET-LKP-19'), title: 'seller lookup finds the companies this run registered by OrgNo, Name, GLN, VatNo and PeppolParticipantIdentifier' },
];

for (const { kind, requirement, success, title, tag } of SCENARIOS) {
  test(title, { tag }, async ({ api, target, fixtures, registeredCompany, otherCompany }) => {
    const seen: Array<Record<string, unknown>> = [];
    const missing: string[] = [];
    let waited = false;
    for (const company of [registeredCompany, otherCompany]) {
      for (const [criterion, search] of criteriaOf(company)) {
        const body = { PartyId: fixtures.buyerLookup().PartyId, ...search };
        const response = waited ? await lookup(api, kind, company.token, body) : await firstLookup(api, target, kind, company, body);
        waited = true;
        await expectCheck(response, [statusIs(200), schemaTypes(LOOKUP_SCHEMA[kind])], { requirement: success });
        await expectCheck(response, [partiesInclude(company)], { requirement });
        const parties = partiesOf(response);
        seen.push(...parties);
        if (!parties.some((party) => isCompany(party, company))) missing.push(`${company.input.CountryCode} company by ${criterion}`);
      }
      if (peppolIdentifiersOf(company).length === 0) {
        test.info().annotations.push({ type: 'info', description: `company ${company.companyId} reported no PeppolParticipantIdentifiers: not looked up by one` });
      }
    }
    const unlisted = unlistedCapabilityValues(kind, seen);
    await observe(
      'NET-LKP-19',
      unlisted.length === 0 ? `${kind} lookup: every capability value seen is one the spec lists` : `${kind} lookup: capability values beyond the listed ones: ${unlisted.join(', ')}`,
    );
    if (missing.length > 0) test.info().annotations.push({ type: 'warning', description: `${requirement}: not found: ${missing.join('; ')}` });
  });
}
