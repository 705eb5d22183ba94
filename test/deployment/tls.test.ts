// dxs against the sandbox over HTTPS with a CA made for the run (issue 31): `dxs sandbox --variant
// tls` prints the CA's file, a run without --ca-cert exits 2 with a TLS message, a run with it
// passes; mutual TLS refuses a run without a client certificate and passes one with it; the
// embedded sandbox trusts its own CA; a certificate that expires soon is a warning, not a failure;
// --insecure is said in the report and the certificate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { basename, join } from 'node:path';
import { runDxs } from '../runner/helpers.ts';
import { runDxsWith, startDeploymentSandbox } from './helpers.ts';
import { k6Binary, NO_K6 } from '../load/helpers.ts';

const SCHEMATHESIS = new URL('../../.tools/venv/bin/schemathesis', import.meta.url).pathname;

const API_KEY = 'sandbox-key-with-delete-role';
/** One cheap test of the catalog: enough to prove a run reaches the target and is judged. */
const ONE_TEST = ['--area', 'tokens', '--grep', '@TOK-01', '--workers', '1'];

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'dxs-tls-'));
}

function results(directory: string): any {
  return JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8'));
}

test('dxs sandbox --variant tls prints its CA; dxs test exits 2 with a TLS message without --ca-cert and passes with it', async () => {
  const work = scratch();
  try {
    let baseUrl = '';
    let caCert = '';
    let process: ChildProcess | undefined;
    // The sandbox of the CLI, stopped once it has said where it listens and where its CA is.
    const sandbox = runDxs(['sandbox', '--variant', 'tls', '--port', '0'], {
      timeoutMs: 300_000,
      onOutput: (output, child) => {
        process = child;
        baseUrl = /listening on (https:\/\/\S+)/.exec(output)?.[1] ?? '';
        caCert = /CA certificate: (\S+)/.exec(output)?.[1] ?? '';
      },
    });
    for (let attempt = 0; attempt < 600 && caCert === ''; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      assert.match(baseUrl, /^https:\/\/127\.0\.0\.1:\d+\/v1\/api$/);
      assert.ok(existsSync(caCert), `the CA file ${caCert} exists while the sandbox runs`);

      const untrusted = await runDxsWith(['test', '--base-url', baseUrl, '--api-key', API_KEY, '--report-dir', join(work, 'untrusted'), ...ONE_TEST]);
      assert.equal(untrusted.code, 2, untrusted.stderr);
      assert.match(untrusted.stderr, /TLS: the server's certificate is not trusted .*--ca-cert FILE/);
      assert.equal(results(join(work, 'untrusted')).run.status, 'unreachable', 'the report is written all the same');

      const trusted = await runDxsWith(['test', '--base-url', baseUrl, '--api-key', API_KEY, '--ca-cert', caCert, '--report-dir', join(work, 'trusted'), ...ONE_TEST]);
      assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
      const run = results(join(work, 'trusted')).run;
      assert.equal(run.connection.caCert, basename(caCert), 'the report names the CA bundle by its file name, no path of the machine');
      assert.match(run.connection.certificate.issuer, /dxs sandbox run CA/);
      assert.ok(run.connection.certificate.daysLeft >= 14);
      assert.deepEqual(run.connection.warnings, []);
      assert.match(readFileSync(join(work, 'trusted', 'index.html'), 'utf8'), /Server certificate<\/td><td>O=dxs sandbox, CN=dxs sandbox; issuer O=dxs sandbox, CN=dxs sandbox run CA; valid until/);

      // --insecure: the run passes without the CA, and its report says it proves nothing of who answered.
      const insecure = await runDxsWith(['test', '--base-url', baseUrl, '--api-key', API_KEY, '--insecure', '--report-dir', join(work, 'insecure'), ...ONE_TEST]);
      assert.equal(insecure.code, 0, insecure.stdout + insecure.stderr);
      assert.match(insecure.stderr, /warning: --insecure/);
      const insecureRun = results(join(work, 'insecure')).run;
      assert.equal(insecureRun.connection.insecure, true);
      assert.equal(insecureRun.connection.certificate.verified, false);
      assert.match(readFileSync(join(work, 'insecure', 'index.html'), 'utf8'), /--insecure: certificate not verified/);
    } finally {
      process?.kill('SIGTERM');
      await sandbox;
    }
    assert.equal(existsSync(caCert), false, 'the run\'s CA is removed with the sandbox');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('mutual TLS: a run without a client certificate is refused (exit 2), one with --client-cert/--client-key passes', async () => {
  const sandbox = await startDeploymentSandbox(['mtls']);
  const work = scratch();
  try {
    const files = sandbox.tls!;
    const refused = await runDxsWith(['test', '--base-url', sandbox.baseUrl, '--api-key', API_KEY, '--ca-cert', files.caCert, '--report-dir', join(work, 'refused'), ...ONE_TEST]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /TLS: the server refused the connection during the handshake .*--client-cert FILE --client-key FILE/);

    // The files through the environment variables, as a CI job would give them.
    const accepted = await runDxsWith(['test', '--base-url', sandbox.baseUrl, '--api-key', API_KEY, '--report-dir', join(work, 'accepted'), ...ONE_TEST], {
      DXS_CA_CERT: files.caCert,
      DXS_CLIENT_CERT: files.clientCert!,
      DXS_CLIENT_KEY: files.clientKey!,
    });
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    const run = results(join(work, 'accepted')).run;
    assert.equal(run.connection.clientCert, basename(files.clientCert!), 'the report names the client certificate by its file name, no path of the machine');
    assert.ok(results(join(work, 'accepted')).summary.passed > 0);
  } finally {
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('the embedded sandbox trusts its own CA; a server certificate with fewer than 14 days left is a warning, not a failure', async () => {
  const work = scratch();
  try {
    const run = await runDxsWith(['test', '--sandbox-variant', 'tls-expiring', '--report-dir', work, ...ONE_TEST]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stderr, /warning: the server certificate \(O=dxs sandbox, CN=dxs sandbox\) expires in [45] days/);
    const recorded = results(work).run;
    assert.match(recorded.target, /^https:\/\/127\.0\.0\.1:/);
    assert.ok(recorded.connection.certificate.daysLeft < 14);
    assert.match(recorded.connection.warnings.join('\n'), /expires in [45] days/);
    assert.equal(recorded.status, 'passed');
    assert.match(readFileSync(join(work, 'index.html'), 'utf8'), /<span class="badge warning">warning<\/span> the server certificate \(O=dxs sandbox, CN=dxs sandbox\) expires in/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('dxs load and dxs fuzz against the embedded mtls sandbox present its client certificate (k6 tlsAuth, Schemathesis request-cert) and trust its CA', { skip: k6Binary() === undefined ? NO_K6 : !existsSync(SCHEMATHESIS) ? 'Schemathesis is not installed (scripts/setup.sh)' : undefined }, async () => {
  const work = scratch();
  try {
    const load = await runDxsWith(['load', '--sandbox-variant', 'mtls', '--profile', 'smoke', '--script', 'client-tokens', '--duration', '3s', '--report-dir', join(work, 'load')]);
    assert.equal(load.code, 0, load.stdout + load.stderr);
    assert.match(load.stdout, /client-tokens: passed/);
    assert.match(load.stderr, /client certificate \S+ \(mutual TLS\)/);

    const fuzz = await runDxsWith(['fuzz', '--sandbox-variant', 'mtls', '--max-examples', '1', '--seed', '1', '--duration', '120', '--report-dir', join(work, 'fuzz')]);
    assert.equal(fuzz.code, 0, fuzz.stdout.slice(-3000) + fuzz.stderr);
    assert.match(readFileSync(join(work, 'fuzz', 'fuzz-output.txt'), 'utf8'), /\d+ generated, \d+ passed/, 'Schemathesis got answers');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
