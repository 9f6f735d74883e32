/** HS256 access tokens (Directus docs: Authentication) with fast-jwt; verification results are cached per token. */
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import { systemClock, type Clock } from '../config/clock.js';
import { InvalidTokenError, TokenExpiredError } from '../errors/catalogue.js';

export const TOKEN_ISSUER = 'strata';

export interface AccessTokenClaims {
  id: string;
  role: string | null;
  app_access: boolean;
  admin_access: boolean;
  /** Session mode: the session token this JWT stands for (it must still be live). */
  session?: string;
  /** json and cookie modes: the login (session family) the token comes from; a logout ends it (LoginLiveness). */
  sid?: string;
  iat?: number;
  exp?: number;
  iss?: string;
}

export class AccessTokens {
  private readonly sign: (payload: Record<string, unknown>) => string;
  private readonly verifier: (token: string) => AccessTokenClaims;
  private readonly lenientVerifier: (token: string) => AccessTokenClaims;

  constructor(
    secret: string,
    private readonly ttlMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.sign = createSigner({ key: secret, algorithm: 'HS256', iss: TOKEN_ISSUER, expiresIn: ttlMs });
    // Expiry is checked against the injected clock below, so fast-jwt (which reads the system clock) ignores it.
    this.verifier = createVerifier({
      key: secret,
      algorithms: ['HS256'],
      allowedIss: TOKEN_ISSUER,
      cache: 1000,
      cacheTTL: 60_000,
      ignoreExpiration: true,
    });
    this.lenientVerifier = createVerifier({
      key: secret,
      algorithms: ['HS256'],
      allowedIss: TOKEN_ISSUER,
      ignoreExpiration: true,
    });
  }

  issue(claims: Omit<AccessTokenClaims, 'iat' | 'exp' | 'iss'>): { token: string; expires: number } {
    return { token: this.sign({ ...claims, iat: Math.floor(this.clock.now() / 1000) }), expires: this.ttlMs };
  }

  /** The session claim of a genuine token, expired or not (refreshing a session needs no live JWT); else null. */
  sessionOf(token: string): string | null {
    try {
      const claims = this.lenientVerifier(token);
      return typeof claims.session === 'string' ? claims.session : null;
    } catch {
      return null;
    }
  }

  /** Expired → 401 TOKEN_EXPIRED; any other defect → 403 INVALID_TOKEN. */
  verify(token: string): AccessTokenClaims {
    let claims: AccessTokenClaims;
    try {
      claims = this.verifier(token);
    } catch (error) {
      if (error instanceof TokenError && error.code === TokenError.codes.expired) throw new TokenExpiredError();
      throw new InvalidTokenError();
    }
    // As fast-jwt would: a token is live up to and including its `exp` second.
    if (typeof claims.exp === 'number' && this.clock.now() > claims.exp * 1000) throw new TokenExpiredError();
    if (
      typeof claims.id !== 'string' ||
      typeof claims.admin_access !== 'boolean' ||
      typeof claims.app_access !== 'boolean'
    ) {
      throw new InvalidTokenError();
    }
    return claims;
  }
}

/** Three base64url parts whose header decodes: treated as a JWT; anything else is a static token. */
export function looksLikeJwt(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: unknown };
    return typeof header === 'object' && header !== null && typeof header.alg === 'string';
  } catch {
    return false;
  }
}
