/**
 * service_users and service_roles as sign-on providers need them: a user by its provider's identifier, roles by
 * name (a directory group maps to the role of the same name, compared case-insensitively, as Directus does), and
 * the update of the row of a user the provider vouched for. Users are created through the items writer
 * (auth/providers/provider-user-create.ts), with the audit trail of any created user.
 */
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const TABLE = 'service_users';

export interface ProviderUser {
  id: string;
  provider: string;
  status: string;
  tfa_secret: string | null;
}

export interface ProviderUserFields {
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  role?: string | null;
}

const COLUMNS = ['id', 'provider', 'status', 'tfa_secret'];

export class ProviderUsersRepository {
  constructor(private readonly db: Database) {}

  /** The user of exactly (provider, external_identifier): an identifier at one provider is not one at another. */
  find(provider: string, identifier: string): Promise<ProviderUser | undefined> {
    return read(this.db, (knex) =>
      knex(TABLE).select(COLUMNS).where({ provider, external_identifier: identifier }).first(),
    );
  }

  /** By `external_identifier`, compared case-insensitively (a DN's case is not significant). */
  byExternalIdentifier(identifier: string): Promise<ProviderUser | undefined> {
    return read(this.db, (knex) =>
      knex(TABLE).select(COLUMNS).whereRaw('lower(external_identifier) = ?', [identifier.toLowerCase()]).first(),
    );
  }

  /** Whether the identifier or the email is already another account's (both are unique columns). */
  async taken(identifier: string, email: string | null): Promise<boolean> {
    const row = await read<{ id: string } | undefined>(this.db, (knex) =>
      knex(TABLE)
        .select('id')
        .where('external_identifier', identifier)
        .modify((q) => {
          if (email !== null) q.orWhereRaw('lower(email) = ?', [email]);
        })
        .first(),
    );
    return row !== undefined;
  }

  /** The provider of a user and its identifier there (a session refresh asks that provider again). */
  providerOf(id: string): Promise<{ provider: string; external_identifier: string | null } | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('provider', 'external_identifier').where('id', id).first());
  }

  /** The id of the first role (by name) whose name is one of `names`, case-insensitively. */
  async roleNamed(names: readonly string[]): Promise<string | null> {
    if (names.length === 0) return null;
    const lower = [...new Set(names.map((name) => name.toLowerCase()))];
    const row = await read<{ id: string } | undefined>(this.db, (knex) =>
      knex('service_roles')
        .select('id')
        .whereRaw(`lower(name) in (${lower.map(() => '?').join(', ')})`, lower)
        .orderBy('name')
        .first(),
    );
    return row?.id ?? null;
  }

  async roleExists(id: string): Promise<boolean> {
    const row = await read<{ id: string } | undefined>(this.db, (knex) =>
      knex('service_roles').select('id').where('id', id).first(),
    );
    return row !== undefined;
  }

  async update(id: string, fields: ProviderUserFields): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await write(this.db, (knex) => knex(TABLE).update(fields).where('id', id));
  }
}
