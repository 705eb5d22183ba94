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
