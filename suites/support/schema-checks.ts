// Checks of a body against the schemas of schemas/bodies, for the suites (index.ts exports them)
// and for the support modules, which cannot import index.ts without a cycle.
import { matchesSchema, type Check } from '../../lib/checks.ts';
import { schemaOfPresentFields as presentFields, schemaTypes as typesOf } from '../../lib/contract.ts';
import { validate } from '../../schemas/index.ts';

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
