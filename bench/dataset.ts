/**
 * The bench dataset: the blog fixture's schema (test/helpers/fixture) on a throwaway database, filled with generated
 * rows — authors, articles with every column type, tags, article-tag links and pages built of headings and
 * paragraphs (m2a) — by multi-row INSERTs inside one transaction. Rows are a pure function of their number (a seeded
 * generator per row), so every run and every database holds the same data.
 */
import type { Knex } from 'knex';
import type { DbClient } from '../src/config/config.js';
import { createTestDatabase, fixtureStatements, knexFor, type TestDb } from '../test/helpers/test-db.js';

export interface DatasetSize {
  authors: number;
  articles: number;
  tags: number;
  /** Links per article (distinct tags): articles × tagsPerArticle rows in articles_tags. */
  tagsPerArticle: number;
  pages: number;
  /** Sections per page, alternating headings and paragraphs. */
  sectionsPerPage: number;
}

export const DEFAULT_SIZE: DatasetSize = {
  authors: 1_000,
  articles: 20_000,
  tags: 100,
  tagsPerArticle: 3,
  pages: 2_000,
  sectionsPerPage: 5,
};

/** Row counts per table, as generated. */
export type TableCounts = Record<string, number>;

/**
 * Indexes on the foreign-key columns, which PostgreSQL and SQLite do not create by themselves (InnoDB does): without
 * them every relational read scans the junction tables and the bench would measure missing indexes, not Strata.
 * Each ends with the table's key, the order of a nested list that names no sort: SQLite and InnoDB append the key to
 * a secondary index by themselves, PostgreSQL does not, and with `(tags_id)` alone it answered (b)'s per-tag key
 * lists (`tags.tags_id.*` holds each tag's `articles`, 600 links, first 100 by key) by walking the junction's primary
 * key past ~9,800 other links per tag (docs/design/index-friendly-sql.md).
 * No index serves scenario (c)'s sort beyond the fixture's own on status: its 1M-row variant shows how that grows.
 */
const FOREIGN_KEY_INDEXES: [string, string][] = [
  ['articles', 'author'],
  ['articles_tags', 'articles_id'],
  ['articles_tags', 'tags_id'],
  ['pages_sections', 'pages_id'],
];

/** Bound parameters per statement: below every driver's limit (SQLite 32,766; PostgreSQL and MySQL 65,535). */
const MAX_PARAMS_PER_STATEMENT = 30_000;

/** A fresh database holding the fixture's tables (none of its sample rows). */
export async function createBenchDatabase(client: DbClient): Promise<TestDb> {
  const testDb = await createTestDatabase(client, { fixture: false });
  const k = knexFor(testDb);
  try {
    for (const statement of fixtureStatements(client)) {
      // knex turns every `?` into a placeholder on PostgreSQL; a literal one is escaped (as loadFixture does).
      if (!/^insert\b/i.test(statement)) await k.raw(client === 'pg' ? statement.replace(/\?/g, '\\?') : statement);
    }
    for (const [table, column] of FOREIGN_KEY_INDEXES)
      await k.raw(`create index ?? on ?? (??, ??)`, [`${table}_${column}_index`, table, column, 'id']);
  } catch (error) {
    await k.destroy();
    await testDb.drop();
    throw error;
  } finally {
    await k.destroy();
  }
  return testDb;
}

