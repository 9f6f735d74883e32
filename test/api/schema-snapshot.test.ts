/**
 * /schema/snapshot, /schema/diff, /schema/apply: a snapshot of the blog fixture (m2o, o2m, m2m, m2a) taken on one
 * database is applied to an empty one, then that one's to the next (SQLite → PostgreSQL → MariaDB when the URLs
 * are set; SQLite → SQLite otherwise). After each apply the /collections, /fields and /relations answers of both
 * match (in their database-independent parts) and a second diff finds nothing.
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { CHANNELS } from '../../src/bus/message-bus.js';

const PORTABLE_SCHEMA = [
  'default_value',
  'max_length',
  'is_nullable',
  'is_unique',
  'is_primary_key',
  'has_auto_increment',
  'foreign_key_table',
  'foreign_key_column',
];

/** The metadata a database without a native uuid type keeps for a uuid field given none: its `uuid` flag alone. */
const UUID_FLAG_META = {
  special: ['uuid'],
  interface: null,
  options: null,
  display: null,
  display_options: null,
  readonly: false,
  hidden: false,
  sort: null,
  width: 'full',
  translations: null,
  note: null,
  conditions: null,
  required: false,
  group: null,
  validation: null,
  validation_message: null,
  searchable: true,
};

/**
 * A uuid field as PostgreSQL holds it (a native uuid, no metadata): where the database has no uuid type it is a
 * char(36) flagged by a metadata row that says nothing more, the same field to /schema/diff (sync/diff.ts). Only a
 * chain that starts on PostgreSQL has such a field (pair mode's: PostgreSQL → MariaDB).
 */
function nativeUuid<F extends { type: string; meta: any; schema: any }>(field: F): F {
  if (field.type !== 'uuid') return field;
  const { collection, field: name, id, ...rest } = field.meta ?? {};
  const flagOnly = field.meta !== null && isDeepStrictEqual(rest, UUID_FLAG_META);
  return {
    ...field,
    meta: flagOnly ? null : field.meta,
    schema: field.schema && { ...field.schema, max_length: null },
  };
}

async function structure(t: TestApp) {
  const get = async (url: string) => json(await t.request({ method: 'GET', url })).data;
  const user = (name: string) => !name.startsWith('service_');
  const collections = (await get('/collections'))
    .filter((c: any) => user(c.collection))
    .map((c: any) => ({ collection: c.collection, meta: c.meta, table: c.schema?.name ?? null }));
  const fields = (await get('/fields'))
    .filter((f: any) => user(f.collection))
    .map((f: any) => ({
      collection: f.collection,
      field: f.field,
      type: f.type,
      meta: f.meta ? { ...f.meta, id: undefined } : null,
      schema: f.schema
        ? Object.fromEntries(
            PORTABLE_SCHEMA.map((k) => [
              k,
              k === 'is_unique' ? f.schema.is_unique || f.schema.is_primary_key : f.schema[k],
            ]),
          )
        : null,
    }))
    .map(nativeUuid)
    .sort((a: any, b: any) => `${a.collection}.${a.field}`.localeCompare(`${b.collection}.${b.field}`));
  const relations = (await get('/relations'))
    .filter((r: any) => user(r.collection))
    .map((r: any) => ({
      collection: r.collection,
      field: r.field,
      related: r.related_collection,
      meta: r.meta ? { ...r.meta, id: undefined } : null,
      fk: Boolean(r.schema),
    }))
    .sort((a: any, b: any) => `${a.collection}.${a.field}`.localeCompare(`${b.collection}.${b.field}`));
  return { collections, fields, relations };
}

