/**
 * GraphQL subscriptions with the real graphql-ws client over a listening server: `<c>_mutated` messages for creates,
 * updates and deletes made over REST, with the values typed as GraphQL queries give them (IDs as strings, bigIntegers
 * as strings, decimals as numbers) and nested relations; the `event` argument; a restricted user's fields and rows;
 * the Public policy for a socket without a token; validation errors with their code; a bad token refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { refusedUpgrade } from '../helpers/ws-client.js';
import {
  ADMIN,
  json,
  listenOnLoopback,
  startSecondInstance,
  startTestApp,
  type SecondInstance,
  type TestApp,
} from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { queryBuilder } from '../../src/db/connection.js';

type Message = { data?: Record<string, any> | null; errors?: any[] };
type Row = Record<string, any>;

/**
 * Subscribes, then makes probe writes until one of them is announced: from then on every write is (the server
 * starts listening some time after the subscribe message). Messages about probes are skipped by `next`.
 */
async function subscribe(c: Client, query: string, probe: () => Promise<string>) {
  const messages = c.iterate({ query });
  const probes = new Set<string>();
  // Observed at once, so that a refusal waiting for `next` is not reported as unhandled meanwhile.
  const ask = () => {
    const promise = messages.next();
    promise.catch(() => {});
    return promise;
  };
  let pending = ask();
  const next = async (): Promise<Message> => {
    for (;;) {
      const result = await pending;
      pending = ask();
      assert.equal(result.done, false, 'the subscription ended');
      const message = result.value as Message;
      const field = message.data ? Object.values(message.data)[0] : undefined;
      if (field && probes.has(String(field.key))) continue;
      return message;
    }
  };
  for (;;) {
    probes.add(await probe());
    const first = await Promise.race([
      pending.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 250)),
    ]);
    if (first) break;
  }
  // The announced probe itself (and any other probe's message) is skipped by `next`.
  /** Whether the server completed the subscription (after the messages `next` took). */
  const completed = async () => (await pending).done === true;
  return { next, completed, stop: () => void messages.return?.() };
}

