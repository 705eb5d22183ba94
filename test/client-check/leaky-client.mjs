// A client that puts its credentials everywhere a report could pick them up: in URLs, bodies and
// its own output. It writes the token it got to DXS_TEST_SECRETS_FILE, so the test can look for it.
import { writeFileSync } from 'node:fs';

const base = process.env.DXS_CLIENT_BASE_URL;
const key = process.env.DXS_CLIENT_API_KEY;
const json = { 'Content-Type': 'application/json' };
await fetch(`${base}/companies/register`, { method: 'POST', headers: { ...json, APIkey: key }, body: JSON.stringify({ ErpId: 'leaky-1', ErpProduct: 'leaky 1', Name: 'Leaky AB', Email: 'a@example.com', CountryCode: 'SE', OrgNo: '5566778899' }) });
const answer = await (await fetch(`${base}/clienttokens/create?apikey=${key}`, { method: 'POST', headers: { ...json, APIkey: key }, body: JSON.stringify({ ErpId: 'leaky-1' }) })).json();
const token = answer.token ?? answer.Token;
writeFileSync(process.env.DXS_TEST_SECRETS_FILE, `${key}\n${token}\n`);
console.log(`my key is ${key} and my token is ${token}`);
await fetch(`${base}/companies/status?token=${token}`, { headers: { ClientToken: token } });
await fetch(`${base}/clienttokens/revoke`, { method: 'POST', headers: { ...json, ClientToken: token }, body: JSON.stringify({ ClientToken: token, Note: `token ${token}` }) });
await fetch(`${base}/companies/status`, { headers: { ClientToken: token, APIkey: key } });
