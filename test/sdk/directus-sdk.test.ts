/**
 * The real @directus/sdk against a real listening Strata: login, then reads with fields, filter, sort and limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authentication, createDirectus, readItem, readItems, rest, staticToken } from '@directus/sdk';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp, listenOnLoopback } from '../helpers/test-app.js';

interface Article {
  id: number;
  title: string;
  status: string;
  rating: number | null;
}

for (const client of testClients()) {
  describe(`@directus/sdk against Strata (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('logs in with email and password and reads items', async () => {
      const sdk = createDirectus<{ articles: Article[] }>(url)
        .with(authentication('json', { autoRefresh: false }))
        .with(rest());
      await sdk.login(ADMIN.email, ADMIN.password);
      assert.equal(typeof (await sdk.getToken()), 'string');
      const rows = await sdk.request(
        readItems('articles', {
          fields: ['id', 'title', 'rating'],
          filter: { status: { _eq: 'published' } },
          sort: ['-rating'],
          limit: 2,
        }),
      );
      assert.deepEqual(rows, [
        { id: 1, title: 'Hello World', rating: 5 },
        { id: 4, title: 'Machines Thinking', rating: 4 },
      ]);
      const one = await sdk.request(readItem('articles', 2, { fields: ['id', 'status'] }));
      assert.deepEqual(one, { id: 2, status: 'published' });
    });

    it('reads with a static token and surfaces coded errors', async () => {
      const sdk = createDirectus<{ articles: Article[] }>(url).with(staticToken(ADMIN.token)).with(rest());
      const rows = await sdk.request(
        readItems('articles', { fields: ['id'], filter: { id: { _in: [3, 5] } }, sort: ['id'] }),
      );
      assert.deepEqual(rows, [{ id: 3 }, { id: 5 }]);
      await assert.rejects(
        sdk.request(readItem('articles', 999)),
        (error: { errors: { extensions: { code: string } }[] }) => {
          assert.equal(error.errors[0]!.extensions.code, 'FORBIDDEN');
          return true;
        },
      );
    });

    it('reads nested relations with fields, deep and relational filters', async () => {
      // The SDK's relational typing needs a generated schema; the wire is what this test is about.
      const sdk = createDirectus<any>(url).with(staticToken(ADMIN.token)).with(rest());
      const authors = await sdk.request(
        readItems('authors', {
          fields: ['name', { articles: ['title', { tags: [{ tags_id: ['name'] }] }] }],
          filter: { articles: { _some: { status: { _eq: 'published' } } } },
          deep: { articles: { _sort: ['-id'], _limit: 1, _filter: { status: { _eq: 'published' } } } },
          sort: ['name'],
        }),
      );
      assert.deepEqual(authors, [
        { name: 'Ada Lovelace', articles: [{ title: 'Second Post', tags: [{ tags_id: { name: 'history' } }] }] },
        {
          name: 'Alan Turing',
          articles: [
            {
              title: 'Machines Thinking',
              tags: [{ tags_id: { name: 'science' } }, { tags_id: { name: 'computing' } }],
            },
          ],
        },
      ]);
      const page = await sdk.request(
        readItem('pages', 1, {
          fields: ['title', { sections: ['collection', { item: { headings: ['text'], paragraphs: ['body'] } }] }],
        }),
      );
      assert.deepEqual(page, {
        title: 'Home',
        sections: [
          { collection: 'headings', item: { text: 'Welcome' } },
          { collection: 'paragraphs', item: { body: 'Hello there.' } },
        ],
      });
    });
  });
}
