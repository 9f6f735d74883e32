/** service_settings: the one settings row. */
import type { Database } from '../connection.js';
import { read } from './statements.js';

const TABLE = 'service_settings';

/** The columns Strata reads itself; the row has more (Directus's settings), kept as they are. */
export interface SettingsRow {
  project_name?: string | null;
  project_descriptor?: string | null;
  project_logo?: string | null;
  project_color?: string | null;
  default_language?: string | null;
  public_foreground?: string | null;
  public_background?: string | null;
  public_note?: string | null;
  custom_css?: string | null;
  [column: string]: unknown;
}

export class SettingsRepository {
  constructor(private readonly db: Database) {}

  /** The first row (by id), all columns; undefined before installation. */
  row(): Promise<SettingsRow | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('*').orderBy('id').first());
  }

  passwordPolicy(): Promise<{ auth_password_policy: unknown } | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('auth_password_policy').orderBy('id').first());
  }

  loginAttempts(): Promise<{ auth_login_attempts: unknown } | undefined> {
    return read(this.db, (knex) => knex(TABLE).select('auth_login_attempts').first());
  }
}
