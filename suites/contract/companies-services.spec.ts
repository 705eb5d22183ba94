// POST /companies/services: the required fields of a first activation, the background completion,
// credentials and robustness. Which credential it takes is not shown (CMP-SVC-09): each test learns
// it from the target. The RegistrationId of a first activation is "the id used with POST
// /companies/details"; the CompanyId of the status answer is the one id the API hands out for it.
import { checks, expectCheck, observe, pollUntil, registerCompany, tags, test, type ApiResponse, unlessTransport } from '../support/index.ts';
import { activatedCompany, activateServices, firstActivation, TRUNCATED_JSON } from '../support/companies-more.ts';

const { statusIs, isRejected, notServerError } = checks;

test('which credential service activation takes is recorded', { tag: tags('companies', 'CMP-SVC-09') }, async ({ api, target, fixtures }) => {
  // One company per credential: whichever answers first would otherwise activate the company for the other.
  const [forToken, forKey] = await Promise.all([registerCompany(api, target, fixtures.company('SE')), registerCompany(api, target, fixtures.company('SE'))]);
  const withToken = await api.post('/companies/services', { auth: { clientToken: forToken.token }, json: firstActivation(forToken, fixtures.searchId()) });
  const withKey = await api.post('/companies/services', { auth: 'apiKey', json: firstActivation(forKey, fixtures.searchId()) });
  await observe('CMP-SVC-09', `with the ClientToken header only: ${withToken.status}; with the APIkey header only: ${withKey.status}`, withKey);
});

test('a first activation without one of its required fields is rejected; the complete one answers 202 and completes in the background', {
  tag: tags('companies', 'CMP-SVC-01', 'CMP-SVC-02', 'CMP-SVC-03', 'CMP-SVC-04', 'CMP-SVC-05', 'CMP-SVC-06', 'CMP-SVC-08', 'CMP-SVC-12', 'CMP-REG-22'),
}, async ({ api, target, fixtures }) => {
  // The credential is learnt on a second company: a complete body sent to this one would activate
  // it, and RegistrationId and SearchId are required only at the first activation. The bodies
  // that lack a field then carry a credential the target takes, so a refusal is about the field.
  const [company, probe] = await Promise.all([registerCompany(api, target, fixtures.company('SE')), registerCompany(api, target, fixtures.company('SE'))]);
  const complete = firstActivation(company, fixtures.searchId());
  const probeActivation = await activateServices(api, probe, firstActivation(probe, fixtures.searchId()));
  // Where the RegistrationId comes from is not shown beyond "the id used with POST /companies/details":
  // this run sends the CompanyId. A target that hands out another id refuses it, which says nothing
  // about the fields below, so the test ends there with the reason.
  const probeStatus = probeActivation.response.status;
  test.skip(probeStatus >= 400 && probeStatus < 500, `a complete first activation with the CompanyId as RegistrationId answered ${probeStatus}: the target's RegistrationId is another id (a reading of the spec, see schemas/README.md), so the required-field rules could not be told apart`);
  // A complete first activation with the credential the target takes must be accepted.
  await expectCheck(probeActivation.response, [statusIs(202)], { requirement: 'CMP-SVC-01' });
  const auth = probeActivation.auth === 'apiKey' ? 'apiKey' : { clientToken: company.token };
  const required: Array<[keyof typeof complete, string]> = [
    ['ErpId', 'CMP-SVC-02'],
    ['CountryCode', 'CMP-SVC-03'],
    ['OrgNo', 'CMP-SVC-04'],
  ];
  for (const [field, requirement] of required) {
    const { [field]: _omitted, ...body } = complete;
    const response = await api.post('/companies/services', { auth, json: body });
    await expectCheck(response, [isRejected], { requirement });
  }
  // RegistrationId and SearchId are "Required at first activation". Register itself "registers or
  // updates a company and activates services", and rule 5 ties RegistrationId to a company "not yet
  // activated": whether this call on a company register created is a first activation is a reading,
  // and no setup reaches a first activation under every reading. The answers are recorded.
  const conditional: Array<[keyof typeof complete, string]> = [
    ['RegistrationId', 'CMP-SVC-05'],
    ['SearchId', 'CMP-SVC-06'],
  ];
  for (const [field, requirement] of conditional) {
    const { [field]: _omitted, ...body } = complete;
    const response = await api.post('/companies/services', { auth, json: body });
    await observe(requirement, `an activation without ${field} on a company register created (and activated, under one reading) answered ${response.status}`, response);
  }
  const activation = await api.post('/companies/services', { auth, json: complete });
  await expectCheck(activation, [statusIs(202)], { requirement: 'CMP-SVC-01' });
  await observe('CMP-SVC-12', activation.size === 0 ? 'the 202 answer has no body' : `the 202 answer has the body ${(activation.text ?? '').slice(0, 200)}`, activation);
  // Completion itself is not visible through the API; what is: the company stays readable while
  // the work runs. Which Status it shows afterwards is not shown (transitions: not shown): recorded.
  let last: ApiResponse | undefined;
  await pollUntil(target, 'the company readable after activation', async () => {
    last = await api.get('/companies/status', { auth: { clientToken: company.token } });
    return last.status === 200 ? true : undefined;
  }, ['registration']).catch(unlessTransport(undefined));
  await expectCheck(last as ApiResponse, [statusIs(200)], { requirement: 'CMP-SVC-08' });
  await observe('CMP-REG-22', `after the service activation the company status shows Status ${JSON.stringify(last?.data?.Status)}`, last);
});

test('service activation without credentials is refused', { tag: tags('companies', 'CMP-SVC-10', 'SEC-25') }, async ({ api, target, fixtures }) => {
  // No header and no RegistrationId: rule 5 may make the RegistrationId the credential of a company
  // not yet activated, so without it the call carries no credential under any reading. The company
  // is activated already, so a refusal cannot be about a RegistrationId the body lacks.
  const company = await activatedCompany(api, target, fixtures.company('SE'), fixtures.searchId());
  const { RegistrationId: _registrationId, ...body } = firstActivation(company, fixtures.searchId());
  const response = await api.post('/companies/services', { auth: 'none', json: body });
  await expectCheck(response, [isRejected], { requirement: 'CMP-SVC-10' });
  await expectCheck(response, [statusIs(401, 403)], { requirement: 'SEC-25' });
});

test('malformed JSON and wrong types on service activation give no server error', { tag: tags('companies', 'CMP-SVC-11') }, async ({ api, target, fixtures }) => {
  const company = await registerCompany(api, target, fixtures.company('SE'));
  for (const auth of [{ clientToken: company.token }, 'apiKey' as const]) {
    const truncated = await api.post('/companies/services', { auth, rawBody: TRUNCATED_JSON, contentType: 'application/json' });
    await expectCheck(truncated, [notServerError], { requirement: 'CMP-SVC-11' });
    const numberOrgNo = await api.post('/companies/services', { auth, json: { ...firstActivation(company, fixtures.searchId()), OrgNo: 5560000000 } });
    await expectCheck(numberOrgNo, [notServerError], { requirement: 'CMP-SVC-11' });
  }
});
