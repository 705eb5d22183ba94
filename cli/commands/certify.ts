// dxs certify (issue 22): runs a profile as dxs test does and writes a certification package an
// integrator can hand over and anyone can verify:
//   <package>/report/         index.html, results.json, junit.xml, created.json, traffic.har and reproduce/ of the run
//   <package>/certificate.html, certificate.pdf, certificate.json   the one-page certificate
//   <package>/manifest.json   sha256 of every file, optionally an Ed25519 signature
//   <package>.zip             the same files, beside the folder
// Playwright's own report (playwright/) is left out: it stores the steps compressed, where no one
// can check that no key or token is in them. dxs certify verify checks a folder or a zip.
// Exit codes: those of dxs test (0 conforms, 1 a requirement failed or was blocked, 2 usage,
// configuration, unreachable target, a run that could not complete, or a package not written).
import { Command, Option } from 'commander';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConfigError, envName, flagName, TEST_OPTIONS, resolveCommandOptions, type OptionSource, type OptionSpec } from '../../lib/config.ts';
import { REDACTED, secrets } from '../../lib/redact.ts';
import { loadRequirements, REQUIREMENTS_PATH, SPEC_PATH } from '../../schemas/requirements.ts';
import { certificateFacts, parseDeployment, type CertificateFacts, type KeyRole } from '../../report/certificate-facts.ts';
import { certificateRenderings } from '../../report/certificate.ts';
import { buildManifest, fileSha256, MANIFEST_FILE, publicKeySha256, serialiseManifest, verifyPackage } from '../../report/manifest.ts';
import { HAR_FILE } from '../../report/har.ts';
import { REPRODUCE_FOLDER } from '../../suites/support/replay.ts';
import { displayPath, folderTimestamp, readResults } from '../../report/write.ts';
import { readZip, writeZip, ZipError } from '../../report/zip.ts';
import { addOptions } from '../options.ts';
import { printPdf } from './certify-pdf.ts';
import { loadProfiles, runTestCommand } from './test.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** What a certification may not narrow: it runs the whole profile, so these of dxs test are not its options. */
const NARROWING = new Set(['area', 'grep', 'shard', 'maxFailures', 'failFast', 'baseline', 'expectFailures', 'destructive', 'lastFailed']);

export const CERTIFY_OPTIONS: readonly OptionSpec[] = [
  ...TEST_OPTIONS.filter((spec) => !NARROWING.has(spec.key) && spec.key !== 'profile' && spec.key !== 'reportDir'),
  { key: 'profile', kind: 'string', argument: 'NAME', description: 'the profile to certify (required; see dxs test --help); its areas run, destructive checks where the profile has them' },
  { key: 'deployment', kind: 'string', argument: '"NAME VERSION"', description: 'the deployment certified, its name and version, e.g. "acme-dx 2.4.1" (required with --base-url; refused without one, where the subject is dxs\'s own reference sandbox)' },
  { key: 'signKey', kind: 'string', argument: 'PEM', description: 'Ed25519 private key (PEM, from dxs keys generate) to sign manifest.json with' },
  { key: 'reportDir', kind: 'string', argument: 'DIR', description: 'the package folder (default: reports/certify-<timestamp>/); the .zip is written beside it' },
];

/**
 * The files of the run's report that go into the package; the rest of the report directory is left out.
 * The traffic and the reproduce scripts go in because the report's failure cards link to them, and a
 * reader of the hand-over reproduces a failure from them (both are plain text, redacted like the report).
 */
const REPORT_FILES = ['index.html', 'results.json', 'junit.xml', 'created.json', HAR_FILE, REPRODUCE_FOLDER];
/** The files certify writes at the package's root. */
const PACKAGE_FILES = ['certificate.html', 'certificate.pdf', 'certificate.json', MANIFEST_FILE];

class UsageError extends ConfigError {}