/** Fills the fixture's tables; returns the row count of each. */
export async function generateDataset(testDb: TestDb, size: DatasetSize = DEFAULT_SIZE): Promise<TableCounts> {
  const k = knexFor(testDb);
  const values = valueFormat(testDb.client);
  const counts: TableCounts = {};
  try {
    await k.transaction(async (trx) => {
      const insert = async (table: string, columns: string[], count: number, row: (n: number) => unknown[]) => {
        await insertRows(trx, table, columns, 1, count, row);
        counts[table] = count;
      };
      await insert('authors', ['id', 'name', 'email', 'bio', 'active', 'joined'], size.authors, (n) =>
        authorRow(n, values),
      );
      await insert('tags', ['id', 'name'], size.tags, (n) => [
        n,
        `tag-${String(n).padStart(3, '0')}-${pick(WORDS, n * 7)}`,
      ]);
      await insert('articles', ARTICLE_COLUMNS, size.articles, (n) => articleRow(n, size.authors, values));
      const links = size.articles * size.tagsPerArticle;
      await insert('articles_tags', ['id', 'articles_id', 'tags_id'], links, (n) => {
        const article = Math.ceil(n / size.tagsPerArticle);
        const slot = (n - 1) % size.tagsPerArticle;
        // Distinct tags per article: one random start, then fixed strides that never meet modulo the tag count.
        const start = Math.floor(random(article, 17) * size.tags);
        return [n, article, ((start + slot * 37) % size.tags) + 1];
      });
      await insert('pages', ['id', 'title'], size.pages, (n) => [n, `Page ${n}: ${sentence(n, 3, 6)}`]);
      const sections = size.pages * size.sectionsPerPage;
      // A page's sections: headings at even positions (0, 2, 4...), paragraphs between them; each item used once.
      const headingsPerPage = Math.ceil(size.sectionsPerPage / 2);
      const paragraphsPerPage = size.sectionsPerPage - headingsPerPage;
      await insert('headings', ['id', 'text', 'level'], size.pages * headingsPerPage, (n) => [
        n,
        sentence(n * 3, 2, 7),
        1 + (n % 3),
      ]);
      await insert('paragraphs', ['id', 'body'], size.pages * paragraphsPerPage, (n) => [n, paragraph(n * 5, 1, 4)]);
      await insert('pages_sections', ['id', 'pages_id', 'item', 'collection', 'sort'], sections, (n) => {
        const page = Math.ceil(n / size.sectionsPerPage);
        const position = (n - 1) % size.sectionsPerPage;
        const heading = position % 2 === 0;
        const before = heading ? Math.ceil(position / 2) : Math.floor(position / 2);
        const item = (page - 1) * (heading ? headingsPerPage : paragraphsPerPage) + before + 1;
        return [n, page, String(item), heading ? 'headings' : 'paragraphs', position + 1];
      });
    });
    await afterBulkLoad(k, testDb.client, Object.keys(counts));
  } finally {
    await k.destroy();
  }
  return counts;
}

/** Rows first..last (inclusive) of a table, in multi-row INSERTs of as many rows as the parameter limit allows. */
async function insertRows(
  trx: Knex.Transaction,
  table: string,
  columns: string[],
  first: number,
  last: number,
  row: (n: number) => unknown[],
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS_PER_STATEMENT / columns.length));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const head = `insert into ${quote(trx, table)} (${columns.map((c) => quote(trx, c)).join(',')}) values `;
  for (let start = first; start <= last; start += perStatement) {
    const end = Math.min(last, start + perStatement - 1);
    const bindings: unknown[] = [];
    for (let n = start; n <= end; n++) bindings.push(...row(n));
    await trx.raw(
      head +
        Array(end - start + 1)
          .fill(tuple)
          .join(','),
      bindings as Knex.RawBinding[],
    );
  }
}

function quote(k: Knex, identifier: string): string {
  return k.client.wrapIdentifier(identifier);
}

/** Explicit keys leave PostgreSQL's identity sequences behind; fresh statistics let every planner see the real sizes. */
async function afterBulkLoad(k: Knex, client: DbClient, tables: string[]): Promise<void> {
  for (const table of tables) {
    if (client === 'pg') {
      await k.raw(`select setval(pg_get_serial_sequence(?, 'id'), (select max(id) from ??))`, [table, table]);
      await k.raw('analyze ??', [table]);
    } else if (client === 'mysql') {
      await k.raw('analyze table ??', [table]);
    }
  }
  if (client === 'sqlite3') await k.raw('analyze');
}

// ---- rows ------------------------------------------------------------------------------------------------------

const ARTICLE_COLUMNS = [
  'id',
  'title',
  'slug',
  'body',
  'status',
  'rating',
  'views',
  'price',
  'score',
  'published',
  'publish_date',
  'published_at',
  'updated_at',
  'read_time',
  'uid',
  'metadata',
  'author',
];

const STATUSES: [string, number][] = [
  ['published', 0.6],
  ['draft', 0.25],
  ['archived', 0.15],
];

function articleRow(n: number, authors: number, v: ValueFormat): unknown[] {
  const r = (salt: number) => random(n, salt);
  const roll = r(1);
  const status = roll < STATUSES[0]![1] ? 'published' : roll < STATUSES[0]![1] + STATUSES[1]![1] ? 'draft' : 'archived';
  // Publication moments spread over 2015–2024, in whole seconds; the update comes up to 90 days later.
  const publishedAt = Date.UTC(2015, 0, 1) + Math.floor(r(2) * 10 * 365 * 86_400) * 1000;
  const updatedAt = publishedAt + Math.floor(r(3) * 90 * 86_400_000);
  const words = 3 + Math.floor(r(4) * 6);
  // Every tenth bigint is beyond 2^53, so exact big numbers travel through every run.
  const views = n % 10 === 0 ? (9_007_199_254_740_993n + BigInt(n)).toString() : String(Math.floor(r(5) * 1_000_000));
  const metadata = JSON.stringify({
    lang: pick(['en', 'fr', 'de', 'ja'], n),
    words: 200 + Math.floor(r(6) * 3000),
    flags: [n % 2 === 0, n % 3 === 0],
    source: { id: n, kind: pick(WORDS, n * 11) },
  });
  return [
    n,
    `${sentence(n, words, words)} #${n}`,
    `article-${n}`,
    paragraph(n, 1, 4),
    status,
    r(7) < 0.1 ? null : 1 + Math.floor(r(8) * 5),
    views,
    (Math.floor(r(9) * 100_000) / 100).toFixed(2),
    Math.round(r(10) * 1_000_000) / 1000,
    v.bool(status === 'published'),
    isoDate(publishedAt),
    isoDateTime(publishedAt),
    v.timestamp(updatedAt),
    `${pad(Math.floor(r(11) * 3))}:${pad(Math.floor(r(12) * 60))}:${pad(Math.floor(r(13) * 60))}`,
    uuid(n),
    metadata,
    1 + Math.floor(r(14) * authors),
  ];
}

