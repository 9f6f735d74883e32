/**
 * Throwaway databases for tests: SQLite always (a temp file), PostgreSQL and MariaDB/MySQL when TEST_PG_URL /
 * TEST_MYSQL_URL are set. Each call gives a fresh database on the server and `drop()` removes it.
 *
 * On a server, creating a database (a copy of a template) and dropping one each cost 0.1-0.3 s while the suite runs,
 * mostly the server's own work: some 260 of each made a fifth of the time the test files spent. So a test waits for
 * neither: each process keeps one database ready per kind it was asked for (made while the tests run, handed out on
 * the next call), and drops run in the background; the process drops its spares and finishes its drops before it
 * exits. Their names start with the run's (STRATA_TEST_RUN), so that `npm test` can sweep what a killed process left.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import type { DbClient, DbConfig } from '../../src/config/config.js';
import type { Template } from './test-templates.js';

export interface TestDb {
  client: DbClient;
  label: string;
  config: DbConfig;
  /** Environment variables that point Strata at this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

const FIXTURE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixture');
const FIXTURE_FILE: Record<DbClient, string> = { sqlite3: 'sqlite.sql', pg: 'postgres.sql', mysql: 'mysql.sql' };
const LABEL: Record<DbClient, string> = { sqlite3: 'sqlite', pg: 'postgres', mysql: 'mysql' };

/**
 * Where a database sorts NULL: PostgreSQL as the largest value, MariaDB and SQLite as the smallest. Strata (like
 * Directus) leaves NULL placement to the database, so that plain indexes serve sorts in both directions.
 */
export function nullsSortLargest(client: DbClient): boolean {
  return client === 'pg';
}

/** The databases this run can test against. */
export function testClients(): DbClient[] {
  // Pair mode (TEST_WORKERS=2) pairs no SQLite app (test-app.ts): its SQLite runs would repeat the main run's.
  const clients: DbClient[] = process.env.TEST_WORKERS === '2' ? [] : ['sqlite3'];
  if (process.env.TEST_PG_URL) clients.push('pg');
  if (process.env.TEST_MYSQL_URL) clients.push('mysql');
  return clients;
}

export function clientLabel(client: DbClient): string {
  return LABEL[client];
}

/** Statements of a fixture file, split on `;` at line ends (fixtures hold no procedural code). */
export function fixtureStatements(client: DbClient): string[] {
  const text = readFileSync(path.join(FIXTURE_DIR, FIXTURE_FILE[client]), 'utf8');
  return text
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}

export interface TestDatabaseOptions {
  fixture?: boolean;
  /** Start as a copy of this template (which holds the fixture or not, as it was built) instead of empty. */
  template?: Template | null;
  /** The database's name (templates are named by the run that builds them); random when absent. */
  name?: string;
}

/** The statement that drops a test database on a server (closing PostgreSQL sessions still on it). */
export function dropDatabaseSql(client: 'pg' | 'mysql', name: string): string {
  return client === 'pg' ? `drop database if exists "${name}" with (force)` : `drop database if exists \`${name}\``;
}

/** The prefix of the names of this process's test databases: the run's, when `npm test` gave one. */
export function testDatabasePrefix(run = process.env.STRATA_TEST_RUN): string {
  return run && /^[a-z0-9]+$/.test(run) ? `strata_t_${run}_` : 'strata_t_';
}

export async function createTestDatabase(client: DbClient, options: TestDatabaseOptions = {}): Promise<TestDb> {
  if (client === 'sqlite3' || options.name) return makeTestDatabase(client, options);
  // The database ready for this kind (server and template), if one is, and the next one started.
  const kind = `${client} ${options.template?.name ?? ''}`;
  const make = () => makeTestDatabase(client, { template: options.template ?? null });
  const ready = spares.get(kind) ?? make();
  const next = make();
  next.catch(() => {});
  spares.set(kind, next);
  watchExit();
  const testDb = await ready;
  if (options.fixture && !options.template) await loadFixture(testDb);
  const dropNow = testDb.drop;
  // Returns at once (see the top of this file): the connections of whoever used it are closed by then.
  testDb.drop = async () => {
    if (client === 'pg') atExit.push(dropNow);
    else later(dropNow());
  };
  return testDb;
}

