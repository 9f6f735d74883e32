/**
 * Write permissions on every database (Directus docs: Errors, Access control) for three restricted roles: "own rows only"
 * ($CURRENT_USER presets and item rules), "editor" (field subsets, presets under the payload, $NOW, validation,
 * a draft-only update rule, $CURRENT_USER.<path> presets on nested creates) and "linker" (a relational item rule
 * through $CURRENT_USER.email, links and deselects of o2m rows). A refused write leaves nothing behind, and a row
 * the caller may not touch answers exactly like a missing one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';

type Row = Record<string, unknown>;

for (const client of testClients()) {
  describe(`write permissions (${clientLabel(client)})`, () => {
    let t: TestApp;
    let owner: { id: string; token: string };
    let other: { id: string; token: string };
    let editor: { id: string; token: string };
    let linker: { id: string; token: string };
    let reader: { id: string; token: string };

    const send = (token: string, method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const ok = async (token: string, method: 'POST' | 'PATCH', url: string, body: unknown) => {
      const response = await send(token, method, url, body);
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };
    const row = async (table: string, id: unknown): Promise<Row | undefined> => {
      const found = await queryBuilder(t.context.db)(table).where({ id }).first();
      return found ? { ...found } : undefined;
    };
    const count = async (table: string, where: Row = {}) =>
      Number((await queryBuilder(t.context.db)(table).where(where).count({ n: '*' }))[0]!.n);

    before(async () => {
      t = await startTestApp(client, { relations: true });
      const own = await createPolicy(t, {
        permissions: [
          { collection: 'articles', action: 'read', fields: '*', permissions: { uid: { _eq: '$CURRENT_USER' } } },
          {
            collection: 'articles',
            action: 'create',
            fields: 'title,body,rating,tags',
            presets: { uid: '$CURRENT_USER', status: 'draft' },
          },
          {
            collection: 'articles',
            action: 'update',
            fields: 'title,body,rating',
            permissions: { uid: { _eq: '$CURRENT_USER' } },
          },
          { collection: 'articles', action: 'delete', permissions: { uid: { _eq: '$CURRENT_USER' } } },
          { collection: 'articles_tags', action: 'create', fields: '*' },
          { collection: 'articles_tags', action: 'read', fields: '*' },
          { collection: 'tags', action: 'read', fields: '*' },
        ],
      });
      owner = await createUserWithPolicies(t, [own]);
      other = await createUserWithPolicies(t, [own]);
      const edit = await createPolicy(t, {
        permissions: [
          { collection: 'articles', action: 'read', fields: '*' },
          {
            collection: 'articles',
            action: 'create',
            fields: 'title,slug,status,rating,author',
            presets: { status: 'draft', publish_date: '$NOW' },
            validation: { rating: { _lte: 5 } },
          },
          {
            collection: 'articles',
            action: 'update',
            fields: 'title,status,author',
            permissions: { status: { _in: ['draft', 'review'] } },
            validation: { status: { _in: ['draft', 'review'] } },
          },
          { collection: 'authors', action: 'read', fields: '*' },
          { collection: 'authors', action: 'update', fields: 'articles' },
          { collection: 'authors', action: 'create', fields: 'name', presets: { bio: '$CURRENT_USER.email' } },
        ],
      });
      // A second policy adds a field and a validation rule of its own: fields are unioned, validations all apply.
      const review = await createPolicy(t, {
        permissions: [
          {
            collection: 'articles',
            action: 'create',
            fields: 'body',
            validation: { _and: [{ title: { _nempty: true } }] },
          },
        ],
      });
      editor = await createUserWithPolicies(t, [edit, review], { email: 'editor@example.com' });
      const link = await createPolicy(t, {
        permissions: [
          { collection: 'articles', action: 'read', fields: '*' },
          {
            collection: 'articles',
            action: 'update',
            fields: 'author,title',
            permissions: { author: { email: { _eq: '$CURRENT_USER.email' } } },
          },
          { collection: 'authors', action: 'read', fields: '*' },
          { collection: 'authors', action: 'create', fields: 'name,articles' },
          {
            collection: 'authors',
            action: 'update',
            fields: 'articles',
            permissions: { email: { _eq: '$CURRENT_USER.email' } },
          },
        ],
      });
      linker = await createUserWithPolicies(t, [link], { email: 'ada@example.com' });
      reader = await createUserWithPolicies(t, [
        await createPolicy(t, { permissions: [{ collection: 'articles', fields: '*' }] }),
      ]);
    });
    after(async () => {
      await t?.close();
    });

    it('refuses an action without a rule like an unknown collection, before looking at the body', async () => {
      const unknown = await send(reader.token, 'POST', '/items/nope', { title: 'x' });
      assert.equal(unknown.statusCode, 403);
      const refused = [
        await send(reader.token, 'POST', '/items/articles', { title: 'x' }),
        await send(reader.token, 'POST', '/items/articles', 'not json at all'),
        await send(reader.token, 'PATCH', '/items/articles/1', { title: 'x' }),
        await send(reader.token, 'DELETE', '/items/articles/1'),
        await send(editor.token, 'DELETE', '/items/articles/3'),
        await send(owner.token, 'POST', '/items/authors', { name: 'x' }),
      ];
      for (const response of refused) {
        assert.equal(response.statusCode, 403, response.body);
        assert.equal(errorCode(response), 'FORBIDDEN');
      }
      assert.equal(refused[0]!.body, unknown.body.split('nope').join('articles'));
      // The same answer without a request, for front ends listing what may be written.
      const caller = await t.context.accountability.resolve(editor.token, null);
      const permissions = await t.context.access.permissionsOf(caller);
      const can = (collection: string, action: 'create' | 'update' | 'delete') =>
        t.context.writer.canWrite(collection, action, caller, permissions);
      assert.deepEqual(
        [
          can('articles', 'create'),
          can('articles', 'update'),
          can('articles', 'delete'),
          can('tags', 'create'),
          can('service_users', 'update'),
          can('nope', 'create'),
        ],
        [true, true, false, false, false, false],
      );
      assert.equal((await row('articles', 1))!.title, 'Hello World');
      assert.equal(await count('articles', { id: 3 }), 1);
    });

    it('refuses fields outside the rules exactly like unknown fields, writing nothing', async () => {
      const before = await count('articles');
      const forbidden = await send(owner.token, 'POST', '/items/articles', { title: 'Mine', slug: 'mine' });
      const unknown = await send(owner.token, 'POST', '/items/articles', { title: 'Mine', nope: 'mine' });
      assert.equal(forbidden.statusCode, 403);
      assert.equal(forbidden.body, unknown.body.split('nope').join('slug'));
      assert.match(json(forbidden).errors[0].message, /field "slug" in collection "articles"/);
      // A preset's field need not be writable: uid and status are not in the owner's create fields.
      assert.equal(
        errorCode(await send(owner.token, 'POST', '/items/articles', { title: 'Mine', status: 'published' })),
        'FORBIDDEN',
      );
      assert.equal(errorCode(await send(editor.token, 'PATCH', '/items/articles/3', { rating: 1 })), 'FORBIDDEN');
      assert.equal(await count('articles'), before);
    });

    it('merges presets under the payload, with $CURRENT_USER, $NOW and $CURRENT_USER.<path> resolved', async () => {
      const mine = await ok(owner.token, 'POST', '/items/articles?fields=id,uid,status,title', { title: 'Owned' });
      assert.deepEqual({ ...mine, id: undefined }, { id: undefined, uid: owner.id, status: 'draft', title: 'Owned' });
      const drafted = await ok(editor.token, 'POST', '/items/articles?fields=id,status,publish_date,body', {
        title: 'Edited',
        body: 'Text',
      });
      assert.equal(drafted.status, 'draft');
      assert.equal(drafted.body, 'Text');
      assert.ok(Math.abs(Date.parse(drafted.publish_date) - Date.now()) < 2 * 86_400_000, drafted.publish_date);
      const chosen = await ok(editor.token, 'POST', '/items/articles?fields=status', {
        title: 'In review',
        status: 'review',
      });
      assert.equal(chosen.status, 'review');
      const nested = await ok(editor.token, 'POST', '/items/articles?fields=id,author.name,author.bio', {
        title: 'With author',
        author: { name: 'Nested' },
      });
      assert.deepEqual(nested.author, { name: 'Nested', bio: 'editor@example.com' });
    });

    it('answers failed validation rules with FAILED_VALIDATION naming field, type, limit and path', async () => {
      const before = await count('articles');
      const high = await send(editor.token, 'POST', '/items/articles', [
        { title: 'Fine', rating: 5 },
        { title: 'Too high', rating: 9 },
      ]);
      assert.equal(high.statusCode, 400, high.body);
      assert.deepEqual(json(high).errors, [
        {
          message: 'Validation failed for field "rating". Value has to be less than or equal to 5.',
          extensions: { code: 'FAILED_VALIDATION', field: 'rating', path: [1], type: 'lte', valid: 5 },
        },
      ]);
      const both = json(await send(editor.token, 'POST', '/items/articles', { title: '', rating: 6 })).errors;
      assert.deepEqual(both.map((e: { extensions: Row }) => [e.extensions.field, e.extensions.type]).sort(), [
        ['rating', 'lte'],
        ['title', 'nempty'],
      ]);
      const status = await send(editor.token, 'PATCH', '/items/articles/3', { status: 'published' });
      assert.equal(status.statusCode, 400);
      assert.deepEqual(json(status).errors[0].extensions, {
        code: 'FAILED_VALIDATION',
        field: 'status',
        path: [],
        type: 'in',
        valid: ['draft', 'review'],
      });
      assert.equal(await count('articles'), before);
      assert.equal((await row('articles', 3))!.status, 'draft');
    });

    it('updates and deletes only rows the item rules match; others answer like missing rows and nothing is written', async () => {
      const mine = (await ok(owner.token, 'POST', '/items/articles?fields=id', { title: 'Mine to change' })).id;
      const theirs = (await ok(other.token, 'POST', '/items/articles?fields=id', { title: 'Not yours' })).id;
      const missing = await send(owner.token, 'PATCH', '/items/articles/99999', { title: 'x' });
      const hidden = await send(owner.token, 'PATCH', `/items/articles/${theirs}`, { title: 'x' });
      assert.equal(hidden.statusCode, 403);
      assert.equal(hidden.body, missing.body);
      const batch = await send(owner.token, 'PATCH', '/items/articles', [
        { id: mine, title: 'Changed' },
        { id: theirs, title: 'Changed' },
      ]);
      assert.equal(batch.body, missing.body);
      const keys = await send(owner.token, 'PATCH', '/items/articles', { keys: [mine, theirs], data: { rating: 2 } });
      assert.equal(keys.body, missing.body);
      assert.equal((await row('articles', mine))!.title, 'Mine to change');
      assert.equal((await row('articles', theirs))!.title, 'Not yours');
      // Update by query reads its keys under the read rules: only the owner's rows are touched.
      const byQuery = await ok(owner.token, 'PATCH', '/items/articles?fields=id', {
        query: { filter: { id: { _in: [mine, theirs] } } },
        data: { rating: 1 },
      });
      assert.deepEqual(
        byQuery.map((r: Row) => r.id),
        [mine],
      );
      assert.equal(
        (await ok(owner.token, 'PATCH', `/items/articles/${mine}?fields=title`, { title: 'Changed' })).title,
        'Changed',
      );
      // The editor may update drafts only; a published row is refused like a missing one.
      assert.equal(
        (await send(editor.token, 'PATCH', '/items/articles/1', { title: 'x' })).body,
        (await send(editor.token, 'PATCH', '/items/articles/99999', { title: 'x' })).body,
      );
      const deleteMissing = await send(owner.token, 'DELETE', '/items/articles/99999');
      const deleteHidden = await send(owner.token, 'DELETE', `/items/articles/${theirs}`);
      assert.equal(deleteHidden.statusCode, 403);
      assert.equal(deleteHidden.body, deleteMissing.body);
      assert.equal((await send(owner.token, 'DELETE', '/items/articles', [mine, theirs])).statusCode, 403);
      assert.equal(await count('articles', { id: mine }), 1);
      assert.equal((await send(owner.token, 'DELETE', `/items/articles/${mine}`)).statusCode, 204);
      assert.equal(await count('articles', { id: mine }), 0);
      assert.equal(await count('articles', { id: theirs }), 1);
    });

    it('checks relational item rules ($CURRENT_USER.<path>) on the rows as they are before the write', async () => {
      // Article 1 and 2 belong to Ada (ada@example.com, the linker's email); 4 to Alan.
      assert.equal(
        (await ok(linker.token, 'PATCH', '/items/articles/2?fields=title', { title: 'Second, edited' })).title,
        'Second, edited',
      );
      const alans = await send(linker.token, 'PATCH', '/items/articles/4', { title: 'x' });
      assert.equal(alans.statusCode, 403);
      assert.equal(alans.body, (await send(linker.token, 'PATCH', '/items/articles/99999', { title: 'x' })).body);
      assert.equal((await row('articles', 4))!.title, 'Machines Thinking');
    });

    it('checks nested writes per related collection and action: create, update, link by key and deselect', async () => {
      const authors = await count('authors');
      // A nested create is checked against the related collection's create fields; a nested object naming an existing
      // key is an update, which the editor may not do on authors.
      assert.equal(
        errorCode(
          await send(editor.token, 'POST', '/items/articles', {
            title: 'Nested',
            author: { name: 'A', email: 'a@example.com' },
          }),
        ),
        'FORBIDDEN',
      );
      assert.equal(
        errorCode(
          await send(editor.token, 'POST', '/items/articles', { title: 'Nested', author: { id: 1, name: 'Renamed' } }),
        ),
        'FORBIDDEN',
      );
      assert.equal((await row('authors', 1))!.name, 'Ada Lovelace');
      assert.equal(await count('authors'), authors);
      // m2m: the owner may create junction rows and link existing tags.
      const tagged = await ok(owner.token, 'POST', '/items/articles?fields=id,tags.tags_id', {
        title: 'Tagged',
        tags: [{ tags_id: 1 }, { tags_id: 2 }],
      });
      assert.deepEqual(tagged.tags.map((r: Row) => r.tags_id).sort(), [1, 2]);
      // ...but not create tags.
      assert.equal(
        errorCode(
          await send(owner.token, 'POST', '/items/articles', {
            title: 'New tag',
            tags: [{ tags_id: { name: 'brand new' } }],
          }),
        ),
        'FORBIDDEN',
      );
      assert.equal(await count('tags', { name: 'brand new' }), 0);
      // Linking an existing article by key updates its foreign key: the linker's update rule must hold on it.
      const linked = await ok(linker.token, 'POST', '/items/authors?fields=id,articles', {
        name: 'Ada II',
        articles: [1],
      });
      assert.deepEqual(linked.articles, [1]);
      const before = await count('authors');
      const refused = await send(linker.token, 'POST', '/items/authors', { name: 'Alan II', articles: [4] });
      assert.equal(refused.statusCode, 403);
      assert.equal(await count('authors'), before);
      assert.equal(Number((await row('articles', 4))!.author), 2);
      // A nested update must match the update rule too.
      assert.equal(
        (await send(linker.token, 'PATCH', '/items/authors/1', { articles: { update: [{ id: 4, title: 'x' }] } }))
          .statusCode,
        403,
      );
      assert.equal((await send(linker.token, 'PATCH', '/items/authors/2', { articles: [4] })).statusCode, 403);
      // Deselecting (nullify) is an update of the dropped row: article 2 is Ada's, so it may be unlinked.
      const kept = await ok(linker.token, 'PATCH', '/items/authors/1?fields=articles', { articles: [] });
      assert.deepEqual(kept.articles, []);
      assert.equal((await row('articles', 2))!.author, null);
      assert.ok((await count('authors')) > authors);
      // Unlinking needs the update rule on the dropped row: the editor may touch drafts only.
      assert.equal((await send(editor.token, 'PATCH', '/items/authors/3', { articles: [] })).statusCode, 403);
      assert.equal(Number((await row('articles', 5))!.author), 3);
      await ok(editor.token, 'PATCH', '/items/authors/2', { articles: { delete: [3] } });
      assert.equal((await row('articles', 3))!.author, null);
      assert.equal(Number((await row('articles', 4))!.author), 2);
    });

    it('lets the Public policy create what it grants, answering 204 when it may not read the item back', async () => {
      await grantPublic(t, [{ collection: 'tags', action: 'create', fields: 'name', presets: { name: 'anonymous' } }]);
      const created = await t.request({
        method: 'POST',
        url: '/items/tags',
        token: null,
        payload: { name: 'from the public' },
      });
      assert.equal(created.statusCode, 204, created.body);
      assert.equal(created.body, '');
      assert.equal(await count('tags', { name: 'from the public' }), 1);
      assert.equal((await t.request({ method: 'POST', url: '/items/tags', token: null, payload: {} })).statusCode, 204);
      assert.equal(await count('tags', { name: 'anonymous' }), 1);
      assert.equal((await t.request({ method: 'DELETE', url: '/items/tags/1', token: null })).statusCode, 403);
    });

    it('keeps admins unrestricted', async () => {
      const created = await ok(ADMIN.token, 'POST', '/items/articles?fields=id,status,uid', {
        title: 'Admin',
        status: 'published',
        slug: 'admin-slug',
      });
      assert.deepEqual({ status: created.status, uid: created.uid }, { status: 'published', uid: null });
    });
  });
}