for (const client of testClients()) {
  describe(`GraphQL subscriptions over graphql-ws (${clientLabel(client)})`, () => {
    let t: TestApp;
    let wsUrl: string;
    const clients: Client[] = [];

    before(async () => {
      // public: a socket without a token acts as the Public policy; with one, as its user.
      t = await startTestApp(client, {
        env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_GRAPHQL_AUTH: 'public', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' },
      });
      wsUrl = `${(await listenOnLoopback(t)).replace('http', 'ws')}/graphql`;
    });
    after(async () => {
      for (const c of clients) await c.dispose();
      await t?.close();
    });

    const connect = (token: string | null) => {
      const c = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        connectionParams: token ? { access_token: token } : {},
        retryAttempts: 0,
        lazy: true,
      });
      clients.push(c);
      return c;
    };

    const write = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Row): Promise<Row> => {
      const res = await t.request({ method, url, ...(payload ? { payload } : {}) });
      assert.ok(res.statusCode === 200 || res.statusCode === 204, res.body);
      return res.statusCode === 200 ? json(res).data : {};
    };

    const probeAuthor = (name: string) => async () => String((await write('POST', '/items/authors', { name })).id);

    it('an admin gets create, update and delete of articles with typed values and a nested relation', async () => {
      const c = connect(ADMIN.token);
      const { next, stop } = await subscribe(
        c,
        `subscription { articles_mutated { key event data { id title views price score published author { id name } } } }`,
        async () => String((await write('POST', '/items/articles', { title: 'probe' })).id),
      );
      const created = await write('POST', '/items/articles?fields=id', {
        title: 'Subscribed',
        views: '9007199254740993',
        price: '12.50',
        score: 2.5,
        published: true,
        author: 1,
      });
      const id = String(created.id);
      const data = {
        id,
        title: 'Subscribed',
        views: '9007199254740993',
        price: 12.5,
        score: 2.5,
        published: true,
        author: { id: '1', name: 'Ada Lovelace' },
      };
      assert.deepStrictEqual(await next(), { data: { articles_mutated: { key: id, event: 'create', data } } });
      await write('PATCH', `/items/articles/${id}`, { title: 'Renamed', author: 2 });
      assert.deepStrictEqual(await next(), {
        data: {
          articles_mutated: {
            key: id,
            event: 'update',
            data: { ...data, title: 'Renamed', author: { id: '2', name: 'Alan Turing' } },
          },
        },
      });
      await write('DELETE', `/items/articles/${id}`);
      assert.deepStrictEqual(await next(), { data: { articles_mutated: { key: id, event: 'delete', data: null } } });
      stop();
    });

    it('the event argument keeps only that event', async () => {
      const c = connect(ADMIN.token);
      const { next, stop } = await subscribe(
        c,
        `subscription { authors_mutated(event: delete) { key event data { name } } }`,
        async () => {
          const key = await probeAuthor('Probe')();
          await write('DELETE', `/items/authors/${key}`);
          return key;
        },
      );
      const created = await write('POST', '/items/authors', { name: 'Filtered' });
      await write('PATCH', `/items/authors/${created.id}`, { name: 'Filtered, renamed' });
      await write('DELETE', `/items/authors/${created.id}`);
      assert.deepStrictEqual(await next(), {
        data: { authors_mutated: { key: String(created.id), event: 'delete', data: null } },
      });
      stop();
    });

    it('a restricted user gets only the rows and fields it may read, and cannot ask for more', async () => {
      const policy = await createPolicy(t, {
        permissions: [{ collection: 'authors', fields: 'id,name', permissions: { name: { _starts_with: 'Visible' } } }],
      });
      const user = await createUserWithPolicies(t, [policy]);
      const c = connect(user.token);
      const { next, stop } = await subscribe(
        c,
        `subscription { authors_mutated { key event data { id name } } }`,
        probeAuthor('Visible probe'),
      );
      await write('POST', '/items/authors', { name: 'Hidden author', bio: 'secret' });
      const visible = await write('POST', '/items/authors', { name: 'Visible author', bio: 'secret' });
      const key = String(visible.id);
      assert.deepStrictEqual(await next(), {
        data: { authors_mutated: { key, event: 'create', data: { id: key, name: 'Visible author' } } },
      });
      // Leaving its rules: a delete, as the subscriber can no longer read it.
      await write('PATCH', `/items/authors/${key}`, { name: 'Hidden now' });
      assert.deepStrictEqual(await next(), { data: { authors_mutated: { key, event: 'delete', data: null } } });
      stop();

      for (const query of [
        `subscription { authors_mutated { key data { bio } } }`,
        `subscription { articles_mutated { key } }`,
      ]) {
        const refused = c.iterate({ query });
        await assert.rejects(refused.next(), (errors: any) => {
          assert.ok(Array.isArray(errors) && errors.length > 0, JSON.stringify(errors));
          assert.equal(errors[0].extensions.code, 'GRAPHQL_VALIDATION');
          return true;
        });
      }
    });

    it('a subscriber whose read access is revoked gets a FORBIDDEN error, then the subscription completes', async () => {
      const policy = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id,name' }] });
      const user = await createUserWithPolicies(t, [policy]);
      const { next, completed } = await subscribe(
        connect(user.token),
        `subscription { authors_mutated { key event data { name } } }`,
        probeAuthor('Probe'),
      );
      await queryBuilder(t.context.db)('service_permissions').where({ policy }).delete();
      await t.context.permissionsChanged();
      await write('POST', '/items/authors', { name: 'After revoke' });
      const message = await next();
      assert.deepStrictEqual(message.data, { authors_mutated: null });
      assert.equal(message.errors?.length, 1);
      assert.equal(message.errors![0].extensions.code, 'FORBIDDEN');
      assert.equal(await completed(), true);
    });

    it("a socket without a token gets the Public policy's rows, and a bad token is refused", async () => {
      await grantPublic(t, [{ collection: 'tags', fields: 'id,name', permissions: { name: { _starts_with: 'pub' } } }]);
      const c = connect(null);
      const { next, stop } = await subscribe(
        c,
        `subscription { tags_mutated { key event data { id name } } }`,
        async () => String((await write('POST', '/items/tags', { name: `pub probe ${Math.random()}` })).id),
      );
      await write('POST', '/items/tags', { name: 'private tag' });
      const shown = await write('POST', '/items/tags', { name: 'pub tag' });
      const key = String(shown.id);
      assert.deepStrictEqual(await next(), {
        data: { tags_mutated: { key, event: 'create', data: { id: key, name: 'pub tag' } } },
      });
      stop();

      const refused = connect('not-a-token').iterate({ query: `subscription { tags_mutated { key } }` });
      await assert.rejects(refused.next(), (event: any) => {
        assert.equal(event.code, 4403);
        return true;
      });
    });

    it("the caller's schema has the Subscription type, typed as its collections", async () => {
      const sdl = async (token: string) =>
        (await t.request({ method: 'GET', url: '/server/specs/graphql/items', token })).body;
      const admin = await sdl(ADMIN.token);
      assert.match(admin, /articles_mutated\(event: EventEnum\): articles_mutated/);
      assert.match(admin, /type articles_mutated {\s+key: ID!\s+event: EventEnum\s+data: articles\s+}/);
      assert.match(admin, /enum EventEnum {\s+create\s+update\s+delete\s+}/);
      const policy = await createPolicy(t, { permissions: [{ collection: 'tags', fields: 'id,name' }] });
      const user = await createUserWithPolicies(t, [policy]);
      const own = await sdl(user.token);
      assert.match(own, /tags_mutated\(event: EventEnum\): tags_mutated/);
      assert.doesNotMatch(own, /articles_mutated|authors_mutated/);
    });

    it('variables that do not fit the operation: GRAPHQL_VALIDATION over the socket, as over HTTP', async () => {
      const query = 'query ($filter: authors_filter) { authors(filter: $filter) { id } }';
      const variables = { filter: { no_such_field: { _eq: 1 } } };
      const http = await t.request({ method: 'POST', url: '/graphql', payload: { query, variables } });
      assert.equal(http.statusCode, 400, http.body);
      assert.equal(json(http).errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      const c = connect(ADMIN.token);
      for (const operation of [
        { query, variables },
        { query: 'subscription ($e: EventEnum) { authors_mutated(event: $e) { key } }', variables: { e: 'nope' } },
      ]) {
        await assert.rejects(c.iterate(operation).next(), (errors: any) => {
          assert.ok(Array.isArray(errors) && errors.length > 0, JSON.stringify(errors));
          assert.equal(errors[0].extensions.code, 'GRAPHQL_VALIDATION', JSON.stringify(errors));
          assert.equal(errors[0].message, json(http).errors[0].message);
          return true;
        });
      }
    });

    it('a subscription over HTTP is a validation error', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: { query: 'subscription { authors_mutated { key } }' },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).errors[0].extensions.code, 'GRAPHQL_VALIDATION');
    });
  });
}

