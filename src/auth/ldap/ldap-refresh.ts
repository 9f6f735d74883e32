/**
 * What a session refresh asks of the `ldap` providers (as Directus's driver does on refresh): a user of one of them
 * must still have an entry in its directory, not disabled. Users of other providers are not concerned.
 */
import { entryStillValid, type DirectoryLog } from './ldap-directory.js';
import type { LdapProviderConfig } from '../../config/ldap-config.js';
import type { Database } from '../../db/connection.js';
import { DirectoryUsersRepository } from '../../db/repositories/directory-users.js';
import { InvalidCredentialsError } from '../../errors/catalogue.js';

export function ldapRefreshCheck(
  db: Database,
  providers: ReadonlyMap<string, LdapProviderConfig>,
  log: DirectoryLog,
): (user: string) => Promise<void> {
  const users = new DirectoryUsersRepository(db);
  return async (user) => {
    const row = await users.providerOf(user);
    const config = row ? providers.get(row.provider) : undefined;
    if (!config || !row?.external_identifier) return;
    if (!(await entryStillValid(config, row.external_identifier, log))) throw new InvalidCredentialsError();
  };
}
