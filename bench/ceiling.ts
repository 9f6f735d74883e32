/**
 * The ceiling: what the database and Node can do with the very SQL Strata generated, with nothing of Strata around
 * it. A bare `node:http` handler maps a request URL to the statements Strata ran for it (captured by bench/server.ts),
 * runs them with their captured parameters on the raw driver — better-sqlite3, a pg Pool, a mysql2 pool, sized and
 * configured as Strata's own connections are — and writes the same `{"data":...}` body around the database's JSON
 * text. No parsing, no auth, no planning. A child process of bench/run.ts, so its memory and event loop are its own.
 *
 * Vendor names appear here (and only in bench/): the ceiling is by definition each raw driver on its own.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import mysql from 'mysql2';
import pg from 'pg';
import { answerParent, RssPeak } from './ipc.js';
import type { CapturedStatement } from './server.js';

type Row = Record<string, unknown>;
type Runner = { run(sql: string, params: unknown[]): Promise<Row[]>; close(): Promise<void> };

const rss = new RssPeak();
const runner = openRunner(process.env);
const routes = new Map<string, CapturedStatement[]>();

const server = http.createServer((request, response) => {
  const statements = routes.get(request.url ?? '');
  if (!statements) {
    send(response, 404, '{"errors":[{"message":"no such route"}]}');
    return;
  }
  respond(statements).then(
    (body) => send(response, 200, body),
    (error: Error) => send(response, 500, JSON.stringify({ errors: [{ message: error.message }] })),
  );
});

function send(response: http.ServerResponse, status: number, body: string): void {
  response
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
    .end(body);
}

/** Runs the statements in order; the body comes from the last one's first row, as ItemsService.readMany builds it. */
async function respond(statements: CapturedStatement[]): Promise<string> {
  let row: Row | undefined;
  for (const statement of statements) [row] = await runner.run(statement.sql, statement.params);
  const data = row?.data;
  // A driver that parses JSON columns hands back a value; Strata's dialects return the text itself.
  const text = data === null || data === undefined ? '[]' : typeof data === 'string' ? data : JSON.stringify(data);
  const meta: string[] = [];
  if (row && 'total_count' in row) meta.push(`"total_count":${Number(row.total_count ?? 0)}`);
  if (row && 'filter_count' in row) meta.push(`"filter_count":${Number(row.filter_count ?? 0)}`);
  return `{"data":${text}${meta.length ? `,"meta":{${meta.join(',')}}` : ''}}`;
}

function openRunner(env: NodeJS.ProcessEnv): Runner {
  const client = env.DB_CLIENT;
  if (client === 'sqlite3') return sqliteRunner(env.DB_FILENAME!);
  if (client === 'pg') return pgRunner(env.DB_CONNECTION_STRING!);
  if (client === 'mysql') return mysqlRunner(env.DB_CONNECTION_STRING!);
  throw new Error(`ceiling: unsupported DB_CLIENT ${client}`);
}

/** One connection with a prepared-statement cache, as Strata's SQLite dialect holds it. */
function sqliteRunner(filename: string): Runner {
  const db = new BetterSqlite3(filename);
  db.pragma('journal_mode = WAL');
  const prepared = new Map<string, BetterSqlite3.Statement>();
  return {
    async run(sql, params) {
      let statement = prepared.get(sql);
      if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
      const values = params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      return statement.all(...values) as Row[];
    },
    async close() {
      db.close();
    },
  };
}

/** A pool of 10 with Strata's session options (JIT off, as the PostgreSQL dialect sets it); unnamed statements. */
function pgRunner(connectionString: string): Runner {
  const pool = new pg.Pool({ connectionString, max: 10, options: '-c jit=off' });
  return {
    async run(sql, params) {
      return (await pool.query({ text: sql, values: params })).rows as Row[];
    },
    close: () => pool.end(),
  };
}

/** A pool of 10 with Strata's session settings (UTC, no JSON_ARRAYAGG truncation) and value options. */
function mysqlRunner(connectionString: string): Runner {
  const url = new URL(connectionString);
  const pool = mysql.createPool({
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    connectionLimit: 10,
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: 'utf8mb4',
  });
  pool.on('connection', (connection) => {
    connection.query("SET time_zone = '+00:00', group_concat_max_len = 4294967295");
  });
  return {
    run(sql, params) {
      return new Promise((resolve, reject) => {
        pool.query(sql, params, (error, rows) => {
          if (error) reject(error);
          else resolve(Array.isArray(rows) ? (rows as Row[]) : []);
        });
      });
    },
    close: () => new Promise((resolve) => pool.end(() => resolve())),
  };
}

answerParent(
  {
    listen() {
      return new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
      });
    },
    /** Serves `path` with these statements from now on. */
    route(arg: { path: string; statements: CapturedStatement[] }) {
      routes.set(arg.path, arg.statements);
    },
    mark() {
      rss.reset();
    },
    read() {
      return rss.read();
    },
  },
  async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await runner.close();
  },
);
