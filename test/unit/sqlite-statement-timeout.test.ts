/**
 * The SQLite statement-timeout extension on its own (a better-sqlite3 connection in memory): a statement running past
 * the connection's timeout fails with SQLITE_INTERRUPT and leaves the connection usable; the timeout counts per
 * statement, triggers included; 0 (or never set) is no timeout. Also the install step without a compiler.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { readConfig } from '../../src/config/config.js';
import { Database as StrataDatabase } from '../../src/db/connection.js';
import { failureKind } from '../../src/db/failure-kind.js';
import { sqliteDialect } from '../../src/db/dialects/sqlite/index.js';
import { STATEMENT_TIMEOUT_LIBRARY } from '../../src/db/dialects/sqlite/statement-timeout.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Never ends by itself. */
const ENDLESS = 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) as n from c';
/**
 * About half a second of work here: LIKE with a leading % tries the pattern at every position of the text, and a
 * pattern of 1,000 'a's then 'b' almost matches at each of the 5,000 positions of each text of 'a's.
 */
const SLOW_PATTERN = `%${'a'.repeat(1000)}b%`;
const SLOW = 'select count(*) as n from texts where body like ?';

function connection(): Database.Database {
  const db = new Database(':memory:');
  db.loadExtension(STATEMENT_TIMEOUT_LIBRARY);
  db.exec(`create table texts (id integer primary key, body text);
    insert into texts (id, body) with recursive c(x) as (select 1 union all select x + 1 from c where x < 20)
    select x, replace(hex(zeroblob(5000)), '0', 'a') from c;`);
  return db;
}

function setTimeoutMs(db: Database.Database, ms: number): number {
  return (db.prepare('select strata_statement_timeout(?) as ms').get(ms) as { ms: number }).ms;
}

function failure(run: () => unknown): (Error & { code?: string }) | null {
  try {
    run();
    return null;
  } catch (error) {
    return error as Error & { code?: string };
  }
}

describe('SQLite statement-timeout extension', () => {
  before(() =>
    assert.ok(
      existsSync(STATEMENT_TIMEOUT_LIBRARY),
      `${STATEMENT_TIMEOUT_LIBRARY} is built by npm ci / npm test (needs cc)`,
    ),
  );

  it('interrupts a statement past the timeout, as a timeout failure, and the connection goes on', () => {
    const db = connection();
    try {
      assert.equal(setTimeoutMs(db, 100), 100);
      const error = failure(() => db.prepare(ENDLESS).get());
      assert.equal(error?.code, 'SQLITE_INTERRUPT');
      assert.equal(failureKind(sqliteDialect, error), 'timeout');
      assert.deepEqual(db.prepare('select 1 as one').get(), { one: 1 });
      // Again: the watchdog interrupts every statement that outlives its time, not only the first.
      assert.equal(failure(() => db.prepare(SLOW).get(SLOW_PATTERN))?.code, 'SQLITE_INTERRUPT');
      assert.deepEqual(db.prepare('select count(*) as n from texts').get(), { n: 20 });
    } finally {
      db.close();
    }
  });

  it('has no effect when 0 or never set, and 0 clears a timeout', () => {
    const db = connection();
    try {
      assert.equal((db.prepare('select strata_statement_timeout() as ms').get() as { ms: number }).ms, 0);
      assert.deepEqual(db.prepare(SLOW).get(SLOW_PATTERN), { n: 0 });
      setTimeoutMs(db, 50);
      assert.equal(failure(() => db.prepare(SLOW).get(SLOW_PATTERN))?.code, 'SQLITE_INTERRUPT');
      assert.equal(setTimeoutMs(db, 0), 0);
      assert.deepEqual(db.prepare(SLOW).get(SLOW_PATTERN), { n: 0 });
    } finally {
      db.close();
    }
  });

  it('counts the time of each statement, not of the connection', () => {
    const db = connection();
    try {
      const timeoutMs = 400;
      setTimeoutMs(db, timeoutMs);
      const short = db.prepare("select count(*) as n from texts where body like '%b%'");
      const start = performance.now();
      let runs = 0;
      // Statements far shorter than the timeout, for twice the timeout in all: none is interrupted.
      while (performance.now() - start < 2 * timeoutMs && runs < 100_000) {
        assert.deepEqual(short.get(), { n: 0 });
        runs++;
      }
      assert.ok(runs > 1);
    } finally {
      db.close();
    }
  });

  it("bounds a statement's triggers by its deadline, and an interrupted write in a transaction rolls it back", () => {
    const db = connection();
    try {
      db.exec(`create table parents (id integer primary key);
        create table children (id integer primary key, note text);
        create trigger children_check after insert on children
        begin select count(*) from texts where body like '%${'a'.repeat(50)}b%'; end;`);
      // One trigger run (a few milliseconds) is far under the timeout; the 1,000 rows' runs together are far over it.
      setTimeoutMs(db, 300);
      db.exec('begin');
      db.prepare('insert into parents (id) values (1)').run();
      const error = failure(() =>
        db
          .prepare(
            "insert into children (note) with recursive c(x) as (select 1 union all select x + 1 from c where x < 1000) select 'row ' || x from c",
          )
          .run(),
      );
      assert.equal(error?.code, 'SQLITE_INTERRUPT');
      assert.equal(db.inTransaction, false);
      assert.deepEqual(
        db
          .prepare('select (select count(*) from parents) as parents, (select count(*) from children) as children')
          .get(),
        { parents: 0, children: 0 },
      );
    } finally {
      db.close();
    }
  });

  it('can be loaded again on a connection: the new load starts without a timeout and works', () => {
    const db = connection();
    try {
      setTimeoutMs(db, 100);
      db.loadExtension(STATEMENT_TIMEOUT_LIBRARY);
      assert.deepEqual(db.prepare(SLOW).get(SLOW_PATTERN), { n: 0 });
      setTimeoutMs(db, 100);
      assert.equal(failure(() => db.prepare(ENDLESS).get())?.code, 'SQLITE_INTERRUPT');
    } finally {
      db.close();
    }
  });

  it('refuses a timeout that is not a non-negative number of milliseconds', () => {
    const db = connection();
    try {
      assert.match(failure(() => setTimeoutMs(db, -1))?.message ?? '', /negative/);
      assert.match(
        failure(() => db.prepare("select strata_statement_timeout('soon')").get())?.message ?? '',
        /milliseconds/,
      );
      assert.match(
        failure(() => db.prepare('select strata_statement_timeout(1, 2)').get())?.message ?? '',
        /at most one argument/,
      );
      assert.equal(setTimeoutMs(db, 0.5), 1);
    } finally {
      db.close();
    }
  });
});

