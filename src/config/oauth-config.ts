/** Settings of the openid and oauth2 drivers (Directus docs: SSO), read for one provider's AUTH_<NAME> prefix. */
import { ConfigError, str, type Env } from './env-values.js';

export interface OAuthSettings {
  clientId: string;
  clientSecret: string | null;
  /** openid: the issuer, whose discovery document gives the endpoints. */
  issuerUrl: string | null;
  /** oauth2: the three endpoints. */
  authorizeUrl: string | null;
  accessUrl: string | null;
  profileUrl: string | null;
  scope: string;
  identifierKey: string;
  emailKey: string;
  /** Extra query parameters of the authorization request (AUTH_<NAME>_PARAMS, a JSON object of strings). */
  params: Map<string, string>;
  /** openid: a user whose provider says the email is not verified is refused (Directus's default: true). */
  requireVerifiedEmail: boolean;
}

function required(env: Env, variable: string): string {
  const value = str(env, variable);
  if (value === null) throw new ConfigError(variable, "required by the provider's driver");
  return value;
}

function url(env: Env, variable: string): string {
  const value = required(env, variable);
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('scheme');
    return parsed.href;
  } catch {
    throw new ConfigError(variable, `"${value}" is not an http(s) URL`);
  }
}

const RESERVED_PARAMS = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'scope',
]);

function params(env: Env, variable: string): Map<string, string> {
  const raw = str(env, variable);
  const map = new Map<string, string>();
  if (raw === null) return map;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(variable, 'expected a JSON object of strings');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError(variable, 'expected a JSON object of strings');
  for (const [key, value] of Object.entries(parsed)) {
    // The flow's own parameters carry its protections; a setting may not replace them.
    if (RESERVED_PARAMS.has(key)) throw new ConfigError(variable, `"${key}" is set by Strata`);
    map.set(key, String(value));
  }
  return map;
}

function common(env: Env, prefix: string, scope: string, identifierKey: string) {
  return {
    clientId: required(env, `${prefix}_CLIENT_ID`),
    clientSecret: str(env, `${prefix}_CLIENT_SECRET`),
    scope: str(env, `${prefix}_SCOPE`) ?? scope,
    identifierKey: str(env, `${prefix}_IDENTIFIER_KEY`) ?? identifierKey,
    emailKey: str(env, `${prefix}_EMAIL_KEY`) ?? 'email',
    params: params(env, `${prefix}_PARAMS`),
  };
}

export function readOpenIdSettings(env: Env, prefix: string): OAuthSettings {
  const verified = str(env, `${prefix}_REQUIRE_VERIFIED_EMAIL`);
  if (verified !== null && !/^(true|false)$/i.test(verified))
    throw new ConfigError(`${prefix}_REQUIRE_VERIFIED_EMAIL`, `expected true or false, got "${verified}"`);
  return {
    ...common(env, prefix, 'openid profile email', 'sub'),
    issuerUrl: url(env, `${prefix}_ISSUER_URL`),
    authorizeUrl: null,
    accessUrl: null,
    profileUrl: null,
    requireVerifiedEmail: verified === null ? false : verified.toLowerCase() === 'true',
  };
}

export function readOAuth2Settings(env: Env, prefix: string): OAuthSettings {
  return {
    ...common(env, prefix, 'email', 'email'),
    issuerUrl: null,
    authorizeUrl: url(env, `${prefix}_AUTHORIZE_URL`),
    accessUrl: url(env, `${prefix}_ACCESS_URL`),
    profileUrl: url(env, `${prefix}_PROFILE_URL`),
    requireVerifiedEmail: false,
  };
}
