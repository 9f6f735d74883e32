/**
 * What one user and one client address may hold in realtime, across all their sockets of both protocols on this
 * instance: subscriptions (WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER / _PER_IP) and distinct queries
 * (WEBSOCKETS_QUERY_LIMIT_PER_USER / _PER_IP), refused with REQUESTS_EXCEEDED and freed by an unsubscribe; more
 * subscriptions repeating a query cost a write no more reads (one per distinct query). Before, nothing bounded them
 * across sockets: a restricted user took the server from 157 MB to 1.4 GB with 50 sockets of 100 subscriptions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiOf, createAuthor, graphqlSubscriber } from '../helpers/realtime-rights.js';
import { openMessageSocket, type MessageSocket } from '../helpers/socket-messages.js';

const ENV = {
  WEBSOCKETS_ENABLED: 'true',
  WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
  WEBSOCKETS_REST_AUTH: 'public',
  IP_CUSTOM_HEADER: 'x-test-ip',
  WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER: '4',
  WEBSOCKETS_QUERY_LIMIT_PER_USER: '2',
  WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP: '3',
  WEBSOCKETS_QUERY_LIMIT_PER_IP: '2',
};

for (const client of testClients()) {
  describe(`realtime limits per user and per address (${clientLabel(client)})`, () => {
    let t: TestApp;
    let http: string;
    let user: { token: string };
    const sockets: MessageSocket[] = [];
    before(async () => {
      t = await startTestApp(client, {
        env: ENV,
        oneWorker: 'subscription limits are counted per process (a known gap across workers)',
      });
      http = await listenOnLoopback(t);
      await grantPublic(t, [{ collection: 'authors', fields: 'id,name' }]);
      const readers = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id,name' }] });
      user = await createUserWithPolicies(t, [readers]);
    });
    after(async () => {
      for (const socket of sockets) socket.close();
      await t?.close();
    });

    /** A /websocket from `ip`, authenticated as `token` when given (public mode otherwise). */
    const open = async (ip: string, token?: string) => {
      const ws = await openMessageSocket(`${http.replace('http', 'ws')}/websocket`, { headers: { 'x-test-ip': ip } });
      sockets.push(ws);
      if (token) {
        ws.send({ type: 'auth', access_token: token });
        assert.equal((await ws.next()).status, 'ok');
      }
      return ws;
    };
    const subscribe = async (ws: MessageSocket, uid: string, name?: string) => {
      const query = name ? { fields: ['id', 'name'], filter: { name: { _eq: name } } } : { fields: ['id', 'name'] };
      ws.send({ type: 'subscribe', collection: 'authors', uid, query });
      const answer = await ws.next();
      return answer.event === 'init' ? 'ok' : `${answer.error?.code}`;
    };
    /** Ends every subscription of `ws` (its answer says the server has handled it). */
    const unsubscribeAll = async (ws: MessageSocket) => {
      ws.send({ type: 'unsubscribe' });
      assert.deepEqual(await ws.next(), { type: 'subscription', event: 'unsubscribe' });
    };

    it('bounds a user subscriptions across sockets and protocols; an unsubscribe frees a place', async () => {
      const first = await open('10.0.0.1', user.token);
      const second = await open('10.0.0.2', user.token);
      assert.equal(await subscribe(first, 'a'), 'ok');
      assert.equal(await subscribe(second, 'b'), 'ok');
      // The GraphQL socket's operation counts for the user too.
      const graphql = await graphqlSubscriber(t, http, user.token);
      assert.equal(await subscribe(first, 'c'), 'ok');
      assert.equal(await subscribe(second, 'd'), 'REQUESTS_EXCEEDED', 'a fifth subscription of the user');
      graphql.send({ id: '2', type: 'subscribe', payload: { query: 'subscription { authors_mutated { key } }' } });
      const refused = await graphql.next();
      assert.deepEqual(
        [refused.type, refused.id, refused.payload?.errors?.[0]?.extensions?.code],
        ['next', '2', 'REQUESTS_EXCEEDED'],
        JSON.stringify(refused),
      );
      assert.deepEqual(await graphql.next(), { id: '2', type: 'complete' });
      first.send({ type: 'unsubscribe', uid: 'c' });
      assert.deepEqual(await first.next(), { type: 'subscription', event: 'unsubscribe', uid: 'c' });
      assert.equal(await subscribe(second, 'd'), 'ok', 'once one is unsubscribed');
      for (const ws of [first, second]) await unsubscribeAll(ws);
      const live = t.context.subscriptions.stats().subscriptions;
      graphql.close();
      await graphql.closed;
      for (let poll = 0; poll < 200 && t.context.subscriptions.stats().subscriptions === live; poll++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(t.context.subscriptions.stats().subscriptions, live - 1, 'a closed socket gives its places back');
    });

    it('bounds the distinct queries of a user; subscriptions repeating one are not limited by it', async () => {
      const ws = await open('10.0.1.1', user.token);
      assert.equal(await subscribe(ws, 'x', 'One'), 'ok');
      assert.equal(await subscribe(ws, 'y', 'Two'), 'ok');
      assert.equal(await subscribe(ws, 'z', 'Three'), 'REQUESTS_EXCEEDED', 'a third distinct query');
      assert.equal(await subscribe(ws, 'z', 'Two'), 'ok', 'the same query again');
      // A uid reused for another query replaces its subscription (its query's place is given back first).
      assert.equal(await subscribe(ws, 'x', 'Three'), 'ok');
      await unsubscribeAll(ws);
    });

    it('bounds the subscriptions of a client address, public sockets included', async () => {
      const one = await open('10.0.2.1');
      const two = await open('10.0.2.1');
      assert.equal(await subscribe(one, 'p1'), 'ok');
      assert.equal(await subscribe(two, 'p2'), 'ok');
      assert.equal(await subscribe(two, 'p3', 'Other'), 'ok');
      assert.equal(await subscribe(one, 'p4'), 'REQUESTS_EXCEEDED', 'a fourth subscription from the address');
      const elsewhere = await open('10.0.2.2');
      assert.equal(await subscribe(elsewhere, 'p1'), 'ok', 'another address has its own count');
      for (const ws of [one, two, elsewhere]) await unsubscribeAll(ws);
    });

    it('a write costs one read per distinct query, however many subscriptions repeat it', async () => {
      const api = apiOf(t.app);
      const reads = async (work: () => Promise<void>) => {
        let count = 0;
        const stop = t.context.db.onQuery((sql) => {
          if (/\bauthors\b/.test(sql) && /^\s*select/i.test(sql) && !/service_/.test(sql)) count++;
        });
        try {
          await work();
        } finally {
          stop();
        }
        return count;
      };
      // The write's own statements, with nobody subscribed.
      const alone = await reads(async () => void (await createAuthor(api, 'Before anyone subscribes')));
      const one = await open('10.0.3.1', user.token);
      const two = await open('10.0.3.2', user.token);
      assert.equal(await subscribe(one, 'r1', 'A'), 'ok');
      assert.equal(await subscribe(one, 'r2', 'A'), 'ok');
      assert.equal(await subscribe(two, 'r3', 'A'), 'ok');
      assert.equal(await subscribe(two, 'r4', 'B'), 'ok');
      const fanned = await reads(async () => {
        await createAuthor(api, 'A');
        for (const ws of [one, one, two]) assert.equal((await ws.next()).event, 'create');
      });
      assert.equal(fanned - alone, 2, 'one re-read per distinct query (two), not per subscription (four)');
    });
  });
}
