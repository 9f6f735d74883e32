/** service_account_tokens: one-time tokens sent by mail, stored as their SHA-256 (auth/account-tokens.ts decides). */
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const TABLE = 'service_account_tokens';

export interface AccountTokenRecord {
  token: string;
  purpose: string;
  user: string;
  expires: Date;
}

export class AccountTokensRepository {
  constructor(private readonly db: Database) {}

  insert(record: AccountTokenRecord): Promise<unknown> {
    return write(this.db, (knex) => knex(TABLE).insert(record));
  }

  find(token: string, purpose: string): Promise<{ user: string; expires: Date | string } | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('user', 'expires').where({ token, purpose }).first());
  }

  /** The number of rows deleted (0 or 1): who deletes the row has spent the token. */
  spend(token: string, purpose: string): Promise<number> {
    return write(this.db, (knex) => knex(TABLE).where({ token, purpose }).del());
  }

  /** A new token of a purpose replaces the user's earlier ones (a re-invite, a second reset request). */
  dropFor(user: string, purpose: string): Promise<number> {
    return write(this.db, (knex) => knex(TABLE).where({ user, purpose }).del());
  }

  dropExpired(now: Date): Promise<number> {
    return write(this.db, (knex) => knex(TABLE).where('expires', '<=', now).del());
  }
}
