/**
 * The coded error catalogue (Directus docs: Errors). Every error a client can see is one of these;
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
  constructor(reason: string, extra: Extensions = {}) {
    super('INVALID_PAYLOAD', 400, `Invalid payload. ${reason}.`, { reason, ...extra });
  }
}

/** Making a column NOT NULL while rows hold nulls in it (Directus docs: Errors). */
export class UnprocessableContentError extends ServiceError {
  constructor(reason: string) {
    super('UNPROCESSABLE_CONTENT', 422, `Can't process content. ${reason}.`, { reason });
  }
}

export class ContainsNullValuesError extends ServiceError {
  constructor(collection: string, field: string) {
    super('CONTAINS_NULL_VALUES', 400, `Field "${field}" in collection "${collection}" contains null values.`, {
      collection,
      field,
    });
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

export class InvalidProviderError extends ServiceError {
  constructor() {
    super('INVALID_PROVIDER', 403, 'Invalid provider.');
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

/** A sign-on provider Strata cannot use as configured (its service account refused, say); details go to the log. */
export class InvalidProviderConfigError extends ServiceError {
  constructor(provider: string) {
    super('INVALID_PROVIDER_CONFIG', 503, 'Invalid config.', { provider });
  }
}

export class InvalidOtpError extends ServiceError {
  constructor() {
    super('INVALID_OTP', 401, 'Invalid user OTP.');
  }
}

export class InvalidIpError extends ServiceError {
  constructor() {
    super('INVALID_IP', 401, 'Invalid IP address.');
  }
}

export class UserSuspendedError extends ServiceError {
  constructor() {
    super('USER_SUSPENDED', 401, 'User suspended.');
  }
}

/** Over a rate limit (Directus docs: Security and limits): `Retry-After` is set by the HTTP layer from `retryAfterSeconds`. */
export class RequestsExceededError extends ServiceError {
  constructor(
    readonly retryAfterSeconds: number,
    limit: number,
    reset: Date,
  ) {
    super('REQUESTS_EXCEEDED', 429, `Too many requests, retry after ${retryAfterSeconds}s.`, {
      limit,
      reset: reset.toISOString(),
    });
  }
}

export class InternalServerError extends ServiceError {
  constructor() {
    super('INTERNAL_SERVER_ERROR', 500, 'An unexpected error occurred.');
  }
}

/** One failing rule of an item (Directus docs: Errors); `path` locates the item inside a nested or batch payload. */
export class FailedValidationError extends ServiceError {
  constructor(field: string, path: (string | number)[], type: string, detail: string, extra: Extensions = {}) {
    super('FAILED_VALIDATION', 400, `Validation failed for field "${field}". ${detail}`, {
      field,
      path,
      type,
      ...extra,
    });
  }
}

export class RecordNotUniqueError extends ServiceError {
  constructor(collection: string | null, field: string | null, value: unknown = null) {
    const parts = [
      value !== null && value !== undefined ? `Value "${String(value)}"` : 'Value',
      field ? ` for field "${field}"` : '',
      collection ? ` in collection "${collection}"` : '',
    ];
    super('RECORD_NOT_UNIQUE', 400, `${parts.join('')} has to be unique.`, { collection, field, value: value ?? null });
  }
}

export class NotNullViolationError extends ServiceError {
  constructor(collection: string | null, field: string | null) {
    super(
      'NOT_NULL_VIOLATION',
      400,
      `Value${field ? ` for field "${field}"` : ''}${collection ? ` in collection "${collection}"` : ''} can't be null.`,
      { collection, field },
    );
  }
}

export class ValueTooLongError extends ServiceError {
  constructor(collection: string | null, field: string | null) {
    super(
      'VALUE_TOO_LONG',
      400,
      `Value${field ? ` for field "${field}"` : ''}${collection ? ` in collection "${collection}"` : ''} is too long.`,
      { collection, field },
    );
  }
}

export class ValueOutOfRangeError extends ServiceError {
  constructor(collection: string | null, field: string | null) {
    super(
      'VALUE_OUT_OF_RANGE',
      400,
      `Numeric value${field ? ` for field "${field}"` : ''}${collection ? ` in collection "${collection}"` : ''} is out of range.`,
      { collection, field },
    );
  }
}

export class InvalidForeignKeyError extends ServiceError {
  constructor(collection: string | null, field: string | null) {
    super(
      'INVALID_FOREIGN_KEY',
      400,
      `Invalid foreign key${field ? ` for field "${field}"` : ''}${collection ? ` in collection "${collection}"` : ''}.`,
      { collection, field },
    );
  }
}

/**
 * Several errors answered together (Directus docs: Errors): one entry each. The status is their common status, 500 when
 * they differ. Validation collects every failing field into one of these.
 */
export class ServiceErrorList extends ServiceError {
  constructor(readonly errors: ServiceError[]) {
    const statuses = new Set(errors.map((e) => e.status));
    super(
      errors[0]?.code ?? 'INTERNAL_SERVER_ERROR',
      statuses.size === 1 ? errors[0]!.status : 500,
      errors[0]?.message ?? '',
    );
  }
}

/** Throws nothing for no errors, the error itself for one, a ServiceErrorList for several. */
export function throwAll(errors: ServiceError[]): void {
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new ServiceErrorList(errors);
}

/** Forbidden reason used for unknown/unreadable collections (Directus docs: Items). */
export function collectionForbidden(collection: string): ForbiddenError {
  return new ForbiddenError(
    `You don't have permission to access collection "${collection}" or it does not exist. Queried in root.`,
  );
}

/** Forbidden reason used for unknown/unreadable fields (Directus docs: Query parameters: fields). */
export function fieldForbidden(field: string, collection: string, path = 'root'): ForbiddenError {
  return new ForbiddenError(
    `You don't have permission to access field "${field}" in collection "${collection}" or it does not exist. Queried in ${path}.`,
  );
}

/** A GraphQL document that does not parse or does not validate against the caller's schema (Directus docs: GraphQL). */
export class GraphQLValidationError extends ServiceError {
  constructor(errors: unknown[]) {
    super('GRAPHQL_VALIDATION', 400, 'GraphQL validation error.', { errors });
  }
}

export class MethodNotAllowedError extends ServiceError {
  constructor(allowed: string[], message = 'Method not allowed.') {
    super('METHOD_NOT_ALLOWED', 405, message, { allowed });
  }
}

/** An upload larger than its limit, as Directus 12 answers it; the message names the setting that sets the limit. */
export class ContentTooLargeError extends ServiceError {
  constructor(limit: number, setting: string) {
    super(
      'CONTENT_TOO_LARGE',
      413,
      `Uploaded content is too large (more than ${limit} bytes, the ${setting} setting).`,
      { limit, setting },
    );
  }
}

/** The same error, naming the line of an imported file where it happened (`extensions.line`). */
export function atLine(error: ServiceError, line: number): ServiceError {
  if (error instanceof ServiceErrorList) return new ServiceErrorList(error.errors.map((e) => atLine(e, line)));
  return new ServiceError(error.code, error.status, `${error.message.replace(/\.$/, '')} (line ${line}).`, {
    ...error.extensions,
    line,
  });
}

/** A Range header that selects no byte of the file (Directus: RANGE_NOT_SATISFIABLE). */
export class RangeNotSatisfiableError extends ServiceError {
  constructor(range: string) {
    super('RANGE_NOT_SATISFIABLE', 416, `Range "${range}" is invalid or out of bounds.`, { range });
  }
}

/** An asset transform the settings or the limits do not allow (Directus: ILLEGAL_ASSET_TRANSFORMATION). */
export class IllegalAssetTransformationError extends ServiceError {
  constructor(reason: string) {
    super('ILLEGAL_ASSET_TRANSFORMATION', 400, `Illegal asset transformation: ${reason}.`, { reason });
  }
}
