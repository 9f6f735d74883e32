/**
 * Credentials of a /websocket connection (Directus docs: WebSockets, Authentication): an `auth` message carries an
 * `access_token` (a JWT or a static token), a `refresh_token` (exchanged and rotated exactly as POST /auth/refresh in
 * json mode; the new one is handed back in the `auth` answer), or `email` + `password` (a json-mode login). The
 * handshake may carry a token too (`?access_token=`, `Authorization: Bearer`, or the session cookie of session mode).
 * What a socket keeps is the access token: it is re-resolved before each message and each event, so an expired token,
 * a logout or a revoked session ends the socket's rights at the next thing it does (and a timer at the token's `exp`
 * tells an idle socket).
 */
import type { AuthService } from '../../auth/auth-service.js';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { createDecoder } from 'fast-jwt';
import { looksLikeJwt } from '../../auth/access-tokens.js';

const decode = createDecoder();

export interface SocketCredentials {
  token: string;
  /** A refresh token issued for this exchange, to hand back to the client. */
  refreshToken?: string;
}

/** The access token an `auth` message stands for (a refresh or a login issues one first). */
export async function credentialsOf(
  context: { auth: AuthService },
  message: Record<string, unknown>,
  ip: string | null,
): Promise<SocketCredentials> {
  const client = { ip, userAgent: null };
  if (typeof message.access_token === 'string' && message.access_token !== '') return { token: message.access_token };
  if (typeof message.refresh_token === 'string' && message.refresh_token !== '') {
    const { data } = await context.auth.refresh({ refresh_token: message.refresh_token, mode: 'json' }, {}, client);
    return { token: String(data.access_token), refreshToken: String(data.refresh_token) };
  }
  if (typeof message.email === 'string' && typeof message.password === 'string') {
    const { data } = await context.auth.login(
      { email: message.email, password: message.password, mode: 'json' },
      client,
    );
    return { token: String(data.access_token), refreshToken: String(data.refresh_token) };
  }
  throw new InvalidPayloadError('An "auth" message carries "access_token", "refresh_token" or "email" and "password".');
}

/**
 * The claims a socket watches: `exp` (when the JWT stops being valid), `sid` (its login) and `session` (session
 * mode). Null for a static token, which has none.
 */
export function claimsOf(token: string): { exp?: unknown; sid?: unknown; session?: unknown } | null {
  if (!looksLikeJwt(token)) return null;
  try {
    // Only called on a token the resolver has just verified: decoding it again needs no signature check.
    return decode(token) as { exp?: unknown; sid?: unknown; session?: unknown };
  } catch {
    return null;
  }
}
