// Registering a company as the guide does it, each step on what the one before handed out:
// register (APIkey) -> follow the status until Registered -> client token -> details set and read
// by the CompanyId -> users and identifiers; then the update by the same ErpId, the first service
// activation completing in the background, and a client token living exactly until it is revoked.
import { PROCESSES } from '../../fixtures/index.ts';
import { checks, createClientToken, expectCheck, observe, pollUntil, pollUntilSettled, registerCompany, revokeClientToken, tags, test, untilTokenRefused, type ApiResponse, unlessTransport } from '../support/index.ts';
import { activateServices, firstActivation, targetSettings } from '../support/companies-more.ts';

const { statusIs, isRejected, fieldSatisfies, bodyIsEmpty } = checks;
const isRegistered = fieldSatisfies('Status', 'is Registered', (value) => value === 'Registered');

test('a company registered with the API key reaches Registered, then sets and reads its details, adds a user and an identifier', {
  tag: tags('flows', 'FLOW-01', 'FLOW-02', 'CMP-REG-01', 'CMP-DET-01', 'CMP-USR-01', 'CMP-USR-10', 'CMP-IDN-01'),
}, async ({ api, target, fixtures }) => {
  const input = fixtures.company('SE');
  const register = await api.post('/companies/register', { auth: 'apiKey', json: input });
  await expectCheck(register, [statusIs(202), bodyIsEmpty], { requirement: 'CMP-REG-01' });
  // Followed the guide's way (bounded by the async timeout); the last answer is what is judged.
  let token: string | undefined;
  let last: ApiResponse | undefined;
  await pollUntil(target, `company ${input.ErpId} reaching Status Registered`, async () => {
    if (token === undefined) {
      const created = await createClientToken(api, input.ErpId);
      token = created.token;
      last = created.response;
      if (token === undefined) return undefined;
    }
    last = await api.get('/companies/status', { auth: { clientToken: token } });
    return last.status === 200 && last.data?.Status === 'Registered' ? true : undefined;
  }, ['client-token', 'registration']).catch(unlessTransport(undefined));
  // Without a token the last answer is the refused token creation: judged here, it fails the flow.
  const status = last as ApiResponse;
  await expectCheck(status, [statusIs(200), isRegistered], { requirement: 'FLOW-01' });
  if (token === undefined) return;
  const companyId = status.data?.CompanyId;
  await expectCheck(status, [fieldSatisfies('CompanyId', 'is a non-empty string', (value) => typeof value === 'string' && value !== '')], { requirement: 'FLOW-02' });
  const auth = { clientToken: token };
  const company = { input, erpId: input.ErpId, companyId: String(companyId), token, status: status.data ?? {} };

  // Rule 5: a client token sets the details of an activated company. Whether "activated" means
  // Registered or services activated is not shown, so the services are activated first (the
  // credential the target takes, as activatedCompany does): activated under both readings.
  await activateServices(api, company, firstActivation(company, fixtures.searchId()));
  await pollUntil(target, 'the company readable after its activation', async () => ((await api.get('/companies/status', { auth })).status === 200 ? true : undefined)).catch(unlessTransport(undefined));
  const details = { ...fixtures.companyDetails(input), City: 'Dxsby' };
  const set = await api.post('/companies/details', { auth, json: details });
  await expectCheck(set, [statusIs(200)], { requirement: 'CMP-DET-01' });
  // The details may reach the read side a moment later: followed until the City shows (bounded),
  // as CMP-DET-17 does. The Name is not compared: a service may take it from a business register
  // (CMP-STA-07, hardening).
  let read: ApiResponse | undefined;
  await pollUntil(target, 'the City just set in the company details', async () => {
    read = await api.get(`/companies/details/${encodeURIComponent(String(companyId))}`, { auth });
    return read.data?.City === 'Dxsby' ? true : undefined;
  }).catch(unlessTransport(undefined));
  await expectCheck(
    read as ApiResponse,
    [
      statusIs(200),
      fieldSatisfies('CompanyId', `is ${companyId}, the one the status gave`, (value) => value === companyId),
      fieldSatisfies('City', 'is Dxsby, the City just set', (value) => value === 'Dxsby'),
    ],
    { requirement: 'FLOW-02' },
  );

  const user = fixtures.user();
  const added = await api.post('/companies/users', { auth, json: user });
  await expectCheck(added, [statusIs(200)], { requirement: 'CMP-USR-01' });
  const again = await api.post('/companies/users', { auth, json: user });
  await expectCheck(again, [statusIs(409)], { requirement: 'CMP-USR-10' });

  const body = fixtures.identifier();
  const identifier = await api.post('/companies/identifiers', { auth, json: body });
  // The allowed types are "agreed beforehand with the operator": on a target whose set the run does
  // not know, a 400 for the type this run assumes is recorded, not judged (as companies.spec.ts does).
  if (identifier.status === 400 && !targetSettings(target).identifierTypesKnown) {
    await observe('CMP-IDN-01', `an identifier of type ${body.Type} (one this run assumes; set --identifier-types (DXS_IDENTIFIER_TYPES) to the target's agreed types) answered 400: ${(identifier.text ?? '').slice(0, 200)}`, identifier);
  } else {
    await expectCheck(identifier, [statusIs(200, 201)], { requirement: 'CMP-IDN-01' });
  }
});

