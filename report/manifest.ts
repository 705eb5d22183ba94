// manifest.json of a certification package (issue 22): the sha256 of every file, an optional
// Ed25519 signature (node:crypto), and a digest over all of it, so that a change of any byte of
// any file, manifest.json included, is found and named. Part of the record of a run, below the
// command that writes and verifies packages.
//
// What is signed is the manifest's body (format, date, files) exactly as serialised here; the
// digest then covers the body and the signature, so even a changed byte of the signature is
// named as a change of manifest.json without a public key to check it with.
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

export const MANIFEST_FILE = 'manifest.json';

export interface ManifestFile {
  path: string;
  sha256: string;
  size: number;
}

export interface ManifestSignature {
  algorithm: 'Ed25519';
  /** sha256 of the public key (DER, SubjectPublicKeyInfo), to tell which key signed. */
  publicKeySha256: string;
  /** base64 */
  value: string;
}

export interface Manifest {
  format: 'dxs-manifest/1';
  createdAt: string;
  files: ManifestFile[];
  signature?: ManifestSignature;
  /** sha256 of everything above, serialised as here. */
  digest: string;
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A file's digest for a certificate; an absent file is named by its name alone, since a hand-over document carries no path of the machine. */
export function fileSha256(path: string): string {
  return existsSync(path) ? sha256(readFileSync(path)) : `absent (${basename(path)})`;
}

function body(manifest: Pick<Manifest, 'format' | 'createdAt' | 'files'>): string {
  return JSON.stringify({
    format: manifest.format,
    createdAt: manifest.createdAt,
    files: manifest.files.map((file) => ({ path: file.path, sha256: file.sha256, size: file.size })),
  });
}

function sealed(manifest: Omit<Manifest, 'digest'>): string {
  const signature = manifest.signature === undefined ? undefined : { algorithm: manifest.signature.algorithm, publicKeySha256: manifest.signature.publicKeySha256, value: manifest.signature.value };
  return JSON.stringify({ body: body(manifest), signature });
}

/** The file's text: fixed key order and layout, so that verify can tell a rewritten manifest. */
export function serialiseManifest(manifest: Manifest): string {
  const ordered = {
    format: manifest.format,
    createdAt: manifest.createdAt,
    files: manifest.files.map((file) => ({ path: file.path, sha256: file.sha256, size: file.size })),
    signature: manifest.signature === undefined ? undefined : { algorithm: manifest.signature.algorithm, publicKeySha256: manifest.signature.publicKeySha256, value: manifest.signature.value },
    // Last, as it is computed last.
    digest: manifest.digest,
  };
  return `${JSON.stringify(ordered, null, 1)}\n`;
}

export function publicKeySha256(key: KeyObject): string {
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  return sha256(publicKey.export({ type: 'spki', format: 'der' }));
}

/** The manifest of the package's files (every file but manifest.json), signed when a private key is given. */
export function buildManifest(files: ReadonlyMap<string, Buffer>, createdAt: string, privateKey?: KeyObject): Manifest {
  const listed = [...files]
    .filter(([path]) => path !== MANIFEST_FILE)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([path, data]) => ({ path, sha256: sha256(data), size: data.length }));
  const manifest: Omit<Manifest, 'digest'> = { format: 'dxs-manifest/1', createdAt, files: listed };
  if (privateKey !== undefined) {
    manifest.signature = { algorithm: 'Ed25519', publicKeySha256: publicKeySha256(privateKey), value: sign(null, Buffer.from(body(manifest)), privateKey).toString('base64') };
  }
  return { ...manifest, digest: sha256(sealed(manifest)) };
}

export interface Verification {
  ok: boolean;
  /** The first file that differs (manifest.json when the manifest itself was changed). */
  file?: string;
  /** What is wrong, one line. */
  problem?: string;
  signature: 'valid' | 'invalid' | 'absent' | 'not checked';
  files: number;
}

/**
 * Checks a package's files (path -> bytes) against its manifest: the manifest first, then each
 * listed file in order, then files it does not list, then the signature when a public key is given.
 */
export function verifyPackage(files: ReadonlyMap<string, Buffer>, publicKey?: KeyObject): Verification {
  const fail = (file: string | undefined, problem: string, signature: Verification['signature'] = 'not checked'): Verification => ({ ok: false, file, problem, signature, files: files.size });
  const text = files.get(MANIFEST_FILE);
  if (text === undefined) return fail(MANIFEST_FILE, `${MANIFEST_FILE} is missing: this is not a dxs certification package`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text.toString('utf8')) as Manifest;
  } catch {
    return fail(MANIFEST_FILE, `${MANIFEST_FILE} was changed: it is not valid JSON`);
  }
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== 'dxs-manifest/1' || !Array.isArray(manifest.files)) {
    return fail(MANIFEST_FILE, `${MANIFEST_FILE} was changed: it is not a dxs-manifest/1`);
  }
  if (serialiseManifest(manifest) !== text.toString('utf8')) return fail(MANIFEST_FILE, `${MANIFEST_FILE} was changed: it is not laid out as dxs certify writes it`);
  if (sha256(sealed(manifest)) !== manifest.digest) return fail(MANIFEST_FILE, `${MANIFEST_FILE} was changed: its digest does not match its contents`);
  for (const listed of manifest.files) {
    const data = files.get(listed.path);
    if (data === undefined) return fail(listed.path, `${listed.path} is missing`);
    const actual = sha256(data);
    if (actual !== listed.sha256) return fail(listed.path, `${listed.path} was changed: sha256 ${actual}, the manifest says ${listed.sha256}`);
  }
  const listedPaths = new Set(manifest.files.map((file) => file.path));
  const extra = [...files.keys()].filter((path) => path !== MANIFEST_FILE && !listedPaths.has(path)).sort()[0];
  if (extra !== undefined) return fail(extra, `${extra} is not in the manifest: it was added after certification`);
  if (publicKey === undefined) return { ok: true, signature: manifest.signature === undefined ? 'absent' : 'not checked', files: files.size };
  if (manifest.signature === undefined) return fail(undefined, 'the signature is missing: the package is not signed, and a public key was given', 'absent');
  let valid = false;
  try {
    valid = manifest.signature.algorithm === 'Ed25519' && verify(null, Buffer.from(body(manifest)), publicKey, Buffer.from(manifest.signature.value, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) return fail(undefined, `the signature is wrong: it does not verify with the given public key (sha256 ${publicKeySha256(publicKey)}; the package names ${manifest.signature.publicKeySha256})`, 'invalid');
  return { ok: true, signature: 'valid', files: files.size };
}
