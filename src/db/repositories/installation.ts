/** The rows of a fresh installation (app/bootstrap.ts decides them), written in one transaction. */
import type { Database } from '../connection.js';
import { transaction } from './statements.js';

export interface Installation {
  roles: Record<string, unknown>[];
  policies: Record<string, unknown>[];
  access: Record<string, unknown>[];
  /** Written only when the table has no row yet. */
  settings: Record<string, unknown>;
  users: Record<string, unknown>[];
}

export function writeInstallation(db: Database, rows: Installation): Promise<void> {
  return transaction(db, async (trx) => {
    await trx('service_roles').insert(rows.roles);
    await trx('service_policies').insert(rows.policies);
    await trx('service_access').insert(rows.access);
    if (!(await trx('service_settings').first())) await trx('service_settings').insert(rows.settings);
    await trx('service_users').insert(rows.users);
  });
}
