/**
 * Start-up, first step: the database answers, is migrated (and given its first admin) when asked, and no schema
 * change that a stopped process left half-made remains.
 */
import type { Config } from '../config/config.js';
import { resolveSecret } from '../config/secret-store.js';
import type { Database } from '../db/connection.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { undoCutShortChanges } from '../schema-admin/schema-changes.js';
import type { StartLog } from './start-log.js';
import { bootstrap } from './bootstrap.js';

export interface OpenedDatabase {
  /** What tokens are signed with (resolved after bootstrap, which may have stored it). */
  secret: string;
  /** How many half-made schema changes were undone (other instances are told once the bus is up). */
  undone: number;
}

export async function openDatabase(
  db: Database,
  config: Config,
  log: StartLog,
  runBootstrap: boolean,
): Promise<OpenedDatabase> {
  await waitForDatabase(db, config, log);
  for (const warning of db.settingWarnings()) log.warn(warning);
  if (runBootstrap) {
    const result = await bootstrap(db, config, log);
    if (result.generatedPassword) {
      log.warn(`Admin ${result.adminEmail} password (shown once): ${result.generatedPassword}`);
    }
  }
  const secret = resolveSecret(config);
  const undone = await undoCutShortChanges(db, { error: (object, msg) => log.error?.(object, msg) });
  if (undone) log.warn(`Undid ${undone} schema change(s) that a stopped process left half-made`);
  return { secret, undone };
}
