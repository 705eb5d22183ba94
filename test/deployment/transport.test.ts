// The pieces of issue 31 one by one: which proxy a URL takes (curl's rules), what a child process
// is given, the proxy-aware transport of the probe and the cleanup (absolute-form, CONNECT, 407,
// an unknown host), TLS trust and client certificates, and the certificate expiry warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bypassesProxy, displayProxy, proxyCredentialValues, proxyFor } from '../../lib/proxy.ts';
import { childNetwork } from '../../lib/child-network.ts';
import { connectionFor, send, TransportError } from '../../lib/transport.ts';
import { certificateWarning } from '../../lib/server-certificate.ts';
import { probe, TargetUnreachable } from '../../lib/target.ts';
import { SecretRegistry } from '../../lib/redact.ts';
import { fuzzConfigToml } from '../../cli/commands/fuzz/config.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { PROXY_ONLY_HOST, PROXY_PASSWORD, startDeploymentSandbox, startForwardProxy } from './helpers.ts';

test('NO_PROXY matches as curl does: host suffixes on whole labels, a leading dot, *, ports, IPv6', () => {
  const url = (text: string) => new URL(text);
  assert.equal(bypassesProxy(url('https://api.example.com/v1'), 'example.com'), true);
  assert.equal(bypassesProxy(url('https://api.example.com/v1'), '.example.com'), true);
  assert.equal(bypassesProxy(url('https://example.com/v1'), '.example.com'), true);
  assert.equal(bypassesProxy(url('https://badexample.com/v1'), 'example.com'), false, 'a suffix counts only on a label boundary');
  assert.equal(bypassesProxy(url('https://anything.test/'), '*'), true);
  assert.equal(bypassesProxy(url('https://a.example.com:8443/'), 'a.example.com:8443'), true);
  assert.equal(bypassesProxy(url('https://a.example.com/'), 'a.example.com:8443'), false, 'an entry with a port applies to that port only');
  assert.equal(bypassesProxy(url('https://a.example.com/'), 'a.example.com:443'), true, 'the default port of the scheme counts');
  assert.equal(bypassesProxy(url('http://[2001:db8::1]:80/'), '[2001:db8::1]'), true);
  assert.equal(bypassesProxy(url('https://10.1.2.3/'), 'other.example, 10.1.2.3'), true);
  assert.equal(bypassesProxy(url('https://a.example.com/'), undefined), false);
});

