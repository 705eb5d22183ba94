// Everything a suite imports: `import { test, expect, tags, expectCheck, observe, checks, schema } from '../support/index.ts'`.
import { matchesSchema, type Check } from '../../lib/checks.ts';
import { validate } from '../../schemas/index.ts';

export { test, expect } from './fixtures.ts';
export { expectCheck, observe, tags, type CheckOptions } from './verdict.ts';
export { createClientToken, pollUntil, registerCompany, SetupFailed, type RegisteredCompany } from './companies.ts';
export type { ApiClient, ApiResponse, Auth, CallOptions } from './client.ts';
export { runContext, type RunContext } from './run-context.ts';
export { requirePrerequisites, type PrerequisiteName } from './prerequisites.ts';
export * as checks from '../../lib/checks.ts';

/** The body matches the named schema of schemas/bodies (after normalising the field names). */
export function schema(name: string): Check {
  return matchesSchema(name, validate);
}

/**
 * The body's fields have the types of the named schema, but a field the schema requires may be
 * left out: the spec lists the fields of an answer without saying that each one is always there
 * (issue 21). The full schema, required fields included, is the hardening check of each answer.
 */
export function schemaTypes(name: string): Check {
  const typesOnly = (schemaName: string, body: unknown) => {
    const result = validate(schemaName, body);
    const errors = result.errors.filter((error) => !/must have required property/.test(error));
    return { valid: errors.length === 0, errors };
  };
  return (response) => ({ ...matchesSchema(name, typesOnly)(response), check: 'matchesSchemaTypes' });
}
