/**
 * The scale mode of the bench (`npm run bench -- --rows 1000000`): the articles bulk-loaded in SQL
 * (bench/bulk-load.ts, two tag links each), then each scenario timed on Strata (over HTTP, one request at a time)
 * beside its ceiling: the plainest hand-written SQL for the same rows, run on the raw driver behind a bare node:http
 * handler in a child process of its own (bench/scale-ceiling.ts, as Strata runs in one) and serialised with
 * JSON.stringify — what a hand-written endpoint would do. The scenarios run without an index on `published_at`, then
 * the index is created and the ones it can serve run again; the indexed ones run at 20,000 articles too, for the
 * growth of their time with the table.
 *
 * Vendor names appear here (bench/ only): the ceiling is by definition each raw driver on its own.
 */
import BetterSqlite3 from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DbClient } from '../src/config/config.js';
import type { TestDb } from '../test/helpers/test-db.js';

type Row = Record<string, unknown>;

export interface RawDriver {
  /** `?` placeholders (numbered for PostgreSQL here). */
  run(sql: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export function openRawDriver(testDb: Pick<TestDb, 'client' | 'env'>): RawDriver {
  const env = testDb.env;
  if (testDb.client === 'sqlite3') {
    const db = new BetterSqlite3(env.DB_FILENAME!);
    db.pragma('journal_mode = WAL');
    const prepared = new Map<string, BetterSqlite3.Statement>();
    return {
      async run(sql, params = []) {
        let statement = prepared.get(sql);
        if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
        if (!statement.reader) {
          statement.run(...params);
          return [];
        }
        return statement.all(...params) as Row[];
      },
      async close() {
        db.close();
      },
    };
  }
  if (testDb.client === 'pg') {
    const pool = new pg.Pool({ connectionString: env.DB_CONNECTION_STRING!, max: 2 });
    return {
      async run(sql, params = []) {
        let n = 0;
        return (await pool.query({ text: sql.replace(/\?/g, () => `$${++n}`), values: params })).rows as Row[];
      },
      close: () => pool.end(),
    };
  }
  const pool = mysql.createPool({
    uri: env.DB_CONNECTION_STRING!,
    connectionLimit: 2,
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: 'utf8mb4',
  });
  return {
    async run(sql, params = []) {
      const [rows] = await pool.query(sql, params);
      return Array.isArray(rows) ? (rows as Row[]) : [];
    },
    close: () => pool.end(),
  };
}

export interface ScaleScenario {
  id: string;
  name: string;
  path: string;
  /** Runs again once `published_at` has an index. */
  indexed: boolean;
  /** The plainest hand-written SQL for the same rows; returns the response body. */
  ceiling(db: RawDriver, client: DbClient): Promise<string>;
}

const ARTICLE_FIELDS = 'id,title,slug,status,rating,price,published_at,author';
const body = (data: unknown, meta?: Record<string, number>) => JSON.stringify(meta ? { data, meta } : { data });
const list =
  (sql: string, params: unknown[] = []) =>
  async (db: RawDriver) =>
    body(await db.run(sql, params));

/** Names that exist in the dataset: an author's (a few authors share it) and a tag's. */
export interface ScaleNames {
  authorName: string;
  tagName: string;
}

export function scaleScenarios(rows: number, names: ScaleNames): ScaleScenario[] {
  const { authorName, tagName } = names;
  // A deep page: the 500th page of 10, or the middle of a smaller table.
  const page = Math.max(1, Math.min(500, Math.floor(rows / 20)));
  // A week at 1,000,000 articles (about 1,900 of them); on a smaller table a range holding as many, so that the
  // indexed read does the same work at every size and its growth measures the table's size alone.
  const days = Math.max(7, Math.min(3650, Math.round((7 * 1_000_000) / rows)));
  const rangeEnd = new Date(Date.UTC(2020, 2, 1) + days * 86_400_000).toISOString().slice(0, 10);
  return [
    {
      id: 'c',
      name: 'filter + sort, 100',
      path: '/items/articles?filter[status][_eq]=published&sort=-published_at&limit=100',
      indexed: true,
      ceiling: list(`select * from articles where status = ? order by published_at desc limit 100`, ['published']),
    },
    {
      id: 's',
      name: 'sort, 25',
      path: `/items/articles?fields=${ARTICLE_FIELDS}&sort=-published_at&limit=25`,
      indexed: true,
      ceiling: list(`select ${ARTICLE_FIELDS} from articles order by published_at desc limit 25`),
    },
    {
      id: 'p',
      name: `deep page (${page})`,
      path: `/items/articles?fields=${ARTICLE_FIELDS}&sort=-published_at&limit=10&page=${page}`,
      indexed: true,
      ceiling: list(
        `select ${ARTICLE_FIELDS} from articles order by published_at desc limit 10 offset ${(page - 1) * 10}`,
      ),
    },
    {
      id: 'r',
      name: days === 7 ? 'date range (a week), 100' : `date range (${days} days), 100`,
      path: `/items/articles?fields=${ARTICLE_FIELDS}&filter[published_at][_between]=2020-03-01,${rangeEnd}&sort=published_at&limit=100`,
      indexed: true,
      ceiling: list(
        `select ${ARTICLE_FIELDS} from articles where published_at between ? and ? order by published_at limit 100`,
        ['2020-03-01 00:00:00', `${rangeEnd} 00:00:00`],
      ),
    },
    {
      id: 'm2o',
      name: 'm2o filter + filter_count',
      path: `/items/articles?fields=id,title&filter[author][name][_eq]=${encodeURIComponent(authorName)}&meta=filter_count&limit=25`,
      indexed: false,
      async ceiling(db) {
        const where = `where author in (select id from authors where name = ?)`;
        const data = await db.run(`select id, title from articles ${where} order by id limit 25`, [authorName]);
        const [count] = await db.run(`select count(*) as n from articles ${where}`, [authorName]);
        return body(data, { filter_count: Number(count!.n) });
      },
    },
    {
      id: 'm2m',
      name: 'm2m _some filter',
      path: `/items/articles?fields=id,title&filter[tags][_some][tags_id][name][_eq]=${encodeURIComponent(tagName)}&limit=25`,
      indexed: false,
      ceiling: list(
        `select a.id, a.title from articles a where exists (select 1 from articles_tags l join tags t on t.id = l.tags_id where l.articles_id = a.id and t.name = ?) order by a.id limit 25`,
        [tagName],
      ),
    },
    {
      id: 'e',
      name: 'aggregate + groupBy',
      path: '/items/articles?aggregate[count]=*&groupBy[]=status',
      indexed: false,
      ceiling: list(`select status, count(*) as count from articles group by status order by status`),
    },
    {
      id: 'b',
      name: 'list 25 + m2o + m2m',
      path: `/items/articles?fields=${ARTICLE_FIELDS.replace(',author', '')},author.id,author.name,author.email,tags.tags_id.id,tags.tags_id.name&limit=25`,
      indexed: false,
      // Three statements assembled in Node: what one writes by hand without JSON in SQL.
      async ceiling(db) {
        const articles = await db.run(`select ${ARTICLE_FIELDS} from articles order by id limit 25`);
        const ids = articles.map((a) => a.id);
        const authorIds = [...new Set(articles.map((a) => a.author).filter((a) => a !== null))];
        const marks = (values: unknown[]) => values.map(() => '?').join(', ') || 'null';
        const authors = new Map(
          (await db.run(`select id, name, email from authors where id in (${marks(authorIds)})`, authorIds)).map(
            (a) => [a.id, a],
          ),
        );
        const links = await db.run(
          `select l.articles_id, t.id, t.name from articles_tags l join tags t on t.id = l.tags_id where l.articles_id in (${marks(ids)}) order by l.id`,
          ids,
        );
        return body(
          articles.map((a) => ({
            ...a,
            author: authors.get(a.author) ?? null,
            tags: links.filter((l) => l.articles_id === a.id).map((l) => ({ tags_id: { id: l.id, name: l.name } })),
          })),
        );
      },
    },
  ];
}
