/**
 * The last close of a database kept in files (SQLite), once every other process of the server has closed it. A WAL
 * database is checkpointed into its file, and its -wal and -shm files removed, by the connection that closes while no
 * other connection has it open; two processes that close at the same moment can each find the other still there, and
 * then neither does it (two workers stopping together left the WAL in about one stop in eight, measured). One
 * connection opened and closed here, alone, does it. A database server keeps no such files: nothing to do.
 */
import type { DbConfig } from '../config/config.js';
import { Database } from './connection.js';
import { dialectFor } from './dialects/index.js';

export async function closeLast(config: DbConfig): Promise<void> {
  if (!dialectFor(config.client).tidiedByLastClose) return;
  // Reads run on the writer's connection here: a read thread would be one more connection to close.
  const db = new Database({ ...config, readThreads: 0, replicas: null });
  try {
    await db.ping();
  } finally {
    await db.close();
  }
}
