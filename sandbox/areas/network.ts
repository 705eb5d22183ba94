// Buyer and seller lookup over the sandbox's companies plus the seeded directory, and network
// setup requests.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireApiKey, requireClientToken, requireEither } from '../auth.ts';
import { hasFault, hasVariant, sendBody, type AreaOptions, type SandboxContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { normaliseOrgNo, type Company } from '../store.ts';
import { partyBody, partyOfCompany, partyOfDirectory, unsetReading, type PartyKind, type PartyView } from '../views.ts';
import { processList } from './companies.ts';
import { uploadOfCompany } from './outbound.ts';
import { bodyOf, isPlainObject, optionalEmail, optionalObject, optionalString, optionalStringArray, requiredString, type Body } from '../validate.ts';

/** Criteria compared exactly (after trimming, regardless of case); Name and City match as substrings. */
const EXACT_CRITERIA = ['CountryCode', 'PostalZone', 'PostBox', 'PhoneNo', 'GLN', 'VatNo'] as const;
const SUBSTRING_CRITERIA = ['Name', 'StreetName', 'City'] as const;
const LOOKUP_STRINGS = ['Name', 'Department', 'StreetName', 'PostBox', 'PostalZone', 'City', 'CountryCode', 'PhoneNo', 'FaxNo', 'Email', 'GLN', 'OrgNo', 'VatNo', 'PeppolParticipantIdentifier', 'PostalCode'];
const PEPPOL_PARTICIPANT_IDENTIFIER = /^[^:]+::.+$/;
const PAYMENT_MEANS_STRINGS = ['Iban', 'AccountNo', 'Bic', 'CountryCode', 'AccountTypeCode', 'FinancialInstitutionId'];
/** Parties returned per lookup; PotentialMatches still counts them all. */
const MAX_PARTIES = 25;

function same(left: unknown, right: string): boolean {
  return typeof left === 'string' && left.trim().toLowerCase() === right.trim().toLowerCase();
}

interface Criteria {
  exact: Array<[string, string]>;
  substring: Array<[string, string]>;
  orgNo?: string;
  peppol?: string;
}

function criteriaOf(body: Body): Criteria {
  const criteria: Criteria = { exact: [], substring: [] };
  for (const name of EXACT_CRITERIA) {
    const value = body[name];
    if (typeof value === 'string' && value.trim() !== '') criteria.exact.push([name, value]);
  }
  // PostalCode is used only when PostalZone is not set.
  if (!criteria.exact.some(([name]) => name === 'PostalZone') && typeof body.PostalCode === 'string' && body.PostalCode.trim() !== '') {
    criteria.exact.push(['PostalZone', body.PostalCode]);
  }
  for (const name of SUBSTRING_CRITERIA) {
    const value = body[name];
    if (typeof value === 'string' && value.trim() !== '') criteria.substring.push([name, value.trim().toLowerCase()]);
  }
  if (typeof body.OrgNo === 'string' && body.OrgNo.trim() !== '') criteria.orgNo = normaliseOrgNo(body.OrgNo);
  if (typeof body.PeppolParticipantIdentifier === 'string' && body.PeppolParticipantIdentifier.trim() !== '') criteria.peppol = body.PeppolParticipantIdentifier.trim().toLowerCase();
  return criteria;
}

function matches(party: PartyView, criteria: Criteria): boolean {
  const fields = party.Common;
  for (const [name, value] of criteria.exact) if (!same(fields[name], value)) return false;
  for (const [name, value] of criteria.substring) {
    const field = fields[name];
    if (typeof field !== 'string' || !field.toLowerCase().includes(value)) return false;
  }
  if (criteria.orgNo !== undefined && (typeof fields.OrgNo !== 'string' || normaliseOrgNo(fields.OrgNo) !== criteria.orgNo)) return false;
  if (criteria.peppol !== undefined) {
    const identifiers = fields.PeppolParticipantIdentifiers as string[];
    if (!identifiers.some((identifier) => identifier.toLowerCase() === criteria.peppol)) return false;
  }
  return true;
}

function validateLookup(context: SandboxContext, body: Body, kind: PartyKind): void {
  if (!hasFault(context, 'lookup-partyid-optional')) requiredString(body, 'PartyId');
  for (const name of LOOKUP_STRINGS) optionalString(body, name);
  // The spec writes the identifier <scheme>::<id>; one that cannot be that matches nothing, so it is refused as the schema does.
  const peppol = optionalString(body, 'PeppolParticipantIdentifier');
  if (peppol !== undefined && peppol !== '' && !PEPPOL_PARTICIPANT_IDENTIFIER.test(peppol)) {
    throw badRequest('fieldInvalid', { field: 'PeppolParticipantIdentifier', detail: 'expected <scheme>::<id>, such as 0007::5567321707' });
  }
  if (kind === 'seller' && body.PaymentMeans !== undefined && body.PaymentMeans !== null) {
    if (!Array.isArray(body.PaymentMeans)) throw badRequest('fieldType', { field: 'PaymentMeans', type: 'an array of objects' });
    body.PaymentMeans.forEach((means, index) => {
      if (!isPlainObject(means)) throw badRequest('fieldType', { field: `PaymentMeans[${index}]`, type: 'an object' });
      for (const name of PAYMENT_MEANS_STRINGS) optionalString(means, name, `PaymentMeans[${index}].${name}`);
    });
  }
}

function lookup(context: SandboxContext, kind: PartyKind) {
  // The directory never changes, so its views are made once.
  const directory = context.store.directory.map(partyOfDirectory);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const body = bodyOf(request);
    validateLookup(context, body, kind);
    const criteria = criteriaOf(body);
    const found: PartyView[] = [];
    let potentialMatches = 0;
    const consider = (party: PartyView) => {
      if (!matches(party, criteria)) return;
      potentialMatches++;
      // lookup-parties-5: another page size of the answer; PotentialMatches still counts all.
      if (found.length < (hasVariant(context, 'lookup-parties-5') ? 5 : MAX_PARTIES)) found.push(party);
    };
    for (const company of context.store.liveCompanies()) if (company.Status === 'Registered') consider(partyOfCompany(company));
    for (const party of directory) consider(party);
    // An exact hit: one single party, found by an identifier rather than by name or address.
    const byIdentifier = criteria.orgNo !== undefined || criteria.peppol !== undefined || criteria.exact.some(([name]) => name === 'GLN' || name === 'VatNo');
    return sendBody(context, reply, 200, {
      PotentialMatches: potentialMatches,
      ExactHit: hasFault(context, 'lookup-exacthit-string') ? String(potentialMatches === 1 && byIdentifier) : potentialMatches === 1 && byIdentifier,
      Parties: found.map((party) => partyBody(party, kind, hasVariant(context, 'capability-unlisted'), unsetReading(context.variants))).map((party) => (hasFault(context, 'lookup-connected-string') ? { ...party, Connected: String(party.Connected) } : party)),
    });
  };
}

