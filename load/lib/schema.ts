// Schema validation in k6 with the bundled ajv validators (generated/k6/validators.js, written by
// `npm run build`). Validating every response would cost more than the request, so only the
// responses that observe.ts samples for the named checks are validated (one in DXS_SCHEMA_SAMPLE
// of them, default each). Without the bundle the schema checks are skipped, and the run says so once.
// The checks are the contract of lib/contract.ts, the rules `dxs test` applies to the same bodies:
// each named after the requirement IDs it serves, a hardening rule recorded as a warning.
//
// k6 side only.

import type { SchemaValidator } from '../../lib/checks.ts';
import { BODY_CONTRACT, ruleCheck, ruleName } from '../../lib/contract.ts';
import { settings } from './settings.ts';
import { named, type NamedCheck } from './observe.ts';

declare function require(path: string): unknown;

type RawValidate = (schemaName: string, body: unknown) => unknown;

function loadValidator(): SchemaValidator | undefined {
  let module: Record<string, unknown>;
  try {
    module = require('../../generated/k6/validators.js') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const raw = (module.validate ?? (module.default as Record<string, unknown> | undefined)?.validate) as RawValidate | undefined;
  if (typeof raw !== 'function') return undefined;
  return (schemaName, body) => {
    const result = raw(schemaName, body) as unknown;
    if (typeof result === 'boolean') return { valid: result, errors: result ? [] : ['does not match'] };
    const shaped = result as { valid?: boolean; errors?: unknown };
    const errors = Array.isArray(shaped.errors) ? shaped.errors.map((error) => (typeof error === 'string' ? error : JSON.stringify(error))) : [];
    return { valid: shaped.valid === true, errors };
  };
}

const validator = settings.schemaSample > 0 ? loadValidator() : undefined;

const contracts = new Map<string, readonly NamedCheck[]>();

/**
 * The contract checks of one body (lib/contract.ts), made once per schema and label; none without
 * the validators bundle. `label` names the body in the check ("company status body has the types
 * of company-status.response, with Status, CompanyId, Details [CMP-STA-01]").
 */
export function contractChecks(schemaName: string, label: string): readonly NamedCheck[] {
  if (validator === undefined) return [];
  const key = `${schemaName}\u0000${label}`;
  let made = contracts.get(key);
  if (made === undefined) {
    const validate = validator;
    const guarded: SchemaValidator = (name, body) => {
      try {
        return validate(name, body);
      } catch (error) {
        return { valid: false, errors: [`validator failed: ${String(error)}`] };
      }
    };
    const rules = BODY_CONTRACT[schemaName];
    if (rules === undefined) throw new Error(`lib/contract.ts has no contract for ${schemaName}`);
    made = rules.map((rule) => ({
      ...named(ruleName(label, schemaName, rule), ruleCheck(schemaName, rule, guarded)),
      contract: { requirements: rule.requirements, basis: rule.basis },
    }));
    contracts.set(key, made);
  }
  return made;
}
