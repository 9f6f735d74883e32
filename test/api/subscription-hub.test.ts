/**
 * The subscription hub over a real /websocket: one re-read per group of alike subscribers per event (counted through
 * the engine's statement counter), events of a collection in commit order, the bound on the keys a group remembers,
 * and a subscription that can no longer be served ending with an error message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { ChangeRecorder } from '../../src/engine/write/change-events.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { openSocket, subscribe, type TestSocket } from '../helpers/ws-client.js';

const WS_ENV = { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' };

for (const client of testClients()) {
  describe(`subscription hub (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    /**
     * The first worker's own port (in pair mode; the one port otherwise), for tests about what one process's hub holds
     * (its groups, the order it reads in): their sockets all land on t.context, the writes go to either worker.
     */
    let firstWorker: string;
    const sockets: TestSocket[] = [];
    before(async () => {
      t = await startTestApp(client, { env: WS_ENV });
      url = await listenOnLoopback(t);
      firstWorker = await t.listen(0);
    });
    after(async () => {
      for (const socket of sockets) socket.close();
      await t?.close();
    });
    const open = async (token: string, on = url) => {
      const socket = await openSocket(on, token);
      sockets.push(socket);
      return socket;
    };
    const post = async (body: object) => {
      const res = await t.request({ method: 'POST', url: '/items/authors?fields=id', payload: body });
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data as { id: number };
    };
    const counting = async <T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> => {
      let statements = 0;
      // Only the collection's statements: a socket's token is re-resolved now and then while events flow.
      // On every worker: the write is answered by either, the re-reads run where the sockets are.
      const stop = onEveryWorker(t, ({ db }) =>
        db.onQuery((sql) => {
          if (/\bauthors\b/.test(sql) && !/service_/.test(sql)) statements++;
        }),
      );
      try {
        return { result: await work(), statements };
      } finally {
        stop();
      }
    };

    it('re-reads once per group of alike subscribers, not once per subscriber', async () => {
      // The write's own statements, with nobody subscribed.
      const alone = await counting(() => post({ name: 'Hub baseline' }));
      const shared = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id,name' }] });
      const own = await createPolicy(t, {
        permissions: [{ collection: 'authors', fields: 'id,name', permissions: { name: { _neq: '$CURRENT_USER' } } }],
      });
      const users = [
        ...(await Promise.all([1, 2].map(() => createUserWithPolicies(t, [shared])))),
        ...(await Promise.all([1, 2].map(() => createUserWithPolicies(t, [own])))),
      ];
      const subscribers = [
        ...(await Promise.all(users.map((u) => open(u.token, firstWorker)))),
        await open(ADMIN.token, firstWorker),
      ];
      subscribers.push(await open(ADMIN.token, firstWorker));
      const query = { fields: ['id', 'name'], filter: { name: { _starts_with: 'Hub ' } } };
      for (const [i, socket] of subscribers.entries()) await subscribe(socket, 'authors', `s${i}`, query);
      // Two users of one policy share a group; users whose rule names $CURRENT_USER get one each; the admins one.
      assert.deepEqual(
        {
          subscriptions: t.context.subscriptions.stats().subscriptions,
          groups: t.context.subscriptions.stats().groups,
        },
        { subscriptions: 6, groups: 4 },
      );
      const fanned = await counting(async () => {
        const created = await post({ name: 'Hub fan-out' });
        const events = await Promise.all(subscribers.map((socket) => socket.next()));
        return { created, events };
      });
      for (const [i, event] of fanned.result.events.entries()) {
        assert.deepEqual(event, {
          type: 'subscription',
          event: 'create',
          data: [{ id: fanned.result.created.id, name: 'Hub fan-out' }],
          uid: `s${i}`,
        });
      }
      assert.equal(fanned.statements - alone.statements, 4, 'one re-read per group');
      for (const socket of subscribers) socket.send({ type: 'unsubscribe' });
    });

    it('delivers the events of a collection in commit order', async () => {
      const socket = await open(ADMIN.token);
      await subscribe(socket, 'authors', 'order', { fields: ['name'], filter: { name: { _starts_with: 'Order' } } });
      const { id } = await post({ name: 'Order 0' });
      for (let i = 1; i <= 5; i++) {
        const res = await t.request({ method: 'PATCH', url: `/items/authors/${id}`, payload: { name: `Order ${i}` } });
        assert.equal(res.statusCode, 200, res.body);
      }
      await t.request({ method: 'DELETE', url: `/items/authors/${id}` });
      // Updates that queued up behind a re-read are read once, as they stand: states may be skipped, never reordered.
      const seen: string[] = [];
      while (!seen.at(-1)?.startsWith('delete')) {
        const message = await socket.next();
        seen.push(
          message.event === 'delete'
            ? `delete ${message.data.map(String)}`
            : `${message.event} ${message.data[0].name}`,
        );
      }
      // The create's re-read may run after the first updates committed (a loaded machine) and read their state.
      assert.match(seen[0]!, /^create Order \d$/);
      assert.deepEqual(seen.slice(-2), ['update Order 5', `delete ${id}`]);
      const states = seen.slice(0, -1).map((entry) => Number(entry.replace(/^(create|update) Order /, '')));
      // A re-read that runs after a later commit reads that later state, so a state may come twice, never backwards.
      assert.deepEqual(states, [...states].sort(), `in commit order: ${seen.join(', ')}`);
      assert.ok(
        seen.slice(1, -1).every((entry) => entry.startsWith('update ')),
        seen.join(', '),
      );
      socket.send({ type: 'unsubscribe' });
    });

    it('merges events that queue up behind a re-read, one message per run of one action, never reordered', async () => {
      // On the worker that announces: the four events reach its hub back to back, as one process's commits do.
      const socket = await open(ADMIN.token, firstWorker);
      await subscribe(socket, 'authors', 'merge', {
        fields: ['id', 'name'],
        filter: { name: { _starts_with: 'Merge' } },
      });
      const ids: number[] = [];
      for (const name of ['Merge 1', 'Merge 2', 'Merge 3']) {
        ids.push((await post({ name })).id);
        assert.deepEqual((await socket.next()).data, [{ id: ids.at(-1), name }]);
      }
      // Four commits announced back to back: the first waits for its turn while the others arrive.
      const announce = (action: 'update' | 'delete', keys: number[]) => {
        const recorder = new ChangeRecorder();
        recorder.record('authors', action, keys);
        t.context.changes.emit(recorder);
      };
      const { result: messages, statements } = await counting(async () => {
        announce('update', [ids[0]!]);
        announce('update', [ids[1]!]);
        announce('delete', [ids[2]!]);
        announce('update', [ids[0]!]);
        return [await socket.next(), await socket.next(), await socket.next()];
      });
      assert.deepEqual(
        messages.map((m) => [m.event, m.data.map((row: any) => (typeof row === 'object' ? row.id : Number(row)))]),
        [
          ['update', [ids[0], ids[1]]],
          ['delete', [ids[2]]],
          ['update', [ids[0]]],
        ],
      );
      assert.equal(statements, 2, 'one re-read per merged update event (the delete needs none)');
      socket.send({ type: 'unsubscribe' });
    });

    it('passes the delete of a row it never showed to members who read every row, and to no one else', async () => {
      // Made before the subscriptions and left out of their init (limit 1): no group was shown it.
      const { id } = await post({ name: 'Hub unseen' });
      const everyRow = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id,name' }] });
      const ruled = await createPolicy(t, {
        permissions: [{ collection: 'authors', fields: 'id,name', permissions: { name: { _starts_with: 'Ruled' } } }],
      });
      const reader = await createUserWithPolicies(t, [everyRow]);
      const restricted = await createUserWithPolicies(t, [ruled]);
      const first = { fields: ['id'], sort: ['id'], limit: 1 };
      const cases = [
        { token: ADMIN.token, query: first, gets: true },
        { token: reader.token, query: first, gets: true },
        { token: restricted.token, query: first, gets: false },
        { token: ADMIN.token, query: { ...first, filter: { name: { _starts_with: 'Hub ' } } }, gets: false },
        { token: ADMIN.token, query: { ...first, search: 'Hub' }, gets: false },
      ];
      const sockets: TestSocket[] = [];
      for (const [i, { token, query }] of cases.entries()) {
        const socket = await open(token);
        const init = await subscribe(socket, 'authors', `unseen${i}`, query);
        assert.ok(!init.data.some((row: { id: number }) => row.id === id), 'not in the init');
        sockets.push(socket);
      }
      const res = await t.request({ method: 'DELETE', url: `/items/authors/${id}` });
      assert.equal(res.statusCode, 204, res.body);
      // Those who get it first: the hub has then handled the delete for every group (no re-read, in one turn), so a
      // pong answered after that shows the others got nothing.
      for (const [i, socket] of sockets.entries()) {
        if (!cases[i]!.gets) continue;
        const message = await socket.next();
        assert.deepEqual([message.event, message.data.map(String)], ['delete', [String(id)]], `case ${i}`);
      }
      for (const [i, socket] of sockets.entries()) {
        socket.send({ type: 'ping' });
        assert.deepEqual(await socket.next(), { type: 'pong' }, `case ${i}: nothing more`);
        socket.send({ type: 'unsubscribe' });
      }
    });

    it('ends a subscription whose read access is revoked with a FORBIDDEN error message', async () => {
      const policy = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id,name' }] });
      const user = await createUserWithPolicies(t, [policy]);
      const socket = await open(user.token, firstWorker);
      await subscribe(socket, 'authors', 'revoked', { fields: ['id'] });
      const before = t.context.subscriptions.stats().subscriptions;
      await queryBuilder(t.context.db)('service_permissions').where({ policy }).delete();
      await t.context.permissionsChanged();
      await post({ name: 'Hub after revoke' });
      const message = await socket.next();
      assert.equal(message.type, 'subscribe');
      assert.equal(message.status, 'error');
      assert.equal(message.uid, 'revoked');
      assert.equal(message.error.code, 'FORBIDDEN');
      assert.equal(t.context.subscriptions.stats().subscriptions, before - 1);
      await post({ name: 'Hub after end' });
      socket.send({ type: 'ping' });
      assert.deepEqual(await socket.next(), { type: 'pong' }, 'no event after the subscription ended');
    });
  });

  describe(`subscription hub bound (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { env: { ...WS_ENV, WEBSOCKETS_SUBSCRIPTION_KEYS_MAX: '2' } });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('remembers at most WEBSOCKETS_SUBSCRIPTION_KEYS_MAX shown keys per group, then passes deletes on whole', async () => {
      const socket = await openSocket(url, ADMIN.token);
      try {
        await subscribe(socket, 'authors', 'bound', { fields: ['id'], filter: { name: { _starts_with: 'Bound' } } });
        const ids: number[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await t.request({
            method: 'POST',
            url: '/items/authors?fields=id',
            payload: { name: `Bound ${i}` },
          });
          ids.push(json(res).data.id);
          assert.deepEqual((await socket.next()).data, [{ id: ids[i] }]);
        }
        assert.equal(t.context.subscriptions.stats().shownKeys, 2);
        const res = await t.request({ method: 'DELETE', url: '/items/authors', payload: ids });
        assert.equal(res.statusCode, 204, res.body);
        const deleted = await socket.next();
        assert.equal(deleted.event, 'delete');
        assert.deepEqual(deleted.data.map(String).sort(), ids.map(String).sort(), 'the forgotten key too');
      } finally {
        socket.close();
      }
    });
  });
}
