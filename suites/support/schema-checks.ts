// Checks of a body against the schemas of schemas/bodies, for the suites (index.ts exports them)
// and for the support modules, which cannot import index.ts without a cycle.
import { matchesSchema, type Check } from '../../lib/checks.ts';
import { validate } from '../../schemas/index.ts';

/** The body matches the named schema of schemas/bodies (after normalising the field names). */
export function schema(name: string): Check {
  return matchesSchema(name, validate);
}

/**
 * The body matches the named schema in every field it carries. The spec lists the fields of an
 * answer without saying an unset one is sent, so a listed field left out reads as unset; only the
 * fields named in `present` (those that make the body what it is) must be there.
 */
export function schemaOfPresentFields(name: string, present: readonly string[]): Check {
  return matchesSchema(name, (schemaName, body) => {
    const result = validate(schemaName, body);
    const errors = result.errors.filter((error) => {
      const missing = /must have required property '([^']+)'/.exec(error);
      return missing === null || present.includes(missing[1]);
    });
    return { valid: errors.length === 0, errors };
  });
}

/**
 * The body's fields have the types of the named schema, but a field the schema requires may be
 * left out: the spec lists the fields of an answer without saying that each one is always there
 * (issue 21). The full schema, required fields included, is the hardening check of each answer.
 */
export function schemaTypes(name: string): Check {
  const typesOnly = schemaOfPresentFields(name, []);
  return (response) => ({ ...typesOnly(response), check: 'matchesSchemaTypes' });
}
