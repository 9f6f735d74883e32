/**
 * Directus compatibility: MAX_BATCH_MUTATION counted as Directus counts it. Every row a write creates, updates,
 * deletes or unlinks counts once — a nested `delete` key is one row, not two — and the limit itself is allowed,
 * one more row is 400. Directus's own suite: with a limit of 100, ten parents each with 4 creates, 3 updates and 2
 * deletes pass, with 3 deletes fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

const LIMIT = 20;

for (const client of testClients()) {
  describe(`MAX_BATCH_MUTATION counted as Directus counts it (${clientLabel(client)})`, () => {
    let t: TestApp;
    let serial = 0;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const article = () => ({ title: `Batch ${++serial}`, status: 'draft' });
    /** Two authors with five articles each; returns them as read back with their article keys. */
    const authors = async () => {
      const res = await send(
        'POST',
        '/items/authors?fields=id,articles.id',
        [0, 1].map(() => ({ name: `Author ${++serial}`, articles: Array.from({ length: 5 }, article) })),
      );
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data as { id: number; articles: { id: number }[] }[];
    };

    before(async () => {
      t = await startTestApp(client, { relations: true, env: { MAX_BATCH_MUTATION: String(LIMIT) } });
    });
    after(async () => {
      await t?.close();
    });

    it('passes a PATCH batch of exactly the limit with nested creates, updates and deletes', async () => {
      const rows = await authors();
      const batch = (deletes: number) =>
        rows.map((author) => ({
          id: author.id,
          articles: {
            create: Array.from({ length: 4 }, article),
            update: author.articles.slice(0, 3).map(({ id }) => ({ id, title: `Updated ${id}` })),
            delete: author.articles.slice(5 - deletes).map(({ id }) => id),
          },
        }));
      // 2 × (1 + 4 + 3 + 3) = 22 rows: over the limit, nothing written.
      const over = await send('PATCH', '/items/authors', batch(3));
      assert.equal(over.statusCode, 400, over.body);
      assert.equal(errorCode(over), 'INVALID_PAYLOAD');
      assert.match(json(over).errors[0].message, new RegExp(`Exceeded max batch mutation limit of ${LIMIT}`));
      // 2 × (1 + 4 + 3 + 2) = 20 rows: the limit itself passes.
      const res = await send('PATCH', '/items/authors?fields=id,articles.title', batch(2));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        json(res).data.map((a: { articles: unknown[] }) => a.articles.length),
        [7, 7],
      );
    });

    it('counts rows an array replaces away once', async () => {
      const rows = await authors();
      // 2 × (1 + 4 created + 3 updated + 2 unlinked) = 20.
      const batch = rows.map((author) => ({
        id: author.id,
        articles: [
          ...Array.from({ length: 4 }, article),
          ...author.articles.slice(0, 3).map(({ id }) => ({ id, title: 'kept' })),
        ],
      }));
      const res = await send('PATCH', '/items/authors?fields=id,articles.id', batch);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        json(res).data.map((a: { articles: unknown[] }) => a.articles.length),
        [7, 7],
      );
    });
  });
}
