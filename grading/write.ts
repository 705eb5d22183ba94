// Writes the report of a client-check run: results.json, index.html, junit.xml, each passed
// through the SecretRegistry (the keys handed to the client and every token the sandbox issued).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secrets as processSecrets, type SecretRegistry } from '../lib/redact.ts';
import { renderJunit } from '../report/junit.ts';
import { loadClientRequirements } from '../schemas/client-requirements.ts';
import { renderClientHtml } from './html.ts';
import type { ClientResults } from './results.ts';

export function writeClientReport(directory: string, results: ClientResults, registry: SecretRegistry = processSecrets): ClientResults {
  mkdirSync(directory, { recursive: true });
  const redacted = registry.redactValue(JSON.parse(registry.redactText(JSON.stringify(results))) as ClientResults);
  writeFileSync(join(directory, 'results.json'), `${JSON.stringify(redacted, null, 1)}\n`);
  writeFileSync(join(directory, 'index.html'), registry.redactText(renderClientHtml(redacted, loadClientRequirements())));
  writeFileSync(join(directory, 'junit.xml'), registry.redactText(renderJunit(redacted).replace('<testsuites name="dxs test"', '<testsuites name="dxs client-check"')));
  return redacted;
}
