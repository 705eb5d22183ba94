// dxs client-check --certify: the signed package of dxs certify for an ERP client. The report of the
// client-check run goes to <package>/report/, and beside it the certificate (HTML, PDF, JSON) drawn
// by the same renderer from the same facts, manifest.json (optionally signed) and a .zip; `dxs
// certify verify` checks it as any other package.
import type { KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { secrets } from '../../lib/redact.ts';
import { SPEC_PATH } from '../../schemas/requirements.ts';
import { CLIENT_AREAS, CLIENT_REQUIREMENTS_PATH, clientCatalogAsRequirements, loadClientRequirements } from '../../schemas/client-requirements.ts';
import { certificateFacts, type CertificateFacts } from '../../report/certificate-facts.ts';
import { certificateRenderings } from '../../report/certificate.ts';
import { buildManifest, fileSha256, MANIFEST_FILE, serialiseManifest } from '../../report/manifest.ts';
import { displayPath } from '../../report/write.ts';
import { writeZip } from '../../report/zip.ts';
import type { ClientResults } from '../../grading/results.ts';
import { notExercisedReason } from '../../grading/verdicts.ts';
import { readFolder } from './certify.ts';
import { printPdf } from './certify-pdf.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export const CLIENT_PROFILE = {
  name: 'client',
  description: "an ERP client of the API, graded by dxs client-check from the calls it made to the grading sandbox, against the client catalog (CLI-...)",
  areas: [...CLIENT_AREAS] as string[],
  destructive: false,
};

/** Writes certificate.*, manifest.json and the .zip around a written client-check report; returns false when the PDF could not be printed. */
export async function writeClientPackage(packageDir: string, results: ClientResults, input: { deployment: { name: string; version: string }; signKey?: KeyObject; command: string }): Promise<{ ok: boolean; facts: CertificateFacts }> {
  const facts = certificateFacts({
    results,
    catalog: clientCatalogAsRequirements(),
    profile: CLIENT_PROFILE,
    deployment: input.deployment,
    sandboxFaults: [],
    sandboxVariants: results.client.provocations.map((provocation) => `provocation ${provocation.name}`),
    keys: [
      { role: 'API key (APIkey header)', source: 'handed to the client by the grading sandbox (DXS_CLIENT_API_KEY, with DeleteRegistration)' },
      { role: 'API key without DeleteRegistration', source: 'handed to the client (DXS_CLIENT_API_KEY_WITHOUT_DELETE)' },
      { role: 'client tokens and search tokens (ClientToken header)', source: 'created by the client' },
    ],
    spec: { file: basename(SPEC_PATH), sha256: fileSha256(SPEC_PATH) },
    catalogFile: { file: relative(ROOT, CLIENT_REQUIREMENTS_PATH), sha256: fileSha256(CLIENT_REQUIREMENTS_PATH) },
    command: input.command,
  });
  // What the client did not exercise says so, with the call or flow that would exercise it.
  const catalog = new Map(loadClientRequirements().map((requirement) => [requirement.id, requirement]));
  facts.notCovered = facts.notCovered.map((requirement) => {
    const entry = catalog.get(requirement.id);
    return requirement.verdict === 'not exercised' && entry !== undefined ? { ...requirement, notes: [notExercisedReason(entry, results.client.flows.tried)] } : requirement;
  });
  // A flow --require-flows named and the client did not try fails the run as a failed requirement does.
  if (results.client.flows.missing.length > 0) facts.verdict = 'DOES NOT CONFORM';
  writeFileSync(join(packageDir, 'certificate.json'), `${secrets.redactText(JSON.stringify(facts, null, 1))}\n`);
  const htmlFile = join(packageDir, 'certificate.html');
  const renderings = certificateRenderings(facts).map((html) => secrets.redactText(html.replace('<h1>Certificate of Conformance</h1>', '<h1>Certificate of Conformance: ERP client</h1>')));
  writeFileSync(htmlFile, renderings[0]);
  let ok = true;
  try {
    await printPdf(htmlFile, join(packageDir, 'certificate.pdf'), renderings);
  } catch (error) {
    console.error(`dxs client-check: certificate.pdf not written: ${(error as Error).message.split('\n')[0]}`);
    ok = false;
  }
  const manifest = buildManifest(readFolder(packageDir), new Date().toISOString(), input.signKey);
  writeFileSync(join(packageDir, MANIFEST_FILE), serialiseManifest(manifest));
  const zipFile = `${packageDir}.zip`;
  const folder = basename(packageDir);
  writeFileSync(zipFile, writeZip([...readFolder(packageDir)].map(([path, data]) => ({ name: `${folder}/${path}`, data }))));
  console.error(`dxs client-check: ${facts.verdict} (${input.deployment.name} ${input.deployment.version}); ${manifest.files.length + 1} files${input.signKey !== undefined ? ', manifest signed (Ed25519)' : ''}`);
  console.error(`package: ${displayPath(packageDir)} (zip: ${displayPath(zipFile)})`);
  return { ok, facts };
}
