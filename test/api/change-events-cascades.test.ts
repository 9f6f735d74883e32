/**
 * Change events of rows no statement of Strata names: the database deletes them through `ON DELETE CASCADE`
 * (recursively, a self-referencing cascade included) or rewrites them through `ON DELETE SET NULL`. Each delete path
 * — REST single, keys and `{query}` deletes, GraphQL mutations, the deselect action of a nested write, system
 * collections — announces them, committed; a delete refused by a RESTRICT constraint announces nothing.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp, type TestRequest } from '../helpers/test-app.js';
import { addWriteFixture, setDeselectAction } from '../helpers/write-fixture.js';
import type { ChangeEvent } from '../../src/engine/write/change-events.js';
import { queryBuilder } from '../../src/db/connection.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const sameKeys = (event: ChangeEvent) => ({ ...event, keys: event.keys.map(String).sort() });
const byCollectionAndAction = (a: { collection: string; action: string }, b: { collection: string; action: string }) =>
  `${a.collection} ${a.action}` < `${b.collection} ${b.action}` ? -1 : 1;
const ids = (rows: { id: unknown }[]) => rows.map((row) => String(row.id)).sort();

for (const client of testClients()) {
  describe(`change events of cascades (${clientLabel(client)})`, () => {
    let t: TestApp;
    let heard: ChangeEvent[] = [];
    // In pair mode a write answered by the other worker reaches t.context's listeners through the relay, after its
    // answer (change events are not waited for): each request waits until the relay is quiet, at once with one worker.
    const request = async (options: TestRequest) => {
      const res = await t.request(options);
      await t.relayed();
      return res;
    };

    const send = async (method: Method, url: string, body?: unknown) =>
      request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const ok = async (method: Method, url: string, body?: unknown) => {
      const res = await send(method, url, body);
      assert.ok(res.statusCode === 200 || res.statusCode === 204, res.body);
      return res.statusCode === 200 ? json(res).data : null;
    };
    const events = () => heard.map(sameKeys).sort(byCollectionAndAction);

    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
      // reactions → comments → articles all cascade, and a reaction's replies cascade from it (self-reference).
      await ok('POST', '/collections', {
        collection: 'reactions',
        schema: {},
        meta: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'emoji', type: 'string' },
          { field: 'comment', type: 'integer', meta: { special: ['m2o'] } },
          { field: 'parent', type: 'integer', meta: { special: ['m2o'] } },
        ],
      });
      for (const [field, related] of [
        ['comment', 'comments'],
        ['parent', 'reactions'],
      ])
        await ok('POST', '/relations', {
          collection: 'reactions',
          field,
          related_collection: related,
          schema: { on_delete: 'CASCADE' },
        });
      // A foreign key to another column than the key (a unique code), made outside the API as a database may have it.
      const k = queryBuilder(t.context.db);
      await k.schema.createTable('badges', (table) => {
        table.increments('id');
        table.string('code', 10).notNullable().unique();
      });
      await k.schema.createTable('badge_holders', (table) => {
        table.increments('id');
        table.string('badge', 10).references('code').inTable('badges').onDelete('CASCADE');
      });
      await t.context.schemaChanged();
      t.context.changes.listen((event) => heard.push(event));
    });
    beforeEach(() => {
      heard = [];
    });
    after(async () => {
      await t?.close();
    });

    /** An article by a new author, with two tag links, two comments and a chain of three reactions on the first. */
    async function articleTree() {
      const tags = await ok('POST', '/items/tags?fields=id', [
        { name: `c${Math.random()}` },
        { name: `d${Math.random()}` },
      ]);
      const article = await ok('POST', '/items/articles?fields=id,author,tags,comments', {
        title: 'Cascading',
        author: { name: 'Cascade author' },
        tags: tags.map((tag: { id: number }) => ({ tags_id: tag.id })),
        comments: [{ body: 'first' }, { body: 'second' }],
      });
      const first = await ok('POST', '/items/reactions?fields=id', { emoji: 'a', comment: article.comments[0] });
      const second = await ok('POST', '/items/reactions?fields=id', { emoji: 'b', parent: first.id });
      const third = await ok('POST', '/items/reactions?fields=id', { emoji: 'c', parent: second.id });
      heard = [];
      return {
        article: String(article.id),
        author: String(article.author),
        links: article.tags.map(String).sort(),
        comments: article.comments.map(String).sort(),
        reactions: ids([first, second, third]),
      };
    }

    it('a REST delete announces the rows its cascades delete, level by level (self-reference included)', async () => {
      const tree = await articleTree();
      await ok('DELETE', `/items/articles/${tree.article}`);
      assert.deepEqual(events(), [
        { collection: 'articles', action: 'delete', keys: [tree.article] },
        { collection: 'articles_tags', action: 'delete', keys: tree.links },
        { collection: 'comments', action: 'delete', keys: tree.comments },
        { collection: 'reactions', action: 'delete', keys: tree.reactions },
      ]);
      // The database did delete them: what was announced is what happened.
      const left = await ok('GET', `/items/reactions?filter[id][_in]=${tree.reactions.join(',')}`);
      assert.deepEqual(left, []);
    });

    it('a cascade through a foreign key to another column than the key finds its rows through that column', async () => {
      const badges = await ok('POST', '/items/badges?fields=id', [{ code: 'gold' }, { code: 'silver' }]);
      const holders = await ok('POST', '/items/badge_holders?fields=id', [
        { badge: 'gold' },
        { badge: 'gold' },
        { badge: 'silver' },
      ]);
      heard = [];
      await ok('DELETE', `/items/badges/${badges[0].id}`);
      assert.deepEqual(events(), [
        { collection: 'badge_holders', action: 'delete', keys: ids(holders.slice(0, 2)) },
        { collection: 'badges', action: 'delete', keys: [String(badges[0].id)] },
      ]);
    });

    it('rows a SET NULL rule rewrites are announced as updates', async () => {
      const tree = await articleTree();
      await ok('DELETE', `/items/authors/${tree.author}`);
      assert.deepEqual(events(), [
        { collection: 'articles', action: 'update', keys: [tree.article] },
        { collection: 'authors', action: 'delete', keys: [tree.author] },
      ]);
    });

    it('keys and {query} deletes, and GraphQL deletes, announce their cascades', async () => {
      const a = await articleTree();
      const b = await articleTree();
      await ok('DELETE', '/items/comments', [...a.comments, ...b.comments]);
      assert.deepEqual(events(), [
        { collection: 'comments', action: 'delete', keys: [...a.comments, ...b.comments].sort() },
        { collection: 'reactions', action: 'delete', keys: [...a.reactions, ...b.reactions].sort() },
      ]);
      heard = [];
      await ok('DELETE', '/items/articles', { query: { filter: { id: { _eq: a.article } } } });
      assert.deepEqual(events(), [
        { collection: 'articles', action: 'delete', keys: [a.article] },
        { collection: 'articles_tags', action: 'delete', keys: a.links },
      ]);
      heard = [];
      const c = await articleTree();
      const res = await request({
        method: 'POST',
        url: '/graphql',
        payload: { query: `mutation { delete_articles_items(ids: [${b.article}, ${c.article}]) { ids } }` },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).errors, undefined, res.body);
      assert.deepEqual(events(), [
        { collection: 'articles', action: 'delete', keys: [b.article, c.article].sort() },
        { collection: 'articles_tags', action: 'delete', keys: [...b.links, ...c.links].sort() },
        { collection: 'comments', action: 'delete', keys: c.comments },
        { collection: 'reactions', action: 'delete', keys: c.reactions },
      ]);
    });

    it('a nested write whose deselect action deletes children announces what they cascade to', async () => {
      const tree = await articleTree();
      await setDeselectAction(t, 'comments', 'article', 'delete');
      try {
        const [kept, dropped] = tree.comments;
        // Which comment holds the reactions depends on the key order; drop the one that does.
        const holder = (
          await ok(
            'GET',
            `/items/reactions?fields=comment&filter[comment][_nnull]=true&filter[id][_in]=${tree.reactions.join(',')}`,
          )
        )[0].comment;
        const keep = String(holder) === kept ? dropped! : kept!;
        const drop = String(holder);
        await ok('PATCH', `/items/articles/${tree.article}`, { comments: [Number(keep)] });
        assert.deepEqual(
          events(),
          [
            { collection: 'articles', action: 'update', keys: [tree.article] },
            { collection: 'comments', action: 'delete', keys: [drop] },
            { collection: 'comments', action: 'update', keys: [keep] },
            { collection: 'reactions', action: 'delete', keys: tree.reactions },
          ].sort(byCollectionAndAction),
        );
      } finally {
        await setDeselectAction(t, 'comments', 'article', 'nullify');
      }
    });

    it('GraphQL updates announce theirs; a delete refused by a RESTRICT constraint announces nothing', async () => {
      const tree = await articleTree();
      const res = await request({
        method: 'POST',
        url: '/graphql',
        payload: { query: `mutation { update_authors_item(id: ${tree.author}, data: {bio: "gql"}) { id } }` },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(events(), [{ collection: 'authors', action: 'update', keys: [tree.author] }]);
      heard = [];
      await ok('POST', '/items/citations', { article: Number(tree.article) });
      heard = [];
      const refused = await send('DELETE', `/items/articles/${tree.article}`);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.deepEqual(heard, []);
    });

    it('system collections: a role deleted announces the users its SET NULL rule rewrites', async () => {
      const role = await ok('POST', '/roles?fields=id', { name: 'Cascade role' });
      const user = await ok('POST', '/users?fields=id', { email: `cascade-${client}@example.com`, role: role.id });
      await ok('PATCH', `/users/${user.id}`, { first_name: 'Changed' });
      await ok('DELETE', `/roles/${role.id}`);
      await ok('DELETE', `/users/${user.id}`);
      assert.deepEqual(heard.map(sameKeys), [
        { collection: 'service_roles', action: 'create', keys: [String(role.id)] },
        { collection: 'service_users', action: 'create', keys: [String(user.id)] },
        { collection: 'service_users', action: 'update', keys: [String(user.id)] },
        { collection: 'service_users', action: 'update', keys: [String(user.id)] },
        { collection: 'service_roles', action: 'delete', keys: [String(role.id)] },
        { collection: 'service_users', action: 'delete', keys: [String(user.id)] },
      ]);
    });
  });
}
