// dxs certify end to end (issue 22): one clean run of invoice-sender against the embedded sandbox
// (signed) and one with a sandbox fault; every integrity case reuses these two packages, since a
// full run costs a minute or more on a shared machine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE } from '../../lib/defaults.ts';
import { readFolder } from '../../cli/commands/certify.ts';
import { MANIFEST_FILE, sha256, verifyPackage } from '../../report/manifest.ts';
import { REQUIREMENTS_PATH, SPEC_PATH } from '../../schemas/requirements.ts';
import { filesUnder, runDxs, type CliResult } from '../runner/helpers.ts';
import { machinePathsFound } from '../runner/machine-paths.ts';

const RUN_BOUND_MS = 15 * 60_000;
const scratch = mkdtempSync(join(tmpdir(), 'dxs-certify-'));
const keys = join(scratch, 'keys');
const otherKeys = join(scratch, 'other-keys');
const clean = join(scratch, 'clean');
const faulty = join(scratch, 'faulty');
let cleanRun: CliResult;
let faultyRun: CliResult;

before(async () => {
  for (const out of [keys, otherKeys]) {
    const generated = await runDxs(['keys', 'generate', '--out', out], { timeoutMs: 60_000 });
    assert.equal(generated.code, 0, generated.stderr);
  }
  // The key given on the command line too, so that the command the certificate repeats must redact it.
  // No base URL: the subject is dxs's own reference sandbox, which no --deployment may name.
  cleanRun = await runDxs(['certify', '--profile', 'invoice-sender', '--api-key', SANDBOX_API_KEY, '--sign-key', join(keys, 'dxs-signing-key.pem'), '--report-dir', clean], { timeoutMs: RUN_BOUND_MS });
  faultyRun = await runDxs(['certify', '--profile', 'invoice-sender', '--sandbox-fault', 'register-orgno-optional', '--report-dir', faulty], { timeoutMs: RUN_BOUND_MS });
});

after(() => rmSync(scratch, { recursive: true, force: true }));

function pdfText(pdf: string): string {
  return execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
}

