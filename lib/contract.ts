// The contract of an answer's body as `dxs test` judges it, in one place for both sides: the
// presence rule (the spec lists the fields of an answer without saying that an unset one is sent,
// so a listed field left out reads as unset; only the fields that make the body what it is must be
// there) and, per body the load flows read, which requirement each schema check serves. The
// Playwright suites call schemaOfPresentFields and schemaTypes with the ajv build of the schemas;
// the k6 scripts call bodyContract with the bundled standalone build of the same schemas, so a
// body `dxs test` accepts is never a failed check of `dxs load` (issue 29).
//
// Pure module: no Node APIs, explicit .ts imports, so k6 can load it as it is.

import { matchesSchema, type Check, type SchemaValidator } from './checks.ts';

/**
 * The body matches the named schema in every field it carries; of the fields the schema requires,
 * only those named in `present` must be there.
 */
export function schemaOfPresentFields(name: string, present: readonly string[], validate: SchemaValidator): Check {
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
 * left out (issue 21). The full schema, required fields included, is the hardening check.
 */
export function schemaTypes(name: string, validate: SchemaValidator): Check {
  const typesOnly = schemaOfPresentFields(name, [], validate);
  return (response) => ({ ...typesOnly(response), check: 'matchesSchemaTypes' });
}

/** One schema check of a body, as dxs test makes it, with the catalog ID it serves. */
export interface BodyRule {
  /** Catalog IDs (schemas/requirements.json) whose tests make this check; the first names it. */
  requirements: readonly string[];
  /** The fields that must be there; 'all' is the full schema. */
  present: readonly string[] | 'all';
  /**
   * The catalog basis of the requirements (test/load/contract.test.ts holds it to the catalog):
   * a spec rule fails the check, a hardening rule is a warning, as in a dxs test run without --strict.
   */
  basis: 'spec' | 'hardening';
}

/**
 * Per body schema the load flows read, the checks the contract suites make of it (see the tests
 * tagged with these IDs). Where the full schema rests on hardening, dxs test counts it a warning;
 * so does dxs load.
 */
export const BODY_CONTRACT: Readonly<Record<string, readonly BodyRule[]>> = {
  // tokens.spec.ts: statusIs(200) and schema('client-token.response') under TOK-01, TOK-07.
  'client-token.response': [{ requirements: ['TOK-01', 'TOK-07'], present: 'all', basis: 'spec' }],
  // companies.spec.ts: schemaOfPresentFields(['Status', 'CompanyId', 'Details']) under CMP-STA-01; the full schema CMP-STA-13.
  'company-status.response': [
    { requirements: ['CMP-STA-01'], present: ['Status', 'CompanyId', 'Details'], basis: 'spec' },
    { requirements: ['CMP-STA-13'], present: 'all', basis: 'hardening' },
  ],
  // network-buyer-lookup.spec.ts and support/network.ts: schemaTypes under NET-LKP-01; the full schema NET-LKP-22.
  'lookup-buyer.response': [
    { requirements: ['NET-LKP-01'], present: [], basis: 'spec' },
    { requirements: ['NET-LKP-22'], present: 'all', basis: 'hardening' },
  ],
  'lookup-seller.response': [
    { requirements: ['NET-LKP-09'], present: [], basis: 'spec' },
    { requirements: ['NET-LKP-22'], present: 'all', basis: 'hardening' },
  ],
  // outbound-status.spec.ts: schema('outbound-document.response') under each of OUT-STA-05, -06, -08, -09.
  'outbound-document.response': [{ requirements: ['OUT-STA-05', 'OUT-STA-06', 'OUT-STA-08', 'OUT-STA-09'], present: 'all', basis: 'spec' }],
  // inbound.spec.ts: schemaTypes under INB-01; the full schema INB-30.
  'incoming-documents.response': [
    { requirements: ['INB-01'], present: [], basis: 'spec' },
    { requirements: ['INB-30'], present: 'all', basis: 'hardening' },
  ],
  // provider-a.spec.ts: schema('provider-a-lookup.response') under PRA-37.
  'provider-a-lookup.response': [{ requirements: ['PRA-37'], present: 'all', basis: 'spec' }],
};

/** The check of one rule: the full schema, or the schema of the fields present. */
export function ruleCheck(schemaName: string, rule: BodyRule, validate: SchemaValidator): Check {
  return rule.present === 'all' ? matchesSchema(schemaName, validate) : schemaOfPresentFields(schemaName, rule.present, validate);
}

/** What a rule asserts, for a check name: "has the types of ..., Status, CompanyId and Details present [CMP-STA-01]". */
export function ruleName(label: string, title: string, rule: BodyRule): string {
  const ids = `[${rule.requirements.join(', ')}]`;
  if (rule.present === 'all') return `${label} body matches ${title}, every field it lists ${ids}`;
  if (rule.present.length === 0) return `${label} body has the types of ${title} in the fields it carries ${ids}`;
  return `${label} body has the types of ${title}, with ${rule.present.join(', ')} ${ids}`;
}

/** Catalog IDs a check name carries ("... [CMP-STA-01, CMP-STA-13]"). */
export function requirementsOfCheckName(name: string): string[] {
  const match = /\[([A-Z]{2,4}(?:-[A-Z]{2,4})?-\d{2}(?:, [A-Z]{2,4}(?:-[A-Z]{2,4})?-\d{2})*)\]\s*$/.exec(name);
  return match === null ? [] : match[1].split(', ');
}
