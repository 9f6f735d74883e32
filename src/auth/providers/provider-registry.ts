/**
 * The configured providers (AUTH_PROVIDERS), each with its driver, by name. A driver is made by its entry in
 * DRIVERS from its settings; a new driver (ldap) adds an entry here and a settings reader in
 * config/auth-providers-config.ts.
 */
import type { DriverName, DriverSettings, ProviderConfig } from '../../config/auth-providers-config.js';
import { OAuthDriver } from './oauth-client.js';
import type { AuthDriver } from './provider-types.js';

const DRIVERS: { [D in DriverName]: (name: string, settings: Extract<DriverSettings, { driver: D }>) => AuthDriver } = {
  openid: (name, settings) => new OAuthDriver(name, 'openid', settings.oauth),
  oauth2: (name, settings) => new OAuthDriver(name, 'oauth2', settings.oauth),
};

export interface RegisteredProvider {
  config: ProviderConfig;
  driver: AuthDriver;
}

export class ProviderRegistry {
  private readonly byName = new Map<string, RegisteredProvider>();

  constructor(providers: readonly ProviderConfig[]) {
    for (const config of providers) {
      const make = DRIVERS[config.settings.driver] as (name: string, settings: DriverSettings) => AuthDriver;
      this.byName.set(config.name, { config, driver: make(config.name, config.settings) });
    }
  }

  /** The provider of a route's `:provider`, or undefined (names are matched lower-cased, as configured). */
  get(name: string): RegisteredProvider | undefined {
    return this.byName.get(name.toLowerCase());
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
