/** Where a write came from, for its activity rows: the caller's ip (as authentication read it), user agent, origin. */
import type { FastifyRequest } from 'fastify';
import type { AuditClient } from '../engine/write/audit-trail.js';

export function writeClient(request: FastifyRequest): AuditClient {
  const agent = request.headers['user-agent'];
  const origin = request.headers.origin;
  return {
    ip: request.accountability?.ip ?? null,
    userAgent: typeof agent === 'string' ? agent : null,
    origin: boundedOrigin(origin),
  };
}

/** The activity and session rows keep an origin of at most 255 characters: a longer header is cut, never refused. */
const ORIGIN_MAX = 255;

export function boundedOrigin(origin: unknown): string | null {
  return typeof origin === 'string' ? origin.slice(0, ORIGIN_MAX) : null;
}
