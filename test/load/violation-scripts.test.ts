// dxs load's reproduce scripts (issue 43): a small history with a lost invoice (FLOW-04) and a
// foreign delivery (INB-18, INB-20) judged as dxs load judges it; each violation gets a curl
// script with the tokens of the companies involved created with the API key, then the calls that
// show it (the recipient's list both ways, the download, the sender's outbound status), named from
// summary.json's violation, the console line and summary.html; no key nor token in any of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExchangeEvent } from '../../lib/exchange-history.ts';
import { exchangeLines, exchangeSection, judgeExchange } from '../../cli/commands/load/exchange.ts';
import { writeViolationScripts } from '../../cli/commands/load/violation-scripts.ts';

const BASE_URL = 'http://127.0.0.1:4010/v1/api';
const at = (invoked: number): Pick<ExchangeEvent, 'invoked' | 'completed' | 'status'> => ({ invoked, completed: invoked + 10, status: 200 });

const history: ExchangeEvent[] = [
  // m1 to load-B never arrives: B's whole list after the async timeout lacks it.
  { op: 'send', actor: 'load-A', ...at(0), recipient: 'load-B', deliveryType: 'Electronic', documentId: 'out-doc-1', erpDocumentId: 'm1' },
  // m2 to load-B is shown to load-C, which downloads it.
  { op: 'send', actor: 'load-A', ...at(10), recipient: 'load-B', deliveryType: 'Electronic', documentId: 'out-doc-2', erpDocumentId: 'm2' },
  { op: 'list', actor: 'load-C', ...at(100), total: 1, ids: ['in-7'], sequenceNos: [7] },
  { op: 'fetch', actor: 'load-C', ...at(120), id: 'in-7', marker: 'm2' },
  { op: 'list', actor: 'load-B', ...at(2000), total: 0, ids: [], sequenceNos: [] },
];

function written(): { dir: string; summary: ReturnType<typeof judgeExchange>['summary']; scripts: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'dxs-violation-scripts-'));
  const { summary } = judgeExchange(history, { asyncTimeoutMs: 1000 });
  const scripts = writeViolationScripts(dir, 'inbox', summary, BASE_URL);
  return { dir, summary, scripts };
}

test('each violation of the exchange gets a curl script named from its entry', () => {
  const { dir, summary, scripts } = written();
  try {
    const rules = summary.violations.map((violation) => violation.rule).sort();
    // m2 is lost for load-B too: its whole list lacked it.
    assert.deepEqual(rules, ['FLOW-04', 'FLOW-04', 'INB-18', 'INB-20']);
    assert.equal(scripts.length, 4);
    for (const violation of summary.violations) {
      assert.match(violation.reproduce ?? '', new RegExp(`^reproduce/inbox-${violation.rule}-\\d+\\.sh$`));
      const path = join(dir, violation.reproduce as string);
      assert.ok((statSync(path).mode & 0o100) !== 0, 'the script is executable');
      const text = readFileSync(path, 'utf8');
      // A valid sh script, which stops when the key is not set.
      execFileSync('sh', ['-n', path]);
      assert.match(text, /: "\$\{DXS_API_KEY:\?set DXS_API_KEY\}"/);
      assert.match(text, /# Made by dxs load\./);
      assert.ok(!text.includes('stand-in'), 'no stand-in of a key or token is left in the script');
      assert.match(text, /TOKEN_\d+=\$\(jq -r 'getpath\(\["Token"\]\)'/);
    }
    const script = (rule: string, about = ''): string => readFileSync(join(dir, summary.violations.find((violation) => violation.rule === rule && violation.summary.includes(about))?.reproduce as string), 'utf8');

    const lost = script('FLOW-04', 'm1');
    // The tokens of the sender and the recipient, by ErpId, with the API key as a variable.
    assert.match(lost, /-X POST "\$DXS_BASE_URL"'\/clienttokens\/create' -H 'APIkey: '"\$DXS_API_KEY" -H 'content-type: application\/json' --data-binary '\{"ErpId":"load-A",/);
    assert.match(lost, /--data-binary '\{"ErpId":"load-B",/);
    // The sender's outbound status of the DocumentId its send got, then the recipient's whole list both ways, each with its own token.
    assert.match(lost, /-X GET "\$DXS_BASE_URL"'\/documents\/outbound\/out-doc-1' -H 'accept: application\/json' -H 'ClientToken: '"\$TOKEN_1"/);
    assert.match(lost, /-X GET "\$DXS_BASE_URL"'\/documents\/incoming\?type=invoice' -H 'accept: application\/json' -H 'ClientToken: '"\$TOKEN_2"/);
    assert.match(lost, /'\/documents\/incoming\?type=invoice&sequenceNo=0' -H 'accept: application\/json' -H 'ClientToken: '"\$TOKEN_2"/);
    assert.doesNotMatch(lost, /documents\/outbound' /, 'nothing is sent again');
    // The call the violation rests on is the recipient's list that lacked the invoice.
    assert.match(lost, /# \d+\. GET \/documents\/incoming \(the call the check judged: FLOW-04/);

    const foreign = script('INB-18');
    // load-C's list that showed in-7, both ways, and its download of in-7.
    assert.match(foreign, /--data-binary '\{"ErpId":"load-C",/);
    assert.match(foreign, /'\/documents\/incoming\?type=invoice' -H 'accept: application\/json' -H 'ClientToken: '"\$TOKEN_3"/);
    assert.match(foreign, /'\/documents\/incoming\?type=invoice&sequenceNo=0'/);
    assert.match(foreign, /'\/documents\/in-7' -H 'accept: \*\/\*' -H 'ClientToken: '"\$TOKEN_3"/);
    assert.match(foreign, /'\/documents\/outbound\/out-doc-2'/);

    // The console's violation line and summary.html name the script.
    const lines = exchangeLines(summary).join('\n');
    assert.match(lines, /FLOW-04: .*\(reproduce: reproduce\/inbox-FLOW-04-\d+\.sh\)/);
    assert.match(lines, /INB-18: .*\(reproduce: reproduce\/inbox-INB-18-\d+\.sh\)/);
    const html = exchangeSection([{ script: 'inbox', runners: 1, durationSeconds: 1, iterations: 1, requests: 1, endpoints: [], checks: [], thresholds: [], exchange: summary, passed: false }], (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;'));
    for (const violation of summary.violations) assert.ok(html.includes(`<a href="${violation.reproduce}">`), `summary.html links ${violation.reproduce}`);
    assert.ok(JSON.stringify(summary).includes('"reproduce":"reproduce/inbox-FLOW-04-'), 'summary.json holds it as violations[].reproduce');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