describe('schema snapshot / diff / apply', () => {
  const chain = testClients();
  if (chain.length === 1) chain.push('sqlite3');
  const apps: TestApp[] = [];
  before(async () => {
    apps.push(await startTestApp(chain[0]!, { relations: true }));
    for (const client of chain.slice(1)) apps.push(await startTestApp(client, { fixture: false }));
  });
  after(async () => {
    for (const t of apps) await t.close();
  });

  it(`round trip ${chain.map(clientLabel).join(' → ')}: same collections, fields and relations; re-applying changes nothing`, async () => {
    for (let i = 1; i < apps.length; i++) {
      const source = apps[i - 1]!;
      const target = apps[i]!;
      const snapshot = json(await source.request({ method: 'GET', url: '/schema/snapshot' })).data;
      assert.equal(snapshot.version, 1);
      assert.ok(snapshot.collections.some((c: any) => c.collection === 'articles'));
      const force = chain[i] !== chain[i - 1] ? '?force=true' : '';
      if (force) {
        const refused = await target.request({ method: 'POST', url: '/schema/diff', payload: snapshot });
        assert.equal(errorCode(refused), 'INVALID_PAYLOAD');
      }
      const diffRes = await target.request({ method: 'POST', url: `/schema/diff${force}`, payload: snapshot });
      assert.equal(diffRes.statusCode, 200, diffRes.body);
      const diff = json(diffRes).data;
      assert.match(diff.hash, /^[0-9a-f]{64}$/);
      assert.ok(diff.diff.collections.some((c: any) => c.collection === 'articles' && c.diff[0].kind === 'N'));
      const applied = await target.request({ method: 'POST', url: '/schema/apply', payload: diff });
      assert.equal(applied.statusCode, 204, applied.body);
      assert.deepEqual(
        await structure(target),
        await structure(source),
        `${clientLabel(chain[i - 1]!)} → ${clientLabel(chain[i]!)}`,
      );
      const again = await target.request({ method: 'POST', url: `/schema/diff${force}`, payload: snapshot });
      assert.equal(again.statusCode, 204, again.body);
      // The applied schema works: a nested write and read through the new relations.
      const created = await target.request({
        method: 'POST',
        url: '/items/articles?fields=title,author.name,tags.tags_id.name',
        payload: { title: 'T', author: { name: 'A' }, tags: [{ tags_id: { name: 'x' } }] },
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(json(created).data, { title: 'T', author: { name: 'A' }, tags: [{ tags_id: { name: 'x' } }] });
    }
  });

  it('edits and removals: a changed field, a removed field and collection; a stale diff is refused', async () => {
    const source = apps[0]!;
    const target = apps[apps.length - 1]!;
    const force = chain[0] !== chain[chain.length - 1] ? '?force=true' : '';
    assert.equal(
      (
        await source.request({
          method: 'PATCH',
          url: '/fields/authors/bio',
          payload: { meta: { note: 'from the source' } },
        })
      ).statusCode,
      200,
    );
    // On the target: an extra collection and field, and another note.
    assert.equal(
      (
        await target.request({
          method: 'POST',
          url: '/collections',
          payload: {
            collection: 'extra',
            fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
          },
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await target.request({
          method: 'POST',
          url: '/fields/authors',
          payload: { field: 'nickname', type: 'string', schema: { max_length: 20 } },
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (await target.request({ method: 'PATCH', url: '/fields/authors/bio', payload: { meta: { note: 'changed' } } }))
        .statusCode,
      200,
    );
    const snapshot = json(await source.request({ method: 'GET', url: '/schema/snapshot' })).data;
    const diff = json(await target.request({ method: 'POST', url: `/schema/diff${force}`, payload: snapshot })).data;
    assert.deepEqual(
      diff.diff.collections.map((c: any) => [c.collection, c.diff[0].kind]),
      [['extra', 'D']],
    );
    assert.deepEqual(diff.diff.fields.map((f: any) => [f.collection, f.field, f.diff[0].kind]).sort(), [
      ['authors', 'bio', 'E'],
      ['authors', 'nickname', 'D'],
      ['extra', 'id', 'D'],
    ]);
    // Stale: the schema changes between diff and apply.
    await target.request({ method: 'PATCH', url: '/fields/authors/name', payload: { meta: { note: 'moved on' } } });
    const stale = await target.request({ method: 'POST', url: '/schema/apply', payload: diff });
    assert.equal(errorCode(stale), 'INVALID_PAYLOAD');
    const fresh = json(await target.request({ method: 'POST', url: `/schema/diff${force}`, payload: snapshot })).data;
    assert.equal((await target.request({ method: 'POST', url: '/schema/apply', payload: fresh })).statusCode, 204);
    assert.deepEqual(await structure(target), await structure(source));
  });

  it('YAML export and body; admins only; bad bodies are INVALID_PAYLOAD', async () => {
    const t = apps[0]!;
    const yaml = await t.request({ method: 'GET', url: '/schema/snapshot?export=yaml' });
    assert.match(String(yaml.headers['content-type']), /^text\/yaml/);
    assert.match(String(yaml.headers['content-disposition']), /attachment; filename="snapshot-\d{8}-\d{6}\.yaml"/);
    const parsed = parseYaml(yaml.body);
    assert.deepEqual(parsed, json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data);
    const same = await t.request({
      method: 'POST',
      url: '/schema/diff',
      payload: yaml.body,
      headers: { 'content-type': 'application/yaml' },
    });
    assert.equal(same.statusCode, 204, same.body);
    for (const url of ['/schema/snapshot'])
      assert.equal((await t.request({ method: 'GET', url, token: null })).statusCode, 403);
    assert.equal(
      (await t.request({ method: 'POST', url: '/schema/apply', payload: { hash: 'x', diff: {} }, token: null }))
        .statusCode,
      403,
    );
    for (const payload of [{}, { collections: 'x', fields: [], relations: [] }, [1]]) {
      const res = await t.request({ method: 'POST', url: '/schema/diff', payload: payload as object });
      assert.equal(errorCode(res), 'INVALID_PAYLOAD', JSON.stringify(payload));
    }
    const badApply = await t.request({ method: 'POST', url: '/schema/apply', payload: { hash: 'x' } });
    assert.equal(errorCode(badApply), 'INVALID_PAYLOAD');
    const badYaml = await t.request({
      method: 'POST',
      url: '/schema/diff',
      payload: 'a: [',
      headers: { 'content-type': 'text/yaml' },
    });
    assert.equal(errorCode(badYaml), 'INVALID_PAYLOAD');
  });
});

// A diff whose last step fails: PostgreSQL and SQLite roll the whole apply back; MariaDB (DDL commits on its own)
// keeps the steps before the failing one and says which.
for (const client of testClients()) {
  describe(`schema apply that fails half-way (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
    });
    after(async () => {
      await t.close();
    });

    it(
      client === 'mysql'
        ? 'reports the steps applied before the failing one'
        : 'leaves collections, fields and relations as they were',
      async () => {
        const created = await t.request({
          method: 'POST',
          url: '/collections',
          payload: {
            collection: 'notes',
            fields: [
              { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
              { field: 'title', type: 'string' },
            ],
          },
        });
        assert.equal(created.statusCode, 200, created.body);
        assert.equal(
          (await t.request({ method: 'POST', url: '/items/notes', payload: { title: 'kept' } })).statusCode,
          200,
        );
        const before = await structure(t);
        const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
        const id = snapshot.fields.find((f: any) => f.collection === 'notes' && f.field === 'id');
        const title = snapshot.fields.find((f: any) => f.collection === 'notes' && f.field === 'title');
        const notes = snapshot.collections.find((c: any) => c.collection === 'notes');
        // Wanted: a new collection, a new field, and last a relation on a column that exists nowhere.
        snapshot.collections.push({
          ...notes,
          collection: 'tags',
          meta: { ...notes.meta, collection: 'tags' },
          schema: { name: 'tags' },
        });
        snapshot.fields.push({
          ...id,
          collection: 'tags',
          meta: id.meta && { ...id.meta, collection: 'tags' },
          schema: id.schema && { ...id.schema, table: 'tags' },
        });
        snapshot.fields.push({
          ...title,
          field: 'extra',
          meta: title.meta && { ...title.meta, field: 'extra' },
          schema: title.schema && { ...title.schema, name: 'extra' },
        });
        snapshot.relations.push({
          collection: 'notes',
          field: 'ghost',
          related_collection: 'tags',
          meta: null,
          schema: {
            table: 'notes',
            column: 'ghost',
            foreign_key_table: 'tags',
            foreign_key_column: 'id',
            on_delete: 'SET NULL',
          },
        });
        const diffRes = await t.request({ method: 'POST', url: '/schema/diff', payload: snapshot });
        assert.equal(diffRes.statusCode, 200, diffRes.body);
        const notices = countSchemaNotices(t);
        const res = await t.request({ method: 'POST', url: '/schema/apply', payload: json(diffRes).data });
        assert.equal(errorCode(res), 'INVALID_PAYLOAD', res.body);
        const error = json(res).errors[0];
        assert.equal(error.extensions.failed, 'create relation "notes.ghost" → "tags"');
        assert.match(error.message, /notes\.ghost/);
        if (client === 'mysql') {
          assert.deepEqual(error.extensions.applied, [
            'create collection "tags" with 1 field',
            'create field "notes.extra" (string)',
          ]);
          const after = await structure(t);
          assert.ok(after.collections.some((c: any) => c.collection === 'tags'));
          assert.ok(after.fields.some((f: any) => f.collection === 'notes' && f.field === 'extra'));
          assert.equal(notices.count, 2, 'each applied step is announced');
        } else {
          assert.equal(notices.count, 0, 'a rolled-back apply is not announced');
          assert.deepEqual(error.extensions.applied, []);
          assert.match(error.message, /nothing was applied \(2 earlier steps rolled back\)/);
          assert.deepEqual(await structure(t), before);
          // Nothing half-made below the metadata either: the table and column names are free again.
          const again = await t.request({
            method: 'POST',
            url: '/collections',
            payload: {
              collection: 'tags',
              fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
            },
          });
          assert.equal(again.statusCode, 200, again.body);
          assert.equal(
            (await t.request({ method: 'POST', url: '/fields/notes', payload: { field: 'extra', type: 'string' } }))
              .statusCode,
            200,
          );
        }
        // The data is untouched, and the lock is free for the single-change path.
        assert.deepEqual(json(await t.request({ method: 'GET', url: '/items/notes?fields=title' })).data, [
          { title: 'kept' },
        ]);
        assert.equal(
          (await t.request({ method: 'PATCH', url: '/fields/notes/title', payload: { meta: { note: 'after' } } }))
            .statusCode,
          200,
        );
      },
    );

    it(
      'refuses a field change the data does not allow, after a new collection: ' +
        (client === 'mysql' ? 'the collection stays' : 'nothing stays'),
      async () => {
        const before = await structure(t);
        const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
        const notes = snapshot.collections.find((c: any) => c.collection === 'notes');
        const id = snapshot.fields.find((f: any) => f.collection === 'notes' && f.field === 'id');
        const title = snapshot.fields.find((f: any) => f.collection === 'notes' && f.field === 'title');
        // New collections come first; then "title" ("kept" is no integer) is changed.
        snapshot.collections.push({
          ...notes,
          collection: 'labels',
          meta: { ...notes.meta, collection: 'labels' },
          schema: { name: 'labels' },
        });
        snapshot.fields.push({
          ...id,
          collection: 'labels',
          meta: id.meta && { ...id.meta, collection: 'labels' },
          schema: id.schema && { ...id.schema, table: 'labels' },
        });
        Object.assign(title, {
          type: 'integer',
          schema: { ...title.schema, data_type: id.schema.data_type, max_length: null },
        });
        const diff = json(await t.request({ method: 'POST', url: '/schema/diff', payload: snapshot })).data;
        const res = await t.request({ method: 'POST', url: '/schema/apply', payload: diff });
        assert.equal(errorCode(res), 'INVALID_PAYLOAD', res.body);
        const error = json(res).errors[0];
        assert.equal(error.extensions.failed, 'change field "notes.title"', error.message);
        if (client === 'mysql') {
          assert.deepEqual(error.extensions.applied, ['create collection "labels" with 1 field']);
          assert.equal((await t.request({ method: 'DELETE', url: '/collections/labels' })).statusCode, 204);
        } else assert.deepEqual(error.extensions.applied, [], error.message);
        assert.deepEqual(await structure(t), before);
        assert.deepEqual(json(await t.request({ method: 'GET', url: '/items/notes?fields=title' })).data, [
          { title: 'kept' },
        ]);
      },
    );

    it(
      client === 'mysql' ? 'announces each step of an apply' : 'announces an apply once, after it committed',
      async () => {
        const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
        const title = snapshot.fields.find((f: any) => f.collection === 'notes' && f.field === 'title');
        for (const name of ['first', 'second'])
          snapshot.fields.push({
            ...title,
            field: name,
            meta: title.meta && { ...title.meta, field: name },
            schema: title.schema && { ...title.schema, name },
          });
        const diff = json(await t.request({ method: 'POST', url: '/schema/diff', payload: snapshot })).data;
        const notices = countSchemaNotices(t);
        const res = await t.request({ method: 'POST', url: '/schema/apply', payload: diff });
        assert.equal(res.statusCode, 204, res.body);
        assert.equal(notices.count, client === 'mysql' ? 2 : 1);
        const fields = json(await t.request({ method: 'GET', url: '/fields/notes' })).data.map((f: any) => f.field);
        assert.ok(fields.includes('first') && fields.includes('second'), fields.join());
      },
    );
  });
}

/** Counts the schema notices the app sends the other instances from now on (from whichever worker applies). */
function countSchemaNotices(t: TestApp): { count: number } {
  const counter = { count: 0 };
  for (const { context } of t.workers) {
    const bus = context.bus;
    const publish = bus.publish.bind(bus);
    bus.publish = (channel, notice) => {
      if (channel === CHANNELS.schema) counter.count += 1;
      return publish(channel, notice);
    };
  }
  return counter;
}
