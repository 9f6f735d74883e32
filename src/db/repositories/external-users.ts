/** service_users rows of single sign-on: found by (provider, external_identifier), updated at sign-in
 * (created through the items writer: auth/providers/provider-user-create.ts). */
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const TABLE = 'service_users';

export interface ExternalUser {
  id: string;
  status: string;
  role: string | null;
  email: string | null;
}

export interface ExternalProfile {
  email: string | null;
  first_name: string | null;
  last_name: string | null;
}

export class ExternalUsersRepository {
  constructor(private readonly db: Database) {}

  find(provider: string, identifier: string): Promise<ExternalUser | undefined> {
    return read(this.db, (knex) =>
      knex(TABLE).select('id', 'status', 'role', 'email').where({ provider, external_identifier: identifier }).first(),
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

  async update(id: string, changes: Partial<ExternalProfile> & { role?: string | null }): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await write(this.db, (knex) => knex(TABLE).update(changes).where('id', id));
  }
}