/** Per kind of database (server and template): the one made ahead for the next call. */
const spares = new Map<string, Promise<TestDb>>();
/** Drops not finished yet. */
const dropping = new Set<Promise<void>>();
/**
 * PostgreSQL databases to drop when the process exits. DROP DATABASE has PostgreSQL checkpoint (write every dirty
 * buffer of the server, then fsync), and it waits for it: one drop per test app had the server write ~7 MB and
 * fsync for ~0.5 s some 150 times a run, keeping the disk busy under every other test. Dropped together, a few at
 * a time, the drops share their checkpoints, and the dropped databases' pages are discarded rather than written.
 */
const atExit: (() => Promise<void>)[] = [];
let watching = false;

/** Before the process exits: the spares and the PostgreSQL databases are dropped, and every drop finished. */
function watchExit(): void {
  if (watching) return;
  watching = true;
  process.on('beforeExit', () => {
    if (spares.size === 0 && atExit.length === 0) return;
    const left = [...spares.values()];
    spares.clear();
    for (const spare of left) later(spare.then((testDb) => testDb.drop()));
    for (const drop of atExit.splice(0)) later(drop());
    // Then closed at once rather than after a second idle.
    void Promise.allSettled([...dropping]).then(() =>
      Promise.allSettled([...admins.values()].map((knex) => knex.destroy())).then(() => admins.clear()),
    );
  });
}

/** Tracks background work, reporting (not throwing) its failure. */
function later(work: Promise<void>): void {
  const tracked = work
    .catch((error: unknown) => {
      process.stderr.write(`test database cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    })
    .finally(() => dropping.delete(tracked));
  dropping.add(tracked);
}

async function makeTestDatabase(client: DbClient, options: TestDatabaseOptions): Promise<TestDb> {
  const name = options.name ?? `${testDatabasePrefix()}${randomBytes(5).toString('hex')}`;
  const template = options.template ?? null;
  let testDb: TestDb;

  if (client === 'sqlite3') {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-test-'));
    const filename = path.join(dir, 'test.db');
    if (template) copyFileSync(template.name, filename);
    testDb = {
      client,
      label: LABEL[client],
      config: baseConfig(client, { filename }),
      env: { DB_CLIENT: 'sqlite3', DB_FILENAME: filename, DATA_DIR: dir },
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } else {
    const serverUrl = new URL(client === 'pg' ? process.env.TEST_PG_URL! : process.env.TEST_MYSQL_URL!);
    const admin = adminKnex(client, serverUrl, { multipleStatements: template !== null });
    if (client === 'pg')
      await admin.raw(template ? `create database "${name}" template "${template.name}"` : `create database "${name}"`);
    else if (template) await copyMysqlDatabase(admin, template.name, name);
    else await admin.raw(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
    const dbUrl = new URL(serverUrl);
    dbUrl.pathname = `/${name}`;
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-test-'));
    testDb = {
      client,
      label: LABEL[client],
      config: baseConfig(client, { connectionString: dbUrl.toString() }),
      env: { DB_CLIENT: client, DB_CONNECTION_STRING: dbUrl.toString(), DATA_DIR: dir },
      async drop() {
        rmSync(dir, { recursive: true, force: true });
        const k = adminKnex(client, serverUrl, { connections: client === 'pg' ? DROPS_AT_ONCE : 1 });
        await k.raw(dropDatabaseSql(client, name));
      },
    };
  }

  if (options.fixture && !template) await loadFixture(testDb);
  return testDb;
}

/** Each template's table definitions and the columns its rows are copied by, read once per process. */
const mysqlTemplates = new Map<
  string,
  Promise<{ creates: string[]; copies: { table: string; columns: string[] }[] }>
>();

function mysqlTemplate(admin: Knex, template: string) {
  let read = mysqlTemplates.get(template);
  if (!read) {
    read = (async () => {
      const [tables] = (await admin.raw(
        `select table_name as name from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE' order by table_name`,
        [template],
      )) as [{ name: string }[]];
      const [columns] = (await admin.raw(
        `select table_name as tbl, column_name as col from information_schema.columns where table_schema = ? and extra not like '%GENERATED%' order by table_name, ordinal_position`,
        [template],
      )) as [{ tbl: string; col: string }[]];
      const creates: string[] = [];
      for (const { name } of tables) {
        const [[row]] = (await admin.raw(`show create table \`${template}\`.\`${name}\``)) as [
          Record<string, string>[],
        ];
        creates.push(row!['Create Table']!);
      }
      const copies = tables.map(({ name }) => ({
        table: name,
        columns: columns.filter((c) => c.tbl === name).map((c) => `\`${c.col}\``),
      }));
      return { creates, copies };
    })();
    mysqlTemplates.set(template, read);
  }
  return read;
}

