/**
 * The data commands of `strata`: schema snapshot/apply, import, export, users and roles. Each takes `--json` for
 * scripts; every command exits 0 ok, 1 error, 2 usage, 3 not found, 4 conflict.
 */
import type { Command } from 'commander';
import { ConfigError, type Config } from '../config/config.js';
import { DatabaseUnreachableError } from '../db/wait-for-database.js';
import { describeError, EXIT, exitCodeOf, output, unexpectedDetail, type CliRun, type Output } from './cli-support.js';
import { runExport, runImport, type ExportOptions } from './io-commands.js';
import { runApply, runSnapshot } from './schema-commands.js';
import { runRolesCreate, runUsersCreate, runUsersList, runUsersPasswd } from './user-commands.js';

type Json = { json?: boolean };

function action<A extends unknown[]>(run: CliRun, work: (config: Config, out: Output, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const out = output(run.io, (command.opts() as Json).json === true);
    try {
      await work(run.config(), out, ...(args.slice(0, -1) as A));
    } catch (error) {
      const code =
        error instanceof ConfigError || error instanceof DatabaseUnreachableError ? EXIT.error : exitCodeOf(error);
      run.io.stderr.write(`strata: ${describeError(error)}\n`);
      run.io.stderr.write(unexpectedDetail(error));
      if (out.json)
        run.io.stdout.write(`${JSON.stringify({ error: { message: describeError(error), exit: code } })}\n`);
      run.exit(code);
    }
  };
}

export function registerDataCommands(program: Command, run: CliRun): void {
  registerSchemaCommands(program, run);
  registerTransferCommands(program, run);
  registerUserCommands(program, run);
  program.addHelpText('after', DATA_COMMANDS_HELP);
}

function registerSchemaCommands(program: Command, run: CliRun): void {
  const schema = program.command('schema').description('Schema snapshots: write one, or apply one to this database');
  schema
    .command('snapshot [file]')
    .description('Write a snapshot of the schema (YAML, or JSON for a .json file; standard output without a file)')
    .option('--json', 'machine-readable output')
    .action(action(run, (c, out, file: string | undefined) => runSnapshot(c, out, file)));
  schema
    .command('apply <file>')
    .description('Make the schema match a snapshot file: prints the planned changes in words, asks before applying')
    .option('--dry-run', 'only print the planned changes')
    .option('-y, --yes', 'apply without asking')
    .option('--force', 'accept a snapshot from another database vendor or version')
    .option('--json', 'machine-readable output')
    .action(
      action(run, (c, out, file: string, options: { dryRun?: boolean; yes?: boolean; force?: boolean }) =>
        runApply(c, out, file, options),
      ),
    );
}

/** Import and export of a collection's items. */
function registerTransferCommands(program: Command, run: CliRun): void {
  program
    .command('import <collection> <file>')
    .description('Import a CSV, JSON (array) or NDJSON file into a collection, in one transaction')
    .option('--format <format>', 'csv, json or ndjson (default: from the file extension)')
    .option('--json', 'machine-readable output')
    .action(
      action(run, (c, out, collection: string, file: string, options: { format?: string }) =>
        runImport(c, out, collection, file, options),
      ),
    );

  program
    .command('export <collection>')
    .description('Export a collection (the query language: --filter, --fields, --sort, --limit)')
    .option('--format <format>', 'csv, csv_utf8, json, ndjson, xml or yaml', 'csv')
    .option('--filter <json>', 'filter as JSON, e.g. {"status":{"_eq":"published"}}')
    .option('--fields <list>', 'fields, e.g. id,title,author.name')
    .option('--sort <list>', 'sort, e.g. -date_created')
    .option('--limit <n>', 'most rows (default: all)')
    .option('-o, --out <file>', 'file to write (default: standard output)')
    .option('--json', 'machine-readable summary')
    .action(
      action(run, (c, out, collection: string, options: ExportOptions) => runExport(c, out, collection, options)),
    );
}

function registerUserCommands(program: Command, run: CliRun): void {
  const users = program.command('users').description('Manage users');
  users
    .command('create')
    .description('Create an active user')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--password <password>', 'password (checked against the password policy)')
    .option('--role <role>', 'role name or id')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .option('--json', 'machine-readable output')
    .action(
      action(
        run,
        (c, out, options: { email: string; password: string; role?: string; firstName?: string; lastName?: string }) =>
          runUsersCreate(c, out, options),
      ),
    );
  users
    .command('passwd')
    .description("Set a user's password")
    .requiredOption('--email <email>', 'email address of the user')
    .requiredOption('--password <password>', 'new password')
    .option('--json', 'machine-readable output')
    .action(action(run, (c, out, options: { email: string; password: string }) => runUsersPasswd(c, out, options)));
  users
    .command('list')
    .description('List users')
    .option('--json', 'machine-readable output')
    .action(action(run, (c, out) => runUsersList(c, out)));

  const roles = program.command('roles').description('Manage roles');
  roles
    .command('create')
    .description('Create a role (with --admin or --app, a policy of its own granting that access)')
    .requiredOption('--name <name>', 'role name')
    .option('--admin', 'administrators: full access')
    .option('--app', 'may use the admin app')
    .option('--parent <role>', 'parent role name or id')
    .option('--json', 'machine-readable output')
    .action(
      action(run, (c, out, options: { name: string; admin?: boolean; app?: boolean; parent?: string }) =>
        runRolesCreate(c, out, options),
      ),
    );
}

const DATA_COMMANDS_HELP = `
Data commands:
  strata schema snapshot [file]                 write a snapshot (YAML, or JSON for .json)
  strata schema apply <file> [--dry-run] [--yes] [--force]
  strata import <collection> <file> [--format csv|json|ndjson]
  strata export <collection> [--format csv|csv_utf8|json|ndjson|xml|yaml] [--filter] [--fields] [--sort] [--limit] [--out]
  strata users create --email <e> --password <p> [--role <name|id>]
  strata users passwd --email <e> --password <p>
  strata users list
  strata roles create --name <n> [--admin] [--app] [--parent <role>]
Each takes --json (machine-readable output). Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 conflict.`;
