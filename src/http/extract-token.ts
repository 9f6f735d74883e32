import type { FastifyRequest } from 'fastify';
import { InvalidPayloadError } from '../errors/catalogue.js';

/**
 * The token of a request: `?access_token=` or `Authorization: Bearer` (Directus docs: Authentication), else the session cookie.
 * Sending it both of the first two ways is refused rather than silently picking one.
 */
export function extractToken(request: FastifyRequest, sessionCookie: string): string | null {
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = typeof query?.access_token === 'string' && query.access_token !== '' ? query.access_token : null;

  let fromHeader: string | null = null;
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const parts = header.trim().split(/\s+/);
    if (parts.length === 2 && parts[0]!.toLowerCase() === 'bearer') fromHeader = parts[1]!;
  }

  if (fromQuery && fromHeader)
    throw new InvalidPayloadError('The request uses more than one method for including an access token');
  const fromCookie = request.cookies?.[sessionCookie];
  return fromQuery ?? fromHeader ?? (fromCookie ? fromCookie : null);
}
