/**
 * The `ldap` sign-on providers (Directus docs: Authentication, LDAP): every name of `AUTH_PROVIDERS` whose
 * `AUTH_<NAME>_DRIVER` is `ldap`, with its settings read from `AUTH_<NAME>_*` (NAME upper-cased, `-` read as `_`).
 * Providers of other drivers are left to their own readers.
 */
import { readFileSync } from 'node:fs';
import { bool, ConfigError, duration, str, type Env } from './env-values.js';

export type LdapScope = 'base' | 'one' | 'sub';

export interface LdapProviderConfig {
  /** As written in AUTH_PROVIDERS, lower-cased: the `{provider}` of `/auth/login/{provider}` and the users' `provider`. */
  name: string;
  url: string;
  bindDn: string;
  bindPassword: string;
  userDn: string;
  userAttribute: string;
  userScope: LdapScope;
  mailAttribute: string;
  firstNameAttribute: string;
  lastNameAttribute: string;
  groupDn: string | null;
  groupAttribute: string;
  groupScope: LdapScope;
  defaultRoleId: string | null;
  syncUserInfo: boolean;
  /** Bounds on each connection attempt and each operation, so that a silent directory never holds a login. */
  connectTimeoutMs: number;
  timeoutMs: number;
  tls: { rejectUnauthorized: boolean; ca: string | null };
}

const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function scope(env: Env, name: string): LdapScope {
  const value = (str(env, name) ?? 'one').toLowerCase();
  if (value !== 'base' && value !== 'one' && value !== 'sub')
    throw new ConfigError(name, `expected base, one or sub, got "${value}"`);
  return value;
}

function attribute(env: Env, name: string, fallback: string): string {
  const value = str(env, name) ?? fallback;
  if (!ATTRIBUTE.test(value)) throw new ConfigError(name, `"${value}" is not an attribute name`);
  return value;
}

function required(env: Env, name: string): string {
  const value = str(env, name);
  if (value === null) throw new ConfigError(name, 'an ldap provider needs it');
  return value;
}

function certificate(env: Env, name: string): string | null {
  const file = str(env, name);
  if (file === null) return null;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(name, `cannot read the file "${file}"`);
  }
}

function provider(env: Env, name: string): LdapProviderConfig {
  const prefix = `AUTH_${name.toUpperCase().replace(/-/g, '_')}`;
  const url = required(env, `${prefix}_CLIENT_URL`);
  if (!/^ldaps?:\/\/[^\s]+$/i.test(url))
    throw new ConfigError(`${prefix}_CLIENT_URL`, 'expected an ldap:// or ldaps:// URL');
  const defaultRoleId = str(env, `${prefix}_DEFAULT_ROLE_ID`);
  if (defaultRoleId !== null && !UUID.test(defaultRoleId))
    throw new ConfigError(`${prefix}_DEFAULT_ROLE_ID`, 'expected the id (a UUID) of a role');
  return {
    name,
    url,
    // An empty bind DN and password bind anonymously, for directories that let anyone search.
    bindDn: str(env, `${prefix}_BIND_DN`) ?? '',
    bindPassword: str(env, `${prefix}_BIND_PASSWORD`) ?? '',
    userDn: required(env, `${prefix}_USER_DN`),
    userAttribute: attribute(env, `${prefix}_USER_ATTRIBUTE`, 'cn'),
    userScope: scope(env, `${prefix}_USER_SCOPE`),
    mailAttribute: attribute(env, `${prefix}_MAIL_ATTRIBUTE`, 'mail'),
    firstNameAttribute: attribute(env, `${prefix}_FIRST_NAME_ATTRIBUTE`, 'givenName'),
    lastNameAttribute: attribute(env, `${prefix}_LAST_NAME_ATTRIBUTE`, 'sn'),
    groupDn: str(env, `${prefix}_GROUP_DN`),
    groupAttribute: attribute(env, `${prefix}_GROUP_ATTRIBUTE`, 'member'),
    groupScope: scope(env, `${prefix}_GROUP_SCOPE`),
    defaultRoleId,
    syncUserInfo: bool(env, `${prefix}_SYNC_USER_INFO`, false),
    connectTimeoutMs: duration(env, `${prefix}_CLIENT_CONNECT_TIMEOUT`, '5s'),
    timeoutMs: duration(env, `${prefix}_CLIENT_TIMEOUT`, '10s'),
    tls: {
      rejectUnauthorized: bool(env, `${prefix}_CLIENT_TLS_REJECT_UNAUTHORIZED`, true),
      ca: certificate(env, `${prefix}_CLIENT_TLS_CA`),
    },
  };
}

/**
 * The ldap providers by name (a Map: names come from the environment and reach a route parameter). Names are
 * lower-cased, and matched lower-cased, as Directus's (Express's) case-insensitive routes match them.
 */
export function readLdapProviders(env: Env): Map<string, LdapProviderConfig> {
  const providers = new Map<string, LdapProviderConfig>();
  const names = (str(env, 'AUTH_PROVIDERS') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of names) {
    if (!PROVIDER_NAME.test(name))
      throw new ConfigError('AUTH_PROVIDERS', `"${name}" is not a provider name (letters, digits, - and _)`);
    const driver = str(env, `AUTH_${name.toUpperCase().replace(/-/g, '_')}_DRIVER`);
    if (driver?.toLowerCase() === 'ldap') providers.set(name, provider(env, name));
  }
  return providers;
}
