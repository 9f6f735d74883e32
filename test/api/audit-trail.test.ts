/**
 * The audit trail (activity and revisions) over HTTP: every committed create, update and delete — REST, GraphQL,
 * nested, import — leaves its service_activity rows, and with `accountability: all` its service_revisions rows (the
 * item after the change, the delta, the activity, the parent revision of a nested write); a rolled-back write leaves
 * none; `accountability` `activity` and null as Directus; logins; /activity and /revisions read with the caller's
 * permissions, hidden fields stripped from data and delta; a revision's data restores the item through PATCH.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { queryBuilder } from '../../src/db/connection.js';
import { AuditRetention } from '../../src/project/audit-retention.js';

type Row = Record<string, any>;

/** The first word of the trail's statements for a write of one collection and nesting level. */
const TRAIL_STATEMENTS: Record<string, string[]> = {
  sqlite3: ['insert', 'insert'],
  pg: ['with'],
  mysql: ['insert', 'set'],
};

for (const client of testClients()) {
  describe(`audit trail (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
    });
    after(async () => {
      await t?.close();
    });

    const send = async (method: string, url: string, body?: unknown, token?: string | null, headers: Row = {}) =>
      t.request({
        method: method as 'GET',
        url,
        ...(token === undefined ? {} : { token }),
        ...(body === undefined
          ? { headers }
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } }),
      });
    const ok = async (method: string, url: string, body?: unknown, token?: string, headers: Row = {}) => {
      const res = await send(method, url, body, token, headers);
      assert.ok(res.statusCode === 200 || res.statusCode === 204, `${method} ${url}: ${res.body}`);
      return res.statusCode === 200 ? json(res).data : null;
    };
    const activityOf = async (collection: string, item: string | number): Promise<Row[]> =>
      ok('GET', `/activity?filter[collection][_eq]=${collection}&filter[item][_eq]=${item}&sort=id&limit=-1`);
    const revisionsOf = async (collection: string, item: string | number): Promise<Row[]> =>
      ok(
        'GET',
        `/revisions?filter[collection][_eq]=${collection}&filter[item][_eq]=${item}&sort=id&limit=-1&fields=*,activity.*`,
      );
    const setAccountability = async (collection: string, value: string | null) =>
      ok('PATCH', `/collections/${collection}`, { meta: { accountability: value } });

    it('a REST create, update and delete record activity; create and update a revision each', async () => {
      const headers = { 'user-agent': 'audit-test/1', origin: 'http://audit.example' };
      const created = await ok('POST', '/items/authors?fields=id', { name: 'Audited' }, undefined, headers);
      await ok('PATCH', `/items/authors/${created.id}`, { bio: 'changed' }, undefined, headers);
      await ok('DELETE', `/items/authors/${created.id}`, undefined, undefined, headers);
      const activity = await activityOf('authors', created.id);
      assert.deepEqual(
        activity.map((a) => a.action),
        ['create', 'update', 'delete'],
      );
      const me = await ok('GET', '/users/me?fields=id');
      for (const a of activity) {
        assert.equal(a.user, me.id);
        assert.equal(a.user_agent, 'audit-test/1');
        assert.equal(a.origin, 'http://audit.example');
        assert.equal(typeof a.ip, 'string');
        assert.ok(a.timestamp);
      }
      const revisions = await revisionsOf('authors', created.id);
      assert.equal(revisions.length, 2);
      assert.equal(revisions[0]!.activity.id, activity[0]!.id);
      assert.equal(revisions[0]!.data.name, 'Audited');
      assert.equal(revisions[0]!.data.id, created.id);
      assert.deepEqual(revisions[1]!.delta, { bio: 'changed' });
      assert.equal(revisions[1]!.data.bio, 'changed');
      assert.equal(revisions[1]!.data.name, 'Audited');
    });

    it('a batch create records one activity and one revision per item, in a fixed number of statements', async () => {
      const statements: { sql: string; params: readonly unknown[] }[] = [];
      const stop = t.context.db.onQuery((sql, params) => statements.push({ sql, params }));
      const created: Row[] = await ok(
        'POST',
        '/items/authors?fields=id',
        Array.from({ length: 30 }, (_, i) => ({ name: `Batch ${i} \u{1F389} "q" \\ ü` })),
      );
      stop();
      const trail = statements.filter(({ sql }) => /service_(activity|revisions)/.test(sql));
      // One INSERT into each: the rows of a batch are never written one statement each, nor bound a value each.
      // PostgreSQL writes both in one statement (INSERTs in a WITH); MariaDB's revisions INSERT skips the row-by-row
      // checks of references the same transaction just wrote (SET STATEMENT ... FOR).
      assert.deepEqual(
        trail.map(({ sql }) => sql.trim().split(' ')[0]!.toLowerCase()),
        TRAIL_STATEMENTS[client],
      );
      // The rows travel in one parameter, beside the few values every row shares.
      for (const { params } of trail) assert.ok(params.length <= 5, `${params.length} parameters`);
      // The revisions' data is built by the database: no read of the items besides the answer's.
      assert.equal(statements.filter(({ sql }) => /^\s*select/i.test(sql)).length, 1);
      for (const row of [created[0]!, created[29]!]) {
        const [revision] = await revisionsOf('authors', row.id);
        assert.equal(revision!.activity.action, 'create');
        assert.equal(revision!.data.id, row.id);
        assert.equal(revision!.delta.name, revision!.data.name);
        assert.match(revision!.data.name, / \u{1F389} "q" \\ ü$/u);
        // The item as a read answers it, field for field.
        const item = await ok('GET', `/items/authors/${row.id}?fields=${Object.keys(revision!.data).join(',')}`);
        assert.deepEqual(revision!.data, item);
      }
      const all: Row[] = await ok(
        'GET',
        `/activity?filter[collection][_eq]=authors&filter[item][_in]=${created.map((r) => r.id).join(',')}&limit=-1`,
      );
      assert.equal(all.length, 30);
    });

    it("a revision's data is the item's compact JSON text, for values of every kind", async () => {
      const tricky = 'é "q" \\ / \n\t \u0001 \u{1F600} <&>';
      const article = await ok('POST', '/items/articles?fields=id', {
        title: tricky,
        slug: 'audit-kinds',
        body: tricky,
        rating: 3,
        price: '12.50',
        score: 0.1,
        published: true,
        metadata: { a: [1, 2.5, null], é: tricky, t: true },
        publish_date: '2024-02-29',
        published_at: '2024-01-01T10:20:30',
        read_time: '10:11:12',
      });
      const gadget = await ok('POST', '/items/gadgets?fields=id', {
        name: tricky,
        secret: 'hunter2',
        token: 'tok',
        flag: false,
        config: { k: [tricky, 1e21], o: {} },
        labels: ['a', 'b "c"'],
      });
      for (const [collection, id] of [
        ['articles', article.id],
        ['gadgets', gadget.id],
      ]) {
        const [revision] = await revisionsOf(collection, id);
        // The item as a read answers it, field for field (concealed values masked alike).
        const item = await ok('GET', `/items/${collection}/${id}?fields=${Object.keys(revision!.data).join(',')}`);
        assert.deepEqual(revision!.data, item, collection);
        // Stored as the compact text every database stores (a filter on `data` matches it alike everywhere).
        const [row] = await queryBuilder(t.context.db)('service_revisions').where('id', revision!.id).select('data');
        assert.equal(row.data, JSON.stringify(JSON.parse(row.data)), collection);
      }
    });

    it('a nested write links each nested revision to the revision of the item that nests it', async () => {
      const article = await ok('POST', '/items/articles?fields=id,author,comments', {
        title: 'Nested audit',
        author: { name: 'Nested author' },
        comments: [{ body: 'first' }, { body: 'second' }],
      });
      const [top] = await revisionsOf('articles', article.id);
      const [author] = await revisionsOf('authors', article.author);
      const comments = (await Promise.all(article.comments.map((id: number) => revisionsOf('comments', id)))).flat();
      assert.equal(top!.parent, null);
      assert.equal(author!.parent, top!.id);
      assert.deepEqual(
        comments.map((c) => c.parent),
        [top!.id, top!.id],
      );
      assert.equal(comments[0]!.data.article, article.id);
    });

    it('a write nested three levels deep links every revision to its parent, in one trail statement on PostgreSQL', async () => {
      const statements: string[] = [];
      const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql) => statements.push(sql)));
      const author = await ok('POST', '/items/authors?fields=id,articles', {
        name: 'Deep author',
        articles: [1, 2].map((i) => ({
          title: `Deep ${i}`,
          slug: `deep-${i}`,
          tags: [{ tags_id: { name: `deep-${i}-a` } }, { tags_id: { name: `deep-${i}-b` } }],
        })),
      });
      stop();
      const trail = statements.filter((sql) => /service_(activity|revisions)/.test(sql));
      // Activity, then one revisions INSERT per level (author, articles, junction rows, tags): or all as one.
      assert.equal(trail.length, client === 'pg' ? 1 : 5, trail.join('\n'));
      const [top] = await revisionsOf('authors', author.id);
      assert.equal(top!.parent, null);
      assert.equal(top!.activity.action, 'create');
      for (const id of author.articles as number[]) {
        const [article] = await revisionsOf('articles', id);
        assert.equal(article!.parent, top!.id);
        assert.equal(article!.data.author, author.id);
        const links: Row[] = await ok('GET', `/items/articles_tags?filter[articles_id][_eq]=${id}&fields=id,tags_id`);
        assert.equal(links.length, 2);
        for (const link of links) {
          const [junction] = await revisionsOf('articles_tags', link.id);
          assert.equal(junction!.parent, article!.id);
          const [tag] = await revisionsOf('tags', link.tags_id);
          assert.equal(tag!.parent, junction!.id);
          assert.equal(tag!.activity.collection, 'tags');
          assert.equal(String(tag!.activity.item), String(link.tags_id));
        }
      }
    });

    it('a user written through /users: the password is masked in its revision, never stored plain or hashed', async () => {
      const user = await ok('POST', '/users?fields=id', { email: 'audited@example.com', password: 'secret-pass-1' });
      const [revision] = await revisionsOf('service_users', user.id);
      assert.equal(revision!.delta.password, '**********');
      assert.notEqual(revision!.data.password, 'secret-pass-1');
      assert.ok(!String(revision!.data.password ?? '').startsWith('$argon2'));
      const [activity] = await ok('GET', `/activity?filter[item][_eq]=${user.id}&fields=action,revisions.collection`);
      assert.deepEqual(activity, { action: 'create', revisions: [{ collection: 'service_users' }] });
    });

    it('deleting a collection removes its trail, and unlinks revisions nested under its revisions', async () => {
      await ok('POST', '/collections', {
        collection: 'audit_posts',
        schema: {},
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
      });
      await ok('POST', '/fields/audit_posts', { field: 'writer', type: 'integer' });
      await ok('POST', '/relations', { collection: 'audit_posts', field: 'writer', related_collection: 'authors' });
      const post = await ok('POST', '/items/audit_posts?fields=id,writer', { writer: { name: 'Nested in a post' } });
      const [author] = await revisionsOf('authors', post.writer);
      assert.notEqual(author!.parent, null);
      await ok('DELETE', '/collections/audit_posts');
      assert.deepEqual(await revisionsOf('audit_posts', post.id), []);
      const [kept] = await revisionsOf('authors', post.writer);
      assert.equal(kept!.parent, null);
    });

    it('a write that fails leaves no activity and no revision', async () => {
      const before: Row[] = await ok('GET', '/activity?aggregate[count]=*');
      const res = await send('POST', '/items/articles', {
        title: 'Rolled back',
        author: { name: 'Never kept' },
        comments: [{ body: 'x'.repeat(500) }],
      });
      assert.equal(res.statusCode, 400, res.body);
      const after: Row[] = await ok('GET', '/activity?aggregate[count]=*');
      assert.equal(Number(after[0]!.count), Number(before[0]!.count));
    });

    it('GraphQL mutations and imports record activity and revisions', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: { query: 'mutation { create_authors_item(data: {name: "GraphQL audit"}) { id } }' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const id = json(res).data.create_authors_item.id;
      const [revision] = await revisionsOf('authors', id);
      assert.equal(revision!.activity.action, 'create');
      assert.equal(revision!.data.name, 'GraphQL audit');
      const imported = await t.request({
        method: 'POST',
        url: '/utils/import/authors',
        payload: 'name\nImported audit\n',
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.statusCode, 200, imported.body);
      const [row] = await ok('GET', '/items/authors?filter[name][_eq]=Imported audit&fields=id');
      assert.equal((await revisionsOf('authors', row.id)).length, 1);
    });

    it('/graphql/system reads activity and revisions (read-only)', async () => {
      const created = await ok('POST', '/items/authors?fields=id', { name: 'GraphQL system read' });
      const res = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: {
          query: `{ activity(filter: {item: {_eq: "${created.id}"}, collection: {_eq: "authors"}}) { action collection }
                    revisions(filter: {item: {_eq: "${created.id}"}, collection: {_eq: "authors"}}) { data delta } }`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = json(res).data;
      assert.deepEqual(data.activity, [{ action: 'create', collection: 'authors' }]);
      assert.equal(data.revisions[0].data.name, 'GraphQL system read');
      const mutation = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: 'mutation { delete_activity_item(id: 1) { id } }' },
      });
      assert.ok(json(mutation).errors, mutation.body);
    });

    it('accountability "activity" records activity only; null records nothing', async () => {
      await setAccountability('notes', 'activity');
      const note = await ok('POST', '/items/notes?fields=id', { code: 'ABC', level: 2 });
      assert.equal((await activityOf('notes', note.id)).length, 1);
      assert.equal((await revisionsOf('notes', note.id)).length, 0);
      await setAccountability('notes', null);
      const quiet = await ok('POST', '/items/notes?fields=id', { code: 'DEF', level: 2 });
      assert.equal((await activityOf('notes', quiet.id)).length, 0);
      await setAccountability('notes', 'all');
    });

    it('a login is recorded as Directus records it (action login on the user)', async () => {
      const me = await ok('GET', '/users/me?fields=id');
      const logins = async (): Promise<Row[]> =>
        ok('GET', `/activity?filter[action][_eq]=login&filter[item][_eq]=${me.id}&limit=-1`);
      const before = (await logins()).length;
      const failed = await send('POST', '/auth/login', { email: ADMIN.email, password: 'wrong' }, null);
      assert.equal(failed.statusCode, 401, failed.body);
      assert.equal((await logins()).length, before);
      const login = await send('POST', '/auth/login', { email: ADMIN.email, password: ADMIN.password }, null, {
        'user-agent': 'login-agent',
      });
      assert.equal(login.statusCode, 200, login.body);
      const after = await logins();
      assert.equal(after.length, before + 1);
      assert.equal(after.at(-1)!.collection, 'service_users');
      assert.equal(after.at(-1)!.user, me.id);
      assert.equal(after.at(-1)!.user_agent, 'login-agent');
    });

    it('a revision restores its item through PATCH with its data (revert)', async () => {
      const created = await ok('POST', '/items/articles?fields=id', { title: 'Original', rating: 3 });
      await ok('PATCH', `/items/articles/${created.id}`, { title: 'Changed', rating: 5 });
      const [first] = await revisionsOf('articles', created.id);
      const restored = await ok('PATCH', `/items/articles/${created.id}?fields=title,rating`, first!.data);
      assert.deepEqual(restored, { title: 'Original', rating: 3 });
      const revisions = await revisionsOf('articles', created.id);
      assert.equal(revisions.length, 3);
      assert.equal(revisions[2]!.data.title, 'Original');
    });

    it('retention prunes activity and revisions older than their periods, in batches, and keeps the rest', async () => {
      const knex = queryBuilder(t.context.db);
      const old = new Date(Date.now() - 200 * 86_400_000);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const [row] = await knex('service_activity')
          .insert({ action: 'create', timestamp: old, collection: 'authors', item: `old-${i}` })
          .returning('id');
        ids.push(Number(typeof row === 'object' ? row.id : row));
      }
      const [first] = await knex('service_revisions')
        .insert({ activity: ids[0], collection: 'authors', item: 'old-0', data: '{}', delta: '{}' })
        .returning('id');
      await knex('service_revisions').insert({
        activity: ids[1],
        collection: 'authors',
        item: 'old-1',
        data: '{}',
        delta: '{}',
        parent: Number(typeof first === 'object' ? first.id : first),
      });
      const recent = await ok('POST', '/items/authors?fields=id', { name: 'Kept by retention' });
      const result = await t.context.retention.prune();
      assert.equal(result.revisions, 2);
      assert.ok(result.activity >= 3);
      assert.equal((await knex('service_activity').whereIn('id', ids)).length, 0);
      assert.equal((await activityOf('authors', recent.id)).length, 1);
      assert.equal((await revisionsOf('authors', recent.id)).length, 1);
    });

    it('two instances pruning at once take turns: every old row is deleted once, nothing fails', async () => {
      const knex = queryBuilder(t.context.db);
      const old = new Date(Date.now() - 200 * 86_400_000);
      await knex('service_activity').insert(
        Array.from({ length: 7 }, (_, i) => ({
          action: 'update',
          timestamp: old,
          collection: 'authors',
          item: `t-${i}`,
        })),
      );
      const config = { ...t.context.config.retention, batch: 2 };
      const first = new AuditRetention(t.context.db, config, t.context.clock);
      const second = new AuditRetention(t.context.db, config, t.context.clock);
      const [a, b] = await Promise.all([first.prune(), second.prune()]);
      assert.equal(a.activity + b.activity, 7);
      assert.ok(a.activity === 0 || b.activity === 0, 'one instance did the work');
    });

    it('a user reads the revisions of items they may read, without the fields they may not read', async () => {
      const created = await ok('POST', '/items/authors?fields=id', { name: 'Private', email: 'private@example.com' });
      const policy = await createPolicy(t, {
        name: 'Audit reader',
        app_access: true,
        permissions: [
          { collection: 'authors', action: 'read', fields: 'id,name', permissions: { name: { _eq: 'Private' } } },
          { collection: 'service_revisions', action: 'read' },
        ],
      });
      const { token } = await createUserWithPolicies(t, [policy]);
      const seen: Row[] = await ok('GET', '/revisions?filter[collection][_eq]=authors&limit=-1', undefined, token);
      assert.ok(seen.length >= 1);
      for (const revision of seen) {
        assert.equal(revision.item, String(created.id));
        assert.equal(revision.data.email, undefined);
        assert.equal(revision.data.name, 'Private');
        assert.equal(revision.delta.email, undefined);
      }
      const own: Row[] = await ok('GET', '/activity?limit=-1', undefined, token);
      assert.deepEqual(own, []);
    });
  });
}
