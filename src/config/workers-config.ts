/**
 * WORKERS: how many server processes serve the one port (src/workers/; docs/design/workers.md). One per core by
 * default on PostgreSQL and MariaDB. On SQLite the default is one: an in-memory database exists only inside the
 * process that opened it (always one), and a file's writes take one lock whatever the process count, while a stop
 * of several processes over one file has been seen to leave its WAL behind and its primary waiting (`WORKERS=2` on a
 * SQLite file works and is tested; it is not the default until that stop is clean).
 */
import os from 'node:os';
import path from 'node:path';
import { ConfigError, int, type Env } from './env-values.js';

const IN_MEMORY = ':memory:';

export function isInMemorySqlite(client: string, filename: string): boolean {
  return client === 'sqlite3' && (filename === IN_MEMORY || path.basename(filename) === IN_MEMORY || filename === '');
}

export function readWorkers(env: Env, client: string, filename: string): number {
  const inMemory = isInMemorySqlite(client, filename);
  const workers = int(env, 'WORKERS', client === 'sqlite3' ? 1 : os.availableParallelism(), 1, 256);
  if (inMemory && workers > 1)
    throw new ConfigError('WORKERS', 'an in-memory SQLite database lives in one process: WORKERS must be 1');
  return workers;
}
