#!/usr/bin/env node
/**
 * The `strata` command: `bootstrap` (install or migrate the database), `start` (bootstrap if needed, then serve),
 * `types`, and the data commands (schema, import, export, users, roles: data-commands.ts).
 * Settings come from the environment and `.env`; a bad one stops here with one line naming it.
 */
import { Command } from 'commander';
import { ConfigError, loadEnvFile, readConfig, type Config } from '../config/config.js';
import { DatabaseUnreachableError } from '../db/wait-for-database.js';
import { VERSION } from '../version.js';
import { runBootstrapCommand } from './bootstrap-command.js';
import { ListenError, runStartCommand } from './start-command.js';
import { registerTypesCommand } from './types-command.js';
import { registerDataCommands } from './data-commands.js';

function config(): Config {
  loadEnvFile();
  return readConfig();
}

async function run(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DatabaseUnreachableError || error instanceof ListenError) {
      process.stderr.write(`strata: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const program = new Command('strata').version(VERSION).description('Serve a SQL database as a REST API');

program
  .command('bootstrap')
  .description(
    'Create the service_* tables, roles, policies and the first admin on a fresh database; migrate an existing one',
  )
  .action(() => run(async () => runBootstrapCommand(config())));

program
  .command('start')
  .description('Bootstrap if needed, then serve the API')
  .action(() => run(async () => runStartCommand(config())));

registerTypesCommand(program, config, run);
registerDataCommands(program, config);

await program.parseAsync(process.argv);