export function readKey(path: string, kind: 'private' | 'public'): KeyObject {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the ${kind} key ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(text) : createPublicKey(text);
  } catch (error) {
    throw new UsageError(`${path} is not a PEM ${kind} key: ${(error as Error).message.split('\n')[0]}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new UsageError(`${path} is a ${key.asymmetricKeyType ?? 'symmetric'} key; dxs signs with Ed25519 (dxs keys generate --out DIR)`);
  return key;
}

/** The command as typed, with the value of every key option and every registered secret redacted. */
/**
 * A hand-over document carries no path of the machine it ran on: an absolute path given to the
 * command (--report-dir /home/…/cert, --sign-key …) is shown relative to the folder it ran in, or
 * by its last part when it lies outside.
 */
function withoutMachinePath(word: string): string {
  const flag = /^(--[\w-]+=)(.*)$/.exec(word);
  const [prefix, value] = flag !== null ? [flag[1], flag[2]] : ['', word];
  if (!isAbsolute(value)) return word;
  const inside = relative(process.cwd(), value);
  return `${prefix}${inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : `…/${basename(value)}`}`;
}

export function redactedCommand(argv: readonly string[]): string {
  const secretFlags = new Set(['--api-key', '--api-key-without-delete']);
  const words = argv.map((word, index) => {
    if (index > 0 && secretFlags.has(argv[index - 1])) return REDACTED;
    const inline = /^(--api-key(?:-without-delete)?)=/.exec(word);
    return inline !== null ? `${inline[1]}=${REDACTED}` : secrets.redactText(withoutMachinePath(word));
  });
  const quote = (word: string): string => (/^[\w@%+=:,./[\]-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return ['dxs', ...words.map(quote)].join(' ');
}

function sourceName(key: string, source: OptionSource | undefined): string {
  if (source === 'flag') return flagName(key);
  if (source === 'env') return envName(key);
  if (source === 'config') return 'the config file';
  return 'default';
}

/** The keys of the run by role: which it had and where they came from, never their values. */
function keyRoles(options: Record<string, unknown>, sources: Record<string, OptionSource>): KeyRole[] {
  const embedded = options.baseUrl === undefined || options.baseUrl === '';
  // A base URL the user gives gets the user's keys only (lib/target.ts).
  const defaultSource = embedded ? "the embedded sandbox's own" : 'none';
  const given = (key: string): string => (options[key] !== undefined && options[key] !== '' ? sourceName(key, sources[key]) : defaultSource);
  const roles: KeyRole[] = [{ role: 'API key (APIkey header)', source: given('apiKey') }];
  const withoutDelete = given('apiKeyWithoutDelete');
  roles.push(withoutDelete === 'none' ? { role: 'API key without DeleteRegistration', source: 'not given: the checks that need it were skipped' } : { role: 'API key without DeleteRegistration', source: withoutDelete });
  roles.push({ role: 'client tokens and search tokens (ClientToken header)', source: 'created by the run for its own companies' });
  return roles;
}

/** Every file below a folder, by its path relative to it with forward slashes. */
export function readFolder(folder: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory).sort()) {
      const path = join(directory, entry);
      if (lstatSync(path).isDirectory()) walk(path);
      else files.set(relative(folder, path).split(sep).join('/'), readFileSync(path));
    }
  };
  walk(folder);
  return files;
}

/** The package folder: the one given (emptied of an earlier package), or a new reports/<prefix>-<timestamp>/. */
export function preparePackageDir(reportDir: string | undefined, started: Date, prefix = 'certify'): string {
  if (reportDir === undefined) {
    let directory = resolve('reports', `${prefix}-${folderTimestamp(started)}`);
    for (let suffix = 2; existsSync(directory); suffix++) directory = resolve('reports', `${prefix}-${folderTimestamp(started)}-${suffix}`);
    mkdirSync(directory, { recursive: true });
    return directory;
  }
  const directory = resolve(reportDir);
  mkdirSync(directory, { recursive: true });
  for (const name of ['report', ...PACKAGE_FILES]) rmSync(join(directory, name), { recursive: true, force: true });
  // Anything else would be in the package without being part of the certification.
  const others = readdirSync(directory);
  if (others.length > 0) throw new UsageError(`${displayPath(directory)} holds other files (${others.slice(0, 3).join(', ')}): a package folder holds only its own; choose an empty or new --report-dir`);
  return directory;
}

/** Leaves the report's own files, removing Playwright's report and the raw journal. */
function trimReport(reportDir: string): void {
  if (!existsSync(reportDir)) return;
  for (const entry of readdirSync(reportDir)) if (!REPORT_FILES.includes(entry)) rmSync(join(reportDir, entry), { recursive: true, force: true });
}

export async function runCertifyCommand(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const started = new Date();
  let options: Record<string, unknown>;
  let sources: Record<string, OptionSource>;
  let deployment: { name: string; version: string } | undefined;
  let signKey: KeyObject | undefined;
  let packageDir: string;
  const profiles = loadProfiles();
  try {
    ({ options, sources } = resolveCommandOptions([...CERTIFY_OPTIONS, ...TEST_OPTIONS.filter((spec) => NARROWING.has(spec.key))], flags, env, (path) => readFileSync(path, 'utf8')));
    for (const key of NARROWING) {
      if (sources[key] !== 'default') throw new UsageError(`dxs certify runs the whole profile: ${sourceName(key, sources[key])} (${key}) cannot narrow it`);
    }
    // A certificate names the spec it certifies against by its digest: without the spec there is nothing to name.
    if (!existsSync(SPEC_PATH)) throw new UsageError(`the spec ${basename(SPEC_PATH)} cannot be read${process.env.DXS_SPEC !== undefined ? ' (DXS_SPEC)' : ''}: no certificate can name its digest`);
    if (typeof options.profile !== 'string' || options.profile === '') throw new UsageError(`--profile is required (known: ${Object.keys(profiles).join(', ')})`);
    if (profiles[options.profile] === undefined) throw new UsageError(`unknown profile "${options.profile}" (known: ${Object.keys(profiles).join(', ')})`);
    if (options.baseUrl === undefined || options.baseUrl === '') {
      // Without a base URL the run tests dxs's own embedded sandbox: a deployment's name on its certificate would be untrue.
      if (options.deployment !== undefined && options.deployment !== '') {
        throw new UsageError(
          `${sourceName('deployment', sources.deployment)} names a deployment, but no base URL is given: dxs certify would test its own embedded reference sandbox, and a certificate names only what was tested. Give the deployment's --base-url (and --api-key), or leave --deployment out to certify the reference sandbox`,
        );
      }
    } else {
      deployment = typeof options.deployment === 'string' ? parseDeployment(options.deployment) : undefined;
      if (deployment === undefined) throw new UsageError('--deployment "<name> <version>" is required with a base URL, e.g. --deployment "acme-dx 2.4.1"');
    }
    if (typeof options.signKey === 'string') signKey = readKey(options.signKey, 'private');
    packageDir = preparePackageDir(options.reportDir as string | undefined, started);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`dxs certify: ${error.message}`);
    return 2;
  }
  const profileName = options.profile as string;
  const profile = profiles[profileName];
  const reportDir = join(packageDir, 'report');
  const subject = deployment !== undefined ? `${deployment.name} ${deployment.version}` : "dxs's own reference sandbox (no base URL given: no deployment is tested)";
  console.error(`dxs certify: profile ${profileName} for ${subject}; package ${displayPath(packageDir)}`);

  // The run is dxs test's, with the profile deciding the areas and whether destructive checks run.
  const testFlags = Object.fromEntries(Object.entries(flags).filter(([key]) => key !== 'deployment' && key !== 'signKey'));
  const code = await runTestCommand({ ...testFlags, profile: profileName, reportDir, destructive: false }, env);
  trimReport(reportDir);
  const resultsPath = join(reportDir, 'results.json');
  if (!existsSync(resultsPath)) {
    console.error(`dxs certify: the run wrote no results.json; no certificate is issued`);
    return 2;
  }
  const results = readResults(resultsPath);
  // A wrong key, a base URL that is not the API's, an unreachable target: a configuration error
  // (exit 2, said above) certifies nothing, neither way.
  if (code === 2 && results.tests.length === 0) {
    console.error(`dxs certify: the run stopped before its tests (${results.run.status}); no certificate is issued`);
    // A folder of its own making goes; a --report-dir keeps the run's report, which says why.
    if (options.reportDir === undefined) rmSync(packageDir, { recursive: true, force: true });
    return 2;
  }
  const facts: CertificateFacts = certificateFacts({
    results,
    catalog: loadRequirements(),
    profile: { name: profileName, description: profile.description, areas: results.run.areas.length > 0 ? results.run.areas : profile.areas, destructive: results.run.destructive },
    deployment,
    sandboxFaults: results.run.embedded ? ((options.sandboxFault as string[] | undefined) ?? []) : [],
    sandboxVariants: results.run.embedded ? ((options.sandboxVariant as string[] | undefined) ?? []) : [],
    keys: keyRoles(options, sources),
    spec: { file: basename(SPEC_PATH), sha256: fileSha256(SPEC_PATH) },
    catalogFile: { file: relative(ROOT, REQUIREMENTS_PATH), sha256: fileSha256(REQUIREMENTS_PATH) },
    command: redactedCommand(argv),
  });
  // Redacted once more, as every report file is: the last line of defence.
  writeFileSync(join(packageDir, 'certificate.json'), `${secrets.redactText(JSON.stringify(facts, null, 1))}\n`);
  const htmlFile = join(packageDir, 'certificate.html');
  const renderings = certificateRenderings(facts).map((html) => secrets.redactText(html));
  writeFileSync(htmlFile, renderings[0]);
  let exitCode = code;
  try {
    await printPdf(htmlFile, join(packageDir, 'certificate.pdf'), renderings);
  } catch (error) {
    console.error(`dxs certify: certificate.pdf not written: ${(error as Error).message.split('\n')[0]}`);
    exitCode = 2;
  }

  const manifest = buildManifest(readFolder(packageDir), new Date().toISOString(), signKey);
  writeFileSync(join(packageDir, MANIFEST_FILE), serialiseManifest(manifest));
  const zipFile = `${packageDir}.zip`;
  const folder = basename(packageDir);
  writeFileSync(zipFile, writeZip([...readFolder(packageDir)].map(([path, data]) => ({ name: `${folder}/${path}`, data }))));

  const failing = facts.failing.map((requirement) => requirement.id).join(', ');
  console.error(`dxs certify: ${facts.verdict} to profile ${profileName} (${facts.subject.text})${failing !== '' ? `: failing ${failing}` : ''}${facts.runProblem !== undefined ? `; the run could not complete: ${facts.runProblem}` : ''}`);
  console.error(`dxs certify: ${manifest.files.length + 1} files${signKey !== undefined ? ', manifest signed (Ed25519)' : ''}; certificate: ${displayPath(htmlFile)}`);
  console.error(`package: ${displayPath(packageDir)} (zip: ${displayPath(zipFile)})`);
  return exitCode;
}

