import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, envName, flagName, resolveCommandOptions, TEST_OPTIONS } from '../../lib/config.ts';
import { checkBaseUrl, isLoopback, openTarget, probe, TargetUnreachable } from '../../lib/target.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { SecretRegistry } from '../../lib/redact.ts';

const noFile = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' });
};

test('derives flag and environment names from the option key', () => {
  assert.equal(flagName('apiKeyWithoutDelete'), '--api-key-without-delete');
  assert.equal(envName('apiKeyWithoutDelete'), 'DXS_API_KEY_WITHOUT_DELETE');
  assert.equal(envName('baseUrl'), 'DXS_BASE_URL');
});

test('flags win over the environment, which wins over the config file, which wins over defaults', () => {
  const file = JSON.stringify({ baseUrl: 'http://file/v1/api', workers: 3, grep: 'from-file', asyncTimeout: 9 });
  const { options, sources } = resolveCommandOptions(
    TEST_OPTIONS,
    { baseUrl: 'http://flag/v1/api', config: 'dxs.json' },
    { DXS_BASE_URL: 'http://env/v1/api', DXS_WORKERS: '5', DXS_AREA: 'tokens, companies' },
    () => file,
  );
  assert.equal(options.baseUrl, 'http://flag/v1/api');
  assert.equal(options.workers, 5);
  assert.equal(options.grep, 'from-file');
  assert.equal(options.asyncTimeout, 9);
  assert.deepEqual(options.area, ['tokens', 'companies']);
  assert.equal(options.profile, 'full');
  assert.deepEqual([sources.baseUrl, sources.workers, sources.grep, sources.profile], ['flag', 'env', 'config', 'default']);
});

test('the config file can be named by DXS_CONFIG', () => {
  const { options } = resolveCommandOptions(TEST_OPTIONS, {}, { DXS_CONFIG: 'x.json' }, () => '{"apiKey": "from-file-key"}');
  assert.equal(options.apiKey, 'from-file-key');
});

test('bad values are configuration errors that name their source', () => {
  assert.throws(() => resolveCommandOptions(TEST_OPTIONS, { workers: 'two' }, {}, noFile), (error: unknown) => error instanceof ConfigError && /--workers/.test(error.message));
  assert.throws(() => resolveCommandOptions(TEST_OPTIONS, {}, { DXS_CASING: 'kebab' }, noFile), /DXS_CASING.*strict-pascal/);
  assert.throws(() => resolveCommandOptions(TEST_OPTIONS, { shard: '3/2' }, {}, noFile), /--shard/);
  assert.throws(() => resolveCommandOptions(TEST_OPTIONS, { config: 'missing.json' }, {}, noFile), /cannot read config file missing.json: ENOENT/);
  assert.throws(() => resolveCommandOptions(TEST_OPTIONS, { config: 'bad.json' }, {}, () => '{'), /not valid JSON/);
});

test('base URLs must be http(s); a missing /v1/api is a warning', () => {
  assert.throws(() => checkBaseUrl('ftp://host/v1/api'), ConfigError);
  assert.throws(() => checkBaseUrl('not a url'), ConfigError);
  assert.deepEqual(checkBaseUrl('https://host/v1/api/').warnings, []);
  assert.equal(checkBaseUrl('https://host/v1/api/').url, 'https://host/v1/api');
  assert.match(checkBaseUrl('https://host/api').warnings[0], /does not end in \/v1\/api/);
});

test('a refused connection is TargetUnreachable, naming the URL and the cause', async () => {
  await assert.rejects(probe('http://127.0.0.1:1/v1/api', 2000), (error: unknown) => {
    assert.ok(error instanceof TargetUnreachable);
    assert.match(error.message, /http:\/\/127\.0\.0\.1:1\/v1\/api/);
    assert.match(error.message, /refused/);
    assert.equal(error.exitCode, 2);
    return true;
  });
});

test('a remote target needs an API key, and its keys are registered as secrets', async () => {
  await assert.rejects(openTarget({ baseUrl: 'https://staging.invalid/v1/api' }), /no API key/);
  const registry = new SecretRegistry();
  await assert.rejects(openTarget({ baseUrl: 'http://127.0.0.1:1/v1/api', apiKey: 'secret-key-123' }, registry), TargetUnreachable);
  assert.equal(registry.redactText('x secret-key-123 y'), 'x [REDACTED] y');
});

test('without a base URL the embedded sandbox is started on a free port and stopped', async () => {
  const registry = new SecretRegistry();
  const target = await openTarget({}, registry);
  try {
    assert.equal(target.embedded, true);
    assert.match(target.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1\/api$/);
    assert.equal(registry.redactText(target.apiKey), '[REDACTED]');
    await probe(target.baseUrl, 2000);
  } finally {
    await target.close();
  }
});

test('a base URL on this machine without a key is a configuration error: the sandbox keys go only to the sandbox dxs starts', async () => {
  const running = await startSandbox({ port: 0, host: '127.0.0.1' });
  try {
    await assert.rejects(openTarget({ baseUrl: running.baseUrl }, new SecretRegistry()), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /the API key is missing; pass --api-key, set DXS_API_KEY/);
      return true;
    });
    // The user's key only: the second key is not the sandbox's either.
    const target = await openTarget({ baseUrl: running.baseUrl, apiKey: running.apiKey, measureLatency: false }, new SecretRegistry());
    assert.equal(target.apiKeyWithoutDelete, undefined);
  } finally {
    await running.close();
  }
  assert.equal(isLoopback('http://localhost:4010/v1/api'), true);
  assert.equal(isLoopback('http://[::1]:4010/v1/api'), true);
  assert.equal(isLoopback('http://127.10.0.1/v1/api'), true);
  assert.equal(isLoopback('http://127.0.0.1.example.com/v1/api'), false);
});
