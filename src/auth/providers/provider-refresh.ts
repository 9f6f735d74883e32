/**
 * What a session refresh asks of the providers that check credentials themselves (ldap, as Directus's driver does
 * on refresh): their user must still be known there. Users of other providers, and local users, are not concerned.
 */
import type { Database } from '../../db/connection.js';
import { ProviderUsersRepository } from '../../db/repositories/provider-users.js';
import { InvalidCredentialsError } from '../../errors/catalogue.js';
import type { ProviderRegistry } from './provider-registry.js';

export function providerRefreshCheck(db: Database, registry: ProviderRegistry): (user: string) => Promise<void> {
  const users = new ProviderUsersRepository(db);
  return async (user) => {
    const row = await users.providerOf(user);
    const driver = row ? registry.credentials(row.provider) : undefined;
    if (!driver || !row?.external_identifier) return;
    if (!(await driver.stillValid(row.external_identifier))) throw new InvalidCredentialsError();
  };
}