for (const client of testClients()) {
  describe(`GraphQL socket authentication (${clientLabel(client)})`, () => {
    const apps: TestApp[] = [];
    const clients: Client[] = [];
    after(async () => {
      for (const c of clients) await c.dispose();
      for (const app of apps) await app.close();
    });

    const start = async (env: Record<string, string>) => {
      const app = await startTestApp(client, {
        env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false', ...env },
      });
      apps.push(app);
      return (await listenOnLoopback(app)).replace('http', 'ws');
    };
    const firstAnswer = async (url: string, token: string | null) => {
      const c = createClient({
        url,
        webSocketImpl: WebSocket,
        connectionParams: token ? { access_token: token } : {},
        retryAttempts: 0,
        lazy: true,
      });
      clients.push(c);
      // A query over the socket answers at once, which shows whether the connection was accepted.
      return c.iterate({ query: '{ authors(sort: ["id"], limit: 1) { id name } }' }).next();
    };
    const closedWith = async (answer: Promise<unknown>, code: number) =>
      assert.rejects(answer, (event: any) => {
        assert.equal(event.code, code);
        return true;
      });

    it('handshake (the default): connection_init must carry a valid access_token', async () => {
      const url = `${await start({})}/graphql`;
      const answered = await firstAnswer(url, ADMIN.token);
      assert.deepStrictEqual(answered.value, { data: { authors: [{ id: '1', name: 'Ada Lovelace' }] } });
      await closedWith(firstAnswer(url, null), 4403);
      await closedWith(firstAnswer(url, 'not-a-token'), 4403);
    });

    it('strict: the token is on the upgrade request; WEBSOCKETS_GRAPHQL_PATH moves the socket', async () => {
      const base = await start({ WEBSOCKETS_GRAPHQL_AUTH: 'strict', WEBSOCKETS_GRAPHQL_PATH: '/graphql-socket' });
      const answered = await firstAnswer(`${base}/graphql-socket?access_token=${ADMIN.token}`, null);
      assert.deepStrictEqual(answered.value, { data: { authors: [{ id: '1', name: 'Ada Lovelace' }] } });
      // A token in connection_init only does not count in strict mode: the upgrade itself is refused (401).
      const wsUrl = `${base.replace(/^http/, 'ws')}/graphql-socket`;
      const refused = await refusedUpgrade(wsUrl);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.errors[0].extensions.code, 'INVALID_CREDENTIALS');
      assert.equal((await refusedUpgrade(`${wsUrl}?access_token=not-a-token`)).status, 401);
    });
  });
}

