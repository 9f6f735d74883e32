/**
 * `strata types [--out file]`: TypeScript types of the database's schema for `@directus/sdk`'s
 * `createDirectus<Schema>()`, on stdout or into a file. Reads the schema only (no bootstrap, no writes).
 */
import { writeFileSync } from 'node:fs';
import type { Config } from '../config/config.js';
import { Database } from '../db/connection.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { SchemaStore } from '../schema/schema-store.js';
import { typescriptTypes } from '../specs/typescript-types.js';
import type { Command } from 'commander';
import { resolvePath, type CliIo, type CliRun } from './cli-support.js';

export async function runTypesCommand(config: Config, io: CliIo, out: string | undefined): Promise<void> {
  const db = new Database(config.db);
  const log = { info: () => {}, warn: (msg: string) => io.stderr.write(`${msg}\n`) };
  try {
    await waitForDatabase(db, config, log);
    const source = typescriptTypes(await new SchemaStore(db).load());
    if (out) {
      const file = resolvePath(io, out);
      writeFileSync(file, source);
      io.stderr.write(`Wrote ${file}\n`);
    } else {
      io.stdout.write(source);
    }
  } finally {
    await db.close();
  }
}

export function registerTypesCommand(
  program: Command,
  run: CliRun,
  simple: (work: () => Promise<void>) => () => Promise<void>,
): void {
  program
    .command('types')
    .description('Write TypeScript types of the schema for @directus/sdk (createDirectus<Schema>())')
    .option('-o, --out <file>', 'file to write (default: standard output)')
    .action((options: { out?: string }) => simple(() => runTypesCommand(run.config(), run.io, options.out))());
}
