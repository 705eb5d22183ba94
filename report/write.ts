// Writes the report files of a run (results.json, index.html, junit.xml) into a directory, each
// passed through the SecretRegistry as a last line of defence.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { secrets as processSecrets, type SecretRegistry } from '../lib/redact.ts';
import { loadRequirements, type Requirement } from '../schemas/requirements.ts';
import { junitView } from './baseline.ts';
import { catalogEndpoints } from './endpoints.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import type { Results } from './results.ts';

function catalog(): readonly Requirement[] {
  try {
    return loadRequirements();
  } catch {
    return [];
  }
}

/** Adds the token values that worker processes left in the secrets file. */
export function loadSecretsFile(path: string | undefined, registry: SecretRegistry = processSecrets): void {
  if (path === undefined) return;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  for (const line of text.split('\n')) registry.add(line);
}

export function writeReport(directory: string, results: Results, registry: SecretRegistry = processSecrets): void {
  mkdirSync(directory, { recursive: true });
  const redacted = registry.redactValue(JSON.parse(registry.redactText(JSON.stringify(results))) as Results);
  writeFileSync(join(directory, 'results.json'), `${JSON.stringify(redacted, null, 1)}\n`);
  writeFileSync(join(directory, 'index.html'), registry.redactText(renderHtml({ results: redacted, catalog: catalog(), catalogEndpoints: catalogEndpoints() })));
  writeFileSync(join(directory, 'junit.xml'), registry.redactText(renderJunit(junitView(redacted))));
}

export function readResults(path: string): Results {
  const results = JSON.parse(readFileSync(path, 'utf8')) as Results;
  if (results.format !== 'dxs-results/1') throw new Error(`${path} is not a dxs results.json (format ${JSON.stringify(results.format)})`);
  return results;
}

/** A report folder's name for a run started at `date`: its ISO time to the second, with no colon (Windows, URLs). */
export function folderTimestamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
}

/** A path as the user would type it: relative to the working directory when below it, else absolute. */
export function displayPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? path : shown;
}
