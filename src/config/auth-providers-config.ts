/**
 * AUTH_PROVIDERS and each provider's AUTH_<NAME>_* settings (Directus docs: SSO). The generic part (name, driver,
 * label, icon, registration, role, redirect allow-list) is read here for every driver; what a driver alone needs is
 * read by its entry in DRIVER_SETTINGS (oauth-config.ts, ldap-config.ts), so a new driver adds one reader and one
 * registry entry.
 */
import { bool, ConfigError, str, type Env } from './env-values.js';
import { readLdapSettings, type LdapSettings } from './ldap-config.js';
import { readOAuth2Settings, readOpenIdSettings, type OAuthSettings } from './oauth-config.js';

/** Drivers Strata knows; `AUTH_<NAME>_DRIVER` must be one of them. */
export type DriverSettings =
  | { driver: 'openid'; oauth: OAuthSettings }
  | { driver: 'oauth2'; oauth: OAuthSettings }
  | { driver: 'ldap'; ldap: LdapSettings };
export type DriverName = DriverSettings['driver'];

export interface ProviderConfig {
  /** As written in AUTH_PROVIDERS (lower-cased: Directus's route names are lower-case). */
  name: string;
  label: string | null;
  icon: string | null;
  /** openid, oauth2: create accounts for unknown users (ldap creates them always, as Directus's driver). */
  allowPublicRegistration: boolean;
  /** The role of created accounts (ldap: of users none of whose groups names a role). */
  defaultRoleId: string | null;
  /** Copy the email and names from the provider at every sign-in, not only the first. */
  syncUserInfo: boolean;
  /** openid, oauth2: absolute URLs a login may return to (besides PUBLIC_URL's origin). */
  redirectAllowList: string[];
  /** openid, oauth2: claim (or profile key) value → role id; the first match sets the role on every login. */
  roleMapping: Map<string, string>;
  settings: DriverSettings;
}

export interface AuthProvidersConfig {
  providers: ProviderConfig[];
  /** AUTH_DISABLE_DEFAULT: email and password logins are refused. */
  disableDefault: boolean;
}

const DRIVER_SETTINGS: Record<string, (env: Env, prefix: string) => DriverSettings> = {
  openid: (env, prefix) => ({ driver: 'openid', oauth: readOpenIdSettings(env, prefix) }),
  oauth2: (env, prefix) => ({ driver: 'oauth2', oauth: readOAuth2Settings(env, prefix) }),
  ldap: (env, prefix) => ({ driver: 'ldap', ldap: readLdapSettings(env, prefix) }),
};

const NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RESERVED = new Set(['default', 'local', 'password', 'refresh', 'logout', 'login', '__proto__']);
/** More providers than any project has; keeps the /auth answer and the start-up bounded. */
const MAX_PROVIDERS = 32;

export function readAuthProvidersConfig(env: Env): AuthProvidersConfig {
  const names = (str(env, 'AUTH_PROVIDERS') ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  if (names.length > MAX_PROVIDERS) throw new ConfigError('AUTH_PROVIDERS', `at most ${MAX_PROVIDERS} providers`);
  const seen = new Set<string>();
  const providers = names.map((name) => {
    if (!NAME.test(name) || RESERVED.has(name))
      throw new ConfigError('AUTH_PROVIDERS', `"${name}" is not a usable provider name (letters, digits, - and _)`);
    if (seen.has(name)) throw new ConfigError('AUTH_PROVIDERS', `"${name}" is listed twice`);
    seen.add(name);
    return providerConfig(env, name);
  });
  return { providers, disableDefault: bool(env, 'AUTH_DISABLE_DEFAULT', false) };
}

function providerConfig(env: Env, name: string): ProviderConfig {
  const prefix = `AUTH_${name.toUpperCase().replaceAll('-', '_')}`;
  const driver = (str(env, `${prefix}_DRIVER`) ?? '').toLowerCase();
  const reader = Object.hasOwn(DRIVER_SETTINGS, driver) ? DRIVER_SETTINGS[driver] : undefined;
  if (!reader)
    throw new ConfigError(
      `${prefix}_DRIVER`,
      `expected one of ${Object.keys(DRIVER_SETTINGS).join(', ')}, got "${driver}"`,
    );
  return {
    name,
    label: str(env, `${prefix}_LABEL`),
    icon: str(env, `${prefix}_ICON`),
    allowPublicRegistration: bool(env, `${prefix}_ALLOW_PUBLIC_REGISTRATION`, false),
    defaultRoleId: roleId(env, `${prefix}_DEFAULT_ROLE_ID`),
    syncUserInfo: bool(env, `${prefix}_SYNC_USER_INFO`, false),
    redirectAllowList: urlList(env, `${prefix}_REDIRECT_ALLOW_LIST`),
    roleMapping: roleMapping(env, `${prefix}_ROLE_MAPPING`),
    settings: reader(env, prefix),
  };
}

function roleId(env: Env, variable: string): string | null {
  const value = str(env, variable);
  if (value !== null && !UUID.test(value)) throw new ConfigError(variable, 'expected the id (a UUID) of a role');
  return value;
}

function urlList(env: Env, variable: string): string[] {
  return (str(env, variable) ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')
    .map((u) => {
      let url: URL;
      try {
        url = new URL(u);
      } catch {
        throw new ConfigError(variable, `"${u}" is not an absolute URL`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new ConfigError(variable, `"${u}" is not an http(s) URL`);
      return url.href;
    });
}

function roleMapping(env: Env, variable: string): Map<string, string> {
  const raw = str(env, variable);
  const mapping = new Map<string, string>();
  if (raw === null) return mapping;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(variable, 'expected a JSON object of claim value → role id');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError(variable, 'expected a JSON object of claim value → role id');
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new ConfigError(variable, `the role of "${key}" is not a string`);
    mapping.set(key, value);
  }
  return mapping;
}
