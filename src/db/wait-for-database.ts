import type { Config } from '../config/config.js';
import { DatabaseError } from '../errors/database-error.js';
import type { Database } from './connection.js';
import { failureKind } from './failure-kind.js';

export class DatabaseUnreachableError extends Error {}

/**
 * A database that is still starting (the connection refused, a timeout, a server not yet taking connections) gets a
 * few tries; a server that answers and refuses (a wrong password or user, a database that does not exist) is told at
 * once, since trying again cannot change its answer. Either way start-up stops with one clear line.
 */
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
      if (failureKind(db.dialect, error) !== 'connection')
        throw new DatabaseUnreachableError(
          `Cannot connect to the ${db.dialect.label} database at ${where(config)}: ${describe(error)}`,
        );
      if (attempt < config.dbConnectRetries) {
        log.warn(`Database not reachable (try ${attempt}/${config.dbConnectRetries}): ${describe(error)}; retrying`);
        await new Promise((resolve) => setTimeout(resolve, config.dbConnectRetryDelayMs));
      }
    }
  }
  throw new DatabaseUnreachableError(
    `Cannot connect to the ${db.dialect.label} database at ${where(config)} after ${config.dbConnectRetries} tries: ${describe(lastError)}`,
  );
}

/** Where the database is, its password hidden. */
function where(config: Pick<Config, 'db'>): string {
  const { db } = config;
  return redact(
    db.client === 'sqlite3'
      ? db.filename
      : (db.connectionString ?? `${db.host}:${db.port ?? 'default port'}/${db.database}`),
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
