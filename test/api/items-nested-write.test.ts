/**
 * Nested relational writes over HTTP on every database (spec "Nested relational payloads"): m2o, o2m, m2m and m2a in
 * the basic and detailed forms, at depth two and more, and atomicity: a nested write that fails at its last step
 * leaves no row behind (checked by reading the tables directly).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture, setDeselectAction } from '../helpers/write-fixture.js';
import { queryBuilder } from '../../src/db/connection.js';

type Method = 'POST' | 'PATCH';
type Row = Record<string, unknown>;

for (const client of testClients()) {
  describe(`nested item writes (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
    });
    after(async () => {
      await t?.close();
    });

    const send = (method: Method, url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const ok = async (method: Method, url: string, body: unknown) => {
      const res = await send(method, url, body);
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    };
    const rows = async (table: string, where: Row = {}, columns: string[] = ['*']): Promise<Row[]> =>
      (await queryBuilder(t.context.db)(table).where(where).select(columns).orderBy('id')).map((row: Row) => ({
        ...row,
      }));
    const snapshot = async (tables: string[]) =>
      Object.fromEntries(await Promise.all(tables.map(async (name) => [name, await rows(name)] as const)));
    const num = (value: unknown) => (value === null ? null : Number(value));

    describe('many-to-one', () => {
      it('creates the related item from an object without key and stores its key', async () => {
        const article = await ok('POST', '/items/articles?fields=id,author', {
          title: 'M2O create',
          author: { name: 'Nested Author', email: 'nested@example.com' },
        });
        const [author] = await rows('authors', { email: 'nested@example.com' });
        assert.equal(article.author, author!.id);
        assert.equal(author!.name, 'Nested Author');
      });

      it('updates the related item from an object with key, links a bare key and unlinks with null', async () => {
        const article = await ok('POST', '/items/articles?fields=id', { title: 'M2O update', author: 3 });
        const updated = await ok('PATCH', `/items/articles/${article.id}?fields=id,author`, {
          author: { id: 3, bio: 'Compiler pioneer' },
        });
        assert.equal(updated.author, 3);
        assert.equal((await rows('authors', { id: 3 }))[0]!.bio, 'Compiler pioneer');
        assert.equal((await ok('PATCH', `/items/articles/${article.id}?fields=author`, { author: 1 })).author, 1);
        assert.equal((await ok('PATCH', `/items/articles/${article.id}?fields=author`, { author: null })).author, null);
        assert.equal(
          (await ok('PATCH', `/items/articles/${article.id}?fields=author`, { author: { id: 2 } })).author,
          2,
        );
        assert.equal((await rows('authors', { id: 2 }))[0]!.name, 'Alan Turing');
      });

      it('creates the related item with the given key when no row has it (as Directus upserts)', async () => {
        const article = await ok('POST', '/items/articles?fields=id,author', {
          title: 'M2O upsert',
          author: { id: 777, name: 'Keyed Author' },
        });
        assert.equal(article.author, 777);
        assert.equal((await rows('authors', { id: 777 }))[0]!.name, 'Keyed Author');
      });
    });

    describe('one-to-many', () => {
      it('replaces the set in the basic form: keys assign, objects create or update, omitted rows are unlinked', async () => {
        const author = await ok('POST', '/items/authors?fields=id', {
          name: 'O2M',
          articles: [{ title: 'O2M a' }, { title: 'O2M b' }, { title: 'O2M c' }],
        });
        const [a, b, c] = await rows('articles', { author: author.id });
        const loose = await ok('POST', '/items/articles?fields=id', { title: 'O2M loose' });
        await ok('PATCH', `/items/authors/${author.id}`, {
          articles: [loose.id, { id: a!.id, title: 'O2M a renamed' }, { title: 'O2M d' }],
        });
        const linked = await rows('articles', { author: author.id });
        assert.deepEqual(linked.map((r) => r.title).sort(), ['O2M a renamed', 'O2M d', 'O2M loose']);
        for (const dropped of [b!, c!]) assert.equal((await rows('articles', { id: dropped.id }))[0]!.author, null);
      });

      it('deletes omitted rows when the relation says so', async () => {
        const page = await ok('POST', '/items/pages?fields=id', {
          title: 'Deselect',
          sections: [
            { collection: 'headings', item: 1 },
            { collection: 'paragraphs', item: 1 },
          ],
        });
        const [first, second] = await rows('pages_sections', { pages_id: page.id });
        await setDeselectAction(t, 'pages_sections', 'pages_id', 'delete');
        try {
          await ok('PATCH', `/items/pages/${page.id}`, { sections: [first!.id] });
          assert.deepEqual(
            (await rows('pages_sections', { pages_id: page.id })).map((r) => r.id),
            [first!.id],
          );
          assert.deepEqual(await rows('pages_sections', { id: second!.id }), []);
        } finally {
          await setDeselectAction(t, 'pages_sections', 'pages_id', 'nullify');
        }
      });

      it('applies the detailed form: create, update, and delete only where linked to this parent', async () => {
        const author = await ok('POST', '/items/authors?fields=id', {
          name: 'Detailed',
          articles: [{ title: 'Det a' }, { title: 'Det b' }],
        });
        const [a, b] = await rows('articles', { author: author.id });
        const other = await ok('POST', '/items/articles?fields=id,author', { title: 'Det other', author: 1 });
        await ok('PATCH', `/items/authors/${author.id}`, {
          articles: { create: [{ title: 'Det c' }], update: [{ id: a!.id, rating: 5 }], delete: [b!.id, other.id] },
        });
        const linked = await rows('articles', { author: author.id });
        assert.deepEqual(
          linked.map((r) => [r.title, num(r.rating)]),
          [
            ['Det a', 5],
            ['Det c', null],
          ],
        );
        assert.equal((await rows('articles', { id: b!.id }))[0]!.author, null);
        assert.equal((await rows('articles', { id: other.id }))[0]!.author, 1);
        const missing = await send('PATCH', `/items/authors/${author.id}`, {
          articles: { update: [{ id: 999999, title: 'ghost' }] },
        });
        assert.equal(errorCode(missing), 'FORBIDDEN');
      });

      it('answers 403 for a key that does not exist and writes nothing', async () => {
        const author = await ok('POST', '/items/authors?fields=id', {
          name: 'Assign',
          articles: [{ title: 'Assign a' }],
        });
        const before = await snapshot(['authors', 'articles']);
        const res = await send('PATCH', `/items/authors/${author.id}`, {
          name: 'Assign changed',
          articles: [{ title: 'Assign new' }, 999999],
        });
        assert.equal(res.statusCode, 403, res.body);
        assert.deepEqual(await snapshot(['authors', 'articles']), before);
      });

      it('refuses values that are neither an array nor the detailed form', async () => {
        for (const articles of ['x', 5, { create: 'x' }, { insert: [] }, [true]]) {
          const res = await send('POST', '/items/authors', { name: 'Bad o2m', articles });
          assert.equal(res.statusCode, 400, JSON.stringify(articles));
          assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        }
      });
    });

    describe('many-to-many', () => {
      it('creates junction rows for new and existing related items, and unlinks omitted junction rows', async () => {
        const article = await ok('POST', '/items/articles?fields=id,tags', {
          title: 'M2M',
          tags: [{ tags_id: { name: 'm2m-new' } }, { tags_id: 1 }],
        });
        const junction = await rows('articles_tags', { articles_id: article.id });
        const [created] = await rows('tags', { name: 'm2m-new' });
        assert.deepEqual(
          junction.map((r) => num(r.tags_id)),
          [created!.id, 1].map(Number),
        );
        assert.deepEqual(
          article.tags.map(Number),
          junction.map((r) => Number(r.id)),
        );

        await ok('PATCH', `/items/articles/${article.id}`, {
          tags: [junction[1]!.id, { tags_id: { name: 'm2m-third' } }],
        });
        const after = await rows('articles_tags', { articles_id: article.id });
        assert.equal(after.length, 2);
        assert.equal(after[0]!.id, junction[1]!.id);
        assert.equal((await rows('articles_tags', { id: junction[0]!.id }))[0]!.articles_id, null);
      });

      it('takes the detailed form', async () => {
        const article = await ok('POST', '/items/articles?fields=id', {
          title: 'M2M detailed',
          tags: { create: [{ tags_id: 2 }, { tags_id: { name: 'm2m-det' } }] },
        });
        const junction = await rows('articles_tags', { articles_id: article.id });
        assert.equal(junction.length, 2);
        await ok('PATCH', `/items/articles/${article.id}`, {
          tags: { update: [{ id: junction[0]!.id, tags_id: 3 }], delete: [junction[1]!.id] },
        });
        assert.deepEqual(
          (await rows('articles_tags', { articles_id: article.id })).map((r) => num(r.tags_id)),
          [3],
        );
      });
    });

    describe('many-to-any', () => {
      it('creates items of each allowed collection and junction rows naming them', async () => {
        const page = await ok('POST', '/items/pages?fields=id', {
          title: 'M2A',
          sections: [
            { collection: 'headings', item: { text: 'M2A heading', level: 2 }, sort: 1 },
            { collection: 'paragraphs', item: { body: 'M2A paragraph' }, sort: 2 },
            { collection: 'paragraphs', item: 3, sort: 3 },
          ],
        });
        const junction = await rows('pages_sections', { pages_id: page.id });
        const [heading] = await rows('headings', { text: 'M2A heading' });
        const [paragraph] = await rows('paragraphs', { body: 'M2A paragraph' });
        assert.deepEqual(
          junction.map((r) => [r.collection, r.item, num(r.sort)]),
          [
            ['headings', String(heading!.id), 1],
            ['paragraphs', String(paragraph!.id), 2],
            ['paragraphs', '3', 3],
          ],
        );
        await ok('PATCH', `/items/pages/${page.id}`, {
          sections: {
            update: [{ id: junction[0]!.id, collection: 'headings', item: { id: heading!.id, text: 'M2A renamed' } }],
          },
        });
        assert.equal((await rows('headings', { id: heading!.id }))[0]!.text, 'M2A renamed');
      });

      it('refuses a collection outside the allowed ones, and a nested item without its collection', async () => {
        const before = await snapshot(['pages', 'pages_sections', 'tags', 'headings']);
        const foreign = await send('POST', '/items/pages', {
          title: 'M2A bad',
          sections: [{ collection: 'tags', item: { name: 'not allowed' } }],
        });
        assert.equal(foreign.statusCode, 400);
        assert.equal(errorCode(foreign), 'INVALID_PAYLOAD');
        const unnamed = await send('POST', '/items/pages', {
          title: 'M2A bad',
          sections: [{ item: { text: 'which collection?' } }],
        });
        assert.equal(errorCode(unnamed), 'INVALID_PAYLOAD');
        assert.deepEqual(await snapshot(['pages', 'pages_sections', 'tags', 'headings']), before);
      });
    });

    describe('depth and atomicity', () => {
      it('writes three levels in one request: author → articles → tags through the junction', async () => {
        const author = await ok('POST', '/items/authors?fields=id,name,articles.title,articles.tags.tags_id.name', {
          name: 'Deep Author',
          articles: [
            { title: 'Deep 1', tags: [{ tags_id: { name: 'deep-x' } }, { tags_id: { name: 'deep-y' } }] },
            { title: 'Deep 2', author: 1, tags: [{ tags_id: 1 }] },
          ],
        });
        // The response is the nested read of what was written.
        assert.deepEqual(author.articles, [
          { title: 'Deep 1', tags: [{ tags_id: { name: 'deep-x' } }, { tags_id: { name: 'deep-y' } }] },
          { title: 'Deep 2', tags: [{ tags_id: { name: 'science' } }] },
        ]);
        const articles = await rows('articles', { author: author.id });
        assert.deepEqual(
          articles.map((r) => r.title),
          ['Deep 1', 'Deep 2'],
        );
        const tagsOf = async (articleId: unknown) => {
          const junction = await rows('articles_tags', { articles_id: articleId });
          const names = await queryBuilder(t.context.db)('tags')
            .whereIn(
              'id',
              junction.map((r) => r.tags_id as number),
            )
            .orderBy('name')
            .pluck('name');
          return names;
        };
        assert.deepEqual(await tagsOf(articles[0]!.id), ['deep-x', 'deep-y']);
        assert.deepEqual(await tagsOf(articles[1]!.id), ['science']);

        // Depth two on update: a nested m2o inside an o2m element.
        await ok('PATCH', `/items/authors/${author.id}`, {
          articles: [
            { id: articles[0]!.id, author: author.id },
            { id: articles[1]!.id, tags: [{ tags_id: { id: 1, name: 'science!' } }] },
          ],
        });
        assert.equal((await rows('tags', { id: 1 }))[0]!.name, 'science!');
        await ok('PATCH', '/items/tags/1', { name: 'science' });
      });

      it('leaves no row behind when the last nested step fails', async () => {
        const tables = ['authors', 'articles', 'articles_tags', 'tags'];
        const before = await snapshot(tables);
        // Every step but the last succeeds: the last junction row's new tag repeats a unique name.
        const res = await send('POST', '/items/authors', {
          name: 'Atomic',
          articles: [
            { title: 'Atomic 1', tags: [{ tags_id: { name: 'atomic-a' } }] },
            { title: 'Atomic 2', tags: [{ tags_id: { name: 'atomic-b' } }, { tags_id: { name: 'history' } }] },
          ],
        });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(errorCode(res), 'RECORD_NOT_UNIQUE');
        assert.deepEqual(json(res).errors[0].extensions, {
          code: 'RECORD_NOT_UNIQUE',
          collection: 'tags',
          field: 'name',
          value: 'history',
        });
        assert.deepEqual(await snapshot(tables), before);

        // A bad reference deep down rolls back an update too.
        const update = await send('PATCH', '/items/authors/1', {
          name: 'Ada changed',
          articles: [1, { title: 'Atomic 3', tags: [{ tags_id: 999999 }] }],
        });
        assert.equal(update.statusCode, 400);
        assert.deepEqual(json(update).errors[0].extensions, {
          code: 'INVALID_FOREIGN_KEY',
          collection: 'articles_tags',
          field: 'tags_id',
        });
        assert.deepEqual(await snapshot(tables), before);
      });

      it('translates a NOT NULL foreign key left null by an unlink, and writes nothing', async () => {
        const article = await ok('POST', '/items/articles?fields=id', {
          title: 'Commented',
          comments: [{ body: 'first' }, { body: 'second' }],
        });
        assert.equal((await rows('comments', { article: article.id })).length, 2);
        const before = await snapshot(['articles', 'comments']);
        const res = await send('PATCH', `/items/articles/${article.id}`, { title: 'Commented changed', comments: [] });
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(json(res).errors[0].extensions, {
          code: 'NOT_NULL_VIOLATION',
          collection: 'comments',
          field: 'article',
        });
        assert.deepEqual(await snapshot(['articles', 'comments']), before);
      });

      it('lists the validation failures of every nested item together, with their paths', async () => {
        const before = await snapshot(['authors', 'articles']);
        const res = await send('POST', '/items/authors', {
          name: null,
          articles: [{ title: 'fine' }, { slug: 'no title' }, { title: 'x', rating: 'high' }],
        });
        assert.equal(res.statusCode, 400);
        const errors = json(res).errors.map((e: { extensions: Row }) => e.extensions);
        assert.deepEqual(
          errors.map((e: Row) => [e.code, e.field, e.path, e.type ?? null]),
          [
            ['FAILED_VALIDATION', 'title', ['articles', 1], 'required'],
            ['INVALID_PAYLOAD', 'rating', ['articles', 2], null],
            ['FAILED_VALIDATION', 'name', [], 'nnull'],
          ],
        );
        assert.deepEqual(await snapshot(['authors', 'articles']), before);
      });
    });
  });
}
