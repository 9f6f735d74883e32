/**
 * Strict socket auth (WEBSOCKETS_REST_AUTH / WEBSOCKETS_GRAPHQL_AUTH = strict): the upgrade request must carry a
 * user's valid token (`?access_token=`, a Bearer header or the session cookie), or no socket is opened — Directus
 * answers such an upgrade `401 Unauthorized` before it becomes a WebSocket. The token is resolved again once the socket
 * is open (it may expire while the socket lives).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUnexpected, toServiceError } from '../errors/to-service-error.js';
import type { CallerApi } from '../app/ports.js';
import { extractToken } from './extract-token.js';

/** Answers 401 (and returns true) when the upgrade request carries no valid user token. */
export async function refuseUnauthenticatedUpgrade(
  context: CallerApi,
  request: FastifyRequest,
  reply: FastifyReply,
  ip: string | null,
): Promise<boolean> {
  let refusal: { status: number; code: string; message: string } | null = null;
  const invalid = (message: string) => ({ status: 401, code: 'INVALID_CREDENTIALS', message });
  try {
    const token = extractToken(request, context.config.auth.sessionCookie.name);
    if (!token) refusal = invalid('A strict socket needs a token on its upgrade request.');
    else if (!(await context.accountability.resolve(token, ip)).user) refusal = invalid('Invalid user credentials.');
  } catch (error) {
    // A database that cannot answer is not the client's fault: its 5xx stays one.
    const known = isUnexpected(error) ? null : toServiceError(error);
    refusal = known
      ? { status: known.status >= 500 ? known.status : 401, code: known.code, message: known.message }
      : invalid('Invalid user credentials.');
  }
  if (!refusal) return false;
  await reply.code(refusal.status).send({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
  return true;
}
