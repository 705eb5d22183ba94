// POST /companies/register beyond companies.spec.ts: every optional field, both IsVatRegistered
// values, all four processes, PostalCode without PostalZone, the update by the same ErpId, wrong
// types, an oversized body; and the processes the status shows afterwards.
import { checks, expectCheck, observe, pollUntilSettled, tags, test } from '../support/index.ts';
import { oversizedString, untilRegistered, withEveryOptionalField } from '../support/companies-more.ts';
import { PROCESSES } from '../../fixtures/index.ts';

const { statusIs, isClientError, notServerError, fieldSatisfies } = checks;

function sameSet(left: unknown, right: readonly string[]): boolean {
  return Array.isArray(left) && left.length === new Set(left).size && left.length === right.length && right.every((item) => left.includes(item));
}

test('register accepts every optional field, IsVatRegistered true and all four processes; the status lists the processes', {
  tag: tags('companies', 'CMP-REG-09', 'CMP-REG-10', 'CMP-REG-11', 'CMP-STA-08', 'CMP-STA-12'),
}, async ({ api, target, fixtures }) => {
  const input = { ...withEveryOptionalField(fixtures.company('SE', { processes: [...PROCESSES] })), IsVatRegistered: true };
  const response = await api.post('/companies/register', { auth: 'apiKey', json: input });
  await expectCheck(response, [statusIs(202)], { requirement: 'CMP-REG-09' });
  await expectCheck(response, [statusIs(202)], { requirement: 'CMP-REG-10' });
  await expectCheck(response, [statusIs(202)], { requirement: 'CMP-REG-11' });
  const { status } = await untilRegistered(api, target, input.ErpId);
  await expectCheck(status, [statusIs(200)], { requirement: 'CMP-STA-12' });
  await expectCheck(
    status,
    [fieldSatisfies('Details', `lists the registered Processes ${PROCESSES.join(', ')}`, (details: any) => sameSet(details?.Processes, PROCESSES))],
    { requirement: 'CMP-STA-08' },
  );
});

test('register accepts IsVatRegistered false and PostalCode without PostalZone', { tag: tags('companies', 'CMP-REG-10', 'CMP-REG-15') }, async ({ api, fixtures }) => {
  const input = { ...fixtures.company('DK', { usePostalCode: true }), IsVatRegistered: false };
  const response = await api.post('/companies/register', { auth: 'apiKey', json: input });
  await expectCheck(response, [statusIs(202)], { requirement: 'CMP-REG-15' });
  await expectCheck(response, [statusIs(202)], { requirement: 'CMP-REG-10' });
});

test('registering again with the same ErpId updates the company', { tag: tags('companies', 'CMP-REG-14', 'CMP-STA-07') }, async ({ api, target, fixtures }) => {
  const input = fixtures.company('FI');
  await expectCheck(await api.post('/companies/register', { auth: 'apiKey', json: input }), [statusIs(202)], { requirement: 'CMP-REG-01' });
  const before = await untilRegistered(api, target, input.ErpId);
  const renamed = { ...input, Name: `${input.Name} Uusi` };
  const update = await api.post('/companies/register', { auth: 'apiKey', json: renamed });
  await expectCheck(update, [statusIs(202)], { requirement: 'CMP-REG-14' });
  const companyId = before.status.data?.CompanyId;
  // The update, too, may complete in the background; the new Name is not promised (CMP-STA-07), so
  // the wait also ends once the answer stops changing.
  const { last } = await pollUntilSettled(target, 'the new Name in the company status', () => api.get('/companies/status', { auth: { clientToken: before.token } }), (answer) => answer.data?.Details?.Name === renamed.Name);
  await expectCheck(last, [statusIs(200), fieldSatisfies('CompanyId', `is still ${companyId}`, (value) => value === companyId)], { requirement: 'CMP-REG-14' });
  // The quote says the company is updated, not that Details echoes the new Name: a service may take
  // the name from a business register (CMP-STA-07, hardening).
  await expectCheck(last, [fieldSatisfies('Details', `carries the new Name ${renamed.Name}`, (details: any) => details?.Name === renamed.Name)], { requirement: 'CMP-STA-07' });
});

test('wrong JSON types on register give no server error', { tag: tags('companies', 'CMP-REG-19') }, async ({ api, fixtures }) => {
  const changes: Array<Record<string, unknown>> = [{ Processes: 'SendInvoices' }, { IsVatRegistered: 'yes' }, { Name: 12345 }];
  for (const change of changes) {
    const response = await api.post('/companies/register', { auth: 'apiKey', json: { ...fixtures.company('SE'), ...change } });
    await expectCheck(response, [notServerError], { requirement: 'CMP-REG-19' });
  }
});

test('an oversized register body gives no server error (and a 4xx: hardening)', { tag: tags('companies', 'CMP-REG-20', 'SEC-22') }, async ({ api, fixtures }) => {
  const response = await api.post('/companies/register', { auth: 'apiKey', json: { ...fixtures.company('SE'), Name: oversizedString() } });
  // "Length limits and formats of company fields: not shown": accepting is allowed, only a 5xx is a defect.
  await expectCheck(response, [notServerError], { requirement: 'CMP-REG-20' });
  await expectCheck(response, [isClientError], { requirement: 'SEC-22' });
});

test('the answers to a very long Name and an OrgNo with bad check digits are recorded', { tag: tags('companies', 'CMP-REG-21') }, async ({ api, fixtures }) => {
  const company = fixtures.company('SE');
  // Led by the generated name, which carries the run token: concurrent runs never share a name.
  const longName = await api.post('/companies/register', { auth: 'apiKey', json: { ...company, Name: `${company.Name} ${'Lång'.repeat(250)}`.slice(0, 1000) } });
  const valid = fixtures.company('SE');
  // The last digit of a Swedish OrgNo is a Luhn check digit: another last digit breaks it.
  const badOrgNo = valid.OrgNo.replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
  const badCheckDigit = await api.post('/companies/register', { auth: 'apiKey', json: { ...valid, OrgNo: badOrgNo } });
  await observe('CMP-REG-21', `a 1000-character Name answered ${longName.status}; an OrgNo with a bad check digit answered ${badCheckDigit.status}`, badCheckDigit);
});
