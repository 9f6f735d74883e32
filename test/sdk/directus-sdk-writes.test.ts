/**
 * The real @directus/sdk writing through a listening Strata: create, update (one, by keys, by query, batch), delete,
 * singletons, nested payloads and coded errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createDirectus,
  createItem,
  createItems,
  deleteItem,
  deleteItems,
  readItems,
  readSingleton,
  rest,
  staticToken,
  updateItem,
  updateItems,
  updateItemsBatch,
  updateSingleton,
} from '@directus/sdk';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp, listenOnLoopback } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';

interface Tag {
  id: number;
  name: string;
}
interface Article {
  id: number;
  title: string;
  status: string;
  rating: number | null;
  author: number | null;
}
interface Author {
  id: number;
  name: string;
  articles: unknown;
}
interface Site {
  id: number;
  site_name: string | null;
  visits: number | null;
}
interface Schema {
  tags: Tag[];
  articles: Article[];
  authors: Author[];
  site: Site;
}

function code(error: unknown): string | undefined {
  return (error as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;
}

for (const client of testClients()) {
  describe(`@directus/sdk writes against Strata (${clientLabel(client)})`, () => {
    let t: TestApp;
    let sdk: ReturnType<typeof connect>;
    const connect = (url: string) => createDirectus<Schema>(url).with(staticToken(ADMIN.token)).with(rest());
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
      sdk = connect(await listenOnLoopback(t));
    });
    after(async () => {
      await t?.close();
    });

    it('createItem and createItems', async () => {
      const one = await sdk.request(createItem('tags', { name: 'sdk-one' }, { fields: ['id', 'name'] }));
      assert.equal(one.name, 'sdk-one');
      assert.equal(typeof one.id, 'number');
      const many = await sdk.request(
        createItems('tags', [{ name: 'sdk-two' }, { name: 'sdk-three' }], { fields: ['name'] }),
      );
      assert.deepEqual(many, [{ name: 'sdk-two' }, { name: 'sdk-three' }]);
    });

    it('creates nested items', async () => {
      const author = await sdk.request(
        createItem('authors', { name: 'SDK Author', articles: [{ title: 'SDK 1' }, { title: 'SDK 2' }] } as never, {
          fields: ['id'],
        }),
      );
      const articles = await sdk.request(
        readItems('articles', { fields: ['title'], filter: { author: { _eq: author.id } }, sort: ['id'] }),
      );
      assert.deepEqual(articles, [{ title: 'SDK 1' }, { title: 'SDK 2' }]);
    });

    it('updateItem, updateItems by keys and by query, updateItemsBatch', async () => {
      const [a, b, c] = await sdk.request(
        createItems('articles', [{ title: 'U a' }, { title: 'U b' }, { title: 'U c' }], { fields: ['id'] }),
      );
      const one = await sdk.request(updateItem('articles', a!.id, { rating: 1 }, { fields: ['id', 'rating'] }));
      assert.deepEqual(one, { id: a!.id, rating: 1 });
      const byKeys = await sdk.request(
        updateItems('articles', [a!.id, b!.id], { status: 'published' }, { fields: ['id', 'status'] }),
      );
      assert.deepEqual(byKeys, [
        { id: a!.id, status: 'published' },
        { id: b!.id, status: 'published' },
      ]);
      const byQuery = await sdk.request(
        updateItems('articles', { filter: { title: { _eq: 'U c' } } }, { rating: 3 }, { fields: ['id', 'rating'] }),
      );
      assert.deepEqual(byQuery, [{ id: c!.id, rating: 3 }]);
      const batch = await sdk.request(
        updateItemsBatch(
          'articles',
          [
            { id: a!.id, title: 'U a2' },
            { id: c!.id, title: 'U c2' },
          ],
          { fields: ['id', 'title'] },
        ),
      );
      assert.deepEqual(batch, [
        { id: a!.id, title: 'U a2' },
        { id: c!.id, title: 'U c2' },
      ]);
    });

    it('deleteItem and deleteItems by keys and by query', async () => {
      const made = await sdk.request(
        createItems('tags', [{ name: 'del-1' }, { name: 'del-2' }, { name: 'del-3' }, { name: 'del-4' }], {
          fields: ['id'],
        }),
      );
      // 204 No Content: nothing to unwrap (SDK 18 hands back the bare response).
      await sdk.request(deleteItem('tags', made[0]!.id));
      await sdk.request(deleteItems('tags', [made[1]!.id, made[2]!.id]));
      await sdk.request(deleteItems('tags', { filter: { name: { _eq: 'del-4' } } }));
      const left = await sdk.request(readItems('tags', { filter: { name: { _starts_with: 'del-' } } }));
      assert.deepEqual(left, []);
    });

    it('readSingleton and updateSingleton', async () => {
      const empty = await sdk.request(readSingleton('site'));
      assert.deepEqual(empty, { id: null });
      const created = await sdk.request(
        updateSingleton('site', { site_name: 'SDK site' }, { fields: ['site_name', 'visits'] }),
      );
      assert.deepEqual(created, { site_name: 'SDK site', visits: null });
      const updated = await sdk.request(updateSingleton('site', { visits: 10 }, { fields: ['site_name', 'visits'] }));
      assert.deepEqual(updated, { site_name: 'SDK site', visits: 10 });
      assert.deepEqual(await sdk.request(readSingleton('site', { fields: ['visits'] })), { visits: 10 });
    });

    it('surfaces coded errors', async () => {
      await assert.rejects(
        sdk.request(createItem('tags', { name: 'science' })),
        (error) => code(error) === 'RECORD_NOT_UNIQUE',
      );
      await assert.rejects(
        sdk.request(updateItem('tags', 999999, { name: 'ghost' })),
        (error) => code(error) === 'FORBIDDEN',
      );
      await assert.rejects(sdk.request(deleteItem('tags', 999999)), (error) => code(error) === 'FORBIDDEN');
      await assert.rejects(sdk.request(createItem('articles', { rating: 'x' } as never)), (error) => {
        const codes = (error as { errors: { extensions: { code: string } }[] }).errors.map((e) => e.extensions.code);
        assert.deepEqual(codes, ['INVALID_PAYLOAD', 'FAILED_VALIDATION']);
        return true;
      });
    });
  });
}
