/**
 * The coded error catalogue (reference §2.2). Every error a client can see is one of these;
 * the HTTP layer turns them into `{errors:[{message, extensions:{code, ...}}]}`.
 */
export type Extensions = Record<string, unknown>;

export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly extensions: Extensions;

  constructor(code: string, status: number, message: string, extensions: Extensions = {}) {
    super(message);
    this.code = code;
    this.status = status;
    this.extensions = extensions;
  }
}

export class ForbiddenError extends ServiceError {
  constructor(reason?: string) {
    super('FORBIDDEN', 403, reason ?? "You don't have permission to access this.", reason ? { reason } : {});
  }
}

export class RouteNotFoundError extends ServiceError {
  constructor(path: string) {
    super('ROUTE_NOT_FOUND', 404, `Route ${path} doesn't exist.`, { path });
  }
}

export class InvalidPayloadError extends ServiceError {
  constructor(reason: string) {
    super('INVALID_PAYLOAD', 400, `Invalid payload. ${reason}.`, { reason });
  }
}

export class InvalidQueryError extends ServiceError {
  constructor(reason: string) {
    super('INVALID_QUERY', 400, `Invalid query. ${reason}.`, { reason });
  }
}

export class InvalidCredentialsError extends ServiceError {
  constructor() {
    super('INVALID_CREDENTIALS', 401, 'Invalid user credentials.');
  }
}

export class InvalidTokenError extends ServiceError {
  constructor() {
    super('INVALID_TOKEN', 403, 'Invalid token.');
  }
}

export class TokenExpiredError extends ServiceError {
  constructor() {
    super('TOKEN_EXPIRED', 401, 'Token expired.');
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  constructor(mediaType: string, where: string) {
    super('UNSUPPORTED_MEDIA_TYPE', 415, `Unsupported media type "${mediaType}" in ${where}.`, { mediaType, where });
  }
}

export class ServiceUnavailableError extends ServiceError {
  constructor(service: string, reason: string) {
    super('SERVICE_UNAVAILABLE', 503, `Service "${service}" is unavailable. ${reason}.`, { service, reason });
  }
}

export class InvalidOtpError extends ServiceError {
  constructor() {
    super('INVALID_OTP', 401, 'Invalid user OTP.');
  }
}

export class InvalidIpError extends ServiceError {
  constructor() {
    super('INVALID_IP', 401, 'IP address not allowed.');
  }
}

export class UserSuspendedError extends ServiceError {
  constructor() {
    super('USER_SUSPENDED', 401, 'User suspended.');
  }
}

/** Over a rate limit (reference §8): `Retry-After` is set by the HTTP layer from `retryAfterSeconds`. */
export class RequestsExceededError extends ServiceError {
  constructor(
    readonly retryAfterSeconds: number,
    limit: number,
    reset: Date,
  ) {
    super('REQUESTS_EXCEEDED', 429, `Too many requests, retry after ${retryAfterSeconds}s.`, { limit, reset: reset.toISOString() });
  }
}

export class InternalServerError extends ServiceError {
  constructor() {
    super('INTERNAL_SERVER_ERROR', 500, 'An unexpected error occurred.');
  }
}

/** Forbidden reason used for unknown/unreadable collections (reference §1.1). */
export function collectionForbidden(collection: string): ForbiddenError {
  return new ForbiddenError(
    `You don't have permission to access collection "${collection}" or it does not exist. Queried in root.`,
  );
}

/** Forbidden reason used for unknown/unreadable fields (reference §1.4). */
export function fieldForbidden(field: string, collection: string, path = 'root'): ForbiddenError {
  return new ForbiddenError(
    `You don't have permission to access field "${field}" in collection "${collection}" or it does not exist. Queried in ${path}.`,
  );
}
