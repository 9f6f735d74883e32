/**
 * A connection for a look that must change nothing (a dry run): a SQLite file that does not exist yet is not created
 * (nor its folder); an empty in-memory database stands for it, which is what such a file would hold. Servers are
 * opened as they are: only what the caller runs on them could change them, and a look runs reads only.
 */
import { existsSync } from 'node:fs';
import type { DbConfig } from '../config/config.js';
import { Database } from './connection.js';

const IN_MEMORY = ':memory:';

export function openUnchanged(config: DbConfig): Database {
  const missingFile = config.client === 'sqlite3' && config.filename !== IN_MEMORY && !existsSync(config.filename);
  return new Database({ ...config, ...(missingFile ? { filename: IN_MEMORY } : {}), readThreads: 0 });
}
