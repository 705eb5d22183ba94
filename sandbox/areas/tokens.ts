// POST /clienttokens/create, /clienttokens/revoke, /clienttokens/createsearchtoken.
import type { FastifyInstance } from 'fastify';
import { authenticateApiKey, authenticateClientToken, requireApiKey, requireClientToken, requireEither, requireNothing } from '../auth.ts';
import { formatTime, hasFault, hasVariant, sendBody, type AreaOptions, type SandboxContext } from '../context.ts';
import { ApiError, badRequest } from '../errors.ts';
import type { Company, TokenRecord } from '../store.ts';
import { bodyOf, optionalDateTime, optionalEmail, optionalObject, optionalString, optionalStringArray, requiredString } from '../validate.ts';

function tokenBody(context: SandboxContext, token: TokenRecord) {
  if (hasFault(context, 'token-answer-without-token')) return { ValidTo: token.ValidTo === undefined ? null : formatTime(context, token.ValidTo) };
  if (token.ValidTo === undefined) return hasVariant(context, 'token-validto-omitted') ? { Token: token.Token } : { Token: token.Token, ValidTo: null };
  const validTo = hasFault(context, 'token-validto-malformed') ? new Date(token.ValidTo).toUTCString() : formatTime(context, token.ValidTo);
  return { Token: token.Token, ValidTo: validTo };
}

/** The delay-token-create-50ms variant: a slower build, for the load comparison to find. */
const TOKEN_CREATE_DELAY_MS = 50;

/** The fault token-unknown-erpid-latest-company: the key's latest registered company. */
function latestOfKey(context: SandboxContext, apiKey: string): Company | undefined {
  let latest: Company | undefined;
  for (const company of context.store.liveCompanies()) if (company.ApiKey === apiKey) latest = company;
  return latest;
}

export async function tokensArea(app: FastifyInstance, { context }: AreaOptions): Promise<void> {
  const { store } = context;
  /** The fault token-companies-mixed: each key's previous client token. */
  const previousTokens = new Map<string, TokenRecord>();
  const delayed = hasVariant(context, 'delay-token-create-50ms');

  // Synchronous and authenticating in the handler, as GET /companies/status does: the two calls
  // a load run makes most skip the preHandler hook runner, the promise and the extra tick of an
  // async handler. A throw still reaches the error handler.
  app.post('/clienttokens/create', (request, reply) => {
    // The fault: a ClientToken alone mints tokens for the API key its company belongs to.
    if (hasFault(context, 'client-token-mints-tokens') && request.headers.apikey === undefined && request.headers.clienttoken !== undefined) authenticateClientToken(context, request);
    else authenticateApiKey(context, request);
    const body = bodyOf(request);
    if (hasFault(context, 'token-erpid-optional') && optionalString(body, 'ErpId') === undefined) {
      sendBody(context, reply, 200, tokenBody(context, store.tokens.create({ ApiKey: request.auth.apiKey as string, Kind: 'search', SearchId: 'no ErpId' })));
      return;
    }
    const erpId = requiredString(body, 'ErpId');
    const validTo = optionalDateTime(body, 'ValidTo');
    const user = optionalObject(body, 'User');
    let userRoles: string[] | undefined;
    if (user !== undefined) {
      optionalString(user, 'FullName', 'User.FullName');
      optionalString(user, 'UserName', 'User.UserName');
      // grading-open: the spec gives the User's "Email strings", no e-mail format.
      if (hasVariant(context, 'grading-open')) optionalString(user, 'Email', 'User.Email');
      else optionalEmail(user, 'Email', 'User.Email');
      userRoles = optionalStringArray(user, 'Roles', 'User.Roles') ?? [];
    }
    const apiKey = request.auth.apiKey as string;
    const company = store.companyByErpId(apiKey, erpId)
      ?? (hasFault(context, 'token-unknown-erpid-latest-company') ? latestOfKey(context, apiKey) : undefined)
      ?? (hasFault(context, 'token-erpid-any-key') ? store.companyByErpIdOfAnyKey(erpId) : undefined);
    if (company === undefined) {
      const status = hasVariant(context, 'token-unknown-erpid-404') ? 404 : hasVariant(context, 'token-unknown-erpid-401') ? 401 : 400;
      throw new ApiError(status, 'companyNotFoundForErpId', { erpId });
    }
    if (company.Status !== 'Registered' && hasVariant(context, 'token-after-registered')) throw badRequest('companyNotRegistered', { erpId });
    if (hasFault(context, 'token-create-500')) throw new ApiError(500, 'internalError');
    const made = store.tokens.create({ ApiKey: apiKey, Kind: 'client', CompanyId: company.CompanyId, ValidTo: validTo?.getTime(), UserRoles: userRoles });
    // The fault token-companies-mixed: the answer comes from a cache keyed by the API key alone, so it carries the key's previous token.
    const previous = hasFault(context, 'token-companies-mixed') ? previousTokens.get(apiKey) : undefined;
    if (hasFault(context, 'token-companies-mixed')) previousTokens.set(apiKey, made);
    const token = previous !== undefined && previous.CompanyId !== made.CompanyId ? previous : made;
    const answer = (): unknown => sendBody(context, reply, hasFault(context, 'token-create-201') ? 201 : 200, tokenBody(context, token));
    if (delayed) setTimeout(answer, TOKEN_CREATE_DELAY_MS);
    else answer();
  });

  // Which scheme revoke and search-token creation take is not shown: either, or the APIkey alone with a variant.
  const revokeAuth = hasVariant(context, 'revoke-apikey-only') ? requireApiKey(context)
    : hasVariant(context, 'revoke-token-only') ? requireClientToken(context, true) : requireEither(context, true);
  const searchTokenAuth = hasVariant(context, 'search-token-apikey-only') ? requireApiKey(context)
    : hasVariant(context, 'search-token-open') ? requireNothing(context) : requireEither(context, true);

  app.post('/clienttokens/revoke', { preHandler: revokeAuth }, async (request, reply) => {
    const value = requiredString(bodyOf(request), 'ClientToken');
    const token = store.tokens.get(value);
    // Another integrator's token is treated as unknown, so its existence does not leak.
    if (token === undefined || token.ApiKey !== request.auth.apiKey) {
      if (hasVariant(context, 'revoke-unknown-200')) return reply.code(200).send();
      throw new ApiError(404, 'notFound', { what: 'ClientToken' });
    }
    store.tokens.revoke(value);
    return reply.code(200).send();
  });

  app.post('/clienttokens/createsearchtoken', { preHandler: searchTokenAuth }, async (request, reply) => {
    const body = bodyOf(request);
    const searchId = requiredString(body, 'SearchId');
    const validTo = optionalDateTime(body, 'ValidTo');
    // Asked with no credential (search-token-open), the token belongs to no API key.
    const token = store.tokens.create({ ApiKey: request.auth.apiKey ?? '', Kind: 'search', SearchId: searchId, ValidTo: validTo?.getTime() });
    return sendBody(context, reply, 200, tokenBody(context, token));
  });
}
