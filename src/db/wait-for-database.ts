import type { Config } from '../config/config.js';
import { DatabaseError } from '../errors/database-error.js';
import type { Database } from './connection.js';

export class DatabaseUnreachableError extends Error {}

/** A database that is still starting gets a few tries; then start-up stops with one clear line. */
export async function waitForDatabase(
  db: Database,
  config: Pick<Config, 'dbConnectRetries' | 'dbConnectRetryDelayMs' | 'db'>,
  log: { warn(msg: string): void },
): Promise<void> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= config.dbConnectRetries; attempt++) {
    try {
      await db.ping();
      return;
    } catch (error) {
      lastError = error;
      if (attempt < config.dbConnectRetries) {
        log.warn(`Database not reachable (try ${attempt}/${config.dbConnectRetries}): ${describe(error)}; retrying`);
        await new Promise((resolve) => setTimeout(resolve, config.dbConnectRetryDelayMs));
      }
    }
  }
  const where =
    config.db.client === 'sqlite3'
      ? config.db.filename
      : (config.db.connectionString ?? `${config.db.host}:${config.db.port ?? 'default port'}/${config.db.database}`);
  throw new DatabaseUnreachableError(
    `Cannot connect to the ${db.dialect.label} database at ${redact(where)} after ${config.dbConnectRetries} tries: ${describe(lastError)}`,
  );
}

function describe(error: unknown): string {
  if (error instanceof DatabaseError) return describe(error.cause);
  if (error instanceof AggregateError && error.errors.length) return describe(error.errors[0]);
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}

function redact(where: string): string {
  return where.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
