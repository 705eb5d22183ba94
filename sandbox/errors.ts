// The spec's error body is "a JSON string with a message". Handlers throw ApiError; the error
// handler localises the message for the request's Accept-Language and writes that string.
import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { languageOf, message, type MessageKey, type MessageParams } from './messages.ts';

export class ApiError extends Error {
  readonly statusCode: number;
  readonly key: MessageKey;
  readonly params: MessageParams;

  constructor(statusCode: number, key: MessageKey, params: MessageParams = {}) {
    super(message('en', key, params));
    this.statusCode = statusCode;
    this.key = key;
    this.params = params;
  }
}

export function localise(request: FastifyRequest, key: MessageKey, params: MessageParams = {}): string {
  // The messages-english variant: the spec lets messages be localised, it does not make them.
  const language = request.variants?.has('messages-english') ? 'en' : languageOf(request.headers['accept-language']);
  return message(language, key, params);
}

/**
 * The cases of the spec's Errors table, whose body is "a JSON string with a message": call (route
 * url in lower case, without the version prefix) and statuses. Other error bodies are "not shown".
 */
const LISTED_ERRORS: Record<string, readonly number[]> = {
  'POST /companies/users': [400, 401, 409, 500],
  'POST /companies/identifiers': [400, 500],
  'POST /companies/delete': [401, 500, 501],
  'POST /network/setup': [400],
  'POST /companies/deliverymethods/b2c/providera': [400, 409],
  'POST /companies/deliverymethods/b2c/providera/lookup': [400],
};

function listedError(request: FastifyRequest, statusCode: number): boolean {
  const url = (request.routeOptions?.url ?? '').toLowerCase().replace(/^\/v1\/api/, '');
  return LISTED_ERRORS[`${request.method} ${url}`]?.includes(statusCode) ?? false;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, statusCode: number, key: MessageKey, params: MessageParams = {}): FastifyReply {
  const text = localise(request, key, params);
  const variants = request.variants;
  if (variants?.has('listed-error-object') === true && listedError(request, statusCode)) {
    // The other reading of "a JSON string with a message": a JSON text that carries the message.
    return reply.code(statusCode).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ message: text }));
  }
  if (variants !== undefined && !listedError(request, statusCode)) {
    // The error-* variants: another body where the spec does not show the error schema.
    if (variants.has('error-object')) {
      return reply.code(statusCode).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ message: text }));
    }
    if (variants.has('error-problem-json')) {
      const problem = { type: 'about:blank', title: STATUS_CODES[statusCode] ?? 'Error', status: statusCode, detail: text };
      return reply.code(statusCode).header('content-type', 'application/problem+json').send(JSON.stringify(problem));
    }
    if (variants.has('error-plain-text')) return reply.code(statusCode).header('content-type', 'text/plain; charset=utf-8').send(text);
  }
  return reply
    .code(statusCode)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(text));
}

export function badRequest(key: MessageKey, params: MessageParams = {}): ApiError {
  return new ApiError(400, key, params);
}

export function notFound(what: string): ApiError {
  return new ApiError(404, 'notFound', { what });
}
