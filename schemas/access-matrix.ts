// The access matrix (issue 40): every operation of the spec against every credential form, and the
// answer each cell must give, read from the spec's Authentication section (rules 1-7). Pure data:
// the suite (suites/security/access-matrix.spec.ts) turns it into calls, the report into a table,
// and npm test holds the catalog's ACC-* endpoints to it, so no entry claims a door it never tries.

/** The credential forms a caller may send in place of the right one, in the order a cell is tried. */
export const CREDENTIAL_FORMS = [
  'none', 'empty-header', 'wrong-api-key', 'api-key-alone', 'client-token-alone', 'random-token',
  'near-miss-token', 'near-miss-key', 'revoked-token', 'expired-token', 'search-token', 'key-without-delete', 'other-integrator-key', 'both-headers',
] as const;
export type CredentialForm = (typeof CREDENTIAL_FORMS)[number];

export const CREDENTIAL_FORM_TITLES: Record<CredentialForm, string> = {
  'none': 'no credential',
  'empty-header': 'an empty credential header',
  'wrong-api-key': 'a wrong API key',
  'api-key-alone': 'the API key where a ClientToken is named',
  'client-token-alone': 'a ClientToken where the APIkey is named',
  'random-token': 'a random ClientToken',
  'near-miss-token': 'the ClientToken one character off',
  'near-miss-key': 'the API key one character off',
  'revoked-token': 'a revoked ClientToken',
  'expired-token': 'an expired ClientToken',
  'search-token': 'a search token of a fresh SearchId',
  'key-without-delete': 'the API key without DeleteRegistration',
  'other-integrator-key': "another integrator's API key, on the first key's ErpId",
  'both-headers': 'both headers, each valid',
};

/**
 * How the spec names the credential of an operation:
 * - APIkey, ClientToken: rules 2 and 4 (and 5 for set details of an activated company);
 * - not shown: rule 7, where the call acts for a company (service activation, outbound list and download);
 * - not shown, search: rule 7, where the call acts for no company (revoke, search token creation, seller lookup);
 * - unnamed: named by neither rule 4 nor rule 7 (the inbound info), yet it reads a company's document.
 */
export type AccessScheme = 'APIkey' | 'ClientToken' | 'not shown' | 'not shown, search' | 'unnamed';

export interface AccessOperation {
  /** "METHOD /path" as the catalog writes endpoints. */
  endpoint: string;
  scheme: AccessScheme;
  /** Where a search is what the call does (buyer lookup, details by id): a search token there is observed. */
  search?: boolean;
  /**
   * Why no sentence of the spec, nor a stated invariant, ties the call to a registered company
   * (issue 58): a search token, made for no company, is then an answer of the target, observed.
   */
  noCompanyNeeded?: string;
}

