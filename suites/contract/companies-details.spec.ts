// POST /companies/details and GET /companies/details/{CompanyId} beyond companies.spec.ts: the
// required fields, the RegistrationId rule, credentials, robustness, one company changing another,
// and what the spec leaves open (an ErpId in the body, capability values beyond the listed ones).
import type { CompanyInput } from '../../fixtures/bodies.ts';
import { checks, createClientToken, expectCheck, observe, registerCompany, tags, test } from '../support/index.ts';
import { activatedCompany, TRUNCATED_JSON } from '../support/companies-more.ts';

const { statusIs, isRejected, notServerError, fieldSatisfies } = checks;

/** The capability values the spec lists as occurring. */
const LISTED_CAPABILITIES: Record<string, readonly string[]> = {
  ReceiveElectronicInvoiceCapability: ['CannotReceiveElectronicInvoices'],
  SendsElectronicInvoiceCapability: ['SendsElectronicInvoices', 'ErpSystemSupportsSendingElectronicInvoices'],
  ReceiveElectronicOrderCapability: ['ReceivesElectronicOrders', 'CannotReceiveElectronicOrders'],
  SendsElectronicOrderCapability: ['SendsElectronicOrders', 'CannotSendElectronicOrders'],
};

test('setting details without a required field is rejected; without OrgNo, or with wrong types, there is no server error', {
  tag: tags('companies', 'CMP-DET-02', 'CMP-DET-03', 'CMP-DET-04', 'CMP-DET-05', 'CMP-DET-06', 'CMP-DET-22'),
}, async ({ api, target, fixtures }) => {
  // A company of its own (an accepted body changes it), activated under either reading of "activated".
  const company = await activatedCompany(api, target, fixtures.company('SE'), fixtures.searchId());
  const auth = { clientToken: company.token };
  const valid = fixtures.companyDetails(company.input);
  const required: Array<[keyof typeof valid, string]> = [
    ['ErpProduct', 'CMP-DET-02'],
    ['Name', 'CMP-DET-03'],
    ['Email', 'CMP-DET-04'],
    ['CountryCode', 'CMP-DET-05'],
  ];
  for (const [field, requirement] of required) {
    const { [field]: _omitted, ...body } = valid;
    const response = await api.post('/companies/details', { auth, json: body });
    await expectCheck(response, [isRejected], { requirement });
  }
  const truncated = await api.post('/companies/details', { auth, rawBody: TRUNCATED_JSON, contentType: 'application/json' });
  await expectCheck(truncated, [notServerError], { requirement: 'CMP-DET-22' });
  const nameArray = await api.post('/companies/details', { auth, json: { ...valid, Name: [valid.Name] } });
  await expectCheck(nameArray, [notServerError], { requirement: 'CMP-DET-22' });
  const { OrgNo: _orgNo, ...withoutOrgNo } = valid;
  const response = await api.post('/companies/details', { auth, json: withoutOrgNo });
  await expectCheck(response, [statusIs(200)], { requirement: 'CMP-DET-06' });
});

test('setting details without a client token needs a RegistrationId', { tag: tags('companies', 'CMP-DET-07', 'CMP-DET-21') }, async ({ api, fixtures }) => {
  // A company just registered is not activated; no RegistrationId and no token: nothing says which company.
  const input = fixtures.company('SE');
  await api.post('/companies/register', { auth: 'apiKey', json: input });
  const body = fixtures.companyDetails(input);
  const withApiKey = await api.post('/companies/details', { auth: 'apiKey', json: body });
  await expectCheck(withApiKey, [isRejected], { requirement: 'CMP-DET-07' });
  const withNothing = await api.post('/companies/details', { auth: 'none', json: body });
  await expectCheck(withNothing, [isRejected], { requirement: 'CMP-DET-21' });
});

test('company details without a ClientToken are refused', { tag: tags('companies', 'CMP-DET-20', 'SEC-25') }, async ({ api, registeredCompany }) => {
  const response = await api.get(`/companies/details/${encodeURIComponent(registeredCompany.companyId)}`, { auth: 'none' });
  await expectCheck(response, [isRejected], { requirement: 'CMP-DET-20' });
  await expectCheck(response, [statusIs(401, 403)], { requirement: 'SEC-25' });
});

test("a client token of one company does not change another company's details", { tag: tags('companies', 'CMP-DET-24') }, async ({ api, target, fixtures, otherCompany }) => {
  // The intruder is a company of its own: the call may well change the intruder's own details.
  const intruder = await registerCompany(api, target, fixtures.company('SE'));
  const intrusion: CompanyInput = { ...otherCompany.input, Name: `Dxs Intruder ${intruder.erpId}` };
  // The other company's data with the intruder's token, but no RegistrationId: where "activated"
  // means services activated, the other company is not, and its RegistrationId would be the very
  // credential rule 5 names for it (schemas/README.md, readings).
  const attempt = await api.post('/companies/details', { auth: { clientToken: intruder.token }, json: fixtures.companyDetails(intrusion) });
  await expectCheck(attempt, [notServerError], { requirement: 'CMP-DET-24' });
  const after = await api.get(`/companies/details/${encodeURIComponent(otherCompany.companyId)}`, { auth: { clientToken: otherCompany.token } });
  await expectCheck(after, [statusIs(200), fieldSatisfies('Name', `is not the intruder's ${intrusion.Name}`, (value) => value !== intrusion.Name)], { requirement: 'CMP-DET-24' });
});

test('an ErpId sent along with the details is recorded', { tag: tags('companies', 'CMP-DET-09') }, async ({ api, target, fixtures }) => {
  const company = await registerCompany(api, target, fixtures.company('SE'));
  const otherErpId = fixtures.company('SE').ErpId;
  const set = await api.post('/companies/details', { auth: { clientToken: company.token }, json: { ...fixtures.companyDetails(company.input), ErpId: otherErpId } });
  const byOld = await createClientToken(api, company.erpId);
  const byNew = await createClientToken(api, otherErpId);
  await observe(
    'CMP-DET-09',
    `setting details with ErpId ${otherErpId} in the body answered ${set.status}; afterwards a token for the original ErpId answered ${byOld.response.status} and one for the ErpId sent ${byNew.response.status}`,
    set,
  );
});

test('the capability values seen are recorded', { tag: tags('companies', 'CMP-DET-18', 'CMP-DET-10') }, async ({ api, target, fixtures, registeredCompany }) => {
  const everyProcess = await registerCompany(api, target, fixtures.company('NO', { processes: ['SendInvoices', 'ReceiveInvoices', 'SendOrders', 'ReceiveOrders'] }));
  const seen = new Map<string, Set<string>>();
  let last;
  for (const company of [registeredCompany, everyProcess]) {
    last = await api.get(`/companies/details/${encodeURIComponent(company.companyId)}`, { auth: { clientToken: company.token } });
    await expectCheck(last, [statusIs(200)], { requirement: 'CMP-DET-10' });
    for (const field of Object.keys(LISTED_CAPABILITIES)) {
      const value = last.data?.[field];
      if (typeof value === 'string') seen.set(field, (seen.get(field) ?? new Set()).add(value));
    }
  }
  const beyond = [...seen].flatMap(([field, values]) => [...values].filter((value) => !LISTED_CAPABILITIES[field].includes(value)).map((value) => `${field}=${value}`));
  const all = [...seen].map(([field, values]) => `${field}: ${[...values].join(', ')}`).join('; ');
  await observe('CMP-DET-18', `values seen: ${all || 'none'}; beyond the listed ones: ${beyond.length > 0 ? beyond.join(', ') : 'none'}`, last);
});