describe('SQLite connections of Strata', () => {
  it('get DB_STATEMENT_TIMEOUT from the extension, and no start-up warning', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-timeout-'));
    // Reads run on read threads (whose connections load the extension always, to be interrupted at close: 0 there is
    // no timeout), or inline on the writer's connection, which loads it only for a timeout.
    for (const [setting, threads, expected] of [
      ['7s', '2', 7000],
      ['0', '2', 0],
      ['7s', '0', 7000],
      ['0', '0', null],
    ] as const) {
      const db = new StrataDatabase(
        readConfig({
          DB_CLIENT: 'sqlite3',
          DB_FILENAME: path.join(dir, `${setting}-${threads}.db`),
          DB_STATEMENT_TIMEOUT: setting,
          DB_READ_THREADS: threads,
        }).db,
      );
      try {
        await db.ping();
        assert.deepEqual(db.settingWarnings(), []);
        const answer = await db.query<{ ms: number }>('select strata_statement_timeout() as ms').then(
          (rows) => rows[0]!.ms,
          () => null,
        );
        assert.equal(answer, expected, `DB_STATEMENT_TIMEOUT=${setting} DB_READ_THREADS=${threads}`);
      } finally {
        await db.close();
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('building the extension', () => {
  let root: string;
  before(() => {
    // A package with only what the build reads, so that the real build/ is left alone.
    root = mkdtempSync(path.join(tmpdir(), 'strata-native-'));
    const native = path.join('src', 'db', 'dialects', 'sqlite', 'native');
    mkdirSync(path.join(root, native), { recursive: true });
    cpSync(path.join(ROOT, native, 'statement-timeout.c'), path.join(root, native, 'statement-timeout.c'));
    cpSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const build = (env: Record<string, string>) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { ensureNative } from ${JSON.stringify(path.join(ROOT, 'scripts', 'build-native.mjs'))}; ensureNative(${JSON.stringify(root)});`,
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      },
    );

  it('warns and succeeds without a compiler, then builds a library that loads', () => {
    const missing = build({ CC: path.join(root, 'no-such-cc') });
    assert.equal(missing.status, 0);
    assert.match(
      missing.stderr,
      /warning: could not compile the SQLite statement-timeout extension .*DB_STATEMENT_TIMEOUT will not apply on SQLite/,
    );
    const library = path.join(root, 'build', 'native', path.basename(STATEMENT_TIMEOUT_LIBRARY));
    assert.equal(existsSync(library), false);

    assert.equal(build({}).status, 0);
    const db = new Database(':memory:');
    try {
      db.loadExtension(library);
      assert.deepEqual(db.prepare('select strata_statement_timeout(5) as ms').get(), { ms: 5 });
    } finally {
      db.close();
    }
  });
});
