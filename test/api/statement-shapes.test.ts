/**
 * Reads of one shape share one statement: requests that differ only in filter values, limits, search words or
 * deep limits run the same SQL text with their own parameters, and each still answers its own rows. Values that
 * could change the SQL (list lengths, nulls, negative limits, dates) keep their reads apart. On SQLite limits are
 * written into the SQL (a bound LIMIT has SQLite prepare its statement again on every run), and on MariaDB a nested
 * list's limit: there reads share a statement when their limits are the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';

type Row = Record<string, unknown>;

for (const client of testClients()) {
  describe(`statements shared by query shape (${clientLabel(client)})`, () => {
    let t: TestApp;
    let all: Row[];

    before(async () => {
      t = await startTestApp(client, {
        relations: true,
      });
      all = json<{ data: Row[] }>(
        await t.request({ method: 'GET', url: '/items/articles?fields=id,status,rating,title&limit=-1&sort=id' }),
      ).data;
      assert.ok(all.length >= 3, 'the fixture has articles');
    });

    after(() => t?.close());

    /** The rows of `url` and the one statement it ran. */
    async function read(url: string): Promise<{ data: Row[]; sql: string; params: unknown[] }> {
      const statements: { sql: string; params: unknown[] }[] = [];
      const stop = onEveryWorker(t, ({ db }) =>
        db.onQuery((sql, params) => statements.push({ sql, params: [...params] })),
      );
      const response = await t.request({ method: 'GET', url });
      stop();
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(statements.length, 1, 'one statement per read');
      return { data: json<{ data: Row[] }>(response).data, ...statements[0]! };
    }

    const ids = (rows: Row[]) => rows.map((r) => Number(r.id));
    const expected = (keep: (row: Row) => boolean, limit = Infinity) => ids(all.filter(keep)).slice(0, limit);

    it('shares one statement between filter values and limits, each read answering its own rows', async () => {
      const statuses = [...new Set(all.map((r) => String(r.status)))];
      assert.ok(statuses.length >= 2);
      const reads = [];
      for (const [i, status] of statuses.entries()) {
        const limit = i + 1;
        const got = await read(`/items/articles?fields=id,status&filter[status][_eq]=${status}&sort=id&limit=${limit}`);
        assert.deepEqual(
          ids(got.data),
          expected((r) => r.status === status, limit),
          `status ${status}, limit ${limit}`,
        );
        reads.push(got);
      }
      const shape = (sql: string) => (client === 'sqlite3' ? sql.replace(/ limit \d+/g, ' limit ?') : sql);
      assert.equal(new Set(reads.map((r) => shape(r.sql))).size, 1, 'one SQL text');
      if (client === 'sqlite3')
        for (const [i, got] of reads.entries()) assert.match(got.sql, new RegExp(` limit ${i + 1}\\)`));
      assert.notDeepEqual(reads[0]!.params, reads[1]!.params);
    });

    it('maps digit strings onto an integer field and words onto case-insensitive and LIKE filters', async () => {
      for (const rating of ['3', '4', '5']) {
        const got = await read(`/items/articles?fields=id&filter[rating][_eq]=${rating}&sort=id`);
        assert.deepEqual(
          ids(got.data),
          expected((r) => r.rating === Number(rating)),
          `rating ${rating}`,
        );
      }
      const words = [
        ...new Set(all.flatMap((r) => String(r.title).split(' ')).filter((w) => /^[A-Za-z]{3,}$/.test(w))),
      ].slice(0, 3);
      assert.ok(words.length >= 2);
      for (const word of [...words, ...words.map((w) => w.toUpperCase())]) {
        const contains = await read(`/items/articles?fields=id&filter[title][_icontains]=${word}&sort=id`);
        assert.deepEqual(
          ids(contains.data),
          expected((r) => String(r.title).toLowerCase().includes(word.toLowerCase())),
          `_icontains ${word}`,
        );
        if (word !== word.toUpperCase()) {
          // (SQLite's and MariaDB's LIKE ignore ASCII case: only words as written are compared to a case-exact start.)
          const starts = await read(`/items/articles?fields=id&filter[title][_starts_with]=${word}&sort=id`);
          assert.deepEqual(
            ids(starts.data),
            expected((r) => String(r.title).startsWith(word)),
            `_starts_with ${word}`,
          );
        }
        const search = await read(`/items/articles?fields=id&search=${word}&sort=id`);
        assert.ok(ids(search.data).every((id) => ids(all).includes(id)));
        assert.ok(
          expected((r) => String(r.title).toLowerCase().includes(word.toLowerCase())).every((id) =>
            ids(search.data).includes(id),
          ),
          `search ${word}`,
        );
      }
    });

    it('keeps apart reads whose values shape the SQL: list lengths, null, no limit', async () => {
      const [a, b] = ids(all);
      assert.deepEqual(ids((await read(`/items/articles?fields=id&filter[id][_in]=${a}&sort=id`)).data), [a]);
      assert.deepEqual(ids((await read(`/items/articles?fields=id&filter[id][_in]=${a},${b}&sort=id`)).data), [a, b]);
      assert.deepEqual(ids((await read(`/items/articles?fields=id&filter[id][_in]=${b}&sort=id`)).data), [b]);
      assert.deepEqual(
        ids((await read('/items/articles?fields=id&filter[rating][_null]=true&sort=id')).data),
        expected((r) => r.rating === null),
      );
      assert.deepEqual(ids((await read('/items/articles?fields=id&sort=id&limit=2')).data), ids(all).slice(0, 2));
      assert.deepEqual(ids((await read('/items/articles?fields=id&sort=id&limit=-1')).data), ids(all));
      assert.deepEqual(
        ids((await read('/items/articles?fields=id&sort=id&limit=1&page=2')).data),
        ids(all).slice(1, 2),
      );
      assert.deepEqual(
        ids((await read('/items/articles?fields=id&sort=id&limit=1&page=3')).data),
        ids(all).slice(2, 3),
      );
    });

    it('answers each deep limit with its own rows (one statement for both where the limit is a parameter)', async () => {
      const deep = async (limit: number) =>
        read(`/items/authors?fields=id,articles.id&sort=id&deep[articles][_limit]=${limit}&deep[articles][_sort]=id`);
      const one = await deep(1);
      const two = await deep(2);
      // MariaDB writes a nested list's limit into JSON_ARRAYAGG as a literal, SQLite every limit: there the two
      // reads differ in SQL.
      if (client === 'pg') assert.equal(one.sql, two.sql);
      for (const [limit, got] of [
        [1, one],
        [2, two],
      ] as const) {
        for (const author of got.data) {
          const articles = (author.articles as Row[]).map((a) => Number(a.id));
          assert.ok(articles.length <= limit, `at most ${limit} articles per author`);
        }
      }
      assert.ok(
        two.data.some((a) => (a.articles as Row[]).length === 2),
        'a deeper limit returns more rows',
      );
    });
  });
}
