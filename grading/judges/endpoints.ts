// Which calls each rule of the spec's Authentication section names.

/** Rule 4: the guide calls that use ClientToken. */
export const CLIENT_TOKEN_CALLS: ReadonlySet<string> = new Set([
  'GET /companies/status', 'GET /companies/details/{CompanyId}', 'POST /companies/users', 'POST /companies/identifiers', 'POST /buyerparties/lookup',
  'POST /network/setup', 'POST /documents', 'POST /documents/outbound', 'GET /documents/outbound/{DocumentId}', 'GET /invoices/outbound/{DocumentId}',
  'GET /invoices/outbound/byerpid/{DocumentId}', 'GET /documents/incoming', 'GET /documents/{id}', 'POST /documents/handled',
  'POST /companies/deliverymethods/b2c/providera', 'GET /companies/deliverymethods/b2c/providera', 'PATCH /companies/deliverymethods/b2c/providera',
  'POST /companies/deliverymethods/b2c/providera/icon', 'POST /companies/deliverymethods/b2c/providera/offboard', 'POST /companies/deliverymethods/b2c/providera/lookup',
]);

/** Rule 2: the calls made with APIkey. */
export const API_KEY_CALLS: ReadonlySet<string> = new Set(['POST /clienttokens/create', 'POST /companies/register', 'POST /companies/delete']);

/** Rule 7 (and the inbound info call, which no rule names): the scheme is not shown. */
export const OPEN_SCHEME_CALLS: ReadonlySet<string> = new Set([
  'POST /clienttokens/revoke', 'POST /clienttokens/createsearchtoken', 'POST /companies/services', 'POST /sellerparties/lookup',
  'POST /documents/outbound/list', 'GET /documents/outbound/download/{DocumentId}', 'GET /documents/{id}/info',
]);

/** Calls a client repeats to follow background work. */
export const POLLED_CALLS: ReadonlySet<string> = new Set([
  'GET /companies/status', 'GET /documents/outbound/{DocumentId}', 'GET /invoices/outbound/{DocumentId}', 'GET /invoices/outbound/byerpid/{DocumentId}', 'GET /documents/incoming',
]);

export const OUTBOUND_STATUS_CALLS: ReadonlySet<string> = new Set(['GET /documents/outbound/{DocumentId}', 'GET /invoices/outbound/{DocumentId}', 'GET /invoices/outbound/byerpid/{DocumentId}']);

/** The flows a client of the main use cases tries, each by the endpoints that make it; every endpoint of the catalog is in one. */
export const FLOWS: Record<string, readonly string[]> = {
  'register a company': ['POST /companies/register'],
  'follow the registration': ['GET /companies/status'],
  'set company details': ['POST /companies/details'],
  'read company details': ['GET /companies/details/{CompanyId}'],
  'activate services': ['POST /companies/services'],
  'create a client token': ['POST /clienttokens/create'],
  'revoke a token': ['POST /clienttokens/revoke'],
  'create a search token': ['POST /clienttokens/createsearchtoken'],
  'look up trading partners': ['POST /buyerparties/lookup', 'POST /sellerparties/lookup'],
  'request a network setup': ['POST /network/setup'],
  'upload a document': ['POST /documents'],
  'send a document': ['POST /documents/outbound'],
  'follow an outbound status': ['GET /documents/outbound/{DocumentId}', 'GET /invoices/outbound/{DocumentId}', 'GET /invoices/outbound/byerpid/{DocumentId}', 'POST /documents/outbound/list'],
  'download a sent document': ['GET /documents/outbound/download/{DocumentId}'],
  'list the inbox': ['GET /documents/incoming'],
  'download an inbound document': ['GET /documents/{id}'],
  'read an inbound document\'s info': ['GET /documents/{id}/info'],
  'mark documents handled': ['POST /documents/handled'],
  'add a user': ['POST /companies/users'],
  'add an identifier': ['POST /companies/identifiers'],
  'use provider A': ['POST /companies/deliverymethods/b2c/providera', 'GET /companies/deliverymethods/b2c/providera', 'PATCH /companies/deliverymethods/b2c/providera', 'POST /companies/deliverymethods/b2c/providera/icon', 'POST /companies/deliverymethods/b2c/providera/offboard', 'POST /companies/deliverymethods/b2c/providera/lookup'],
  'request deletion': ['POST /companies/delete'],
};

/** A short name of each flow for --require-flows: the first words that tell it apart. */
export const FLOW_IDS: Record<string, string> = {
  'register a company': 'register',
  'follow the registration': 'follow-registration',
  'set company details': 'set-details',
  'read company details': 'read-details',
  'activate services': 'activate-services',
  'create a client token': 'client-token',
  'revoke a token': 'revoke-token',
  'create a search token': 'search-token',
  'look up trading partners': 'lookup',
  'request a network setup': 'network-setup',
  'upload a document': 'upload',
  'send a document': 'send',
  'follow an outbound status': 'outbound-status',
  'download a sent document': 'outbound-download',
  'list the inbox': 'inbox',
  'download an inbound document': 'inbound-download',
  'read an inbound document\'s info': 'inbound-info',
  'mark documents handled': 'mark-handled',
  'add a user': 'add-user',
  'add an identifier': 'add-identifier',
  'use provider A': 'provider-a',
  'request deletion': 'delete',
};

/**
 * Profiles of --require-flows. core: what every ERP client of the guide's main use cases does
 * (register and follow, a token, send a document and follow it, receive and mark handled).
 */
export const FLOW_PROFILES: Record<string, readonly string[]> = {
  all: Object.keys(FLOWS),
  core: ['register a company', 'follow the registration', 'create a client token', 'upload a document', 'send a document', 'follow an outbound status', 'list the inbox', 'download an inbound document', 'mark documents handled'],
};
