/**
 * Special flags on write (Directus docs: Field types), on every database: uuid keys, argon2 hashes, concealed reads, the
 * created/updated date, user and role, and the cast-boolean / cast-json / cast-csv conversions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verify } from '@node-rs/argon2';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';
import { queryBuilder } from '../../src/db/connection.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A wire date (dateTime without zone is UTC here) as epoch milliseconds. */
function epoch(value: unknown): number {
  const text = String(value);
  return Date.parse(/Z$|[+-]\d\d:\d\d$/.test(text) ? text : `${text}Z`);
}

for (const client of testClients()) {
  describe(`write specials (${clientLabel(client)})`, () => {
    let t: TestApp;
    let admin: { id: string; role: string };
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
      const row = await queryBuilder(t.context.db)('service_users').where({ email: ADMIN.email }).first('id', 'role');
      admin = { id: String(row.id), role: String(row.role) };
    });
    after(async () => {
      await t?.close();
    });

    const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const stored = (id: string) => queryBuilder(t.context.db)('gadgets').where({ id }).first();

    it('fills uuid keys, creation dates, users and roles; hashes and conceals; casts booleans, JSON and CSV', async () => {
      const started = Date.now() - 2000;
      const res = await send('POST', '/items/gadgets', {
        name: 'Widget',
        secret: 'p4ssw0rd',
        token: 'tok-123',
        created_on: '2000-01-01T00:00:00',
        flag: true,
        config: { retries: 3, hosts: ['a', 'b'] },
        labels: ['red', 'blue'],
      });
      assert.equal(res.statusCode, 200, res.body);
      const item = json(res).data;
      assert.match(item.id, UUID_V4);
      assert.equal(item.secret, '**********');
      assert.equal(item.token, '**********');
      assert.ok(
        epoch(item.created_on) >= started && epoch(item.created_on) <= Date.now() + 2000,
        `created_on ${item.created_on}`,
      );
      assert.equal(item.updated_on, null);
      assert.equal(item.created_by, admin.id);
      assert.equal(item.created_role, admin.role);
      assert.equal(item.updated_by, null);
      assert.equal(item.updated_role, null);
      assert.equal(item.flag, true);
      assert.deepEqual(item.config, { retries: 3, hosts: ['a', 'b'] });
      assert.deepEqual(item.labels, ['red', 'blue']);

      const row = await stored(item.id);
      assert.match(row.secret, /^\$argon2id\$/);
      assert.ok(await verify(row.secret, 'p4ssw0rd'));
      assert.equal(row.token, 'tok-123');
      assert.equal(Number(row.flag), 1);
      assert.deepEqual(JSON.parse(row.config), { retries: 3, hosts: ['a', 'b'] });
      assert.equal(row.labels, 'red,blue');
      // The cast-boolean column filters as a boolean too.
      const filtered = await t.request({
        method: 'GET',
        url: `/items/gadgets?fields=id&filter[flag][_eq]=true&filter[id][_eq]=${item.id}`,
      });
      assert.equal(filtered.statusCode, 200, filtered.body);
      assert.deepEqual(json(filtered).data, [{ id: item.id }]);
    });

    it('fills update dates, users and roles on update, and hashes a new value', async () => {
      const created = json(await send('POST', '/items/gadgets', { name: 'Gizmo', secret: 'first' })).data;
      const before = await stored(created.id);
      const started = Date.now() - 2000;
      const res = await send('PATCH', `/items/gadgets/${created.id}`, { name: 'Gizmo 2', flag: false, labels: 'x,y' });
      assert.equal(res.statusCode, 200, res.body);
      const item = json(res).data;
      assert.equal(item.name, 'Gizmo 2');
      assert.ok(epoch(item.updated_on) >= started, `updated_on ${item.updated_on}`);
      assert.equal(item.updated_by, admin.id);
      assert.equal(item.updated_role, admin.role);
      assert.equal(item.created_on, created.created_on);
      assert.equal(item.flag, false);
      assert.deepEqual(item.labels, ['x', 'y']);
      assert.equal((await stored(created.id)).secret, before.secret);

      // An item sent back as read keeps its concealed values.
      const readBack = json(await send('PATCH', `/items/gadgets/${created.id}`, { ...item, name: 'Gizmo 3' })).data;
      assert.equal(readBack.name, 'Gizmo 3');
      assert.equal((await stored(created.id)).secret, before.secret);

      await send('PATCH', `/items/gadgets/${created.id}`, { secret: 'second' });
      const after = await stored(created.id);
      assert.notEqual(after.secret, before.secret);
      assert.ok(await verify(after.secret, 'second'));
    });

    it('keeps a given uuid key (lower case) and refuses one that is not a uuid', async () => {
      const id = 'C0FFEE00-1234-4ABC-8DEF-0123456789AB';
      const res = await send('POST', '/items/gadgets?fields=id,name', { id, name: 'Keyed' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, { id: id.toLowerCase(), name: 'Keyed' });
      assert.equal((await send('PATCH', `/items/gadgets/${id}?fields=name`, { name: 'Keyed 2' })).statusCode, 200);
      const bad = await send('POST', '/items/gadgets', { id: 'not-a-uuid', name: 'Bad key' });
      assert.equal(bad.statusCode, 400);
      assert.equal(errorCode(bad), 'INVALID_PAYLOAD');
      assert.equal(errorCode(await send('PATCH', '/items/gadgets/not-a-uuid', { name: 'x' })), 'FORBIDDEN');
    });

    it('creates many uuid-keyed items in one request, each with its own key', async () => {
      const res = await send('POST', '/items/gadgets?fields=id,name', [{ name: 'U1' }, { name: 'U2' }, { name: 'U3' }]);
      assert.equal(res.statusCode, 200, res.body);
      const items = json(res).data as { id: string; name: string }[];
      assert.deepEqual(items.map((i) => i.name).sort(), ['U1', 'U2', 'U3']);
      assert.equal(new Set(items.map((i) => i.id)).size, 3);
      for (const item of items) assert.match(item.id, UUID_V4);
    });
  });
}
