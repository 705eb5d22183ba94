// Playwright's HTML report with a failure names the folder dxs runs from in its embedded zip (stack
// lines, error locations); dxs test rewrites it with those paths relative to that folder (issue 60).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { relativeToRoot, relativizePlaywrightReport } from '../../report/playwright-html.ts';
import { readZip, writeZip } from '../../report/zip.ts';

const ROOT_OF_RUN = '/opt/somewhere/lib/dxs';

function reportWith(entries: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-playwright-html-'));
  const zip = writeZip(Object.entries(entries).map(([name, text]) => ({ name, data: Buffer.from(text) })));
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'index.html'), `<html><script>window.playwrightReportBase64 = "data:application/zip;base64,${zip.toString('base64')}";</script><p>$& $1</p></html>`);
  return directory;
}

function embedded(directory: string): Map<string, string> {
  const html = readFileSync(join(directory, 'index.html'), 'utf8');
  const base64 = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/.exec(html)?.[1] ?? '';
  return new Map(readZip(Buffer.from(base64, 'base64')).map((entry) => [entry.name, entry.data.toString('utf8')]));
}

test("a failure's stack lines and locations in Playwright's HTML report name files relative to the folder dxs runs from", () => {
  const stack = `Error: TOK-01\\n    at ${ROOT_OF_RUN}/suites/contract/fault-guards.spec.ts:55:5\\n    at broken (${ROOT_OF_RUN}/suites/support/prerequisites.ts:105:11)`;
  const directory = reportWith({
    'report.json': JSON.stringify({ files: [{ fileName: 'contract/fault-guards.spec.ts' }], location: { file: `${ROOT_OF_RUN}/suites/support/prerequisites.ts`, line: 108 } }),
    'c273.json': JSON.stringify({ errors: [{ message: stack }] }),
  });
  try {
    assert.equal(relativizePlaywrightReport(directory, ROOT_OF_RUN), true);
    const texts = embedded(directory);
    for (const [name, text] of texts) assert.ok(!text.includes(ROOT_OF_RUN), `${name} still names ${ROOT_OF_RUN}`);
    assert.match(texts.get('c273.json') ?? '', /at suites\/contract\/fault-guards\.spec\.ts:55:5/);
    assert.equal((JSON.parse(texts.get('report.json') ?? '{}') as { location: { file: string } }).location.file, 'suites/support/prerequisites.ts');
    // The page around the data is kept as it was.
    assert.match(readFileSync(join(directory, 'index.html'), 'utf8'), /<p>\$& \$1<\/p><\/html>$/);
    // A report with nothing to change is not written again.
    assert.equal(relativizePlaywrightReport(directory, ROOT_OF_RUN), false);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a folder without a Playwright report, or a report without embedded data, is left alone', () => {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-playwright-html-'));
  try {
    assert.equal(relativizePlaywrightReport(join(directory, 'absent'), ROOT_OF_RUN), false);
    writeFileSync(join(directory, 'index.html'), '<html>no data</html>');
    assert.equal(relativizePlaywrightReport(directory, ROOT_OF_RUN), false);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('only whole path prefixes under the root are made relative', () => {
  assert.equal(relativeToRoot(`${ROOT_OF_RUN}/suites/a.ts ${ROOT_OF_RUN}-other/b.ts /opt/somewhere/c.ts`, ROOT_OF_RUN), `suites/a.ts ${ROOT_OF_RUN}-other/b.ts /opt/somewhere/c.ts`);
  assert.equal(relativeToRoot('at /x.ts', '/'), 'at /x.ts', 'the root folder / is no prefix to strip');
});
