/** service_sessions: refresh tokens and sessions, stored as the SHA-256 of the token (auth/sessions.ts decides). */
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const TABLE = 'service_sessions';

export interface SessionRecord {
  token: string;
  user: string;
  family: string | null;
  expires: Date;
  ip: string | null;
  user_agent: string | null;
  origin: string | null;
}

export interface StoredSession {
  user: string;
  /** As the driver gives it (a Date, or text on drivers that return dates as strings). */
  expires: Date | string;
  family: string | null;
}

export class SessionsRepository {
  constructor(private readonly db: Database) {}

  insert(record: SessionRecord): Promise<unknown> {
    return write(this.db, (knex) => knex(TABLE).insert(record));
  }

  byToken(token: string): Promise<StoredSession | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('user', 'expires', 'family').where('token', token).first());
  }

  expiriesOfFamily(family: string): Promise<{ expires: Date | string }[]> {
    return read(this.db, (knex) => knex(TABLE).select('expires').where('family', family));
  }

  deleteFamily(family: string): Promise<number> {
    return write(this.db, (knex) => knex(TABLE).where('family', family).del());
  }

  /** Shortens a token not yet spent to `until` and records its successor; the number of rows claimed (0 or 1). */
  claim(token: string, until: Date, next: string): Promise<number> {
    return write(this.db, (knex) =>
      knex(TABLE).where('token', token).whereNull('next_token').update({ expires: until, next_token: next }),
    );
  }

  /** The number of rows deleted (0 or 1). */
  deleteToken(token: string): Promise<number> {
    return write(this.db, (knex) => knex(TABLE).where('token', token).del());
  }

  /** The logins (families) of a user's sessions. */
  familiesOfUser(user: string): Promise<{ family: string | null }[]> {
    return read(this.db, (knex) => knex(TABLE).distinct('family').where('user', user));
  }

  deleteOfUser(user: string): Promise<number> {
    return write(this.db, (knex) => knex(TABLE).where('user', user).del());
  }
}
