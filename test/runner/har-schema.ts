// HAR 1.2 as har-schema (the schema har-validator and the request library use) states it, checked
// with ajv: for the traffic.har files of dxs (issue 43).
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';

const require = createRequire(import.meta.url);
const schemas = require('har-schema') as Record<string, { $id: string }>;
const draft06 = require('ajv/dist/refs/json-schema-draft-06.json') as object;

// har-schema is draft-06 and carries keywords no draft knows ("optional", "min"): not strict.
const ajv = new Ajv({ allErrors: true, strict: false, formats: { 'date-time': fullFormats['date-time'], ipv4: fullFormats.ipv4, ipv6: fullFormats.ipv6, uri: fullFormats.uri } });
ajv.addMetaSchema(draft06);
for (const schema of Object.values(schemas)) ajv.addSchema(schema);
const validate = ajv.getSchema('har.json#');

/** The schema's complaints, empty when the HAR is valid. */
export function harErrors(har: unknown): string[] {
  if (validate === undefined) throw new Error('har-schema has no har.json');
  if (validate(har)) return [];
  return (validate.errors ?? []).slice(0, 10).map((error: ErrorObject) => `${error.instancePath} ${error.message ?? ''}`);
}
