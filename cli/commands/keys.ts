// dxs keys generate: an Ed25519 key pair for signing certification packages (dxs certify
// --sign-key) and checking them (dxs certify verify --public-key). node:crypto, nothing else.
import type { Command } from 'commander';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { publicKeySha256 } from '../../report/manifest.ts';
import { displayPath } from '../../report/write.ts';

export const PRIVATE_KEY_FILE = 'dxs-signing-key.pem';
export const PUBLIC_KEY_FILE = 'dxs-signing-key.pub.pem';

export function runKeysGenerate(out: string): number {
  const directory = resolve(out);
  const privatePath = join(directory, PRIVATE_KEY_FILE);
  const publicPath = join(directory, PUBLIC_KEY_FILE);
  // Never over a key that may have signed packages already: those could no longer be checked.
  for (const path of [privatePath, publicPath]) {
    if (existsSync(path)) {
      console.error(`dxs keys generate: ${displayPath(path)} exists; choose another --out`);
      return 2;
    }
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  mkdirSync(directory, { recursive: true });
  writeFileSync(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(publicPath, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  console.error(`dxs keys generate: private key ${displayPath(privatePath)} (keep it secret: it signs), public key ${displayPath(publicPath)} (give it to whoever verifies)`);
  console.error(`public key sha256 ${publicKeySha256(publicKey)}`);
  return 0;
}

export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('signing keys for certification packages');
  const generate = keys
    .command('generate')
    .description(`write an Ed25519 key pair: ${PRIVATE_KEY_FILE} (for dxs certify --sign-key) and ${PUBLIC_KEY_FILE} (for dxs certify verify --public-key)`)
    .requiredOption('--out <DIR>', 'the folder to write the key pair to');
  generate.addHelpText('after', '\nExample:\n  $ dxs keys generate --out keys/\n\nExit codes: 0 written, 2 usage error or a key file already there.');
  generate.action((flags: { out: string }) => {
    process.exit(runKeysGenerate(flags.out));
  });
}
