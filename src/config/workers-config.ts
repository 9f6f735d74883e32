/**
 * WORKERS: how many server processes serve the one port (src/workers/; docs/design/workers.md). One per core by
 * default, a SQLite file included; an in-memory SQLite database exists only inside the process that opened it, so it
 * is always one.
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
  const workers = int(env, 'WORKERS', inMemory ? 1 : os.availableParallelism(), 1, 256);
  if (inMemory && workers > 1)
    throw new ConfigError('WORKERS', 'an in-memory SQLite database lives in one process: WORKERS must be 1');
  return workers;
}
