// dxs test under GitHub Actions (issue 43): each failure an `::error` workflow command (title: the
// requirement ID and the test; message: the spec's sentence and what came back), escaped as GitHub
// reads them, and the verdict table appended to the job summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeData, escapeProperty, githubAnnotations } from '../../report/github.ts';
import type { Results, TestRecord } from '../../report/results.ts';
import { requirementById, loadRequirements } from '../../schemas/requirements.ts';
import { writeGithubOutput } from '../../cli/commands/test.ts';

function record(overrides: Partial<TestRecord>): TestRecord {
  return {
    id: 'id-1', title: 't', file: 'contract/tokens.spec.ts', titlePath: ['client tokens', 'token creation without ErpId is rejected'], area: 'tokens', requirements: ['TOK-04'], tags: [],
    status: 'failed', verdict: 'failed', durationMs: 5, annotations: [], requirementVerdicts: { 'TOK-04': 'failed' },
    checks: [{ requirement: 'TOK-04', level: 'MUST', verdict: 'failed', basis: 'spec', check: 'isRejected', expected: 'the call rejected with a 4xx', actual: 'status 200', exchange: 0 }],
    exchanges: [{ title: 'POST /clienttokens/create', endpoint: 'POST /clienttokens/create', durationMs: 3, request: { method: 'POST', url: 'http://127.0.0.1:4010/v1/api/clienttokens/create', headers: {} }, response: { status: 200, headers: {}, size: 10 } }],
    reproduce: { script: 'reproduce/x.sh', call: `curl -i -X POST "$DXS_BASE_URL"'/clienttokens/create' --data-binary '{}'` },
    ...overrides,
  };
}

const results: Results = {
  format: 'dxs-results/1',
  run: { target: 'http://127.0.0.1:4010/v1/api', embedded: false, profile: 'full', areas: ['tokens'], casing: 'any', destructive: false, version: '0.1.0', startedAt: '', finishedAt: '', durationMs: 1, status: 'failed', shards: [] },
  summary: { total: 3, passed: 1, failed: 1, warning: 0, info: 0, skipped: 0, blocked: 1 },
  tests: [
    record({}),
    record({ id: 'id-2', verdict: 'passed', status: 'passed' }),
    record({ id: 'id-3', verdict: 'blocked', status: 'skipped', titlePath: ['send', 'a send, with 100% of it'], failure: 'blocked: no client token: POST /clienttokens/create answered 500', checks: [], requirementVerdicts: { 'TOK-04': 'blocked' } }),
  ],
  coverage: {},
};

test('GitHub escapes: %, CR and LF in a message; also : and , in a property', () => {
  assert.equal(escapeData('100% done\r\nnext'), '100%25 done%0D%0Anext');
  assert.equal(escapeProperty('TOK-04, a: b'), 'TOK-04%2C a%3A b');
});

test('each failed or blocked test is one ::error naming the requirement and the test, with the spec sentence and what came back', () => {
  const lines = githubAnnotations(results, loadRequirements());
  assert.equal(lines.length, 2, 'a passed test gets none');
  const [failed, blocked] = lines;
  assert.ok(failed.startsWith('::error title=TOK-04 contract/tokens.spec.ts › client tokens › token creation without ErpId is rejected::'), failed);
  const message = failed.slice(failed.indexOf('::', 2) + 2);
  assert.ok(!message.includes('\n'), 'one line');
  const quote = requirementById('TOK-04')?.quote;
  assert.ok(quote !== undefined && message.includes(escapeData(`The spec says: "${quote}"`)), message);
  assert.ok(message.includes(escapeData('Expected the call rejected with a 4xx; the target answered status 200 (POST http://127.0.0.1:4010/v1/api/clienttokens/create answered 200).')), message);
  assert.ok(message.includes('%0AReproduce with: curl -i -X POST'), message);
  assert.match(blocked, /^::error title=TOK-04 contract\/tokens\.spec\.ts › send › a send%2C with 100%25 of it::Blocked: blocked: no client token/);
});

test('under GITHUB_ACTIONS=true the annotations are printed and the verdict table is appended to the job summary; elsewhere nothing', () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-github-'));
  try {
    const summary = join(directory, 'summary.md');
    const printed: string[] = [];
    writeGithubOutput(results, join(directory, 'reports'), { GITHUB_STEP_SUMMARY: summary }, (line) => printed.push(line));
    assert.equal(printed.length, 0, 'not under GitHub Actions');
    writeGithubOutput(results, join(directory, 'reports'), { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }, (line) => printed.push(line));
    assert.equal(printed.length, 2);
    const text = readFileSync(summary, 'utf8');
    assert.match(text, /^## dxs test: FAILED/);
    assert.match(text, /\| 1 \| 1 \| 0 \| 0 \| 0 \| 1 \|/);
    assert.match(text, /\| failed \| TOK-04 \| contract\/tokens\.spec\.ts › client tokens › token creation without ErpId is rejected \| Expected the call rejected with a 4xx/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