function authorRow(n: number, v: ValueFormat): unknown[] {
  const first = pick(FIRST_NAMES, n * 3);
  const last = pick(LAST_NAMES, n * 5 + 1);
  const joined = Date.UTC(2000, 0, 1) + Math.floor(random(n, 21) * 24 * 365) * 86_400_000;
  return [
    n,
    `${first} ${last}`,
    `author${n}@example.com`,
    random(n, 22) < 0.2 ? null : paragraph(n * 13, 1, 2),
    v.bool(random(n, 23) < 0.8),
    isoDate(joined),
  ];
}

// ---- values per database ---------------------------------------------------------------------------------------

interface ValueFormat {
  bool(value: boolean): unknown;
  /** A timestamp-with-time-zone column's text, as each fixture stores it. */
  timestamp(ms: number): string;
}

function valueFormat(client: DbClient): ValueFormat {
  if (client === 'pg') return { bool: (b) => b, timestamp: (ms) => `${isoDateTime(ms)}.${pad(ms % 1000, 3)}+00` };
  if (client === 'mysql')
    return { bool: (b) => (b ? 1 : 0), timestamp: (ms) => `${isoDateTime(ms)}.${pad(ms % 1000, 3)}` };
  return { bool: (b) => (b ? 1 : 0), timestamp: (ms) => new Date(ms).toISOString() };
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function isoDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

// ---- deterministic text ----------------------------------------------------------------------------------------

/** A number in [0, 1) that depends only on (n, salt): mulberry32 over a mix of both. */
function random(n: number, salt: number): number {
  let t = (Math.imul(n, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0;
  t = (t + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}

function pick<T>(list: readonly T[], n: number): T {
  return list[Math.floor(random(n, 99) * list.length)]!;
}

function sentence(n: number, min: number, max: number): string {
  const count = min + Math.floor(random(n, 31) * (max - min + 1));
  const words = Array.from({ length: count }, (_, i) => pick(WORDS, n * 31 + i));
  return words[0]!.charAt(0).toUpperCase() + words.join(' ').slice(1);
}

function paragraph(n: number, min: number, max: number): string {
  const count = min + Math.floor(random(n, 41) * (max - min + 1));
  return Array.from({ length: count }, (_, i) => `${sentence(n * 7 + i, 6, 14)}.`).join(' ');
}

function uuid(n: number): string {
  const hex = Array.from({ length: 4 }, (_, i) =>
    Math.floor(random(n, 50 + i) * 4_294_967_296)
      .toString(16)
      .padStart(8, '0'),
  ).join('');
  const variant = '89ab'[Math.floor(random(n, 60) * 4)]!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const WORDS = [
  'lorem',
  'ipsum',
  'dolor',
  'sit',
  'amet',
  'consectetur',
  'adipiscing',
  'elit',
  'sed',
  'do',
  'eiusmod',
  'tempor',
  'incididunt',
  'labore',
  'dolore',
  'magna',
  'aliqua',
  'enim',
  'minim',
  'veniam',
  'quis',
  'nostrud',
  'exercitation',
  'ullamco',
  'laboris',
  'nisi',
  'aliquip',
  'commodo',
  'consequat',
  'duis',
  'aute',
  'irure',
  'reprehenderit',
  'voluptate',
  'velit',
  'esse',
  'cillum',
  'fugiat',
  'nulla',
  'pariatur',
  'excepteur',
  'sint',
  'occaecat',
  'cupidatat',
  'proident',
  'sunt',
  'culpa',
  'officia',
  'deserunt',
  'mollit',
  'anim',
  'laborum',
  'café',
  'naïve',
  'über',
  '日本語',
];
const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'John',
  'Margaret',
  'Niklaus',
  'Radia',
  'Ken',
  'Sophie',
  'Tim',
  'Hedy',
  'Linus',
];
const LAST_NAMES = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'McCarthy',
  'Hamilton',
  'Wirth',
  'Perlman',
  'Thompson',
  'Wilson',
  'Berners-Lee',
  'Lamarr',
  'Torvalds',
];
