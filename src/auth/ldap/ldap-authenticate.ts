/**
 * The `ldap` driver's entry point: given a provider's settings and `{identifier, password}`, the service_users row of
 * the person the directory vouched for, created on a first login and kept in step on later ones (Directus docs:
 * Authentication, LDAP). Unlike Directus, the row is created or updated only after the password bound: a login with
 * a wrong password writes nothing.
 */
import {
  authenticateInDirectory,
  WrongPasswordError,
  type DirectoryLog,
  type DirectoryUser,
} from './ldap-directory.js';
import { RefusedCredentialsError } from '../refused-credentials.js';
import type { LdapProviderConfig } from '../../config/ldap-config.js';
import type { Database } from '../../db/connection.js';
import {
  ProviderUsersRepository,
  type ProviderUser,
  type ProviderUserFields,
} from '../../db/repositories/provider-users.js';
import type { ChangeEvents } from '../../engine/write/change-events.js';
import type { CreateProviderUser } from '../providers/provider-user-create.js';
import { DatabaseError } from '../../errors/database-error.js';
import {
  InvalidCredentialsError,
  InvalidProviderConfigError,
  InvalidProviderError,
  RecordNotUniqueError,
} from '../../errors/catalogue.js';
import { isEmailAddress } from '../../request/email-address.js';

export interface LdapDeps {
  db: Database;
  changes: ChangeEvents | null;
  createUser: CreateProviderUser;
  log: DirectoryLog;
}

// The columns' lengths (service_users): a longer value from the directory is cut, not refused.
const NAME_LENGTH = 50;
const EMAIL_LENGTH = 128;
const IDENTIFIER_LENGTH = 255;

function profile(user: DirectoryUser): ProviderUserFields {
  const email = user.email?.toLowerCase() ?? null;
  return {
    first_name: user.firstName?.slice(0, NAME_LENGTH) ?? null,
    last_name: user.lastName?.slice(0, NAME_LENGTH) ?? null,
    email: email !== null && email.length <= EMAIL_LENGTH && isEmailAddress(email) ? email : null,
  };
}

/** The role of the user's groups, else the provider's default role (checked to exist: a typo is a config error). */
async function roleFor(repo: ProviderUsersRepository, config: LdapProviderConfig, deps: LdapDeps, user: DirectoryUser) {
  const mapped = await repo.roleNamed(user.groups);
  if (mapped !== null) return mapped;
  if (config.defaultRoleId === null) return null;
  if (await repo.roleExists(config.defaultRoleId)) return config.defaultRoleId;
  deps.log.warn(`LDAP provider "${config.name}": AUTH_${config.name.toUpperCase()}_DEFAULT_ROLE_ID names no role`);
  throw new InvalidProviderConfigError(config.name);
}

const notUnique = (error: unknown) =>
  error instanceof RecordNotUniqueError || (error instanceof DatabaseError && error.kind === 'constraint');

async function createUser(
  repo: ProviderUsersRepository,
  config: LdapProviderConfig,
  deps: LdapDeps,
  user: DirectoryUser,
  role: string | null,
): Promise<ProviderUser> {
  try {
    const fields = { provider: config.name, external_identifier: user.dn, status: 'active', ...profile(user) };
    await deps.createUser({ ...fields, role });
  } catch (error) {
    if (!notUnique(error)) throw error;
    // Either the same person's first login raced this one (the row is there now), or the directory's address is
    // another account's: never merged into it, which would hand that account to whoever controls the entry.
  }
  const row = await repo.byExternalIdentifier(user.dn);
  if (row) return row;
  deps.log.warn(`LDAP provider "${config.name}": a user could not be created, its email is another user's`);
  throw new InvalidProviderError();
}

export async function ldapAuthenticate(
  deps: LdapDeps,
  config: LdapProviderConfig,
  credentials: { identifier: string; password: string },
): Promise<ProviderUser> {
  const repo = new ProviderUsersRepository(deps.db);
  const user = await authenticateInDirectory(config, credentials, deps.log).catch(async (error: unknown) => {
    if (!(error instanceof WrongPasswordError)) throw error;
    // A wrong password of someone who signed in before counts toward their auth_login_attempts, as Directus counts it.
    const known = await repo.byExternalIdentifier(error.dn);
    throw known?.provider === config.name ? new RefusedCredentialsError(known.id) : error;
  });
  if (user.dn.length > IDENTIFIER_LENGTH) {
    deps.log.warn(`LDAP provider "${config.name}": a DN longer than ${IDENTIFIER_LENGTH} characters`);
    throw new InvalidProviderError();
  }
  const existing = await repo.byExternalIdentifier(user.dn);
  const role = existing && !config.groupDn ? undefined : await roleFor(repo, config, deps, user);
  if (!existing) return createUser(repo, config, deps, user, role ?? null);
  // A row of another provider (or of the default one) with the same identifier is not this person's to sign into.
  if (existing.provider !== config.name) throw new InvalidCredentialsError();
  const update: ProviderUserFields = {
    ...(config.groupDn ? { role: role ?? null } : {}),
    ...(config.syncUserInfo ? profile(user) : {}),
  };
  if (Object.keys(update).length > 0) {
    try {
      await repo.update(existing.id, update);
    } catch (error) {
      if (!notUnique(error)) throw error;
      deps.log.warn(`LDAP provider "${config.name}": a user's new email is another user's; not synchronised`);
      throw new InvalidProviderError();
    }
    await deps.changes?.announce('service_users', 'update', [existing.id]);
  }
  return existing;
}
