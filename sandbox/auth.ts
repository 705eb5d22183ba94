// The spec's two schemes: APIkey identifies the integrator, ClientToken the company (or, for a
// search token, a temporary search). Each route names the schemes it takes through one of these
// preHandlers; where the spec leaves the scheme "not shown" the route takes either.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { hasFault, type SandboxContext } from './context.ts';
import type { Company, TokenRecord } from './store.ts';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The configured key the header names: what tokens and companies keep lives as long as the store. */
function checkApiKey(context: SandboxContext, request: FastifyRequest): string {
  const value = header(request, 'apikey');
  if (value === undefined) throw new ApiError(401, 'apiKeyMissing');
  const apiKey = context.store.apiKeys.get(value) ?? (accessFault(context, request, 'credentials-prefix-compared') ? byPrefix(context, value) : undefined);
  if (apiKey === undefined) {
    // The fault: register takes a key it never configured for the first one it has.
    const first = accessFault(context, request, 'wrong-api-key-registers') ? context.store.apiKeys.values().next().value : undefined;
    if (first !== undefined) return first.Key;
    throw new ApiError(401, 'apiKeyInvalid');
  }
  return apiKey.Key;
}

/** The fault credentials-prefix-compared reads this many first characters of a credential, and no more. */
const COMPARED_PREFIX = 16;

function byPrefix(context: SandboxContext, value: string): { Key: string; Roles: Set<string> } | undefined {
  if (value.length < COMPARED_PREFIX) return undefined;
  for (const apiKey of context.store.apiKeys.values()) if (apiKey.Key.slice(0, COMPARED_PREFIX) === value.slice(0, COMPARED_PREFIX)) return apiKey;
  return undefined;
}

/** Faults auth-not-enforced and apikey-as-client-token act for the latest company (of the key, of the country, if one is given). */
function latestCompany(context: SandboxContext, apiKey?: string, countryCode?: string): Company | undefined {
  let latest: Company | undefined;
  for (const company of context.store.liveCompanies()) if ((apiKey === undefined || company.ApiKey === apiKey) && (countryCode === undefined || company.Fields.CountryCode === countryCode)) latest = company;
  return latest;
}

/**
 * Fault empty-header-on-provider-a acts for the latest company onboarded with provider A, else the latest
 * Swedish one: the calls serve only those, so the door it opens answers 2xx whatever the order of registrations.
 */
function providerACompany(context: SandboxContext): Company | undefined {
  let onboarded: Company | undefined;
  for (const company of context.store.liveCompanies()) if (company.ProviderA !== undefined) onboarded = company;
  return onboarded ?? latestCompany(context, undefined, 'SE');
}

/** The route a request reached, as "METHOD /path" under the API prefix: the access faults (issue 40) open one door each. */
function routeOf(request: FastifyRequest): string {
  return `${request.method} ${(request.routeOptions.url ?? '').replace(/^.*?\/api(?=\/)/, '')}`;
}

const PROVIDER_A_ROUTE = /^[A-Z]+ \/companies\/deliverymethods\/b2c\/providera/;
const ACCESS_FAULT_ROUTES: Record<string, (route: string) => boolean> = {
  // Every ClientToken call but the one SEC-03 tries.
  'apikey-acts-as-company': (route) => route !== 'GET /companies/status',
  'search-token-uploads': (route) => ['POST /documents', 'POST /documents/outbound', 'POST /companies/users'].includes(route),
  'expired-token-accepted-on-send': (route) => route === 'POST /documents/outbound' || route === 'POST /documents',
  'revoked-token-accepted-on-provider-a': (route) => PROVIDER_A_ROUTE.test(route),
  'unknown-token-on-identifiers': (route) => route === 'POST /companies/identifiers',
  'empty-header-on-provider-a': (route) => PROVIDER_A_ROUTE.test(route),
  'refused-with-effect': (route) => route === 'POST /companies/users' || route === 'POST /documents/outbound',
  'wrong-api-key-registers': (route) => route === 'POST /companies/register',
  // One door of each scheme: a run that fails every row starts a new worker process for each.
  'credentials-prefix-compared': (route) => route === 'POST /clienttokens/create' || route === 'POST /companies/identifiers',
};

/** One of the access faults, on a route it opens. */
function accessFault(context: SandboxContext, request: FastifyRequest, name: string): boolean {
  return hasFault(context, name) && (ACCESS_FAULT_ROUTES[name] as (route: string) => boolean)(routeOf(request));
}

