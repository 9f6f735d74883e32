/**
 * How schema changes run, on every database: one at a time (concurrent requests all land, none is lost to a
 * stale schema), and never half-applied — a change the database refuses half-way leaves everything as it was, by
 * rollback where DDL is transactional and by undoing the steps already taken on MySQL/MariaDB.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`schema changes run one at a time and all or nothing (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    const get = (url: string) => t.request({ method: 'GET', url });

    it('lands every one of many concurrent changes, each seen by the next', async () => {
      const version = t.context.schema.current.version;
      const names = Array.from({ length: 8 }, (_, i) => `extra_${i}`);
      const results = await Promise.all([
        ...names.map((name) =>
          t.request({ method: 'POST', url: '/fields/tags', payload: { field: name, type: 'integer' } }),
        ),
        // The same field twice at once: exactly one wins, the other sees it and is refused.
        t.request({ method: 'POST', url: '/fields/tags', payload: { field: 'twice', type: 'string' } }),
        t.request({ method: 'POST', url: '/fields/tags', payload: { field: 'twice', type: 'string' } }),
      ]);
      assert.deepEqual(
        results.slice(0, names.length).map((r) => r.statusCode),
        names.map(() => 200),
      );
      assert.deepEqual(
        results
          .slice(names.length)
          .map((r) => r.statusCode)
          .sort(),
        [200, 400],
      );
      // Requests reach the queue in any order; each lands.
      const fields = json(await get('/fields/tags')).data.map((f: { field: string }) => f.field);
      assert.deepEqual(fields.slice(0, 2), ['id', 'name']);
      assert.deepEqual(fields.slice(2).sort(), [...names, 'twice']);
      assert.ok(t.context.schema.current.version >= version + names.length + 1);
      assert.equal(json(await get('/items/tags?fields=extra_7&limit=1')).data[0].extra_7, null);
    });

    it('leaves every field as it was when the database refuses part of a batch', async () => {
      // Each batch passes Strata's checks; the database refuses its second step after the first one ran.
      let second: Record<string, unknown>;
      if (client === 'mysql') {
        second = { field: 'author', type: 'bigInteger' }; // Its foreign key to authors.id (int) cannot be added back.
      } else if (client === 'pg') {
        second = { field: 'body', type: 'json' }; // PostgreSQL cannot test text for JSON beforehand; the ALTER fails.
      } else {
        // A row that already breaks its foreign key: the rebuilt table is checked before commit.
        const knex = knexFor(t.testDb);
        try {
          await knex.raw('pragma foreign_keys = off');
          await knex('articles').where({ id: 6 }).update({ author: 99 });
        } finally {
          await knex.destroy();
        }
        second = { field: 'slug', schema: { max_length: 120 } };
      }
      const before = json(await get('/fields/articles')).data;
      const res = await t.request({
        method: 'PATCH',
        url: '/fields/articles',
        payload: [{ field: 'title', schema: { max_length: 250 } }, second],
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      const why = {
        mysql: /same type/,
        pg: /the database refused the change/,
        sqlite3: /rows of collection "articles" would point at items that don't exist/,
      }[client];
      assert.match(json(res).errors[0].extensions.reason, /^Fields of collection "articles" could not be changed: /);
      assert.match(json(res).errors[0].extensions.reason, why);
      assert.deepEqual(json(await get('/fields/articles')).data, before);
      assert.equal(json(await get('/items/articles/1?fields=title,body')).data.title, 'Hello World');
    });
  });
}