test('a clean run of invoice-sender conforms and writes the package and its zip', () => {
  assert.equal(cleanRun.code, 0, cleanRun.stderr.slice(-3000));
  assert.match(cleanRun.stderr, /dxs certify: profile invoice-sender for dxs's own reference sandbox \(no base URL given: no deployment is tested\)/);
  assert.match(cleanRun.stderr, /dxs certify: CONFORMS to profile invoice-sender \(dxs's own reference sandbox \(embedded in dxs [^)]+\), not a deployment\)/);
  assert.deepEqual(readdirSync(clean).sort(), ['certificate.html', 'certificate.json', 'certificate.pdf', 'manifest.json', 'report']);
  // reproduce/ only where a test failed or warned.
  assert.deepEqual(readdirSync(join(clean, 'report')).filter((entry) => entry !== 'reproduce').sort(), ['created.json', 'index.html', 'junit.xml', 'results.json', 'traffic.har']);
  assert.ok(existsSync(`${clean}.zip`));
  const facts = JSON.parse(readFileSync(join(clean, 'certificate.json'), 'utf8'));
  assert.equal(facts.verdict, 'CONFORMS');
  assert.equal(facts.subject.kind, 'reference sandbox');
  assert.equal(facts.deployment, undefined);
  assert.deepEqual(facts.failing, []);
  assert.equal(facts.tests.failed, 0);
  // What is not covered is said, each with its reason.
  assert.ok(facts.notCovered.every((entry: { notes: string[] }) => entry.notes.length > 0 && entry.notes.every((note) => note.trim() !== '')));
  assert.equal(typeof facts.seed, 'number');
});

test('the certificate PDF renders to one page naming the profile, the subject (the reference sandbox), the verdict and the spec digest', () => {
  const pdf = join(clean, 'certificate.pdf');
  const pages = join(scratch, 'page');
  execFileSync('pdftoppm', ['-r', '40', '-png', pdf, pages]);
  const rendered = readdirSync(scratch).filter((name) => name.startsWith('page') && name.endsWith('.png'));
  assert.equal(rendered.length, 1, 'the certificate is one page');
  assert.ok(readFileSync(join(scratch, rendered[0])).length > 5000, 'the page has content');
  const text = pdfText(pdf);
  assert.match(text, /CONFORMS to profile invoice-sender/);
  assert.doesNotMatch(text, /DOES NOT CONFORM/);
  assert.match(text.replace(/\s+/g, ' '), /CONFORMS to profile invoice-sender dxs's own reference sandbox \(embedded in dxs [^)]+\), not a deployment/);
  assert.match(text, /Subject\s+dxs's own reference sandbox/);
  const compact = text.replace(/\s+/g, '');
  assert.ok(compact.includes(sha256(readFileSync(SPEC_PATH))), 'the spec digest');
  assert.ok(compact.includes(sha256(readFileSync(REQUIREMENTS_PATH))), 'the catalog digest');
  assert.match(text, /--api-key \[REDACTED\]/);
});

/**
 * The HAR as the token search reads it: a base64 blob a body carries (the PNG of the provider A
 * icon) is left out, since its runs of letters and digits between + and / look like tokens. A
 * token is base64url, 32 characters, and never holds + or /.
 */
function harText(file: string): string {
  return readFileSync(file, 'latin1').replace(/[A-Za-z0-9+/]{100,}={0,2}/g, (blob) => (/[+/]/.test(blob) ? '(base64)' : blob));
}

test('no file of the package holds a key or a token value', () => {
  // The PDF's own bytes are compressed: its text is what a reader sees. The manifest's signature
  // is base64 of random-looking bytes, not a token.
  const texts = filesUnder(clean).map((file) => ({
    file,
    text: file.endsWith('.pdf') ? pdfText(file) : file.endsWith('.har') ? harText(file) : readFileSync(file, 'latin1').replace(/"value": "[A-Za-z0-9+/=]+"/, '"value": ""'),
  }));
  // The sandbox's client and search tokens: 32 characters of base64url (with upper and lower case
  // and a digit, which spec names such as SendsElectronicInvoiceCapability lack).
  const token = /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/;
  for (const { file, text } of texts) {
    for (const key of [SANDBOX_API_KEY, SANDBOX_API_KEY_WITHOUT_DELETE]) assert.ok(!text.includes(key), `${file} holds an API key`);
    const found = token.exec(text);
    assert.equal(found, null, `${file} holds what looks like a token: ${found?.[0]}`);
  }
  // The tokens were there to find: the run's report says where it redacted them.
  assert.match(readFileSync(join(clean, 'report', 'results.json'), 'utf8'), /\[REDACTED\]/);
});

test('no file of the package or its zip names a path of the machine it ran on (the repository, the home folder, the temporary folder)', () => {
  const texts = new Map(filesUnder(clean).map((file) => [file, file.endsWith('.pdf') ? pdfText(file) : readFileSync(file, 'latin1')]));
  texts.set(`${clean}.zip`, readFileSync(`${clean}.zip`, 'latin1'));
  assert.deepEqual(machinePathsFound(texts), []);
  assert.match(readFileSync(join(clean, 'certificate.json'), 'utf8'), /"file": "document-exchange-api\.md",\s*"sha256": "[0-9a-f]{64}"/);
});

test('with a sandbox fault the certificate says DOES NOT CONFORM and names the failing requirement and what it rests on', () => {
  assert.equal(faultyRun.code, 1, faultyRun.stderr.slice(-3000));
  assert.match(faultyRun.stderr, /DOES NOT CONFORM to profile invoice-sender \(dxs's own reference sandbox \(embedded in dxs [^)]+\), not a deployment\): failing CMP-REG-08/);
  const facts = JSON.parse(readFileSync(join(faulty, 'certificate.json'), 'utf8'));
  assert.equal(facts.verdict, 'DOES NOT CONFORM');
  const failing = facts.failing.find((entry: { id: string }) => entry.id === 'CMP-REG-08');
  assert.ok(failing !== undefined, JSON.stringify(facts.failing));
  const requirement = (JSON.parse(readFileSync(REQUIREMENTS_PATH, 'utf8')) as Array<{ id: string; statement: string; quote?: string }>).find((entry) => entry.id === 'CMP-REG-08');
  const basis = (requirement?.quote ?? requirement?.statement ?? '').replace(/\s+/g, ' ').trim();
  assert.equal(failing.basis, basis);
  const text = pdfText(join(faulty, 'certificate.pdf')).replace(/\s+/g, ' ');
  assert.match(text, /DOES NOT CONFORM to profile invoice-sender/);
  assert.match(text, /CMP-REG-08/);
  assert.ok(text.includes(basis.slice(0, 40)), 'the sentence it rests on');
  assert.match(text, /register-orgno-optional/);
  assert.match(readFileSync(join(faulty, 'certificate.html'), 'utf8'), /DOES NOT CONFORM/);
});

test('the untouched package verifies from the folder and from the zip, with its public key', async () => {
  const publicKey = join(keys, 'dxs-signing-key.pub.pem');
  for (const path of [clean, `${clean}.zip`]) {
    const result = await runDxs(['certify', 'verify', path, '--public-key', publicKey], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /OK: 8 files match manifest\.json; signature valid/);
  }
  // Unsigned, the files alone prove nothing (anyone can change a file and its digest): said plainly, exit 1.
  const unsigned = await runDxs(['certify', 'verify', `${faulty}.zip`], { timeoutMs: 60_000 });
  assert.equal(unsigned.code, 1, unsigned.stderr);
  assert.match(unsigned.stderr, /UNSIGNED: \d+ files match manifest\.json, but the package is NOT signed: nothing proves it was not edited/);
  // Accepted as it is only when asked, and still said.
  const allowed = await runDxs(['certify', 'verify', `${faulty}.zip`, '--allow-unsigned'], { timeoutMs: 60_000 });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stderr, /OK \(--allow-unsigned\): \d+ files match manifest\.json; the package is NOT signed: nothing proves it was not edited/);
});

test('a wrong public key, or a key for an unsigned package, exits 1', async () => {
  const wrong = await runDxs(['certify', 'verify', clean, '--public-key', join(otherKeys, 'dxs-signing-key.pub.pem')], { timeoutMs: 60_000 });
  assert.equal(wrong.code, 1, wrong.stderr);
  assert.match(wrong.stderr, /signature is wrong/);
  const missing = await runDxs(['certify', 'verify', faulty, '--public-key', join(keys, 'dxs-signing-key.pub.pem')], { timeoutMs: 60_000 });
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /signature is missing/);
});

test('changing a byte of any file makes verify exit 1 naming that file', async () => {
  const files = readFolder(clean);
  const publicKey = createPublicKey(readFileSync(join(keys, 'dxs-signing-key.pub.pem')));
  assert.equal(verifyPackage(files, publicKey).ok, true);
  for (const [path, data] of files) {
    // Every byte of the manifest (it lists the others, so a change there is the subtle one); the
    // first, a middle and the last byte of every other file.
    const positions = path === MANIFEST_FILE ? [...data.keys()] : [0, data.length >> 1, data.length - 1];
    for (const position of positions) {
      const changed = Buffer.from(data);
      changed[position] ^= 0x01;
      const result = verifyPackage(new Map([...files, [path, changed]]), publicKey);
      assert.equal(result.ok, false, `${path} byte ${position}`);
      assert.equal(result.file, path, `${path} byte ${position}: ${result.problem}`);
    }
  }
  // The command says it too, from a changed copy of the folder.
  const copy = join(scratch, 'tampered');
  cpSync(clean, copy, { recursive: true });
  const junit = join(copy, 'report', 'junit.xml');
  const bytes = readFileSync(junit);
  bytes[100] ^= 0x01;
  writeFileSync(junit, bytes);
  const result = await runDxs(['certify', 'verify', copy], { timeoutMs: 60_000 });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /FAILED: report\/junit\.xml was changed/);
  // A file added after certification is named too.
  rmSync(copy, { recursive: true });
  cpSync(clean, copy, { recursive: true });
  writeFileSync(join(copy, 'report', 'note.txt'), 'added later');
  const added = await runDxs(['certify', 'verify', copy], { timeoutMs: 60_000 });
  assert.equal(added.code, 1);
  assert.match(added.stderr, /report\/note\.txt is not in the manifest/);
});

test('usage errors exit 2', async () => {
  const noPackage = await runDxs(['certify', 'verify', join(scratch, 'nothing-here')], { timeoutMs: 60_000 });
  assert.equal(noPackage.code, 2, noPackage.stderr);
  // A base URL names a deployment: its name is required.
  const noDeployment = await runDxs(['certify', '--profile', 'invoice-sender', '--base-url', 'http://127.0.0.1:9/v1/api', '--api-key', 'k', '--report-dir', join(scratch, 'never')], { timeoutMs: 60_000 });
  assert.equal(noDeployment.code, 2, noDeployment.stderr);
  assert.match(noDeployment.stderr, /--deployment "<name> <version>" is required with a base URL/);
  // Without a base URL dxs would test its own sandbox: a deployment's name on that certificate would be untrue.
  for (const [args, env, source] of [[['--deployment', 'acme-dx 2.4.1'], {}, '--deployment'], [[], { DXS_DEPLOYMENT: 'acme-dx 2.4.1' }, 'DXS_DEPLOYMENT']] as const) {
    const sandboxNamed = await runDxs(['certify', '--profile', 'invoice-sender', ...args, '--report-dir', join(scratch, 'never')], { env, timeoutMs: 60_000 });
    assert.equal(sandboxNamed.code, 2, sandboxNamed.stderr);
    assert.match(sandboxNamed.stderr, new RegExp(`${source} names a deployment, but no base URL is given: dxs certify would test its own embedded reference sandbox`));
    assert.doesNotMatch(sandboxNamed.stderr, /CONFORMS/);
  }
  assert.ok(!existsSync(join(scratch, 'never')), 'no package folder for a usage error');
  const badKey = await runDxs(['certify', 'verify', clean, '--public-key', join(clean, 'manifest.json')], { timeoutMs: 60_000 });
  assert.equal(badKey.code, 2, badKey.stderr);
});