/** What requireClientToken checks; a handler may call it first thing itself (see authenticateApiKey). */
export function authenticateClientToken(context: SandboxContext, request: FastifyRequest, allowSearch = false): void {
  const value = header(request, 'clienttoken');
  if (value === undefined) {
    const apiKey = header(request, 'apikey');
    const company = hasFault(context, 'auth-not-enforced') ? latestCompany(context)
      : apiKey !== undefined && context.store.apiKeys.has(apiKey) && accessFault(context, request, 'apikey-acts-as-company') ? latestCompany(context, apiKey)
        : request.headers.clienttoken === '' && accessFault(context, request, 'empty-header-on-provider-a') ? providerACompany(context)
          : undefined;
    if (company === undefined) throw new ApiError(401, 'clientTokenMissing');
    request.auth = { apiKey: company.ApiKey, company };
    return;
  }
  const token: TokenRecord | undefined = context.store.tokens.get(value) ?? (accessFault(context, request, 'credentials-prefix-compared') ? context.store.tokens.get(value, COMPARED_PREFIX) : undefined);
  if (token === undefined) {
    const company = hasFault(context, 'apikey-as-client-token') && context.store.apiKeys.has(value) ? latestCompany(context, value)
      : accessFault(context, request, 'unknown-token-on-identifiers') ? latestCompany(context) : undefined;
    if (company === undefined) throw new ApiError(401, 'clientTokenInvalid');
    request.auth = { apiKey: company.ApiKey, company };
    return;
  }
  if (token.Revoked && token.Kind !== 'search' && token.CompanyId !== undefined && accessFault(context, request, 'refused-with-effect')) {
    const company = context.store.companies.get(token.CompanyId);
    if (company !== undefined) {
      request.auth = { apiKey: token.ApiKey, token, company, refuseAfterEffect: true };
      return;
    }
  }
  if (token.Revoked && !hasFault(context, 'revoked-token-accepted') && !accessFault(context, request, 'revoked-token-accepted-on-provider-a')) throw new ApiError(401, 'clientTokenRevoked');
  if (token.ValidTo !== undefined && token.ValidTo <= Date.now() && !hasFault(context, 'expired-token-accepted') && !accessFault(context, request, 'expired-token-accepted-on-send')) throw new ApiError(401, 'clientTokenExpired');
  if (token.Kind === 'search') {
    if (!allowSearch && (hasFault(context, 'search-token-company-access') || accessFault(context, request, 'search-token-uploads'))) {
      // The fault: a search token, made for no company, acts for the API key's latest company.
      const company = latestCompany(context, token.ApiKey);
      if (company !== undefined) {
        request.auth = { apiKey: token.ApiKey, token, company };
        return;
      }
    }
    if (!allowSearch) throw new ApiError(401, 'searchTokenNotAllowed');
    request.auth = { apiKey: token.ApiKey, token };
    return;
  }
  const company = token.CompanyId === undefined ? undefined : context.store.companies.get(token.CompanyId);
  if (company === undefined || company.Status === 'Deleted') throw new ApiError(401, 'clientTokenInvalid');
  request.auth = { apiKey: token.ApiKey, token, company };
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

// Callback-style hooks: they sit on every request, and skip a promise per call.
function hook(check: (request: FastifyRequest) => void): Hook {
  return (request, _reply, done) => {
    try {
      check(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}

/**
 * What requireApiKey checks, for a handler to call first thing itself: the hottest routes skip
 * fastify's preHandler hook runner. The body is parsed before either runs, so the order of the
 * answers (400 for a malformed body, then 401) is the same.
 */
export function authenticateApiKey(context: SandboxContext, request: FastifyRequest): void {
  request.auth = { apiKey: checkApiKey(context, request) };
}

export function requireApiKey(context: SandboxContext): Hook {
  return hook((request) => authenticateApiKey(context, request));
}

/** A client token of a company; with allowSearch also a search token (lookups). */
export function requireClientToken(context: SandboxContext, allowSearch = false): Hook {
  return hook((request) => authenticateClientToken(context, request, allowSearch));
}

/** A call open to anyone (the search-token-open variant): a credential sent is still checked, none is no refusal. */
export function requireNothing(context: SandboxContext): Hook {
  return hook((request) => {
    if (header(request, 'clienttoken') !== undefined) return authenticateClientToken(context, request, true);
    if (header(request, 'apikey') !== undefined) return authenticateApiKey(context, request);
    request.auth = {};
  });
}

/** For calls whose scheme the spec does not show: a ClientToken when one is sent, otherwise an APIkey. */
export function requireEither(context: SandboxContext, allowSearch = false): Hook {
  return hook((request) => {
    if (header(request, 'clienttoken') !== undefined) return authenticateClientToken(context, request, allowSearch);
    if (header(request, 'apikey') !== undefined) return authenticateApiKey(context, request);
    throw new ApiError(401, 'credentialsMissing');
  });
}
