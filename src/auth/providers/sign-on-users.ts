/**
 * The account a provider's identity signs in as: the user of (provider, external_identifier) when there is one
 * (profile and mapped role refreshed as configured), else a new active user when the provider allows public
 * registration. Never matched by email: an address at one provider must not open an account of another or a local one.
 */
import type { ProviderConfig } from '../../config/auth-providers-config.js';
import type { Database } from '../../db/connection.js';
import { ProviderUsersRepository, type ProviderUserFields } from '../../db/repositories/provider-users.js';
import type { ChangeEvents } from '../../engine/write/change-events.js';
import { InvalidCredentialsError, ServiceError, UserSuspendedError } from '../../errors/catalogue.js';
import { isEmailAddress } from '../../request/email-address.js';
import type { CreateProviderUser } from './provider-user-create.js';
import type { ProviderIdentity } from './provider-types.js';

/** Column widths of service_users. */
const MAX_IDENTIFIER = 255;
const MAX_EMAIL = 128;
const MAX_NAME = 50;

export class SignOnUsers {
  private readonly repository: ProviderUsersRepository;

  constructor(
    db: Database,
    private readonly changes: ChangeEvents | null,
    private readonly createUser: CreateProviderUser,
  ) {
    this.repository = new ProviderUsersRepository(db);
  }

  async userFor(provider: ProviderConfig, identity: ProviderIdentity): Promise<string> {
    const identifier = identity.identifier;
    if (!identifier || identifier.length > MAX_IDENTIFIER) throw new InvalidCredentialsError();
    const profile = profileOf(identity);
    const role = mappedRole(provider.roleMapping, identity.claims);
    const existing = await this.repository.find(provider.name, identifier);
    if (existing) {
      if (existing.status === 'suspended') throw new UserSuspendedError();
      if (existing.status !== 'active') throw new InvalidCredentialsError();
      const changes = { ...(provider.syncUserInfo ? profile : {}), ...(role !== null ? { role } : {}) };
      if (Object.keys(changes).length > 0) {
        await this.repository.update(existing.id, changes).catch(refuse);
        await this.changes?.announce('service_users', 'update', [existing.id]);
      }
      return existing.id;
    }
    if (!provider.allowPublicRegistration) throw new InvalidCredentialsError();
    if (identity.requireVerifiedEmail && !identity.emailVerified) throw new InvalidCredentialsError();
    if (await this.repository.taken(identifier, profile.email ?? null)) throw new InvalidCredentialsError();
    const payload = { provider: provider.name, external_identifier: identifier, status: 'active', ...profile };
    return this.createUser({ ...payload, role: role ?? provider.defaultRoleId }).catch(refuse);
  }
}

/** A unique key taken meanwhile (two first sign-ins at once) or a role that does not exist: the sign-in is refused. */
function refuse(error: unknown): never {
  if (error instanceof ServiceError && error.status < 500) throw new InvalidCredentialsError();
  throw error;
}

function profileOf(identity: ProviderIdentity): ProviderUserFields {
  // An address the users' check would refuse is left out, as an ldap provider leaves it out: the sign-in goes on.
  const email =
    identity.email !== null && identity.email.length <= MAX_EMAIL && isEmailAddress(identity.email)
      ? identity.email
      : null;
  return {
    email,
    first_name: identity.firstName?.slice(0, MAX_NAME) ?? null,
    last_name: identity.lastName?.slice(0, MAX_NAME) ?? null,
  };
}

/** The role of the first mapped group in the `groups` claim (a string or a list), as Directus reads ROLE_MAPPING. */
function mappedRole(mapping: Map<string, string>, claims: Record<string, unknown>): string | null {
  if (mapping.size === 0 || !Object.hasOwn(claims, 'groups')) return null;
  const groups = Array.isArray(claims.groups) ? (claims.groups as unknown[]) : [claims.groups];
  for (const group of groups) if (typeof group === 'string' && mapping.has(group)) return mapping.get(group)!;
  return null;
}