export async function networkArea(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const buyerAuth = requireClientToken(context, true);
  const unauthenticated = hasFault(context, 'lookup-unauthenticated');
  app.post('/buyerparties/lookup', {
    preHandler: (request, reply, done) => (unauthenticated && request.headers.clienttoken === undefined ? done() : buyerAuth(request, reply, done)),
  }, lookup(context, 'buyer'));
  // The spec does not show the scheme of the seller lookup: a client or search token, or an APIkey.
  const sellerAuth = hasVariant(context, 'seller-lookup-token-only') ? requireClientToken(context, true)
    : hasVariant(context, 'seller-lookup-apikey-only') ? requireApiKey(context) : requireEither(context, true);
  app.post('/sellerparties/lookup', { preHandler: sellerAuth }, lookup(context, 'seller'));

  // setup-search-token: a search token asks too, for a company not yet registered (its data is the body).
  app.post('/network/setup', { preHandler: requireClientToken(context, hasVariant(context, 'setup-search-token')) }, async (request, reply) => {
    // The request is the network setup request: without one there is nothing to set up.
    if (request.body === undefined) throw badRequest('bodyRequired');
    const body = bodyOf(request);
    const feedback = optionalString(body, 'NetworkSetupFeedbackEmail');
    // Empty or missing means "use the registration's e-mail"; anything else must be an address.
    if (feedback !== undefined && feedback.trim() !== '' && !hasFault(context, 'setup-feedback-email-unchecked')) optionalEmail(body, 'NetworkSetupFeedbackEmail');
    const operator = optionalObject(body, 'Operator');
    if (operator !== undefined) for (const name of ['Name', 'ContactName', 'ContactPhone', 'ContactEmail']) optionalString(operator, name, `Operator.${name}`);
    for (const name of LOOKUP_STRINGS) optionalString(body, name);
    if (hasFault(context, 'setup-processes-unchecked')) optionalStringArray(body, 'Processes');
    else processList(body);
    const company = request.auth.company as Company | undefined;
    const attachment = optionalString(body, 'AttachmentUri');
    // A search token's request has no company whose uploads its attachment could be one of.
    if (attachment !== undefined && attachment !== '' && !hasVariant(context, 'setup-attachment-unchecked') && company !== undefined) uploadOfCompany(context, company, attachment, 'AttachmentUri');
    const requestId = randomUUID();
    const requests = context.store.networkSetupRequests;
    requests.set(requestId, { CompanyId: company?.CompanyId ?? '', CreatedAt: Date.now() });
    if (requests.size > context.store.config.maxDocuments) requests.delete(requests.keys().next().value as string);
    return sendBody(context, reply, hasVariant(context, 'status-200') ? 200 : 202, hasFault(context, 'setup-requestid-missing') ? {} : { RequestId: requestId });
  });
}
