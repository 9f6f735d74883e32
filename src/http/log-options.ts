/**
 * Pino options of the server's logger: secrets never reach a log line, at any level. Tokens in the query string
 * (`?access_token=`, also `refresh_token`) are replaced in every logged URL, and pino's redaction removes the
 * Authorization and Cookie headers, Set-Cookie, and password and token fields wherever a log call passes them
 * (request and response headers, bodies, errors). Static tokens never expire, so one in a log is a standing key.
 */
import type { FastifyRequest } from 'fastify';

const CENSOR = '[redacted]';
/** Query parameters whose values are credentials. */
const SECRET_PARAMS = /([?&](?:access_token|refresh_token|token|password)=)[^&#]*/gi;
const SECRET_FIELDS = ['password', 'access_token', 'refresh_token', 'token', 'otp', 'secret', 'tfa_secret'];

/** A URL with the values of credential parameters replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, `$1${CENSOR}`);
}

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-access-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  ...SECRET_FIELDS.flatMap((field) => [
    field,
    `*.${field}`,
    `body.${field}`,
    `req.body.${field}`,
    `req.query.${field}`,
    `query.${field}`,
  ]),
];

export function loggerOptions(level: string): object {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: {
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.headers?.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        };
      },
    },
  };
}