/** The files of a package folder or zip; a zip's single top folder is taken off the names. */
export function readPackage(path: string): Map<string, Buffer> {
  if (!existsSync(path)) throw new UsageError(`${path} does not exist`);
  if (statSync(path).isDirectory()) return readFolder(path);
  const entries = readZip(readFileSync(path));
  const tops = new Set(entries.map((entry) => entry.name.split('/')[0]));
  const strip = tops.size === 1 && entries.every((entry) => entry.name.includes('/'));
  return new Map(entries.map((entry) => [strip ? entry.name.slice(entry.name.indexOf('/') + 1) : entry.name, entry.data]));
}

export function runVerifyCommand(path: string, publicKeyPath: string | undefined, allowUnsigned = false): number {
  let files: Map<string, Buffer>;
  let publicKey: KeyObject | undefined;
  try {
    publicKey = publicKeyPath === undefined ? undefined : readKey(publicKeyPath, 'public');
    files = readPackage(path);
  } catch (error) {
    if (error instanceof ZipError) {
      console.error(`dxs certify verify: ${path}: ${error.message}`);
      return 1;
    }
    if (!(error instanceof ConfigError)) throw error;
    console.error(`dxs certify verify: ${error.message}`);
    return 2;
  }
  const result = verifyPackage(files, publicKey);
  if (!result.ok) {
    console.error(`dxs certify verify: FAILED: ${result.problem}`);
    return 1;
  }
  const matched = `${result.files - 1} files match manifest.json`;
  // Without a signature the digests prove nothing: whoever edits a file can write its new digest into manifest.json too.
  if (result.signature === 'absent') {
    const plainly = 'the package is NOT signed: nothing proves it was not edited, since anyone can change a file and its digest in manifest.json';
    if (!allowUnsigned) {
      console.error(`dxs certify verify: UNSIGNED: ${matched}, but ${plainly}. Ask the issuer for a signed package and their public key (--public-key), or accept it as it is with --allow-unsigned`);
      return 1;
    }
    console.error(`dxs certify verify: OK (--allow-unsigned): ${matched}; ${plainly}`);
    return 0;
  }
  const signature = result.signature === 'valid' && publicKey !== undefined ? `signature valid (Ed25519, public key sha256 ${publicKeySha256(publicKey)})` : 'signed, but the signature was not checked (no --public-key): only the issuer\'s public key proves it was not edited';
  console.error(`dxs certify verify: OK: ${matched}; ${signature}`);
  return 0;
}

