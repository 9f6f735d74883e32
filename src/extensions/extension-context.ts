/**
 * What an extension's register function is given, as Directus gives it: `services`, `database`, `env`, `logger`,
 * `getSchema`, `emitter`, and the error classes (`exceptions` and `errors`, Strata's coded errors). `database` is not
 * knex: it is Strata's data path, `query(sql, params)` with `?` placeholders in the database's own SQL (see
 * docs/extensions.md); in a filter, the handler's third argument's `database` runs in the write's transaction.
 */
import type { AppContext } from '../app/app-context.js';
import * as catalogue from '../errors/catalogue.js';
import type { Executor } from '../db/connection.js';
import { extensionServices } from './extension-services.js';
import { numberedPlaceholders } from '../db/question-marks.js';

export interface ExtensionLogger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  trace(...args: unknown[]): void;
  fatal(...args: unknown[]): void;
}

export interface LogSink {
  info(msg: string): void;
  warn(msg: string): void;
}

/** An executor taking `?` placeholders whatever the dialect (PostgreSQL's `$n` are made from them). */
export function questionMarkExecutor(executor: Executor, placeholder: (n: number) => string): Executor {
  if (placeholder(1) === '?') return executor;
  return { query: (sql, params) => executor.query(numberedPlaceholders(sql, placeholder), params) };
}

function text(args: unknown[]): string {
  return args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
}

export function extensionLogger(name: string, sink: LogSink | undefined): ExtensionLogger {
  const line = (args: unknown[]) => `[extension ${name}] ${text(args)}`;
  return {
    info: (...args) => sink?.info(line(args)),
    warn: (...args) => sink?.warn(line(args)),
    error: (...args) => sink?.warn(line(args)),
    fatal: (...args) => sink?.warn(line(args)),
    debug: () => {},
    trace: () => {},
  };
}

export function extensionContext(context: AppContext, name: string, sink: LogSink | undefined) {
  const errors = {
    ServiceError: catalogue.ServiceError,
    ForbiddenError: catalogue.ForbiddenError,
    InvalidPayloadError: catalogue.InvalidPayloadError,
    InvalidQueryError: catalogue.InvalidQueryError,
    RouteNotFoundError: catalogue.RouteNotFoundError,
    ServiceUnavailableError: catalogue.ServiceUnavailableError,
    UnprocessableContentError: catalogue.UnprocessableContentError,
    InvalidCredentialsError: catalogue.InvalidCredentialsError,
  };
  const env: Record<string, string | undefined> = Object.assign(
    Object.create(null) as Record<string, string | undefined>,
    process.env,
  );
  return {
    services: extensionServices(context),
    database: questionMarkExecutor(context.db, (n) => context.db.dialect.sql.placeholder(n)),
    env,
    logger: extensionLogger(name, sink),
    getSchema: async () => context.schema.current,
    emitter: context.events,
    exceptions: errors,
    errors,
  };
}

export type ExtensionContext = ReturnType<typeof extensionContext>;
