// Everything a suite imports: `import { test, expect, tags, expectCheck, observe, checks, schema } from '../support/index.ts'`.
import { matchesSchema, type Check } from '../../lib/checks.ts';
import { validate } from '../../schemas/index.ts';
import { schemaOfPresentFields as presentFields, schemaTypes as typesOf } from '../../lib/contract.ts';

export { test, expect } from './fixtures.ts';
export { expectCheck, observe, tags, type CheckOptions } from './verdict.ts';
export { createClientToken, pollUntil, revokeClientToken, untilTokenRefused, registerCompany, SetupFailed, type RegisteredCompany } from './companies.ts';
export type { ApiClient, ApiResponse, Auth, CallOptions } from './client.ts';
export { runContext, type RunContext } from './run-context.ts';
export { requirePrerequisites, type PrerequisiteName } from './prerequisites.ts';
export * as checks from '../../lib/checks.ts';

/** The body matches the named schema of schemas/bodies (after normalising the field names). */
export function schema(name: string): Check {
  return matchesSchema(name, validate);
}

/**
 * The body matches the named schema in every field it carries; of the fields the schema requires,
 * only those named in `present` must be there (lib/contract.ts: the rule dxs load applies too).
 */
export function schemaOfPresentFields(name: string, present: readonly string[]): Check {
  return presentFields(name, present, validate);
}

/** The body's fields have the types of the named schema; a required field may be left out (lib/contract.ts). */
export function schemaTypes(name: string): Check {
  return typesOf(name, validate);
}
