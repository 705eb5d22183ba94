// The spec's error body is "a JSON string with a message". Handlers throw ApiError; the error
// handler localises the message for the request's Accept-Language and writes that string.
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
  return message(languageOf(request.headers['accept-language']), key, params);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, statusCode: number, key: MessageKey, params: MessageParams = {}): FastifyReply {
  return reply
    .code(statusCode)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(localise(request, key, params)));
}

export function badRequest(key: MessageKey, params: MessageParams = {}): ApiError {
  return new ApiError(400, key, params);
}

export function notFound(what: string): ApiError {
  return new ApiError(404, 'notFound', { what });
}
