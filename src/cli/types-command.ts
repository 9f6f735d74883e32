/**
 * `strata types [--out file]`: TypeScript types of the database's schema for `@directus/sdk`'s
 * `createDirectus<Schema>()`, on stdout or into a file. Reads the schema only (no bootstrap, no writes).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config/config.js';
import { Database } from '../db/connection.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { SchemaStore } from '../schema/schema-store.js';
import { typescriptTypes } from '../specs/typescript-types.js';

export async function runTypesCommand(config: Config, out: string | undefined): Promise<void> {
  const db = new Database(config.db);
  const log = { info: () => {}, warn: (msg: string) => process.stderr.write(`${msg}\n`) };
  try {
    await waitForDatabase(db, config, log);
    const source = typescriptTypes(await new SchemaStore(db).load());
    if (out) {
      writeFileSync(path.resolve(out), source);
      process.stderr.write(`Wrote ${path.resolve(out)}\n`);
    } else {
      process.stdout.write(source);
    }
  } finally {
    await db.close();
  }
}

export function registerTypesCommand(
  program: Command,
  config: () => Config,
  run: (action: () => Promise<void>) => Promise<void>,
): void {
  program
    .command('types')
    .description('Write TypeScript types of the schema for @directus/sdk (createDirectus<Schema>())')
    .option('-o, --out <file>', 'file to write (default: standard output)')
    .action((options: { out?: string }) => run(async () => runTypesCommand(config(), options.out)));
}
