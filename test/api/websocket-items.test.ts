/**
 * The `items` message of /websocket (Directus docs: WebSockets, Items): create, read, update and delete over the
 * socket go through REST's services: the same permissions (a restricted user's fields and rules, FORBIDDEN outside
 * them), the same validation errors, and the same change events (a subscriber on another socket hears the write).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { openWs, type WsClient } from '../helpers/ws-client.js';

for (const client of testClients()) {
  describe(`websocket items messages (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' } });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    const authed = async (token: string): Promise<WsClient> => {
      const ws = await openWs(url);
      ws.send({ type: 'auth', access_token: token });
      assert.equal((await ws.next()).status, 'ok');
      return ws;
    };
    const ask = async (ws: WsClient, message: Record<string, unknown>) => {
      ws.send({ type: 'items', ...message });
      return ws.next();
    };

    it('creates, reads, updates and deletes, and a subscriber on another socket hears each write', async () => {
      const ws = await authed(ADMIN.token);
      const watcher = await authed(ADMIN.token);
      watcher.send({ type: 'subscribe', collection: 'authors', query: { fields: ['id', 'name'] }, uid: 'w' });
      assert.equal((await watcher.next()).event, 'init');

      const created = await ask(ws, {
        action: 'create',
        collection: 'authors',
        data: { name: 'Socket author', bio: 'written over the socket' },
        query: { fields: ['id', 'name', 'bio'] },
        uid: 'c1',
      });
      assert.equal(created.type, 'items');
      assert.equal(created.uid, 'c1');
      assert.equal(created.data.name, 'Socket author');
      assert.equal(created.data.bio, 'written over the socket');
      const id = created.data.id;
      assert.deepEqual(await watcher.next(), {
        type: 'subscription',
        event: 'create',
        data: [{ id, name: 'Socket author' }],
        uid: 'w',
      });

      const many = await ask(ws, {
        action: 'create',
        collection: 'authors',
        data: [{ name: 'Socket two' }, { name: 'Socket three' }],
        query: { fields: ['id'] },
        uid: 'c2',
      });
      assert.equal(many.data.length, 2);
      // One message per created item, as Directus sends them.
      const batchEvents = [await watcher.next(), await watcher.next()];
      for (const event of batchEvents) assert.deepEqual([event.event, event.data.length], ['create', 1]);
      assert.deepEqual(batchEvents.map((event) => event.data[0].name).sort(), ['Socket three', 'Socket two']);

      const one = await ask(ws, { action: 'read', collection: 'authors', id, query: { fields: ['name'] }, uid: 'r1' });
      assert.deepEqual(one, { type: 'items', data: { name: 'Socket author' }, uid: 'r1' });
      const some = await ask(ws, {
        action: 'read',
        collection: 'authors',
        query: { filter: { name: { _starts_with: 'Socket' } }, fields: ['name'], sort: ['name'] },
        uid: 'r2',
      });
      assert.deepEqual(some.data, [{ name: 'Socket author' }, { name: 'Socket three' }, { name: 'Socket two' }]);

      const updated = await ask(ws, {
        action: 'update',
        collection: 'authors',
        id,
        data: { name: 'Socket author, renamed' },
        query: { fields: ['id', 'name'] },
        uid: 'u1',
      });
      assert.deepEqual(updated.data, { id, name: 'Socket author, renamed' });
      assert.deepEqual((await watcher.next()).data, [{ id, name: 'Socket author, renamed' }]);

      const ids = many.data.map((row: { id: number }) => row.id);
      const byIds = await ask(ws, { action: 'update', collection: 'authors', ids, data: { bio: 'both' }, uid: 'u2' });
      assert.equal(byIds.data.length, 2);
      assert.equal((await watcher.next()).event, 'update');

      const removed = await ask(ws, { action: 'delete', collection: 'authors', ids: [id, ...ids], uid: 'd1' });
      assert.deepEqual(removed, { type: 'items', data: [id, ...ids], uid: 'd1' });
      const deleted = await watcher.next();
      assert.equal(deleted.event, 'delete');
      assert.deepEqual(deleted.data.map(String).sort(), [id, ...ids].map(String).sort());
      const gone = await t.request({ method: 'GET', url: `/items/authors/${id}` });
      assert.equal(gone.statusCode, 403, 'deleted for REST too');
      ws.close();
      watcher.close();
    });

    it('a restricted user gets its fields and rows only, FORBIDDEN outside them, and validation errors', async () => {
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'authors', action: 'read', fields: 'id,name', permissions: { name: { _starts_with: 'Open' } } },
          { collection: 'authors', action: 'create', fields: 'name' },
        ],
      });
      const user = await createUserWithPolicies(t, [policy]);
      const hidden = json(
        await t.request({ method: 'POST', url: '/items/authors', payload: { name: 'Closed author', bio: 'x' } }),
      ).data;
      const ws = await authed(user.token);

      const created = await ask(ws, { action: 'create', collection: 'authors', data: { name: 'Open author' }, uid: 1 });
      assert.equal(created.uid, '1');
      assert.deepEqual(Object.keys(created.data).sort(), ['id', 'name']);

      const refused = await ask(ws, {
        action: 'create',
        collection: 'authors',
        data: { name: 'Open', bio: 'not writable' },
        uid: 'bio',
      });
      assert.equal(refused.type, 'items');
      assert.equal(refused.status, 'error');
      assert.equal(refused.uid, 'bio');
      assert.equal(refused.error.code, 'FORBIDDEN');

      const hiddenRead = await ask(ws, { action: 'read', collection: 'authors', id: hidden.id, uid: 'h' });
      assert.equal(hiddenRead.error.code, 'FORBIDDEN');
      const listed = await ask(ws, { action: 'read', collection: 'authors', query: { fields: ['*'] }, uid: 'l' });
      assert.ok(listed.data.length >= 1);
      for (const row of listed.data) {
        assert.ok(String(row.name).startsWith('Open'), `row outside the rule: ${row.name}`);
        assert.deepEqual(Object.keys(row).sort(), ['id', 'name']);
      }
      const noUpdate = await ask(ws, {
        action: 'update',
        collection: 'authors',
        id: created.data.id,
        data: {},
        uid: 'u',
      });
      assert.equal(noUpdate.error.code, 'FORBIDDEN');

      const missing = await ask(ws, { action: 'create', collection: 'authors', data: {}, uid: 'v' });
      assert.equal(missing.status, 'error');
      assert.match(missing.error.code, /^(FAILED_VALIDATION|CONTAINS_NULL_VALUES|INVALID_PAYLOAD)$/);
      ws.close();
    });

    it('answers malformed items messages with INVALID_PAYLOAD, never a crash', async () => {
      const ws = await authed(ADMIN.token);
      const cases: Record<string, unknown>[] = [
        { action: 'upsert', collection: 'authors' },
        { action: 'read' },
        { action: 'read', collection: 'authors', query: 'fields=*' },
        { action: 'read', collection: 'authors', ids: 'not-a-list' },
        { action: 'create', collection: 'authors', data: 'text' },
        { action: 'delete', collection: 'authors' },
        { action: 'read', collection: 'authors', query: { filter: { name: { _nope: 1 } } } },
      ];
      for (const [index, message] of cases.entries()) {
        const answer = await ask(ws, { ...message, uid: `bad-${index}` });
        assert.equal(answer.status, 'error', JSON.stringify(message));
        assert.equal(answer.uid, `bad-${index}`);
        assert.match(answer.error.code, /^INVALID_(PAYLOAD|QUERY)$/, JSON.stringify(message));
      }
      ws.send({ type: 'ping', uid: 'still-there' });
      assert.deepEqual(await ws.next(), { type: 'pong', uid: 'still-there' });
      ws.close();
    });
  });
}
