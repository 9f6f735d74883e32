/**
 * Comments on items on every database (Directus docs: Comments): /comments CRUD with the query language, the
 * creator and dates filled, `comment`, `collection` and `item` required, comments only on items the caller may
 * read, `@<uuid>` mentions of users that exist, and app users' rules as Directus gives them (their own comments to
 * read, edit and delete; others' only through a policy); the comments collection on /graphql/system.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const NOBODY = '3f0e8c52-1b7a-4c1e-9d3a-2b6f4e8a9c01';

for (const client of testClients()) {
  describe(`comments (${clientLabel(client)})`, () => {
    let t: TestApp;
    let openId: number;
    let closedId: number;
    let alice: { id: string; token: string };
    let bob: { id: string; token: string };

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
      openId = (await ok('POST', '/items/tickets', { title: 'Open' })).id;
      closedId = (await ok('POST', '/items/tickets', { title: 'Closed' })).id;
      // App users who may read the open ticket only; comments: Directus's app rules alone.
      const policy = await createPolicy(t, {
        app_access: true,
        permissions: [{ collection: 'tickets', permissions: { title: { _eq: 'Open' } } }],
      });
      alice = await createUserWithPolicies(t, [policy]);
      bob = await createUserWithPolicies(t, [policy]);
    });
    after(async () => {
      await t?.close();
    });

    it('creates a comment with its creator and date, and lists comments with the query language', async () => {
      const created = await ok('POST', '/comments', { collection: 'tickets', item: openId, comment: 'First!' });
      assert.equal(created.collection, 'tickets');
      assert.equal(created.item, String(openId));
      assert.equal(created.comment, 'First!');
      assert.ok(created.user_created);
      assert.ok(created.date_created);
      assert.equal(created.date_updated, null);
      const listed = await ok('GET', `/comments?filter[item][_eq]=${openId}&fields=comment,user_created.email`);
      assert.deepEqual(listed, [{ comment: 'First!', user_created: { email: 'admin@example.com' } }]);
      const edited = await ok('PATCH', `/comments/${created.id}`, { comment: 'First, edited' });
      assert.equal(edited.comment, 'First, edited');
      assert.ok(edited.date_updated);
      assert.equal((await send('DELETE', `/comments/${created.id}`)).statusCode, 204);
    });

    it('refuses comments without their fields, on items that are not there, and from the public', async () => {
      const reason = (e: { extensions: { reason: string } }) => e.extensions.reason;
      assert.equal(
        reason(await refused(400, 'INVALID_PAYLOAD', 'POST', '/comments', { collection: 'tickets', item: openId })),
        '"comment" is required',
      );
      assert.equal(
        reason(await refused(400, 'INVALID_PAYLOAD', 'POST', '/comments', { collection: 'tickets', comment: 'x' })),
        '"item" is required',
      );
      await refused(400, 'INVALID_PAYLOAD', 'POST', '/comments', { item: openId, comment: 'x' });
      await refused(403, 'FORBIDDEN', 'POST', '/comments', { collection: 'tickets', item: 9999, comment: 'x' });
      await refused(403, 'FORBIDDEN', 'POST', '/comments', { collection: 'nowhere', item: 1, comment: 'x' });
      await refused(403, 'FORBIDDEN', 'POST', '/comments', { collection: 'tickets', item: openId, comment: 'x' }, null);
    });

    it('checks @<uuid> mentions: users that exist are kept as written, unknown ones refused', async () => {
      const text = `Hey @${alice.id} and @${bob.id.toUpperCase()}, see @${alice.id}`;
      const created = await ok('POST', '/comments', { collection: 'tickets', item: openId, comment: text });
      assert.equal(created.comment, text);
      const error = await refused(400, 'INVALID_PAYLOAD', 'POST', '/comments', {
        collection: 'tickets',
        item: openId,
        comment: `Ping @${NOBODY}`,
      });
      assert.equal(error.extensions.reason, `"comment" mentions user "${NOBODY}", who doesn't exist`);
      await refused(400, 'INVALID_PAYLOAD', 'PATCH', `/comments/${created.id}`, { comment: `Ping @${NOBODY}` });
    });

    it('gives app users Directus’s rules: comment on readable items, read, edit and delete only their own', async () => {
      const mine = await ok(
        'POST',
        '/comments',
        { collection: 'tickets', item: openId, comment: 'Alice here' },
        alice.token,
      );
      assert.equal(mine.user_created, alice.id);
      await refused(
        403,
        'FORBIDDEN',
        'POST',
        '/comments',
        { collection: 'tickets', item: closedId, comment: 'x' },
        alice.token,
      );
      const theirs = await ok(
        'POST',
        '/comments',
        { collection: 'tickets', item: openId, comment: 'Bob here' },
        bob.token,
      );
      const seen = await ok(
        'GET',
        `/comments?filter[item][_eq]=${openId}&fields=comment&sort=comment`,
        undefined,
        alice.token,
      );
      assert.deepEqual(seen, [{ comment: 'Alice here' }]);
      await refused(403, 'FORBIDDEN', 'GET', `/comments/${theirs.id}`, undefined, alice.token);
      await refused(403, 'FORBIDDEN', 'PATCH', `/comments/${theirs.id}`, { comment: 'hijacked' }, alice.token);
      await refused(403, 'FORBIDDEN', 'DELETE', `/comments/${theirs.id}`, undefined, alice.token);
      // Their own comment: the text only.
      await refused(403, 'FORBIDDEN', 'PATCH', `/comments/${mine.id}`, { user_created: bob.id }, alice.token);
      assert.equal(
        (await ok('PATCH', `/comments/${mine.id}`, { comment: 'Alice again' }, alice.token)).comment,
        'Alice again',
      );
      assert.equal((await send('DELETE', `/comments/${mine.id}`, undefined, alice.token)).statusCode, 204);
      // An admin sees and removes anyone's.
      assert.equal((await ok('GET', `/comments/${theirs.id}`)).comment, 'Bob here');
      assert.equal((await send('DELETE', `/comments/${theirs.id}`)).statusCode, 204);
    });

    it('serves the comments collection on /graphql/system', async () => {
      const query = async (q: string, token?: string) =>
        json(await send('POST', '/graphql/system', { query: q }, token));
      const created = await query(
        `mutation { create_comments_item(data: {collection: "tickets", item: "${openId}", comment: "via GraphQL"}) { id comment } }`,
        alice.token,
      );
      assert.equal(created.errors, undefined, JSON.stringify(created.errors));
      assert.equal(created.data.create_comments_item.comment, 'via GraphQL');
      const listed = await query(
        '{ comments(filter: {comment: {_eq: "via GraphQL"}}) { comment user_created { id } } }',
        alice.token,
      );
      assert.deepEqual(listed.data.comments, [{ comment: 'via GraphQL', user_created: { id: alice.id } }]);
      const refusedCreate = await query(
        `mutation { create_comments_item(data: {collection: "tickets", item: "${closedId}", comment: "no"}) { id } }`,
        alice.token,
      );
      assert.equal(refusedCreate.errors[0].extensions.code, 'FORBIDDEN');
    });

    it('drops the comments of a collection with the collection', async () => {
      assert.ok((await ok('GET', '/comments?filter[collection][_eq]=tickets')).length > 0);
      assert.equal((await send('DELETE', '/collections/tickets')).statusCode, 204);
      assert.deepEqual(await ok('GET', '/comments?filter[collection][_eq]=tickets'), []);
    });
  });
}