test('registering again with the same ErpId updates the company instead of creating another', {
  tag: tags('flows', 'FLOW-08', 'CMP-REG-14', 'CMP-STA-07'),
}, async ({ api, target, fixtures }) => {
  const company = await registerCompany(api, target, fixtures.company('DK'));
  const renamed = { ...company.input, Name: `${company.input.Name} Ny` };
  const update = await api.post('/companies/register', { auth: 'apiKey', json: renamed });
  await expectCheck(update, [statusIs(202)], { requirement: 'CMP-REG-14' });
  // The update, too, is done in the background: followed until the new Name shows and the
  // company is Registered again (an update may run a new registration first), bounded.
  // The new Name is not promised (CMP-STA-07): the wait also ends once the answer stops changing.
  const { last: status } = await pollUntilSettled(target, 'the new Name in the company status, Registered', () => api.get('/companies/status', { auth: { clientToken: company.token } }), (answer) => answer.data?.Details?.Name === renamed.Name && answer.data?.Status === 'Registered');
  // The token taken before the update still names the same company. "To update, the same call is
  // made with the same ErpId" says the company is updated, not that Details echoes the new Name: a
  // service may take the name from a business register (CMP-STA-07, hardening: a warning).
  await expectCheck(
    status as ApiResponse,
    [statusIs(200), fieldSatisfies('CompanyId', `is still ${company.companyId}`, (value) => value === company.companyId)],
    { requirement: 'FLOW-08' },
  );
  await expectCheck(status as ApiResponse, [statusIs(200), fieldSatisfies('CompanyId', `is still ${company.companyId}`, (value) => value === company.companyId)], { requirement: 'CMP-REG-14' });
  await expectCheck(status as ApiResponse, [fieldSatisfies('Details', `carries the new Name ${renamed.Name}`, (value: any) => value?.Name === renamed.Name)], { requirement: 'CMP-STA-07' });
  // A token created now for the ErpId is for that one company, not a second one.
  const { token } = await createClientToken(api, company.erpId);
  const fresh = await api.get('/companies/status', { auth: { clientToken: token ?? '' } });
  await expectCheck(fresh, [statusIs(200), fieldSatisfies('CompanyId', `is ${company.companyId}, not a new company`, (value) => value === company.companyId)], { requirement: 'FLOW-08' });
});

test('a first service activation with RegistrationId and SearchId completes in the background', {
  tag: tags('flows', 'FLOW-17', 'CMP-SVC-01', 'CMP-STA-08'),
}, async ({ api, target, fixtures }) => {
  const processes = [...PROCESSES];
  const company = await registerCompany(api, target, fixtures.company('SE', { processes }));
  // Which credential the call takes is not shown (CMP-SVC-09): the one the target accepts is used.
  const { response, auth } = await activateServices(api, company, firstActivation(company, fixtures.searchId()));
  await expectCheck(response, [statusIs(202)], { requirement: 'FLOW-17' });
  const activatedWith = auth === 'apiKey' ? 'the API key' : 'the ClientToken';
  // Which Status a company shows once its services are activated is not shown ("Transitions and
  // further values: not shown"): the work is done when the status call lists the processes, which
  // is not promised either (CMP-STA-08), so the wait also ends once the answer stops changing.
  const { last: status } = await pollUntilSettled(target, 'the company listing its processes after activation', () => api.get('/companies/status', { auth: { clientToken: company.token } }), (answer) => {
    const listed = answer.data?.Details?.Processes;
    return answer.status === 200 && Array.isArray(listed) && processes.every((process) => listed.includes(process));
  });
  // The work completing in the background is what the quote says: the company stays readable. The
  // services body carries no processes, so the listed processes are the registration's (CMP-STA-08,
  // hardening: a warning).
  await expectCheck(status as ApiResponse, [statusIs(200)], { requirement: 'FLOW-17' });
  await expectCheck(
    status as ApiResponse,
    [fieldSatisfies('Details', `lists the processes ${processes.join(', ')} after the activation (made with ${activatedWith})`, (value: any) => Array.isArray(value?.Processes) && processes.every((process) => value.Processes.includes(process)))],
    { requirement: 'CMP-STA-08' },
  );
});

test('a client token works until it is revoked and never after', { tag: tags('flows', 'FLOW-09', 'TOK-09') }, async ({ api, target, registeredCompany }) => {
  const { token } = await createClientToken(api, registeredCompany.erpId);
  const { token: other } = await createClientToken(api, registeredCompany.erpId);
  test.skip(token === undefined || other === undefined, 'no client token could be created');
  const auth = { clientToken: token as string };
  for (let use = 0; use < 3; use++) {
    const status = await api.get('/companies/status', { auth });
    await expectCheck(status, [statusIs(200)], { requirement: 'FLOW-09' });
  }
  const details = await api.get(`/companies/details/${encodeURIComponent(registeredCompany.companyId)}`, { auth });
  await expectCheck(details, [statusIs(200)], { requirement: 'FLOW-09' });

  const revoke = await revokeClientToken(api, token as string);
  await expectCheck(revoke, [statusIs(200)], { requirement: 'TOK-09' });
  // When a revocation takes effect is not said: it gets the async timeout, as TOK-11 does. The spec
  // gives no status for a refused credential, so any 4xx refuses it.
  await expectCheck(await untilTokenRefused(api, target, token as string, 'revoked'), [isRejected], { requirement: 'FLOW-09' });
  for (let use = 0; use < 2; use++) {
    const status = await api.get('/companies/status', { auth });
    await expectCheck(status, [isRejected], { requirement: 'FLOW-09' });
  }
  const detailsAfter = await api.get(`/companies/details/${encodeURIComponent(registeredCompany.companyId)}`, { auth });
  await expectCheck(detailsAfter, [isRejected], { requirement: 'FLOW-09' });
  // Revoking is of that one token: another token of the company, never revoked, still works. That is
  // the natural reading of revoke, not part of the invariant (a refused credential): a warning only.
  const stillValid = await api.get('/companies/status', { auth: { clientToken: other as string } });
  await expectCheck(stillValid, [statusIs(200)], { requirement: 'FLOW-09', level: 'GUIDE' });
});
