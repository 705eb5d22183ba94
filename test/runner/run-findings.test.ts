// A credential that is never refused is found once (issue 58): the first wait that runs out of the
// async timeout with the token still accepted records the finding in a file of the run, and every
// later wait for a token of that kind (this worker's or another's) asks once and does not wait.
// A token refused in time records nothing; an expired token's finding is not a revoked one's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFindingsFile } from '../../report/root-causes.ts';
import type { ApiClient, ApiResponse } from '../../suites/support/client.ts';
import { neverRefusedFinding, untilTokenRefused } from '../../suites/support/companies.ts';
import { useRunContext, type RunContext } from '../../suites/support/run-context.ts';
import { runFinding } from '../../suites/support/run-findings.ts';

const directory = mkdtempSync(join(tmpdir(), 'dxs-run-findings-'));
const context: RunContext = { baseUrl: 'http://127.0.0.1:1/v1/api', apiKey: 'k', asyncTimeoutSeconds: 1, casing: 'any', areas: [], destructive: false, profile: 'full', reportDir: directory, runPrefix: `dxs-findings-${process.pid}`, secretsFile: join(directory, 'secrets'), seed: 1, embedded: true, version: 'dev', startedAt: '' };
useRunContext(context);

/** A target whose company status answers `status` to every token; counts the calls. */
function target(status: number): { api: ApiClient; calls: () => number } {
  let calls = 0;
  const api = { get: async (): Promise<ApiResponse> => {
    calls++;
    return { status, headers: {}, body: Buffer.alloc(0), recorded: { title: 'GET /companies/status', request: {}, response: { status } } } as unknown as ApiResponse;
  } } as unknown as ApiClient;
  return { api, calls: () => calls };
}

test.after(() => rmSync(directory, { recursive: true, force: true }));

test('a revoked token still accepted after the async timeout is found once: the next wait asks once', async () => {
  const refused = target(401);
  assert.equal((await untilTokenRefused(refused.api, context, 'token-a', 'revoked')).status, 401);
  assert.equal(runFinding(neverRefusedFinding('revoked')), undefined, 'a token refused in time is no finding');

  const accepting = target(200);
  assert.equal((await untilTokenRefused(accepting.api, context, 'token-b', 'revoked')).status, 200);
  assert.ok(accepting.calls() > 1, 'the first wait polls until the async timeout');
  const finding = runFinding(neverRefusedFinding('revoked'));
  assert.match(finding?.message ?? '', /revoked ClientToken was still accepted after the async timeout of 1 s/);
  assert.match(readFileSync(runFindingsFile(context), 'utf8'), /revoked token accepted/, 'written for the other workers');

  const again = target(200);
  assert.equal((await untilTokenRefused(again.api, context, 'token-c', 'revoked')).status, 200);
  assert.equal(again.calls(), 1, 'a later wait asks once and does not wait');
  assert.equal(runFinding(neverRefusedFinding('expired')), undefined, 'an expired token is another finding');
});
