/**
 * /collections, /fields and /relations for callers who are not admins (Directus docs: API reference, Access control, Collections): app users
 * (and users granted read on the metadata collection itself) see what they may read — collections with a read
 * rule and the folders holding them, fields of their read field sets, relations whose ends they see — and nothing
 * else, with the same 403 for hidden and missing things. Everyone else gets 403; writes stay admin-only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`schema reads by non-admins (${clientLabel(client)})`, () => {
    let t: TestApp;
    let app: string;
    let fieldsOnly: string;
    let noApp: string;
    const get = (token: string | null | undefined, url: string) => t.request({ method: 'GET', url, token });
    const data = async (token: string | null | undefined, url: string) => {
      const response = await get(token, url);
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      return json(response).data;
    };

    before(async () => {
      t = await startTestApp(client, { relations: true });
      // A folder holding articles, and one holding nothing this user may read.
      for (const payload of [
        { collection: 'blog', schema: null, meta: { icon: 'folder' } },
        { collection: 'shop', schema: null, meta: {} },
      ]) {
        assert.equal((await t.request({ method: 'POST', url: '/collections', payload })).statusCode, 200);
      }
      assert.equal(
        (await t.request({ method: 'PATCH', url: '/collections/articles', payload: { meta: { group: 'blog' } } }))
          .statusCode,
        200,
      );
      assert.equal(
        (await t.request({ method: 'PATCH', url: '/collections/tags', payload: { meta: { group: 'shop' } } }))
          .statusCode,
        200,
      );

      const appPolicy = await createPolicy(t, {
        app_access: true,
        permissions: [
          { collection: 'articles', fields: 'id,title,status,author', permissions: { status: { _eq: 'published' } } },
          { collection: 'authors', fields: '*' },
          { collection: 'articles', action: 'update', fields: 'body' },
        ],
      });
      app = (await createUserWithPolicies(t, [appPolicy])).token;
      const fieldsPolicy = await createPolicy(t, {
        permissions: [
          { collection: 'service_fields', fields: '*' },
          { collection: 'articles', fields: 'id,title' },
          { collection: 'articles', fields: 'rating', permissions: { status: { _eq: 'published' } } },
        ],
      });
      fieldsOnly = (await createUserWithPolicies(t, [fieldsPolicy])).token;
      noApp = (await createUserWithPolicies(t, [await createPolicy(t, { permissions: [{ collection: 'articles' }] })]))
        .token;
    });
    after(async () => {
      await t?.close();
    });

    it('lists the collections an app user may read, with the folders that hold them', async () => {
      const names = (await data(app, '/collections')).map((c: { collection: string }) => c.collection);
      // articles and authors by the policy; blog holds articles; the service_* ones by app access's own rules.
      assert.deepEqual(names, [
        'articles',
        'authors',
        'blog',
        'service_access',
        'service_activity',
        'service_collections',
        // Their own comments, as Directus's app access gives them.
        'service_comments',
        'service_fields',
        // The manual flows (Studio's buttons on item pages) and their own notifications, as Directus's app access.
        'service_flows',
        'service_notifications',
        'service_permissions',
        'service_policies',
        // Their own, their role's and everyone's presets and bookmarks, as Directus's app access.
        'service_presets',
        'service_relations',
        'service_roles',
        'service_settings',
        'service_users',
      ]);
      const articles = await data(app, '/collections/articles');
      assert.equal(articles.collection, 'articles');
      assert.equal(articles.meta.group, 'blog');
      assert.equal((await data(app, '/collections/blog')).schema, null);
    });

    it('answers a hidden collection exactly like a missing one', async () => {
      for (const hidden of ['tags', 'shop', 'articles_tags']) {
        const response = await get(app, `/collections/${hidden}`);
        assert.equal(response.statusCode, 403);
        assert.equal(response.body, (await get(app, `/collections/${hidden}x`)).body.replaceAll(`${hidden}x`, hidden));
      }
    });

    it('lists only the fields of the read field sets', async () => {
      const fields = await data(app, '/fields/articles');
      assert.deepEqual(
        fields.map((f: { field: string }) => f.field),
        ['id', 'title', 'status', 'author'],
      );
      assert.equal(fields[1].schema.max_length, 200);
      // authors is granted with `*`: every field, the o2m alias included.
      const authorFields = (await data(app, '/fields/authors')).map((f: { field: string }) => f.field);
      assert.deepEqual([...authorFields].sort(), ['active', 'articles', 'bio', 'email', 'id', 'joined', 'name']);
      assert.equal((await data(app, '/fields/articles/title')).field, 'title');
      const all = await data(app, '/fields');
      assert.deepEqual(
        all
          .filter((f: { collection: string }) => !f.collection.startsWith('service_'))
          .map((f: { collection: string; field: string }) => `${f.collection}.${f.field}`)
          .sort(),
        [
          ...['id', 'title', 'status', 'author'].map((f) => `articles.${f}`),
          ...authorFields.map((f: string) => `authors.${f}`),
        ].sort(),
      );
      // Update rights do not make a field readable.
      const body = await get(app, '/fields/articles/body');
      assert.equal(errorCode(body), 'FORBIDDEN');
      assert.equal(body.body, (await get(app, '/fields/articles/nope')).body.replaceAll('nope', 'body'));
      assert.equal(errorCode(await get(app, '/fields/tags')), 'FORBIDDEN');
      assert.equal(errorCode(await get(app, '/fields/tags/name')), 'FORBIDDEN');
    });

    it('lists the relations whose ends are all visible', async () => {
      const relations = await data(app, '/relations');
      // The system relations among the service_* collections app access may read are visible too.
      assert.deepEqual(
        relations.map((r: { collection: string; field: string }) => `${r.collection}.${r.field}`).sort(),
        [
          'articles.author',
          'service_access.policy',
          'service_access.role',
          'service_access.user',
          'service_activity.user',
          'service_comments.user_created',
          'service_comments.user_updated',
          'service_notifications.recipient',
          'service_notifications.sender',
          'service_permissions.policy',
          'service_presets.role',
          'service_presets.user',
          'service_roles.parent',
          'service_settings.public_registration_role',
          'service_users.role',
        ],
      );
      const author = relations.find((r: { collection: string }) => r.collection === 'articles');
      assert.equal(author.related_collection, 'authors');
      assert.equal(author.meta.one_field, 'articles');
      assert.deepEqual(
        (await data(app, '/relations/articles')).map((r: { field: string }) => r.field),
        ['author'],
      );
      assert.equal((await data(app, '/relations/articles/author')).related_collection, 'authors');
      assert.equal(errorCode(await get(app, '/relations/articles_tags')), 'FORBIDDEN');
      const hidden = await get(app, '/relations/articles_tags/tags_id');
      assert.equal(errorCode(hidden), 'FORBIDDEN');
      assert.equal(hidden.body, (await get(app, '/relations/articles_tags/nope')).body.replaceAll('nope', 'tags_id'));
    });

    it('hides a relation when the alias on its other side is not readable', async () => {
      const policy = await createPolicy(t, {
        app_access: true,
        permissions: [
          { collection: 'articles', fields: 'id,author' },
          { collection: 'authors', fields: 'id,name' },
        ],
      });
      const { token } = await createUserWithPolicies(t, [policy]);
      const userRelations = (list: { collection: string; field: string }[]) =>
        list.filter((r) => !r.collection.startsWith('service_')).map((r) => r.field);
      assert.deepEqual(userRelations(await data(token, '/relations')), []);
      assert.equal(errorCode(await get(token, '/relations/articles/author')), 'FORBIDDEN');
      const withAlias = await createPolicy(t, {
        app_access: true,
        permissions: [
          { collection: 'articles', fields: 'id,author' },
          { collection: 'authors', fields: 'id,articles' },
        ],
      });
      const other = await createUserWithPolicies(t, [withAlias]);
      assert.deepEqual(userRelations(await data(other.token, '/relations')), ['author']);
    });

    it('serves /fields to a user granted read on service_fields, and nothing else of the schema', async () => {
      assert.deepEqual(
        (await data(fieldsOnly, '/fields/articles')).map((f: { field: string }) => f.field),
        ['id', 'title', 'rating'],
      );
      assert.equal(errorCode(await get(fieldsOnly, '/fields/authors')), 'FORBIDDEN');
      assert.equal(errorCode(await get(fieldsOnly, '/collections')), 'FORBIDDEN');
      assert.equal(errorCode(await get(fieldsOnly, '/relations')), 'FORBIDDEN');
    });

    it('refuses users without app access, and the public, with 403', async () => {
      for (const url of [
        '/collections',
        '/collections/articles',
        '/fields',
        '/fields/articles',
        '/fields/articles/id',
        '/relations',
        '/relations/articles',
        '/relations/articles/author',
      ]) {
        for (const token of [noApp, null]) {
          const response = await get(token, url);
          assert.equal(response.statusCode, 403, `${url} ${token}`);
          assert.equal(errorCode(response), 'FORBIDDEN');
        }
      }
    });

    it('keeps schema changes for admins', async () => {
      const writes = [
        { method: 'POST' as const, url: '/collections', payload: { collection: 'mine', schema: {} } },
        { method: 'PATCH' as const, url: '/collections/articles', payload: { meta: { note: 'x' } } },
        { method: 'DELETE' as const, url: '/collections/authors' },
        { method: 'POST' as const, url: '/fields/articles', payload: { field: 'extra', type: 'string' } },
        { method: 'PATCH' as const, url: '/fields/articles/title', payload: { meta: { note: 'x' } } },
        { method: 'DELETE' as const, url: '/fields/articles/title' },
        {
          method: 'POST' as const,
          url: '/relations',
          payload: { collection: 'articles', field: 'rating', related_collection: 'authors' },
        },
        { method: 'DELETE' as const, url: '/relations/articles/author' },
      ];
      for (const write of writes)
        assert.equal(errorCode(await t.request({ ...write, token: app })), 'FORBIDDEN', `${write.method} ${write.url}`);
      assert.equal((await data(undefined, '/fields/articles/title')).meta?.note ?? null, null);
      assert.equal((await data(undefined, '/relations/articles/author')).related_collection, 'authors');
    });

    it('leaves admins seeing everything', async () => {
      const names = (await data(undefined, '/collections')).map((c: { collection: string }) => c.collection);
      for (const name of ['articles', 'tags', 'shop', 'blog', 'pages_sections', 'service_users', 'service_fields'])
        assert.ok(names.includes(name), name);
      assert.equal((await data(undefined, '/fields/articles')).length, 19);
    });
  });
}
