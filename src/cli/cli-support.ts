/**
 * What the data commands share: an app context over the configured database acting as an administrator, exit
 * codes (0 ok, 1 error, 2 usage, 3 not found, 4 conflict), and output for people or, with `--json`, for scripts.
 */
import path from 'node:path';
import { ConfigError, type Config } from '../config/config.js';
import { DatabaseUnreachableError } from '../db/wait-for-database.js';
import { ServiceErrorList } from '../errors/catalogue.js';
import { isUnexpected, toServiceError } from '../errors/to-service-error.js';
import type { Accountability } from '../permissions/accountability.js';
import { createAppContext } from '../app/app-context.js';
import { Extensions } from '../extensions/extensions-manager.js';
import type { ItemsApi, SchemaAdminApi } from '../app/ports.js';

export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, conflict: 4 } as const;

/** The CLI runs with the rights of an administrator: whoever can run it can read the database settings anyway. */
export const CLI_ACCOUNTABILITY: Accountability = {
  user: null,
  role: null,
  roles: [],
  policies: [],
  admin: true,
  app: true,
  ip: null,
};

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A writable the CLI prints to: the process's stdout or stderr, or a buffer when it runs in process. */
export type CliWritable = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; hasColors?(): boolean };
export type CliReadable = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * Everything a command touches outside its database: its streams, environment and working directory. The binary
 * passes the process's own; tests pass buffers, so many commands run in one process (run-cli.ts).
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: CliReadable;
  stdout: CliWritable;
  stderr: CliWritable;
}

/** One run of the command line: its io, its settings (read when a command needs them), and where its exit code goes. */
export interface CliRun {
  io: CliIo;
  config(): Config;
  exit(code: number): void;
}

/** A file argument, relative to the command's working directory (not the process's, when run in process). */
export function resolvePath(io: Pick<CliIo, 'cwd'>, file: string): string {
  return path.resolve(io.cwd, file);
}

export interface Output {
  json: boolean;
  io: CliIo;
  /** A result: JSON on stdout with --json, else the text. */
  result(value: unknown, text: string): void;
  /** Progress and notes for people: stderr, silent with --json. */
  note(text: string): void;
}

export function output(io: CliIo, json: boolean): Output {
  return {
    json,
    io,
    result: (value, text) =>
      io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text.endsWith('\n') || !text ? text : `${text}\n`),
    note: (text) => {
      if (!json) io.stderr.write(`${text}\n`);
    },
  };
}

/** What the data commands use: items (service_* tables included) and the schema's snapshots and applies. */
export interface CliApi extends ItemsApi, SchemaAdminApi {}

/** Opens the database (migrating it like `strata bootstrap`), runs `work`, closes. */
export async function withContext<T>(config: Config, io: CliIo, work: (context: CliApi) => Promise<T>): Promise<T> {
  const context = await createAppContext(
    { ...config, logLevel: 'silent' },
    { bootstrap: true, log: { info: () => {}, warn: (msg) => io.stderr.write(`${msg}\n`) } },
  );
  // The writes of data commands raise the hooks' filters and actions, as the server's do (no schedules).
  const extensions = new Extensions(
    context,
    { info: () => {}, warn: (msg) => io.stderr.write(`${msg}\n`) },
    { server: false },
  );
  try {
    await extensions.start();
    return await work(context);
  } finally {
    // Actions of the command's writes finish before the database closes (a hung one is let go): those run at once,
    // and those the outbox recorded (delivered here now; one that fails is retried later by a server).
    await context.events.settled(5000);
    await context.flows.flush(5000);
    await extensions.close();
    await context.close();
  }
}

/** A service error → its exit code: FORBIDDEN (for an admin: something that does not exist) 3, uniqueness 4, else 1. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  const code = toServiceError(error).code;
  if (code === 'FORBIDDEN' || code === 'ROUTE_NOT_FOUND') return EXIT.notFound;
  if (code === 'RECORD_NOT_UNIQUE') return EXIT.conflict;
  return EXIT.error;
}

/** Errors whose message is written for the person at the terminal (a usage mistake, the settings, no database). */
function forPeople(error: unknown): error is Error {
  return error instanceof CliError || error instanceof ConfigError || error instanceof DatabaseUnreachableError;
}

/**
 * The message of an error, with the details a person needs (field, line); anything else as every front end
 * answers it (toServiceError), its stack after it (see `unexpectedDetail`).
 */
export function describeError(error: unknown): string {
  if (forPeople(error)) return error.message;
  const service = toServiceError(error);
  if (service instanceof ServiceErrorList) return service.errors.map(describeError).join('\n');
  return `${service.message} [${service.code}]`;
}

/** For an error no catalogue code explains: its stack, for stderr (the CLI's log); '' otherwise. */
export function unexpectedDetail(error: unknown): string {
  if (forPeople(error) || !isUnexpected(error)) return '';
  return `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}
