/**
 * What the `ldap` driver alone reads of a provider's `AUTH_<NAME>_*` settings (Directus docs: Authentication, LDAP).
 * AUTH_PROVIDERS, the driver and the settings every driver shares (DEFAULT_ROLE_ID, SYNC_USER_INFO, LABEL, ICON) are
 * read once, for every driver, by auth-providers-config.ts, whose DRIVER_SETTINGS calls this reader.
 */
import { readFileSync } from 'node:fs';
import { bool, ConfigError, duration, str, type Env } from './env-values.js';

export type LdapScope = 'base' | 'one' | 'sub';

export interface LdapSettings {
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
  /** Bounds on each connection attempt and each operation, so that a silent directory never holds a login. */
  connectTimeoutMs: number;
  timeoutMs: number;
  tls: { rejectUnauthorized: boolean; ca: string | null };
}

/** An ldap provider as its driver uses it: its own settings and the shared ones it needs. */
export interface LdapProviderConfig extends LdapSettings {
  /** As written in AUTH_PROVIDERS, lower-cased: the `{provider}` of `/auth/login/{provider}` and the users' `provider`. */
  name: string;
  defaultRoleId: string | null;
  syncUserInfo: boolean;
}

const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;

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

/** The settings under `prefix` (`AUTH_<NAME>`) of a provider whose driver is `ldap`. */
export function readLdapSettings(env: Env, prefix: string): LdapSettings {
  const url = required(env, `${prefix}_CLIENT_URL`);
  if (!/^ldaps?:\/\/[^\s]+$/i.test(url))
    throw new ConfigError(`${prefix}_CLIENT_URL`, 'expected an ldap:// or ldaps:// URL');
  return {
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
    connectTimeoutMs: duration(env, `${prefix}_CLIENT_CONNECT_TIMEOUT`, '5s'),
    timeoutMs: duration(env, `${prefix}_CLIENT_TIMEOUT`, '10s'),
    tls: {
      rejectUnauthorized: bool(env, `${prefix}_CLIENT_TLS_REJECT_UNAUTHORIZED`, true),
      ca: certificate(env, `${prefix}_CLIENT_TLS_CA`),
    },
  };
}