const redisUrl = process.env.TEST_REDIS_URL;
describe(
  'GraphQL subscriptions across instances (PostgreSQL + Redis)',
  { skip: redisUrl && process.env.TEST_PG_URL ? false : 'needs TEST_PG_URL and TEST_REDIS_URL' },
  () => {
    let a: TestApp;
    let b: SecondInstance;
    let client: Client;
    const env = {
      REDIS: redisUrl ?? '',
      REDIS_NAMESPACE: `strata-gql-${randomBytes(4).toString('hex')}`,
      WEBSOCKETS_ENABLED: 'true',
      WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
    };
    before(async () => {
      a = await startTestApp('pg', { env });
      b = await startSecondInstance(a, env);
      await b.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (b.app.server.address() as { port: number }).port;
      client = createClient({
        url: `ws://127.0.0.1:${port}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { access_token: ADMIN.token },
        retryAttempts: 0,
        lazy: true,
      });
    });
    after(async () => {
      await client?.dispose();
      await b?.close();
      await a?.close();
    });

    it('a create and a delete through instance A reach a subscriber on instance B', async () => {
      const post = async (title: string) => {
        const res = await a.request({ method: 'POST', url: '/items/articles', payload: { title, author: 3 } });
        assert.equal(res.statusCode, 200, res.body);
        return String(json(res).data.id);
      };
      const { next, stop } = await subscribe(
        client,
        `subscription { articles_mutated { key event data { id title author { id name } } } }`,
        () => post('Probe'),
      );
      const key = await post('Across');
      assert.deepStrictEqual(await next(), {
        data: {
          articles_mutated: {
            key,
            event: 'create',
            data: { id: key, title: 'Across', author: { id: '3', name: 'Grace Hopper' } },
          },
        },
      });
      assert.equal((await a.request({ method: 'DELETE', url: `/items/articles/${key}` })).statusCode, 204);
      assert.deepStrictEqual(await next(), { data: { articles_mutated: { key, event: 'delete', data: null } } });
      stop();
    });
  },
);
