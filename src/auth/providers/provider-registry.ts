/**
 * The configured providers (AUTH_PROVIDERS), each with its driver, by name. A driver is made by its entry in
 * DRIVERS from its provider's configuration; a new driver adds an entry here and a settings reader in
 * config/auth-providers-config.ts.
 */
import type { DriverName, DriverSettings, ProviderConfig } from '../../config/auth-providers-config.js';
import { LdapDriver } from '../ldap/ldap-driver.js';
import { OAuthDriver } from './oauth-client.js';
import type { AuthDriver, CredentialsDriver, DriverDeps } from './provider-types.js';

type ConfigOf<D extends DriverName> = ProviderConfig & { settings: Extract<DriverSettings, { driver: D }> };

const DRIVERS: { [D in DriverName]: (config: ConfigOf<D>, deps: DriverDeps) => AuthDriver } = {
  openid: (config) => new OAuthDriver(config.name, 'openid', config.settings.oauth),
  oauth2: (config) => new OAuthDriver(config.name, 'oauth2', config.settings.oauth),
  ldap: (config, deps) => new LdapDriver(config, config.settings.ldap, deps),
};

export interface RegisteredProvider {
  config: ProviderConfig;
  driver: AuthDriver;
}

export class ProviderRegistry {
  private readonly byName = new Map<string, RegisteredProvider>();

  constructor(providers: readonly ProviderConfig[], deps: DriverDeps) {
    for (const config of providers) {
      const make = DRIVERS[config.settings.driver] as (config: ProviderConfig, deps: DriverDeps) => AuthDriver;
      this.byName.set(config.name, { config, driver: make(config, deps) });
    }
  }

  /** The provider of a route's `:provider`, or undefined (names are matched lower-cased, as configured). */
  get(name: string): RegisteredProvider | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** The driver of a provider that takes credentials (ldap), or undefined. */
  credentials(name: string): CredentialsDriver | undefined {
    const driver = this.get(name)?.driver;
    return driver?.kind === 'credentials' ? driver : undefined;
  }

  /** Whether some provider takes credentials (its route and its check at refresh exist only then). */
  hasCredentials(): boolean {
    return [...this.byName.values()].some(({ driver }) => driver.kind === 'credentials');
  }

  /** GET /auth's list, in AUTH_PROVIDERS order. */
  list(): { name: string; driver: string; icon: string | null; label: string | null }[] {
    return [...this.byName.values()].map(({ config }) => ({
      name: config.name,
      driver: config.settings.driver,
      icon: config.icon,
      label: config.label,
    }));
  }
}
