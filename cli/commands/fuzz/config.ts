// The Schemathesis configuration of `dxs fuzz`: the credentials (in a file, never on a command
// line), and the checks relaxed for the rules of the spec that JSON Schema cannot state. Each
// relaxation names its rule; `dxs fuzz --help`, the README and the report list them.
import { fileURLToPath } from 'node:url';

/** Drops generated bodies carrying a __proto__ key (see the file for why). */
export const HOOKS_FILE = fileURLToPath(new URL('hooks.py', import.meta.url));

/** Statuses Schemathesis' positive_data_acceptance check accepts by default, and 400 for a rule beyond the schema. */
const POSITIVE_DEFAULT = ['2xx', '3xx', '401', '403', '404', '409', '429', '5xx'];

export interface Relaxation {
  operationId: string;
  check: 'positive_data_acceptance' | 'negative_data_rejection';
  /** What is allowed besides the default. */
  allows: string;
  /** The spec rule that forces it. */
  rule: string;
}

const NEGATIVE_DEFAULT = ['400', '401', '403', '404', '405', '406', '409', '415', '422', '428', '429', '5xx'];
const allow400 = (operationId: string, rule: string): Relaxation => ({ operationId, check: 'positive_data_acceptance', allows: '400', rule });

export const RELAXATIONS: readonly Relaxation[] = [
  allow400('createClientToken', 'the ErpId must be registered under the API key'),
  allow400('registerCompany', 'OrgNo, VatNo and GLN carry the check digits of their country'),
  allow400('activateServices', 'ErpId, CountryCode and OrgNo must match a registration, with its RegistrationId and SearchId'),
  allow400('addIdentifier', 'the identifier types are agreed with the operator beforehand'),
  allow400('requestNetworkSetup', 'AttachmentUri must be the reference of an upload of the company'),
  allow400('sendDocument', 'DocumentUri and attachments must be uploads of the company; Electronic needs a known recipient; BusinessToConsumer an active provider'),
  allow400('registerProviderA', 'the OrgNo must be a Swedish organisation number no other company has claimed'),
  allow400('updateProviderA', 'the company must be registered with provider A first'),
  allow400('uploadProviderAIcon', 'provider A registration must be complete, and the icon a square PNG of 256 to 512 pixels with alpha'),
  allow400('offboardProviderA', 'the company must be registered with provider A'),
  allow400('lookupProviderASsns', 'provider A registration must be complete'),
  {
    operationId: 'uploadDocument', check: 'negative_data_rejection', allows: '413',
    rule: 'upload size limits are not shown (OUT-UPL-10), and a multipart body of too many parts is refused as too large',
  },
];

/** One line per relaxation, for --help, the README and the report. */
export function describeRelaxations(): string[] {
  return [
    ...RELAXATIONS.map((relaxation) => `${relaxation.operationId}: ${relaxation.check} also accepts ${relaxation.allows}, because ${relaxation.rule}`),
    'every JSON body: generated bodies with a __proto__ key at any depth are not sent, because the service refuses them (400) and JSON Schema can forbid the key only where a schema names the properties',
  ];
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}

export interface FuzzConfigInput {
  apiKey: string;
  clientToken: string;
  /** A second company's token, for operations that change the company they are called for. */
  scratchClientToken: string;
}

/** Operations that change the company of their token (its CountryCode, its details): they get the scratch company. */
const SCRATCH_OPERATIONS = ['setCompanyDetails'];

/** The schemathesis.toml text. It holds credentials: write it with mode 0600 and delete it after the run. */
export function fuzzConfigToml(input: FuzzConfigInput): string {
  const lines = [
    '# Written by dxs fuzz for one run; deleted afterwards.',
    `hooks = ${tomlString(HOOKS_FILE)}`,
    '',
    '[headers]',
    `APIkey = ${tomlString(input.apiKey)}`,
    `ClientToken = ${tomlString(input.clientToken)}`,
    '',
    '# Every operation must get an answer other than 401/403 and 404.',
    '[warnings]',
    'fail-on = ["missing_auth", "missing_test_data"]',
    '',
    '# Long enough scenarios that the links (register -> token -> status, upload -> send -> status) are followed.',
    '[phases.stateful]',
    'max-steps = 200',
  ];
  // One entry per operation: Schemathesis applies the first entry that matches.
  const operationIds = [...new Set([...SCRATCH_OPERATIONS, ...RELAXATIONS.map((relaxation) => relaxation.operationId)])];
  for (const operationId of operationIds) {
    const relaxation = RELAXATIONS.find((candidate) => candidate.operationId === operationId);
    lines.push('', ...(relaxation === undefined ? [] : [`# ${relaxation.rule}`]), '[[operations]]', `include-operation-id = ${tomlString(operationId)}`);
    if (SCRATCH_OPERATIONS.includes(operationId)) lines.push(`headers = { APIkey = ${tomlString(input.apiKey)}, ClientToken = ${tomlString(input.scratchClientToken)} }`);
    if (relaxation !== undefined) {
      const statuses = relaxation.check === 'positive_data_acceptance' ? [...POSITIVE_DEFAULT, relaxation.allows] : [...NEGATIVE_DEFAULT, relaxation.allows];
      lines.push(`checks.${relaxation.check}.expected-statuses = [${statuses.map(tomlString).join(', ')}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}