test('the proxy of a URL: --proxy over HTTPS_PROXY/HTTP_PROXY (lower case first), NO_PROXY for both, never for this machine', () => {
  const env = { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', HTTP_PROXY: 'plain:8080' };
  assert.equal(proxyFor('https://staging.example/v1/api', undefined, env), 'http://lower:3128');
  assert.equal(proxyFor('http://staging.example/v1/api', undefined, env), 'http://plain:8080', 'host:port is taken as http://host:port');
  assert.equal(proxyFor('https://staging.example/v1/api', 'http://flag:1', env), 'http://flag:1');
  assert.equal(proxyFor('https://staging.example/v1/api', '', env), undefined, '--proxy "" means none');
  assert.equal(proxyFor('https://staging.example/v1/api', 'http://flag:1', { ...env, NO_PROXY: 'example' }), undefined, 'NO_PROXY applies to --proxy too');
  assert.equal(proxyFor('https://127.0.0.1:4010/v1/api', 'http://flag:1', env), undefined, 'k6 and Schemathesis skip loopback, so every client does');
  assert.equal(proxyFor('https://localhost:4010/v1/api', undefined, env), undefined);
});

test('proxy credentials are shown redacted and registered in every form a report could hold', () => {
  const proxy = `http://proxyuser:${PROXY_PASSWORD}@127.0.0.1:3128`;
  assert.equal(displayProxy(proxy), 'http://[REDACTED]@127.0.0.1:3128');
  assert.equal(displayProxy('http://127.0.0.1:3128'), 'http://127.0.0.1:3128');
  const registry = new SecretRegistry();
  connectionFor('https://staging.example/v1/api', { proxy }, {}, registry);
  const text = registry.redactText(`${proxy} ${PROXY_PASSWORD} proxyuser:${PROXY_PASSWORD} ${Buffer.from(`proxyuser:${PROXY_PASSWORD}`).toString('base64')}`);
  assert.doesNotMatch(text, new RegExp(PROXY_PASSWORD));
  assert.doesNotMatch(text, /cHJveHl1c2Vy/, 'the Basic credentials are redacted too');
  assert.ok(proxyCredentialValues('http://127.0.0.1:3128').length === 0);
});

test('a bad proxy URL or half a client certificate is a configuration error', () => {
  assert.throws(() => connectionFor('https://staging.example/v1/api', { proxy: 'https://proxy:443' }, {}), /plain HTTP/);
  assert.throws(() => connectionFor('https://staging.example/v1/api', { clientCert: '/etc/hostname' }, {}), /both --client-cert FILE and --client-key FILE/);
  assert.throws(() => connectionFor('https://staging.example/v1/api', { caCert: '/no/such/ca.pem' }, {}), /cannot read the CA certificate bundle/);
  assert.throws(() => connectionFor('https://staging.example/v1/api', { caCert: '/etc/hostname' }, {}), /holds no PEM/);
});

test('a child process gets the one proxy dxs chose and the CA bundle for Node and for Go', () => {
  const none = childNetwork({ insecure: false }, { HTTPS_PROXY: 'http://corporate:3128', no_proxy: 'x' });
  assert.equal(none.env.HTTPS_PROXY, undefined, 'a target dxs reaches directly is reached directly by k6 and Schemathesis too');
  assert.equal(none.env.no_proxy, undefined);
  const directory = mkdtempSync(join(tmpdir(), 'dxs-child-network-'));
  try {
    const caCert = join(directory, 'ca.pem');
    writeFileSync(caCert, '-----BEGIN CERTIFICATE-----\nTHE-RUN-CA\n-----END CERTIFICATE-----\n');
    const chosen = childNetwork({ insecure: false, proxy: 'http://127.0.0.1:3128', caCert }, { https_proxy: 'http://corporate:3128', NO_PROXY: '*' });
    try {
      for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) assert.equal(chosen.env[name], 'http://127.0.0.1:3128', name);
      assert.equal(chosen.env.NO_PROXY, undefined, 'NO_PROXY was applied already, to the target');
      assert.equal(chosen.env.NODE_EXTRA_CA_CERTS, caCert);
      const roots = readFileSync(chosen.env.SSL_CERT_FILE ?? '', 'utf8');
      assert.match(roots, /THE-RUN-CA/, 'Go reads SSL_CERT_FILE instead of the system roots: it holds the bundle');
      if (existsSync('/etc/ssl/certs/ca-certificates.crt')) assert.ok(roots.length > 10_000, 'and the system roots');
      assert.equal(chosen.fullBundle, chosen.env.SSL_CERT_FILE);
    } finally {
      chosen.dispose();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('the certificate warning starts below 14 days left and never before', () => {
  const certificate = { subject: 'CN=staging', issuer: 'CN=CA', validTo: '2030-01-01T00:00:00.000Z', verified: true };
  assert.equal(certificateWarning({ ...certificate, daysLeft: 14 }), undefined);
  assert.match(certificateWarning({ ...certificate, daysLeft: 13 }) ?? '', /expires in 13 days/);
  assert.match(certificateWarning({ ...certificate, daysLeft: -1 }) ?? '', /expired/);
});

test('the Schemathesis config carries the proxy, the CA bundle and the client certificate (a private file, never a command line)', () => {
  const toml = fuzzConfigToml({ apiKey: 'k', clientToken: 't', scratchClientToken: 's', proxy: 'http://u:p@127.0.0.1:1', tlsVerify: '/tmp/roots.pem', requestCert: '/c.pem', requestCertKey: '/c.key' });
  const head = toml.split('[headers]')[0];
  assert.match(head, /^proxy = "http:\/\/u:p@127\.0\.0\.1:1"$/m, 'top-level keys come before the first table');
  assert.match(head, /^tls-verify = "\/tmp\/roots\.pem"$/m);
  assert.match(head, /^request-cert = "\/c\.pem"$/m);
  assert.match(head, /^request-cert-key = "\/c\.key"$/m);
  assert.match(fuzzConfigToml({ apiKey: 'k', clientToken: 't', scratchClientToken: 's', tlsVerify: false }), /^tls-verify = false$/m);
});

test('the transport goes through the proxy: absolute-form for http, CONNECT for https, with the CA and the certificate', async () => {
  const plain = await startSandbox({ port: 0, host: '127.0.0.1' });
  const secure = await startDeploymentSandbox(['tls']);
  const proxy = await startForwardProxy({ hosts: [PROXY_ONLY_HOST], credentials: true });
  try {
    const plainUrl = plain.baseUrl.replace('127.0.0.1', PROXY_ONLY_HOST);
    const viaProxy = connectionFor(plainUrl, { proxy: proxy.urlWithCredentials }, {});
    const answer = await send(`${plainUrl}/companies/status`, { method: 'GET', timeoutMs: 10_000 }, viaProxy);
    assert.equal(answer.status, 401, 'the sandbox answered, through the proxy');
    assert.ok(proxy.seen.some((line) => line === `GET ${plainUrl}/companies/status`), proxy.seen.join('\n'));

    const tls = connectionFor(secure.hostUrl, { proxy: proxy.urlWithCredentials, caCert: secure.tls?.caCert }, {});
    const certificate = await probe(secure.hostUrl, 10_000, tls);
    assert.ok(proxy.seen.includes(`CONNECT ${new URL(secure.hostUrl).host}`), proxy.seen.join('\n'));
    assert.match(certificate?.subject ?? '', /CN=dxs sandbox/);
    assert.match(certificate?.issuer ?? '', /run CA/);
    assert.ok((certificate?.daysLeft ?? 0) >= 14);

    // SSL_CERT_FILE, which curl, Python and Go read, is trusted by dxs's Node parts too.
    const fromVariable = connectionFor(secure.hostUrl, { proxy: proxy.urlWithCredentials }, { SSL_CERT_FILE: secure.tls?.caCert });
    assert.equal(fromVariable.caCert, secure.tls?.caCert);
    assert.match((await probe(secure.hostUrl, 10_000, fromVariable))?.issuer ?? '', /run CA/);
    const child = childNetwork(fromVariable, { SSL_CERT_FILE: secure.tls?.caCert });
    assert.equal(child.env.SSL_CERT_FILE, secure.tls?.caCert, 'Go keeps the roots SSL_CERT_FILE names');
    assert.equal(child.fullBundle, secure.tls?.caCert);
    child.dispose();

    await assert.rejects(probe(secure.hostUrl, 10_000, connectionFor(secure.hostUrl, { proxy: proxy.url }, {})), (error: unknown) => {
      assert.ok(error instanceof TargetUnreachable);
      assert.match(error.message, /wants credentials \(407/);
      return true;
    });
    await assert.rejects(probe(secure.hostUrl, 10_000, connectionFor(secure.hostUrl, { proxy: proxy.urlWithCredentials }, {})), /TLS: the server's certificate is not trusted .*--ca-cert FILE/);
    const elsewhere = 'https://elsewhere.proxy-only.test/v1/api';
    await assert.rejects(send(elsewhere, { method: 'GET', timeoutMs: 10_000 }, connectionFor(elsewhere, { proxy: proxy.urlWithCredentials }, {})), (error: unknown) => {
      assert.ok(error instanceof TransportError);
      assert.match(error.reason, /could not reach elsewhere\.proxy-only\.test:443 \(it answered CONNECT with 502/);
      return true;
    });
    await assert.rejects(probe(secure.hostUrl, 10_000, { insecure: false }), /host name not found \(DNS\)/);
  } finally {
    await proxy.close();
    await secure.close();
    await plain.close();
  }
});

test('mutual TLS: the transport refuses without a client certificate and passes with the run\'s', async () => {
  const sandbox = await startDeploymentSandbox(['mtls']);
  try {
    const files = sandbox.tls!;
    await assert.rejects(probe(sandbox.baseUrl, 10_000, connectionFor(sandbox.baseUrl, { caCert: files.caCert }, {})), /client certificate/);
    const certificate = await probe(sandbox.baseUrl, 10_000, connectionFor(sandbox.baseUrl, { caCert: files.caCert, clientCert: files.clientCert, clientKey: files.clientKey }, {}));
    assert.match(certificate?.subject ?? '', /dxs sandbox/);
    assert.match(readFileSync(files.clientCert!, 'utf8'), /BEGIN CERTIFICATE/);
  } finally {
    await sandbox.close();
  }
});
