/**
 * The `ldap` driver of the provider registry (a credentials driver): `POST /auth/login/<name>` hands it
 * `{identifier, password}`; a refresh asks it whether the user's entry is still in the directory.
 */
import { ldapAuthenticate, type LdapDeps } from './ldap-authenticate.js';
import { entryStillValid } from './ldap-directory.js';
import type { LdapProviderConfig, LdapSettings } from '../../config/ldap-config.js';
import type { CredentialsDriver, CredentialsUser, DriverDeps } from '../providers/provider-types.js';

/** A provider's ldap settings with the shared ones the driver uses (read once, for every driver). */
export function ldapProviderConfig(
  shared: { name: string; defaultRoleId: string | null; syncUserInfo: boolean },
  settings: LdapSettings,
): LdapProviderConfig {
  return { ...settings, name: shared.name, defaultRoleId: shared.defaultRoleId, syncUserInfo: shared.syncUserInfo };
}

export class LdapDriver implements CredentialsDriver {
  readonly kind = 'credentials';
  readonly driver = 'ldap';
  readonly provider: string;
  /** One object per provider: the directory's connection count is kept per settings object. */
  readonly settings: LdapProviderConfig;
  private readonly deps: LdapDeps;

  constructor(
    shared: { name: string; defaultRoleId: string | null; syncUserInfo: boolean },
    settings: LdapSettings,
    deps: DriverDeps,
  ) {
    this.provider = shared.name;
    this.settings = ldapProviderConfig(shared, settings);
    this.deps = { db: deps.db, changes: deps.changes, createUser: deps.createUser, log: { warn: deps.warn } };
  }

  authenticate(credentials: { identifier: string; password: string }): Promise<CredentialsUser> {
    return ldapAuthenticate(this.deps, this.settings, credentials);
  }

  stillValid(dn: string): Promise<boolean> {
    return entryStillValid(this.settings, dn, this.deps.log);
  }
}
