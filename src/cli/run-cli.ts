/**
 * The `strata` command line as a function: it parses `argv`, runs one command against the streams, environment
 * and working directory it is given, and resolves with the exit code (0 ok, 1 error, 2 usage, 3 not found,
 * 4 conflict) once everything it opened is closed. It never exits the process or touches the process's own streams,
 * so it can run many times in one process (the tests do); index.ts is the binary around it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { Command, CommanderError } from 'commander';
import { ConfigError, readConfig, type Config } from '../config/config.js';
import { DatabaseUnreachableError } from '../db/wait-for-database.js';
import { VERSION } from '../version.js';
import { runBootstrapCommand } from './bootstrap-command.js';
import { EXIT, type CliIo, type CliRun } from './cli-support.js';
import { registerDataCommands } from './data-commands.js';
import { ListenError, runStartCommand, type SignalSource } from './start-command.js';
import { registerTypesCommand } from './types-command.js';

export interface RunCliOptions extends CliIo {
  /** The arguments after the program name, e.g. `['users', 'list', '--json']`. */
  argv: string[];
  /** Stop signals for `strata start`; without them it serves until the process ends. */
  signals?: SignalSource;
  /**
   * Whether `strata start` may fork worker processes (WORKERS): the binary only. node:cluster forks this process's
   * own entry point, which for a caller running the CLI inside its process is the caller, not `strata`.
   */
  forks?: boolean;
}

const NO_SIGNALS: SignalSource = { on: () => {}, removeListener: () => {} };

/**
 * Settings from the environment, then `.env` in the working directory for what the environment leaves unset;
 * relative paths (DATA_DIR, DB_FILENAME) are taken from that working directory.
 */
export function cliConfig(io: Pick<CliIo, 'env' | 'cwd'>): Config {
  const file = path.join(io.cwd, '.env');
  const env: Record<string, string | undefined> = existsSync(file) ? { ...parseEnv(readFileSync(file, 'utf8')) } : {};
  for (const [name, value] of Object.entries(io.env)) if (value !== undefined) env[name] = value;
  env.DATA_DIR = path.resolve(io.cwd, env.DATA_DIR || './data');
  if (env.DB_FILENAME) env.DB_FILENAME = path.resolve(io.cwd, env.DB_FILENAME);
  return readConfig(env);
}

/** The problems that end a command with one line on stderr and exit code 1 (anything else is a bug: it throws). */
function oneLineError(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof DatabaseUnreachableError || error instanceof ListenError;
}

function colors(io: CliIo, stream: CliIo['stdout']): boolean {
  const { NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE } = io.env;
  if (NO_COLOR || FORCE_COLOR === '0' || FORCE_COLOR === 'false') return false;
  if (FORCE_COLOR || CLICOLOR_FORCE !== undefined) return true;
  return stream.isTTY === true && stream.hasColors?.() === true;
}

function program(run: CliRun, signals: SignalSource, forks: boolean): Command {
  const { io } = run;
  const simple = (work: () => Promise<number | void>) => async () => {
    try {
      run.exit((await work()) ?? EXIT.ok);
    } catch (error) {
      if (!oneLineError(error)) throw error;
      io.stderr.write(`strata: ${error.message}\n`);
      run.exit(EXIT.error);
    }
  };
  const cli = new Command('strata')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own defaults, on these streams: a terminal's width, else its fallback (undefined is allowed).
      getOutHelpWidth: () => (io.stdout.isTTY ? io.stdout.columns : undefined) as number,
      getErrHelpWidth: () => (io.stderr.isTTY ? io.stderr.columns : undefined) as number,
      getOutHasColors: () => colors(io, io.stdout),
      getErrHasColors: () => colors(io, io.stderr),
    })
    .version(VERSION)
    .description('Serve a SQL database as a REST API');
  cli
    .command('bootstrap')
    .description(
      'Create the service_* tables, roles, policies and the first admin on a fresh database; migrate an existing one',
    )
    .action(simple(() => runBootstrapCommand(run.config(), io)));
  cli
    .command('start')
    .description('Bootstrap if needed, then serve the API')
    .action(simple(() => runStartCommand(forks ? run.config() : { ...run.config(), workers: 1 }, io, signals)));
  registerTypesCommand(cli, run, simple);
  registerDataCommands(cli, run);
  return cli;
}

/** Runs one `strata` command; see the top of this file. */
export async function runCli(options: RunCliOptions): Promise<number> {
  const { argv, signals = NO_SIGNALS, forks = false, ...io } = options;
  let exitCode: number = EXIT.ok;
  const run: CliRun = { io, config: () => cliConfig(io), exit: (code) => (exitCode = code) };
  try {
    await program(run, signals, forks).parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and version exit 0 (also the help shown for a bare `strata`); usage errors exit 2.
    const shown = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code);
    return shown ? EXIT.ok : EXIT.usage;
  }
  return exitCode;
}
