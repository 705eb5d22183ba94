// Everything a suite imports: `import { test, expect, tags, expectCheck, observe, checks, schema } from '../support/index.ts'`.

export { expect } from './fixtures.ts';
export { test } from './suite-test.ts';
export { expectCheck, notReached, observe, tags, type CheckOptions } from './verdict.ts';
export { createClientToken, pollUntil, pollUntilSettled, revokeClientToken, untilTokenRefused, registerCompany, SetupFailed, type RegisteredCompany } from './companies.ts';
export type { ApiClient, ApiResponse, Auth, CallOptions } from './client.ts';
export { BACKGROUND_CHAIN_TAG, runContext, type RunContext } from './run-context.ts';
export { requirePrerequisites, type PrerequisiteName } from './prerequisites.ts';
export * as checks from '../../lib/checks.ts';
export { schema, schemaOfPresentFields, schemaTypes } from './schema-checks.ts';
export { step } from './step.ts';
