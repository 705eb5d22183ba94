// The endpoints the load flows call, named by the spec's method and path with ids as
// {placeholders}. Each request is tagged with its name, and the thresholds file names them too.
//
// Pure module, shared by k6 (api.ts) and the CLI (validating a thresholds file).

export const ENDPOINTS = {
  createToken: 'POST /clienttokens/create',
  register: 'POST /companies/register',
  status: 'GET /companies/status',
  buyerLookup: 'POST /buyerparties/lookup',
  sellerLookup: 'POST /sellerparties/lookup',
  upload: 'POST /documents',
  send: 'POST /documents/outbound',
  outboundStatus: 'GET /documents/outbound/{DocumentId}',
  incoming: 'GET /documents/incoming',
  download: 'GET /documents/{id}',
  info: 'GET /documents/{id}/info',
  handled: 'POST /documents/handled',
  providerARegister: 'POST /companies/deliverymethods/b2c/providera',
  providerALookup: 'POST /companies/deliverymethods/b2c/providera/lookup',
} as const;

/** Schema names of the bundled validators, per response body; each has its contract in lib/contract.ts. */
export const SCHEMAS = {
  clientToken: 'client-token.response',
  companyStatus: 'company-status.response',
  buyerLookup: 'lookup-buyer.response',
  sellerLookup: 'lookup-seller.response',
  outboundDocument: 'outbound-document.response',
  incomingDocuments: 'incoming-documents.response',
  providerALookup: 'provider-a-lookup.response',
} as const;