export function registerCertifyCommand(program: Command): void {
  const profiles = loadProfiles();
  const command = program
    .command('certify')
    .description('run a profile and write a certification package: the report, a one-page certificate (HTML, PDF), manifest.json and a .zip');
  addOptions(command, CERTIFY_OPTIONS);
  command.addHelpText(
    'after',
    `
Profiles (--profile):
${Object.entries(profiles)
  .map(([name, profile]) => `  ${name.padEnd(18)} ${profile.description}${profile.destructive ? ' (destructive)' : ''}`)
  .join('\n')}

The package (--report-dir, default reports/certify-<timestamp>/, and a .zip beside it):
  certificate.html, certificate.pdf   the verdict (CONFORMS / DOES NOT CONFORM), the failing
                                      requirements and the spec sentence each rests on, what is
                                      not covered and why, digests of the spec and the catalog
  certificate.json                    the same facts for machines
  report/                             index.html, results.json, junit.xml, created.json, traffic.har, reproduce/ of the run
  manifest.json                       sha256 of every file; with --sign-key, an Ed25519 signature

Without --base-url the subject is dxs's own embedded reference sandbox, and the certificate says
so: --deployment is then refused, since no deployment was tested.

Examples:
  $ dxs certify --profile invoice-sender                  the reference sandbox, no deployment
  $ dxs keys generate --out keys/
  $ dxs certify --base-url https://staging.example/v1/api --api-key "$KEY" --profile inbox \\
      --deployment "acme-dx 2.4.1" --sign-key keys/dxs-signing-key.pem
  $ dxs certify verify reports/certify-2026-11-25T18-00-00Z.zip --public-key keys/dxs-signing-key.pub.pem

Exit codes: as dxs test: 0 conforms (warnings and info allowed), 1 a requirement failed or was
blocked, 2 usage or configuration error, unreachable target, a run that could not complete.`,
  );
  command.action(async (flags: Record<string, unknown>) => {
    process.exit(await runCertifyCommand(flags));
  });

  const verify = command
    .command('verify')
    .description('check a certification package (folder or .zip) against its manifest.json, and its signature with --public-key')
    .argument('<package>', 'the package folder or its .zip')
    .addOption(new Option('--public-key <PEM>', 'Ed25519 public key (PEM) the manifest must be signed with: the issuer\'s (docs/certify.md)'))
    .addOption(new Option('--allow-unsigned', 'accept a package with no signature (exit 0 when its files match); it is still said that nothing proves it was not edited'));
  verify.addHelpText(
    'after',
    '\nExit codes: 0 every file matches and the package is signed (the signature verifies, with --public-key), 1 a file differs (named), the signature is wrong or missing, or the package is not signed (unless --allow-unsigned), 2 usage error.',
  );
  verify.action((path: string, verifyFlags: { publicKey?: string; allowUnsigned?: boolean }) => {
    process.exit(runVerifyCommand(path, verifyFlags.publicKey, verifyFlags.allowUnsigned === true));
  });
}