/**
 * MariaDB has no CREATE DATABASE … TEMPLATE, and CREATE TABLE … LIKE drops foreign keys: the template's own
 * CREATE TABLE statements (which keep them, and the AUTO_INCREMENT counters) are replayed in one round trip, then
 * every table's rows copied by INSERT … SELECT on the server (generated columns left to compute themselves).
 */
async function copyMysqlDatabase(admin: Knex, template: string, name: string): Promise<void> {
  const { creates, copies } = await mysqlTemplate(admin, template);
  const statements = [
    `create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`,
    `use \`${name}\``,
    'set foreign_key_checks = 0',
    ...creates,
    ...copies.map(
      ({ table, columns }) =>
        `insert into \`${table}\` (${columns.join(', ')}) select ${columns.join(', ')} from \`${template}\`.\`${table}\``,
    ),
    'set foreign_key_checks = 1',
  ];
  await admin.raw(statements.join(';\n'));
}

/** Loads the blog fixture (authors, articles with every column type, tags) in plain SQL. */
export async function loadFixture(testDb: TestDb): Promise<void> {
  const k = knexFor(testDb);
  try {
    // For PostgreSQL knex.raw turns every `?` into a `$n` placeholder, even without bindings; the fixture's text
    // holds literal question marks, escaped here as knex expects.
    for (const statement of fixtureStatements(testDb.client))
      await k.raw(testDb.client === 'pg' ? statement.replace(/\?/g, '\\?') : statement);
  } finally {
    await k.destroy();
  }
}

/** A plain knex handle on the test database, for tests that arrange data directly. */
export function knexFor(testDb: TestDb): Knex {
  if (testDb.client === 'sqlite3') {
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: testDb.config.filename },
      useNullAsDefault: true,
    });
  }
  return serverKnex(testDb.client, new URL(testDb.config.connectionString!));
}

const admins = new Map<string, Knex>();

/**
 * The process's connection to a server for creating and dropping databases (one per server and statement mode): a
 * connection per create and per drop cost the server a new session each (on PostgreSQL a process, ~10-15 ms of its
 * CPU). It closes when idle for a second, so that it does not keep a finished test process alive. One statement at
 * a time (a MariaDB copy switches the connection's database with `use`), unless `connections` asks for more.
 */
function adminKnex(
  client: 'pg' | 'mysql',
  url: URL,
  options: { multipleStatements?: boolean; connections?: number } = {},
): Knex {
  const key = `${client} ${url.href} ${options.multipleStatements ?? false} ${options.connections ?? 1}`;
  let knex = admins.get(key);
  if (!knex)
    admins.set(
      key,
      (knex = serverKnex(client, url, options, {
        max: options.connections ?? 1,
        idleTimeoutMillis: 1000,
        reapIntervalMillis: 250,
      })),
    );
  return knex;
}

/** PostgreSQL drops run at exit this many at a time (concurrent drops share a checkpoint). */
const DROPS_AT_ONCE = 4;

function serverKnex(
  client: 'pg' | 'mysql',
  url: URL,
  options: { multipleStatements?: boolean } = {},
  pool: { max?: number; idleTimeoutMillis?: number; reapIntervalMillis?: number } = {},
): Knex {
  const connection = {
    host: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
    ...(client === 'mysql' ? { multipleStatements: options.multipleStatements ?? false, timezone: 'Z' } : {}),
  };
  return knexFactory({ client: client === 'pg' ? 'pg' : 'mysql2', connection, pool: { min: 0, max: 1, ...pool } });
}

function baseConfig(client: DbClient, over: Partial<DbConfig>): DbConfig {
  return {
    client,
    filename: '',
    connectionString: null,
    host: null,
    port: null,
    database: null,
    searchPath: ['public'],
    user: null,
    password: null,
    ...over,
  };
}
