/**
 * Flows through the API on every database: /flows and /operations CRUD (admins only), an action event flow that
 * calls a receiver on loopback on every create of a collection (signed, through the outbox, with retries and the
 * delivery log and replay), a filter-free condition/transform chain, webhook and manual triggers, another flow
 * through a trigger operation, item operations, and the run bounds.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { FlowReceiver, until } from '../helpers/flow-receiver.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const SECRET = 'flow-test-signing-secret';

for (const client of testClients()) {
  describe(`flows (${clientLabel(client)})`, () => {
    let t: TestApp;
    const receiver = new FlowReceiver();

    const send = (method: Method, url: string, body?: unknown, token?: string | null) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const ok = async (method: Method, url: string, body?: unknown) => {
      const response = await send(method, url, body);
      assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
      return response.body ? json(response).data : undefined;
    };
    /** A flow and its operations in order (each resolving to the next), through the API. */
    const flow = async (fields: Record<string, unknown>, operations: Record<string, unknown>[]) => {
      const created = await ok('POST', '/flows', { name: 'test', status: 'active', ...fields });
      let next: string | null = null;
      for (const operation of [...operations].reverse()) {
        const row = await ok('POST', '/operations', {
          position_x: 1,
          position_y: 1,
          ...operation,
          flow: created.id,
          resolve: next,
        });
        next = row.id;
      }
      if (next) await ok('PATCH', `/flows/${created.id}`, { operation: next });
      return created.id as string;
    };

    before(async () => {
      await receiver.start();
      t = await startTestApp(client, {
        env: {
          FLOWS_SIGNING_SECRET: SECRET,
          FLOWS_RETRY_BASE: '50',
          FLOWS_RETRY_MAX: '200',
          FLOWS_DELIVERY_POLL: '100',
          FLOWS_RUN_TIMEOUT: '2s',
          FLOWS_MAX_OPERATIONS: '50',
        },
      });
    });
    after(async () => {
      await t?.close();
      await receiver.stop();
    });

    it('serves /flows and /operations to admins only, with Directus fields', async () => {
      const id = await flow({ name: 'crud', trigger: 'webhook', options: { method: 'GET' } }, [
        { key: 'echo', type: 'transform', options: { json: { hello: '{{ $trigger.query.name }}' } } },
      ]);
      const read = await ok('GET', `/flows/${id}?fields=*,operations.key,operations.type`);
      assert.equal(read.name, 'crud');
      assert.deepEqual(read.options, { method: 'GET' });
      assert.ok(read.date_created);
      assert.deepEqual(read.operations, [{ key: 'echo', type: 'transform' }]);
      const anonymous = await send('GET', '/flows', undefined, null);
      assert.equal(anonymous.statusCode, 403, anonymous.body);
      assert.equal(errorCode(anonymous), 'FORBIDDEN');
      const answer = await send('GET', `/flows/trigger/${id}?name=strata`, undefined, null);
      assert.equal(answer.statusCode, 200, answer.body);
      assert.deepEqual(json(answer), { hello: 'strata' });
      const system = await send('POST', '/graphql/system', { query: '{ flows { id name } }' });
      assert.equal(system.statusCode, 200, system.body);
      assert.ok(
        json(system).data.flows.some((f: { id: string }) => f.id === id),
        system.body,
      );
    });

    it('calls a receiver on every create of a collection, signed, through the outbox', async () => {
      const id = await flow(
        {
          name: 'notify',
          trigger: 'event',
          options: { type: 'action', scope: ['items.create'], collections: ['articles'] },
        },
        [
          {
            key: 'notify',
            type: 'request',
            options: { url: `${receiver.url}/hook`, method: 'POST', body: '{{ $trigger }}' },
          },
        ],
      );
      const before = receiver.received.length;
      const created = await ok('POST', '/items/articles', [{ title: 'flow one' }, { title: 'flow two' }]);
      await until('two deliveries', () => receiver.received.length >= before + 2);
      const got = receiver.received.slice(before);
      const bodies = got.map((r) => JSON.parse(r.body));
      assert.deepEqual(bodies.map((b) => b.key).sort(), created.map((a: { id: number }) => a.id).sort());
      assert.equal(bodies[0].event, 'articles.items.create');
      assert.equal(bodies[0].collection, 'articles');
      assert.ok(['flow one', 'flow two'].includes(bodies[0].payload.title));
      for (const r of got) {
        const timestamp = String(r.headers['x-strata-timestamp']);
        const expected = createHmac('sha256', SECRET).update(`${timestamp}.${r.body}`).digest('hex');
        assert.equal(r.headers['x-strata-signature'], `sha256=${expected}`);
      }
      // The receiver answered; the outcome is recorded right after.
      const delivered = async () =>
        (await ok('GET', `/flows/deliveries?flow=${id}`)) as { status: string; attempts: number }[];
      await until('both recorded', async () => (await delivered()).every((d) => d.status === 'delivered'));
      const log = await delivered();
      assert.equal(log.length, 2);
      assert.ok(log.every((d: { status: string; attempts: number }) => d.status === 'delivered' && d.attempts === 1));
      await ok('DELETE', `/flows/${id}`);
    });

    it('retries a failing receiver with backoff, logs the error, and replays a delivery', async () => {
      const id = await flow(
        {
          name: 'retry',
          trigger: 'event',
          options: { type: 'action', scope: ['items.update'], collections: ['articles'] },
        },
        [
          {
            key: 'notify',
            type: 'request',
            options: { url: `${receiver.url}/retry`, method: 'POST', body: '{{ $trigger }}' },
          },
        ],
      );
      let refusals = 2;
      receiver.answer = (r) => (r.url === '/retry' && refusals-- > 0 ? 503 : 200);
      const [article] = await ok('POST', '/items/articles', [{ title: 'to update' }]);
      await ok('PATCH', `/items/articles/${article.id}`, { title: 'updated' });
      await until('the third try', () => receiver.received.some((r) => r.url === '/retry'));
      receiver.answer = () => 200;
      const [delivery] = await ok('GET', `/flows/deliveries?flow=${id}`);
      await until(
        'delivered',
        async () => (await ok('GET', `/flows/deliveries/${delivery.id}`)).status === 'delivered',
      );
      const done = await ok('GET', `/flows/deliveries/${delivery.id}`);
      assert.equal(done.attempts, 3);
      assert.equal(done.payload.trigger.event, 'articles.items.update');
      assert.deepEqual(done.payload.trigger.keys.map(String), [String(article.id)]);
      const count = receiver.received.filter((r) => r.url === '/retry').length;
      const replayed = await ok('POST', `/flows/deliveries/${delivery.id}/replay`);
      assert.equal(replayed.attempts, 0);
      await until('the replay', () => receiver.received.filter((r) => r.url === '/retry').length === count + 1);
      const forbidden = await send('GET', '/flows/deliveries', undefined, null);
      assert.equal(forbidden.statusCode, 403);
      await ok('DELETE', `/flows/${id}`);
    });

    it('runs conditions with reject paths, item operations, other flows, and manual triggers', async () => {
      const inner = await flow({ name: 'inner', trigger: 'operation' }, [
        { key: 'double', type: 'transform', options: { json: '{"twice": "{{ $trigger.n }}{{ $trigger.n }}"}' } },
      ]);
      const outer = await flow({ name: 'outer', trigger: 'webhook', options: { method: 'POST' } }, [
        { key: 'check', type: 'condition', options: { filter: { $trigger: { body: { n: { _gt: 0 } } } } } },
        {
          key: 'make',
          type: 'item-create',
          options: {
            collection: 'articles',
            permissions: '$full',
            payload: { title: 'by a flow {{ $trigger.body.n }}' },
          },
        },
        {
          key: 'read',
          type: 'item-read',
          options: { collection: 'articles', key: '{{ make.0 }}', permissions: '$full' },
        },
        { key: 'call', type: 'trigger', options: { flow: inner, payload: { n: '{{ $trigger.body.n }}' } } },
        { key: 'done', type: 'transform', options: { json: { title: '{{ read.title }}', inner: '{{ call }}' } } },
      ]);
      const answer = json(await send('POST', `/flows/trigger/${outer}`, { n: 7 }, null));
      assert.deepEqual(answer, { title: 'by a flow 7', inner: { twice: '77' } });
      // The condition fails: no reject path, the run ends with the condition's errors as $last.
      const refused = json(await send('POST', `/flows/trigger/${outer}`, { n: -1 }, null));
      assert.equal(refused[0].extensions.code, 'FAILED_VALIDATION');
      // A manual flow: signed-in callers, from a listed collection.
      const manual = await flow({ name: 'manual', trigger: 'manual', options: { collections: ['articles'] } }, [
        { key: 'keys', type: 'transform', options: { json: '{{ $trigger.body.keys }}' } },
      ]);
      assert.deepEqual(
        json(await send('POST', `/flows/trigger/${manual}`, { collection: 'articles', keys: [1, 2] })),
        [1, 2],
      );
      assert.equal(
        (await send('POST', `/flows/trigger/${manual}`, { collection: 'articles', keys: [1] }, null)).statusCode,
        403,
      );
      const wrong = await send('POST', `/flows/trigger/${manual}`, { collection: 'authors', keys: [1] });
      assert.equal(errorCode(wrong), 'INVALID_PAYLOAD');
      // App users see the manual flows only (Directus's app access), and no operations.
      const user = await createUserWithPolicies(t, [await createPolicy(t, { app_access: true, permissions: [] })]);
      const seen = json(await send('GET', '/flows?fields=id,trigger,name', undefined, user.token)).data;
      assert.deepEqual(
        seen.map((f: { id: string }) => f.id),
        [manual],
      );
      assert.equal((await send('GET', '/operations', undefined, user.token)).statusCode, 403);
      const run = await send('POST', `/flows/trigger/${manual}`, { collection: 'articles', keys: [3] }, user.token);
      assert.deepEqual(json(run), [3]);
    });

    it('runs filter event flows inside the write: refuse, or change the payload', async () => {
      const id = await flow(
        {
          name: 'guard',
          trigger: 'event',
          options: { type: 'filter', scope: ['items.create'], collections: ['articles'] },
        },
        [
          {
            key: 'check',
            type: 'condition',
            options: { filter: { $trigger: { payload: { title: { _starts_with: 'ok' } } } } },
          },
          { key: 'mark', type: 'transform', options: { json: { title: '{{ $trigger.payload.title }} (checked)' } } },
        ],
      );
      const refused = await send('POST', '/items/articles', { title: 'bad title' });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(errorCode(refused), 'INVALID_PAYLOAD');
      const none = await ok('GET', '/items/articles?filter[title][_eq]=bad title&aggregate[count]=*');
      assert.equal(Number(none[0].count), 0);
      const created = await ok('POST', '/items/articles', { title: 'ok title' });
      assert.equal(created.title, 'ok title (checked)');
      await ok('DELETE', `/flows/${id}`);
      assert.equal((await send('POST', '/items/articles', { title: 'bad again' })).statusCode, 200);
    });

    it('runs schedule flows on their cron', async () => {
      const id = await flow({ name: 'tick', trigger: 'schedule', options: { cron: '* * * * * *' } }, [
        { key: 'make', type: 'item-create', options: { collection: 'articles', payload: { title: 'scheduled' } } },
      ]);
      await until(
        'a scheduled item',
        async () => (await ok('GET', '/items/articles?filter[title][_eq]=scheduled')).length > 0,
        10_000,
      );
      await ok('PATCH', `/flows/${id}`, { status: 'inactive' });
    });

    it('bounds a run: operations and time', async () => {
      // A loop: the operation resolves to itself; as an action event flow, so the log shows why the run failed.
      const loop = await ok('POST', '/flows', {
        name: 'loop',
        status: 'active',
        trigger: 'event',
        options: { type: 'action', scope: ['items.delete'], collections: ['articles'] },
      });
      const op = await ok('POST', '/operations', {
        key: 'again',
        type: 'transform',
        options: { json: 1 },
        flow: loop.id,
        position_x: 0,
        position_y: 0,
      });
      await ok('PATCH', `/operations/${op.id}`, { resolve: op.id });
      await ok('PATCH', `/flows/${loop.id}`, { operation: op.id });
      const [doomed] = await ok('POST', '/items/articles', [{ title: 'to delete' }]);
      await ok('DELETE', `/items/articles/${doomed.id}`);
      await until('the failed try', async () => {
        const [row] = await ok('GET', `/flows/deliveries?flow=${loop.id}`);
        return Boolean(row?.last_error);
      });
      const [row] = await ok('GET', `/flows/deliveries?flow=${loop.id}`);
      assert.match(row.last_error, /FLOWS_MAX_OPERATIONS/);
      await ok('DELETE', `/flows/${loop.id}`);
      // A run past FLOWS_RUN_TIMEOUT ends there: the webhook answers without the sleep's successor having run.
      const slow = await flow({ name: 'slow', trigger: 'webhook', options: { method: 'GET' } }, [
        { key: 'wait', type: 'sleep', options: { milliseconds: 60_000 } },
        { key: 'done', type: 'transform', options: { json: { done: true } } },
      ]);
      const answer = await send('GET', `/flows/trigger/${slow}`, undefined, null);
      assert.notDeepEqual(answer.body ? json(answer) : null, { done: true });
      const unknown = await send('GET', `/flows/trigger/00000000-0000-4000-8000-000000000000`, undefined, null);
      assert.equal(unknown.statusCode, 403);
    });
  });
}
