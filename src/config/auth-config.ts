/** Settings of sessions and cookies (Directus docs: Authentication), with Directus's names and defaults; cookies named service_*. */
import { bool, ConfigError, duration, str, type Env } from './env-values.js';

export interface CookieConfig {
  name: string;
  secure: boolean;
  sameSite: 'lax' | 'strict' | 'none';
  domain: string | null;
}

export interface AuthConfig {
  refreshTokenTtlMs: number;
  sessionCookieTtlMs: number;
  /** How long a session's previous token keeps working after a refresh (requests already on their way). */
  sessionRefreshGracePeriodMs: number;
  refreshCookie: CookieConfig;
  sessionCookie: CookieConfig;
}

function cookie(env: Env, prefix: string, name: string): CookieConfig {
  const sameSite = (str(env, `${prefix}_SAME_SITE`) ?? 'lax').toLowerCase();
  if (sameSite !== 'lax' && sameSite !== 'strict' && sameSite !== 'none')
    throw new ConfigError(`${prefix}_SAME_SITE`, `expected lax, strict or none, got "${sameSite}"`);
  return {
    name: str(env, `${prefix}_NAME`) ?? name,
    secure: bool(env, `${prefix}_SECURE`, false),
    sameSite,
    domain: str(env, `${prefix}_DOMAIN`),
  };
}

export function readAuthConfig(env: Env): AuthConfig {
  return {
    refreshTokenTtlMs: duration(env, 'REFRESH_TOKEN_TTL', '7d'),
    sessionCookieTtlMs: duration(env, 'SESSION_COOKIE_TTL', '1d'),
    sessionRefreshGracePeriodMs: duration(env, 'SESSION_REFRESH_GRACE_PERIOD', '10s'),
    refreshCookie: cookie(env, 'REFRESH_TOKEN_COOKIE', 'service_refresh_token'),
    sessionCookie: cookie(env, 'SESSION_COOKIE', 'service_session_token'),
  };
}
