// A client of few flows, for the report of what is and is not certified (issue 37).
// PARTIAL_CLIENT_MODE=register-delete: registers a company and requests its deletion, nothing else.
// PARTIAL_CLIENT_MODE=refused-then-exit: registers, asks for a token with a ValidTo that is no
// date-time, is refused, prints its key in an error line and exits 1.
const base = process.env.DXS_CLIENT_BASE_URL;
const key = process.env.DXS_CLIENT_API_KEY;
const json = { 'Content-Type': 'application/json' };
const erpId = `partial-${process.pid}`;
const register = await fetch(`${base}/companies/register`, { method: 'POST', headers: { ...json, APIkey: key }, body: JSON.stringify({ ErpId: erpId, ErpProduct: 'partial 1', Name: 'Partial AB', Email: 'a@example.com', CountryCode: 'SE', OrgNo: '5566778899' }) });
console.log(`register: ${register.status}`);
if (process.env.PARTIAL_CLIENT_MODE === 'refused-then-exit') {
  const token = await fetch(`${base}/clienttokens/create`, { method: 'POST', headers: { ...json, APIkey: key }, body: JSON.stringify({ ErpId: erpId, ValidTo: 'in ten minutes' }) });
  console.error(`token create with key ${key} refused: ${token.status} ${await token.text()}`);
  console.error('giving up');
  process.exit(1);
}
const deleted = await fetch(`${base}/companies/delete`, { method: 'POST', headers: { ...json, APIkey: key }, body: JSON.stringify({ Id: erpId }) });
console.log(`delete: ${deleted.status}`);