export const ACCESS_OPERATIONS: readonly AccessOperation[] = [
  { endpoint: 'POST /clienttokens/create', scheme: 'APIkey' },
  { endpoint: 'POST /clienttokens/revoke', scheme: 'not shown, search' },
  { endpoint: 'POST /clienttokens/createsearchtoken', scheme: 'not shown, search' },
  { endpoint: 'POST /companies/register', scheme: 'APIkey' },
  { endpoint: 'POST /companies/details', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/services', scheme: 'not shown' },
  { endpoint: 'GET /companies/status', scheme: 'ClientToken' },
  { endpoint: 'GET /companies/details/{CompanyId}', scheme: 'ClientToken', search: true },
  { endpoint: 'POST /companies/users', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/identifiers', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/delete', scheme: 'APIkey' },
  { endpoint: 'POST /buyerparties/lookup', scheme: 'ClientToken', search: true },
  { endpoint: 'POST /sellerparties/lookup', scheme: 'not shown, search' },
  { endpoint: 'POST /network/setup', scheme: 'ClientToken', noCompanyNeeded: 'network setup "asks for a company to be added to the network" with that company\'s data in the body: a company that searched and did not find its trading partner may ask before it registers (feedback goes to the NetworkSetupFeedbackEmail it names)' },
  { endpoint: 'POST /documents', scheme: 'ClientToken', noCompanyNeeded: 'an upload is read by no one until a send or a network setup names it, and network setup\'s AttachmentUri is "Uploaded first with POST /documents": whoever may ask for a network setup may upload its letter' },
  { endpoint: 'POST /documents/outbound', scheme: 'ClientToken' },
  { endpoint: 'GET /invoices/outbound/{DocumentId}', scheme: 'ClientToken' },
  { endpoint: 'GET /documents/outbound/{DocumentId}', scheme: 'ClientToken' },
  { endpoint: 'GET /invoices/outbound/byerpid/{DocumentId}', scheme: 'ClientToken' },
  { endpoint: 'GET /documents/outbound/download/{DocumentId}', scheme: 'not shown' },
  { endpoint: 'POST /documents/outbound/list', scheme: 'not shown' },
  { endpoint: 'GET /documents/incoming', scheme: 'ClientToken' },
  { endpoint: 'GET /documents/{id}', scheme: 'ClientToken' },
  { endpoint: 'GET /documents/{id}/info', scheme: 'unnamed' },
  { endpoint: 'POST /documents/handled', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/deliverymethods/b2c/providera', scheme: 'ClientToken' },
  { endpoint: 'GET /companies/deliverymethods/b2c/providera', scheme: 'ClientToken' },
  { endpoint: 'PATCH /companies/deliverymethods/b2c/providera', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/deliverymethods/b2c/providera/icon', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/deliverymethods/b2c/providera/offboard', scheme: 'ClientToken' },
  { endpoint: 'POST /companies/deliverymethods/b2c/providera/lookup', scheme: 'ClientToken' },
];

/**
 * What a cell must answer: `refused` is any 4xx (a gateway may answer 403 or 404, set details may
 * answer 400 for the RegistrationId it lacks: none of them acts); `401` is the status the spec
 * gives; `observe` records what came back. Every cell called is also held to ACC-10 (no 5xx).
 */
export interface CellExpectation {
  /**
   * `apart`: judged where the target keeps the two keys' registrations of one ErpId apart (two
   * integrators, learnt once per run), observed where it makes them one, not tried with one key.
   */
  expect: 'refused' | '401' | 'observe' | 'apart';
  requirement: string;
}

/** Every cell called, whatever it expects, is held to no 5xx. */
export const NO_SERVER_ERROR_REQUIREMENT = 'ACC-10';

const refused = (requirement: string): CellExpectation => ({ expect: 'refused', requirement });
const observed: CellExpectation = { expect: 'observe', requirement: 'ACC-08' };

/** The expected answer of a cell; undefined where the form does not apply to the operation (not tried). */
/** The calls another integrator's key makes on an ErpId only the run's key registered (issue 58): a token, a register, a delete. */
export const OTHER_INTEGRATOR_OPERATIONS: readonly string[] = ['POST /clienttokens/create', 'POST /companies/register', 'POST /companies/delete'];

export function cellExpectation(operation: AccessOperation, form: CredentialForm): CellExpectation | undefined {
  if (form === 'other-integrator-key') return OTHER_INTEGRATOR_OPERATIONS.includes(operation.endpoint) ? { expect: 'apart', requirement: 'ACC-21' } : undefined;
  // Both valid headers at once: which one a target reads is not shown, so what it does is recorded.
  if (form === 'both-headers') return observed;
  // A search token was made for no company (no company registration needed): wherever a call acts for a company it is no credential.
  if (form === 'search-token' && operation.scheme !== 'not shown, search') {
    if (operation.scheme === 'APIkey') return refused('ACC-04');
    return operation.search === true || operation.noCompanyNeeded !== undefined ? observed : refused('ACC-07');
  }
  // A credential one character off is one the target never issued: judged as the wrong key or the random token is.
  if (form === 'near-miss-token') return cellExpectation(operation, 'random-token');
  if (form === 'near-miss-key') return cellExpectation(operation, 'wrong-api-key');
  if (form === 'key-without-delete') return operation.endpoint === 'POST /companies/delete' ? { expect: '401', requirement: 'ACC-09' } : undefined;
  if (form === 'revoked-token' && operation.scheme !== 'not shown, search') return refused('ACC-05');
  if (form === 'expired-token' && operation.scheme !== 'not shown, search') return refused('ACC-06');
  switch (operation.scheme) {
    case 'APIkey':
      if (form === 'api-key-alone') return undefined;
      if (form === 'client-token-alone') return refused('ACC-04');
      return refused(form === 'none' || form === 'empty-header' ? 'ACC-01' : 'ACC-02');
    case 'ClientToken':
      if (form === 'client-token-alone') return undefined;
      if (form === 'api-key-alone') return refused('ACC-03');
      return refused(form === 'none' || form === 'empty-header' ? 'ACC-01' : 'ACC-02');
    case 'not shown':
    case 'unnamed':
      // Either scheme is a reading of rule 7; for the info call a ClientToken is the call as the guide makes it.
      if (form === 'api-key-alone') return observed;
      if (form === 'client-token-alone') return operation.scheme === 'unnamed' ? undefined : observed;
      return refused('ACC-11');
    case 'not shown, search':
      // Revoke, search token creation and the seller lookup act for no company: under the reading
      // that they take no credential, any form is an answer of the target, recorded.
      return observed;
  }
}

/** The catalog IDs whose cells an operation judges, in the order of first use. */
export function requirementsOf(operation: AccessOperation): string[] {
  const ids = CREDENTIAL_FORMS.map((form) => cellExpectation(operation, form)?.requirement).filter((id): id is string => id !== undefined);
  return [...new Set([...ids, NO_SERVER_ERROR_REQUIREMENT])];
}

/** The operations whose cells judge a catalog ID: what its `endpoints` must be. */
export function endpointsOf(requirement: string): string[] {
  return ACCESS_OPERATIONS.filter((operation) => requirementsOf(operation).includes(requirement)).map((operation) => operation.endpoint);
}
