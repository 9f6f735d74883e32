/**
 * Turns every failure into the catalogue's body shape. Fastify's own errors (bad JSON, wrong content type, body too
 * large) are mapped to their codes; everything else as every front end maps it (toServiceError): anything
 * unexpected is logged with its stack and answered without detail.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  InternalServerError,
  InvalidPayloadError,
  RequestsExceededError,
  RouteNotFoundError,
  ServiceError,
  ServiceErrorList,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../errors/catalogue.js';
import { DatabaseError } from '../errors/database-error.js';
import { toServiceError } from '../errors/to-service-error.js';

/** An error as the catalogue error the HTTP answer carries: Fastify's own first, then as every front end. */
export function httpServiceError(error: unknown, request: FastifyRequest): ServiceError {
  if (error instanceof ServiceError || error instanceof DatabaseError) return toServiceError(error);
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError(String(request.headers['content-type'] ?? ''), 'Content-Type header');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // Directus's reason; the message also names the setting (Fastify refuses from Content-Length before reading).
      return new InvalidPayloadError(
        `request entity too large (more than ${request.routeOptions.bodyLimit} bytes, the MAX_PAYLOAD_SIZE setting)`,
        { reason: 'request entity too large' },
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new InvalidPayloadError('Payload in body is required');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new InvalidPayloadError('Invalid JSON in request body');
    case 'FST_ERR_NOT_FOUND':
      return new RouteNotFoundError(request.url.split('?')[0]!);
  }
  // JSON.parse failures from the content-type parser surface as SyntaxError with statusCode 400.
  if (error instanceof SyntaxError || fastifyError.statusCode === 400)
    return new InvalidPayloadError('Invalid JSON in request body');
  return toServiceError(error);
}

export function errorBody(error: ServiceError): string {
  const errors = error instanceof ServiceErrorList ? error.errors : [error];
  return JSON.stringify({
    errors: errors.map((e) => ({ message: e.message, extensions: { code: e.code, ...e.extensions } })),
  });
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const serviceError = httpServiceError(error, request);
  if (serviceError instanceof InternalServerError || serviceError instanceof ServiceUnavailableError) {
    request.log.error({ err: error }, serviceError.message);
  }
  if (serviceError instanceof RequestsExceededError)
    void reply.header('retry-after', String(serviceError.retryAfterSeconds));
  void reply.code(serviceError.status).type('application/json; charset=utf-8').send(errorBody(serviceError));
}
