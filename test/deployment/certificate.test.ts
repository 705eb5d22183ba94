// The certificate of a run says how it reached the target: through a proxy (its credentials
// never), with mutual TLS, and above all when --insecure left the server certificate unverified.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certificateFacts } from '../../report/certificate-facts.ts';
import { renderCertificate } from '../../report/certificate.ts';
import { connectionInfo } from '../../report/connection.ts';
import { summarise, type Results } from '../../report/results.ts';

function facts(connection: Results['run']['connection']) {
  const results: Results = {
    format: 'dxs-results/1',
    run: {
      target: 'https://staging.example/v1/api', embedded: false, profile: 'inbox', areas: ['tokens'], casing: 'any', destructive: false, version: '0.1.0',
      startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', durationMs: 60_000, status: 'passed', shards: [], connection,
    },
    summary: summarise([]),
    tests: [],
    coverage: {},
  };
  return certificateFacts({
    results, catalog: [], profile: { name: 'inbox', description: 'inbox', areas: ['tokens'], destructive: false }, deployment: { name: 'acme dx', version: '1' },
    keys: [], spec: { file: 'spec.md', sha256: 'a'.repeat(64) }, catalogFile: { file: 'schemas/requirements.json', sha256: 'b'.repeat(64) }, command: 'dxs certify',
  });
}

const certificate = { subject: 'CN=staging.example', issuer: 'CN=Acme CA', validTo: '2027-01-01T00:00:00.000Z', daysLeft: 300, verified: false };

test('the certificate says --insecure, the proxy without its credentials, and mutual TLS', () => {
  const info = connectionInfo({ proxy: 'http://user:pr0xy-s3cret@proxy.example:3128', clientCert: '/c.pem', clientKey: '/c.key', insecure: true }, certificate);
  const computed = facts(info);
  assert.equal(computed.connection?.insecure, true);
  const html = renderCertificate(computed);
  assert.match(html, /<b id="insecure">--insecure: the server certificate was NOT verified<\/b>/);
  assert.match(html, /through the proxy <code>http:\/\/\[REDACTED\]@proxy\.example:3128<\/code>/);
  assert.match(html, /mutual TLS \(client certificate\)/);
  assert.doesNotMatch(html, /pr0xy-s3cret/);
});

test('a verified run says nothing of --insecure', () => {
  const html = renderCertificate(facts(connectionInfo({ insecure: false }, { ...certificate, verified: true })));
  assert.doesNotMatch(html, /insecure/);
  assert.match(html, /server certificate CN=staging\.example, issued by CN=Acme CA, valid until 2027-01-01/);
});
