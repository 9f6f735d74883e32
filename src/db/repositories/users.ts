/** service_users: the lookups and small updates of login, two-factor setup and the CLI (item writes go through the engine). */
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const TABLE = 'service_users';

export interface LoginUser {
  id: string;
  password: string | null;
  status: string;
  tfa_secret: string | null;
  provider: string;
}

export interface TfaUser {
  id: string;
  email: string | null;
  password: string | null;
  tfa_secret: string | null;
}

export interface AccountabilityUser {
  id: string;
  role: string | null;
  status: string;
}

export class UsersRepository {
  constructor(private readonly db: Database) {}

  /** By email, compared case-insensitively (`email` is the lower-cased address). */
  forLogin(email: string): Promise<LoginUser | undefined> {
    return read(this.db, (knex) =>
      knex(TABLE)
        .select('id', 'password', 'status', 'tfa_secret', 'provider')
        .whereRaw('lower(email) = ?', [email])
        .first(),
    );
  }

  idByEmail(email: string): Promise<{ id: string } | undefined> {
    return read(this.db, (knex) => knex(TABLE).whereRaw('lower(email) = ?', [email]).first('id'));
  }

  status(id: string): Promise<{ status: string } | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('status').where('id', id).first());
  }

  forTfa(id: string): Promise<TfaUser | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('id', 'email', 'password', 'tfa_secret').where('id', id).first());
  }

  /** By id or by static token. */
  forAccountability(by: 'id' | 'token', value: string): Promise<AccountabilityUser | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('id', 'role', 'status').where(by, value).first());
  }

  async setStatus(id: string, status: string): Promise<void> {
    await write(this.db, (knex) => knex(TABLE).update({ status }).where('id', id));
  }

  async touchLastAccess(id: string, at: Date): Promise<void> {
    await write(this.db, (knex) => knex(TABLE).update({ last_access: at }).where('id', id));
  }

  async setTfaSecret(id: string, secret: string | null): Promise<void> {
    await write(this.db, (knex) => knex(TABLE).update({ tfa_secret: secret }).where('id', id));
  }

  /** The account an address names (case-insensitively), for the mail flows. */
  account(email: string): Promise<{ id: string; email: string; status: string } | undefined> {
    return read(this.db, (knex) =>
      knex(TABLE).select('id', 'email', 'status').whereRaw('lower(email) = ?', [email.toLowerCase()]).first(),
    );
  }

  accountById(id: string): Promise<{ id: string; email: string; status: string } | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('id', 'email', 'status').where('id', id).first());
  }
}
