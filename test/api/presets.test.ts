/**
 * Presets and bookmarks on every database (Directus docs: Presets): /presets CRUD with the query language, the JSON
 * fields kept as JSON, app users' rules as Directus gives them (read their own, their role's and everyone's; write
 * only their own, never one for another user or, by leaving `user` out, for everyone), bad input refused with a
 * code, the presets collection on /graphql/system, and a collection's presets dropped with it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type User = { id: string; token: string; role: string };

for (const client of testClients()) {
  describe(`presets (${clientLabel(client)})`, () => {
    let t: TestApp;
    let alice: User;
    let bob: User;
    let carol: User; // in Alice's role
    let dave: User; // a user without app access

    const send = (method: Method, url: string, body?: unknown, token?: string | null) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const ok = async (method: Method, url: string, body?: unknown, token?: string | null) => {
      const response = await send(method, url, body, token);
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };
    const refused = async (
      status: number,
      code: string,
      method: Method,
      url: string,
      body?: unknown,
      token?: string | null,
    ) => {
      const response = await send(method, url, body, token);
      assert.equal(response.statusCode, status, response.body);
      assert.equal(errorCode(response), code, response.body);
      return json(response).errors[0];
    };
    const names = async (token?: string) =>
      (await ok('GET', '/presets?fields=bookmark&sort=bookmark&filter[bookmark][_nnull]=true', undefined, token)).map(
        (p: { bookmark: string }) => p.bookmark,
      );

    before(async () => {
      t = await startTestApp(client);
      await ok('POST', '/collections', {
        collection: 'tickets',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
        ],
      });
      const policy = await createPolicy(t, { app_access: true, permissions: [{ collection: 'tickets' }] });
      alice = await createUserWithPolicies(t, [policy]);
      bob = await createUserWithPolicies(t, [policy]);
      const carolId = randomUUID();
      await queryBuilder(t.context.db)('service_users').insert({
        id: carolId,
        email: `${carolId.slice(0, 8)}@example.com`,
        status: 'active',
        role: alice.role,
        token: `token-${carolId}`,
        provider: 'default',
      });
      carol = { id: carolId, token: `token-${carolId}`, role: alice.role };
      const noApp = await createPolicy(t, { permissions: [{ collection: 'tickets' }] });
      dave = await createUserWithPolicies(t, [noApp]);
    });
    after(async () => {
      await t?.close();
    });

    it('creates, reads, updates and deletes a bookmark with its JSON fields as JSON', async () => {
      const created = await ok('POST', '/presets', {
        bookmark: 'Open tickets',
        collection: 'tickets',
        layout: 'tabular',
        layout_query: { tabular: { fields: ['id', 'title'], sort: ['-id'], limit: 25 } },
        layout_options: { tabular: { widths: { title: 300 } } },
        filter: { title: { _contains: 'open' } },
        search: 'urgent',
      });
      assert.equal(typeof created.id, 'number');
      assert.equal(created.user, null);
      assert.equal(created.role, null);
      assert.equal(created.icon, 'bookmark');
      assert.equal(created.refresh_interval, null);
      assert.deepEqual(created.layout_query, { tabular: { fields: ['id', 'title'], sort: ['-id'], limit: 25 } });
      assert.deepEqual(created.filter, { title: { _contains: 'open' } });
      const read = await ok('GET', `/presets/${created.id}?fields=bookmark,layout_options,search`);
      assert.deepEqual(read, {
        bookmark: 'Open tickets',
        layout_options: { tabular: { widths: { title: 300 } } },
        search: 'urgent',
      });
      const listed = await ok('GET', '/presets?filter[collection][_eq]=tickets&fields=id,bookmark&meta=filter_count');
      assert.deepEqual(listed, [{ id: created.id, bookmark: 'Open tickets' }]);
      const renamed = await ok('PATCH', `/presets/${created.id}`, { bookmark: 'Open', color: '#FF0000' });
      assert.equal(renamed.bookmark, 'Open');
      assert.equal(renamed.color, '#FF0000');
      assert.equal((await send('DELETE', `/presets/${created.id}`)).statusCode, 204);
      await refused(403, 'FORBIDDEN', 'GET', `/presets/${created.id}`);
      // As Directus (accountability null): presets leave no activity or revisions.
      assert.deepEqual(await ok('GET', '/activity?filter[collection][_eq]=service_presets'), []);
      assert.deepEqual(await ok('GET', '/revisions?filter[collection][_eq]=service_presets'), []);
    });

    it('shows an app user their own, their role’s and everyone’s presets, and no one else’s', async () => {
      await ok('POST', '/presets', { bookmark: 'Global', collection: 'tickets' });
      await ok('POST', '/presets', { bookmark: 'Alice role', collection: 'tickets', role: alice.role });
      await ok('POST', '/presets', { bookmark: 'Bob role', collection: 'tickets', role: bob.role });
      await ok('POST', '/presets', { bookmark: 'Alice own', collection: 'tickets', user: alice.id });
      await ok('POST', '/presets', { bookmark: 'Bob own', collection: 'tickets', user: bob.id });
      assert.deepEqual(await names(alice.token), ['Alice own', 'Alice role', 'Global']);
      assert.deepEqual(await names(carol.token), ['Alice role', 'Global']);
      assert.deepEqual(await names(bob.token), ['Bob own', 'Bob role', 'Global']);
      assert.deepEqual(await names(), ['Alice own', 'Alice role', 'Bob own', 'Bob role', 'Global']);
      // Without app access, no presets at all.
      await refused(403, 'FORBIDDEN', 'GET', '/presets', undefined, dave.token);
      await refused(403, 'FORBIDDEN', 'GET', '/presets', undefined, null);
    });

    it('lets an app user write only their own presets', async () => {
      const [bobs] = await ok('GET', '/presets?filter[bookmark][_eq]=Bob own&fields=id');
      const [role] = await ok('GET', '/presets?filter[bookmark][_eq]=Alice role&fields=id');
      const [global] = await ok('GET', '/presets?filter[bookmark][_eq]=Global&fields=id');
      // Another user's: not to be read, changed or deleted.
      await refused(403, 'FORBIDDEN', 'GET', `/presets/${bobs.id}`, undefined, alice.token);
      await refused(403, 'FORBIDDEN', 'PATCH', `/presets/${bobs.id}`, { bookmark: 'mine now' }, alice.token);
      await refused(403, 'FORBIDDEN', 'DELETE', `/presets/${bobs.id}`, undefined, alice.token);
      // Their role's and everyone's: read, not changed.
      await refused(403, 'FORBIDDEN', 'PATCH', `/presets/${role.id}`, { bookmark: 'x' }, alice.token);
      await refused(403, 'FORBIDDEN', 'DELETE', `/presets/${global.id}`, undefined, alice.token);
      // Not created for another user or, explicitly, for nobody.
      const other = await refused(
        400,
        'FAILED_VALIDATION',
        'POST',
        '/presets',
        { bookmark: 'For Bob', collection: 'tickets', user: bob.id },
        alice.token,
      );
      assert.equal(other.extensions.field, 'user');
      await refused(
        400,
        'FAILED_VALIDATION',
        'POST',
        '/presets',
        { bookmark: 'For all', collection: 'tickets', user: null },
        alice.token,
      );
      // A create that names no user is the caller's.
      const mine = await ok('POST', '/presets', { bookmark: 'Mine', collection: 'tickets' }, alice.token);
      assert.equal(mine.user, alice.id);
      assert.deepEqual(await names(bob.token), ['Bob own', 'Bob role', 'Global']);
      // Their own: renamed, never handed to another user, deleted.
      assert.equal((await ok('PATCH', `/presets/${mine.id}`, { bookmark: 'Mine!' }, alice.token)).bookmark, 'Mine!');
      await refused(400, 'FAILED_VALIDATION', 'PATCH', `/presets/${mine.id}`, { user: bob.id }, alice.token);
      await refused(400, 'FAILED_VALIDATION', 'PATCH', `/presets/${mine.id}`, { user: null }, alice.token);
      // A batch update by query: refused whole when it reaches presets not theirs, else applied to theirs.
      await refused(403, 'FORBIDDEN', 'PATCH', '/presets', { query: {}, data: { color: '#00AA00' } }, alice.token);
      const mineOnly = { query: { filter: { user: { _eq: '$CURRENT_USER' } } }, data: { color: '#00AA00' } };
      await ok('PATCH', '/presets', mineOnly, alice.token);
      const colours = await ok('GET', '/presets?fields=bookmark&sort=bookmark&filter[color][_eq]=%2300AA00');
      assert.deepEqual(colours, [{ bookmark: 'Alice own' }, { bookmark: 'Mine!' }]);
      assert.equal((await send('DELETE', `/presets/${mine.id}`, undefined, alice.token)).statusCode, 204);
      // The last view of a collection (no bookmark name): one per user, theirs.
      const last = await ok(
        'POST',
        '/presets',
        { collection: 'tickets', layout_query: { tabular: { sort: ['title'] } } },
        carol.token,
      );
      assert.equal(last.bookmark, null);
      assert.equal(last.user, carol.id);
      const seen = await ok('GET', '/presets?filter[bookmark][_null]=true&fields=user', undefined, alice.token);
      assert.deepEqual(seen, []);
    });

    it('refuses bad input with a code', async () => {
      await refused(400, 'INVALID_PAYLOAD', 'POST', '/presets', {
        bookmark: 'x',
        collection: 'tickets',
        refresh_interval: 'often',
      });
      await refused(400, 'VALUE_TOO_LONG', 'POST', '/presets', { bookmark: 'x'.repeat(256), collection: 'tickets' });
      await refused(400, 'INVALID_FOREIGN_KEY', 'POST', '/presets', { collection: 'tickets', user: randomUUID() });
      await refused(400, 'INVALID_PAYLOAD', 'POST', '/presets', { collection: 'tickets', user: 'not-a-user' });
      await refused(400, 'INVALID_QUERY', 'GET', '/presets?filter[layout_query][_nope]=1');
      await refused(403, 'FORBIDDEN', 'GET', '/presets?fields=nothing_here');
      await refused(403, 'FORBIDDEN', 'PATCH', '/presets/999999', { bookmark: 'gone' });
    });

    it('serves the presets collection on /graphql/system, under the same rules', async () => {
      const query = async (q: string, token?: string) =>
        json(await send('POST', '/graphql/system', { query: q }, token));
      const created = await query(
        'mutation { create_presets_item(data: {bookmark: "Via GraphQL", collection: "tickets", layout_query: {tabular: {limit: 50}}}) { id bookmark user { id } layout_query } }',
        bob.token,
      );
      assert.equal(created.errors, undefined, JSON.stringify(created.errors));
      assert.deepEqual(created.data.create_presets_item.user, { id: bob.id });
      assert.deepEqual(created.data.create_presets_item.layout_query, { tabular: { limit: 50 } });
      const listed = await query(
        '{ presets(filter: {bookmark: {_eq: "Via GraphQL"}}) { bookmark } presets_aggregated { countAll } }',
        alice.token,
      );
      assert.deepEqual(listed.data.presets, []);
      const [alices] = await ok('GET', `/presets?filter[user][_eq]=${alice.id}&fields=id&limit=1`);
      const forAlice = await query(
        `mutation { update_presets_item(id: ${alices.id}, data: {bookmark: "taken"}) { id } }`,
        bob.token,
      );
      assert.equal(forAlice.errors[0].extensions.code, 'FORBIDDEN');
    });

    it('drops a user’s presets with the user, and a collection’s with the collection', async () => {
      assert.equal((await send('DELETE', `/users/${bob.id}`)).statusCode, 204);
      assert.deepEqual(await ok('GET', `/presets?filter[user][_eq]=${bob.id}`), []);
      assert.ok((await ok('GET', '/presets?filter[collection][_eq]=tickets')).length > 0);
      assert.equal((await send('DELETE', '/collections/tickets')).statusCode, 204);
      assert.deepEqual(await ok('GET', '/presets?filter[collection][_eq]=tickets'), []);
    });
  });
}
