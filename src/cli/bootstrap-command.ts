import type { Config } from '../config/config.js';
import { Database } from '../db/connection.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { bootstrap } from '../app/bootstrap.js';
import type { CliIo } from './cli-support.js';

export async function runBootstrapCommand(config: Config, io: CliIo): Promise<void> {
  const db = new Database(config.db);
  const log = {
    info: (msg: string) => io.stdout.write(`${msg}\n`),
    warn: (msg: string) => io.stderr.write(`${msg}\n`),
  };
  try {
    await waitForDatabase(db, config, log);
    const result = await bootstrap(db, config, log);
    if (result.generatedPassword)
      log.info(`Admin ${result.adminEmail} password (shown once): ${result.generatedPassword}`);
    if (!result.installed && !result.migrations.length) log.info('Database is up to date');
  } finally {
    await db.close();
  }
}
