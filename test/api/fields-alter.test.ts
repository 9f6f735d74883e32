/**
 * PATCH /fields on every database: type changes the data allows go through, lossy ones are refused with nothing
 * changed; nullability (CONTAINS_NULL_VALUES), defaults, max_length, unique and index toggles; a PATCH that changes
 * nothing issues no DDL; columns in foreign keys and indexes are altered with their keys and indexes kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

/** DDL, and the statements of a SQLite table rebuild (reads of the catalog after a change are not counted). */
const DDL =
  /^\s*(alter|create|drop|comment|rename|insert into "_strata|pragma (foreign_keys|legacy_alter_table|foreign_key_check))\b/i;

for (const client of testClients()) {
  describe(`fields: changes (${clientLabel(client)})`, () => {
    let t: TestApp;
    let knex: Knex;
    before(async () => {
      t = await startTestApp(client);
      knex = knexFor(t.testDb);
      const res = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'samples',
          schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'txt', type: 'string', schema: { max_length: 50 } },
            { field: 'num', type: 'string' },
            { field: 'dec', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } },
            { field: 'flag', type: 'integer' },
            { field: 'moment', type: 'dateTime' },
            { field: 'doc', type: 'text' },
            { field: 'ok', type: 'boolean' },
            { field: 'tags', type: 'csv', meta: { special: ['cast-csv'] } },
            { field: 'code', type: 'string', schema: { max_length: 10 } },
          ],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      await knex('samples').insert([
        {
          txt: 'short',
          num: '12',
          dec: '1.50',
          flag: 1,
          moment: '2024-01-01 00:00:00',
          doc: '{"a":1}',
          ok: true,
          tags: 'a,b',
          code: 'a',
        },
        {
          txt: 'a much longer value',
          num: ' -7 ',
          dec: '2.00',
          flag: 0,
          moment: '2024-01-02 00:00:00',
          doc: '[1,2]',
          ok: false,
          tags: 'c',
          code: 'a',
        },
        { txt: null, num: null, dec: null, flag: null, moment: null, doc: null, ok: null, tags: null, code: null },
      ]);
    });
    after(async () => {
      await knex?.destroy();
      await t?.close();
    });

    const get = (url: string) => t.request({ method: 'GET', url });
    const patch = (url: string, payload: unknown) => t.request({ method: 'PATCH', url, payload: payload as object });
    const column = async (field: string) => json(await get(`/fields/samples/${field}`)).data;
    const values = async (field: string) =>
      json(await get(`/items/samples?fields=${field}&sort=id`)).data.map((r: Record<string, unknown>) => r[field]);

    /** Statements the database runs during `work`, DDL only. */
    async function ddlDuring(work: () => Promise<unknown>): Promise<string[]> {
      const seen: string[] = [];
      const listener = (q: { sql: string }) => seen.push(q.sql);
      queryBuilder(t.context.db).on('query', listener);
      try {
        await work();
      } finally {
        queryBuilder(t.context.db).off('query', listener);
      }
      return seen.filter((sql) => DDL.test(sql));
    }

    async function refused(field: string, payload: unknown, reason: RegExp, code = 'INVALID_PAYLOAD'): Promise<void> {
      const before = { field: await column(field), values: await values(field) };
      const res = await patch(`/fields/samples/${field}`, payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(errorCode(res), code);
      if (code === 'INVALID_PAYLOAD') assert.match(json(res).errors[0].extensions.reason, reason);
      assert.deepEqual(await column(field), before.field, 'the field is unchanged');
      assert.deepEqual(await values(field), before.values, 'the data is unchanged');
    }

    it('changes text holding integers to integer; values become numbers', async () => {
      const res = await patch('/fields/samples/num', { type: 'integer' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.type, 'integer');
      assert.deepEqual(await values('num'), [12, -7, null]);
      // And back to text: every integer has a text form.
      assert.equal((await patch('/fields/samples/num', { type: 'string' })).statusCode, 200);
      assert.deepEqual(await values('num'), ['12', '-7', null]);
    });

    it('refuses text that is not an integer, naming the field and how many values would be lost', async () => {
      await refused(
        'txt',
        { type: 'integer' },
        /Field "txt" in collection "samples" can't be changed from string\(50\) to integer: 2 value\(s\) would not survive/,
      );
    });

    it('shortens max_length only when every value fits; lengthens always', async () => {
      await refused('txt', { schema: { max_length: 10 } }, /string\(50\) to string\(10\): 1 value\(s\)/);
      const longer = await patch('/fields/samples/txt', { schema: { max_length: 100 } });
      assert.equal(longer.statusCode, 200, longer.body);
      assert.equal(json(longer).data.schema.max_length, 100);
      const fits = await patch('/fields/samples/txt', { schema: { max_length: 19 } });
      assert.equal(fits.statusCode, 200, fits.body);
      assert.equal(json(fits).data.schema.max_length, 19);
      assert.deepEqual(await values('txt'), ['short', 'a much longer value', null]);
    });

    it('changes decimals to integers only when no value has a fraction', async () => {
      await knex('samples').where({ id: 1 }).update({ dec: '1.5' });
      await refused('dec', { type: 'integer' }, /decimal\(10, 2\) to integer: 1 value/);
      await knex('samples').where({ id: 1 }).update({ dec: '1' });
      const res = await patch('/fields/samples/dec', { type: 'integer' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await values('dec'), [1, 2, null]);
      // Narrower decimals refuse values that would be cut.
      assert.equal(
        (await patch('/fields/samples/dec', { type: 'decimal', schema: { numeric_precision: 6, numeric_scale: 2 } }))
          .statusCode,
        200,
      );
      await knex('samples').where({ id: 1 }).update({ dec: '1234.56' });
      await refused(
        'dec',
        { schema: { numeric_precision: 5, numeric_scale: 2 } },
        /decimal\(6, 2\) to decimal\(5, 2\): 1 value/,
      );
      await refused('dec', { schema: { numeric_scale: 1 } }, /to decimal\(6, 1\): 1 value/);
    });

    it('changes integers to booleans only when they are 0 or 1', async () => {
      await knex('samples').where({ id: 3 }).update({ flag: 2 });
      await refused('flag', { type: 'boolean' }, /integer to boolean: 1 value/);
      await knex('samples').where({ id: 3 }).update({ flag: null });
      const res = await patch('/fields/samples/flag', { type: 'boolean' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await values('flag'), [true, false, null]);
    });

    it('changes date-times to dates only when they hold no time of day', async () => {
      await knex('samples').where({ id: 3 }).update({ moment: '2024-01-03 10:00:00' });
      await refused('moment', { type: 'date' }, /dateTime to date: 1 value/);
      await knex('samples').where({ id: 3 }).update({ moment: null });
      const res = await patch('/fields/samples/moment', { type: 'date' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await values('moment'), ['2024-01-01', '2024-01-02', null]);
    });

    it('changes text to json when every value is JSON', async () => {
      await knex('samples').where({ id: 3 }).update({ doc: 'not json' });
      const res = await patch('/fields/samples/doc', { type: 'json' });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      assert.equal((await column('doc')).type, 'text');
      await knex('samples').where({ id: 3 }).update({ doc: null });
      const ok = await patch('/fields/samples/doc', { type: 'json' });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(await values('doc'), [{ a: 1 }, [1, 2], null]);
    });

    it('refuses changes no data allows, and changes to or from alias', async () => {
      await refused('ok', { type: 'string' }, /can't be changed from boolean to string/);
      await refused('ok', { type: 'alias' }, /can't become an alias field/);
      await refused('ok', { type: 'geometry' }, /not supported/);
      await refused('id', { schema: { is_nullable: true } }, /primary key/);
      await refused('id', { type: 'string' }, /auto-increments/);
    });

    it('switches csv to text and back by its special flag alone, without DDL', async () => {
      const statements = await ddlDuring(async () => {
        const res = await patch('/fields/samples/tags', { type: 'text' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(json(res).data.type, 'text');
        assert.deepEqual(json(res).data.meta.special, null);
      });
      assert.deepEqual(statements, []);
      assert.deepEqual(await values('tags'), ['a,b', 'c', null]);
      assert.equal(
        json(await patch('/fields/samples/tags', { type: 'csv', meta: { special: ['cast-csv'] } })).data.type,
        'csv',
      );
      assert.deepEqual(await values('tags'), [['a', 'b'], ['c'], null]);
    });

    it('makes a column NOT NULL only when it holds no nulls (CONTAINS_NULL_VALUES)', async () => {
      await refused('txt', { schema: { is_nullable: false } }, /./, 'CONTAINS_NULL_VALUES');
      const res = await patch('/fields/samples/txt', { schema: { is_nullable: false } });
      assert.deepEqual(json(res).errors[0].extensions, {
        code: 'CONTAINS_NULL_VALUES',
        collection: 'samples',
        field: 'txt',
      });
      await knex('samples').where({ id: 3 }).update({ txt: 'filled' });
      const ok = await patch('/fields/samples/txt', { schema: { is_nullable: false } });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(json(ok).data.schema.is_nullable, false);
      await assert.rejects(knex('samples').insert({ txt: null }));
      assert.equal(
        json(await patch('/fields/samples/txt', { schema: { is_nullable: true } })).data.schema.is_nullable,
        true,
      );
    });

    it('sets and drops a default', async () => {
      const res = await patch('/fields/samples/txt', { schema: { default_value: 'fresh' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.schema.default_value, 'fresh');
      await knex('samples').insert({ num: '1' });
      assert.deepEqual(json(await get(`/items/samples?fields=txt&filter[num][_eq]=1`)).data, [{ txt: 'fresh' }]);
      assert.equal(
        json(await patch('/fields/samples/txt', { schema: { default_value: null } })).data.schema.default_value,
        null,
      );
      await knex('samples').where('num', '1').delete();
    });

    it('keeps backslashes, quotes and newlines of a default exactly, through later changes and a type change', async () => {
      const text = "C:\\temp\\new it's\nnext";
      const created = await t.request({
        method: 'POST',
        url: '/fields/samples',
        payload: { field: 'path', type: 'string', schema: { max_length: 100, default_value: text } },
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(json(created).data.schema.default_value, text);
      const inserted = async () => {
        const id = json(await t.request({ method: 'POST', url: '/items/samples', payload: { num: 'bs' } })).data.id;
        const value = json(await get(`/items/samples/${id}?fields=path`)).data.path;
        await knex('samples').where('id', id).delete();
        return value;
      };
      assert.equal(await inserted(), text);
      // Any change of the column rewrites its definition: the default must survive it unchanged, every time.
      for (const change of [
        { schema: { is_nullable: false } },
        { schema: { is_nullable: true } },
        { schema: { max_length: 120 } },
      ]) {
        const res = await patch('/fields/samples/path', change);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(json(res).data.schema.default_value, text);
        assert.equal((await column('path')).schema.default_value, text);
      }
      assert.equal(await inserted(), text);
      const retyped = await patch('/fields/samples/path', { type: 'text' });
      assert.equal(retyped.statusCode, 200, retyped.body);
      assert.equal(json(retyped).data.schema.default_value, text);
      assert.equal(await inserted(), text);
      assert.equal((await t.request({ method: 'DELETE', url: '/fields/samples/path' })).statusCode, 204);
    });

    it('sets clock and literal defaults on date-time columns of the fixture', async () => {
      const now = await patch('/fields/articles/updated_at', { schema: { default_value: 'CURRENT_TIMESTAMP' } });
      assert.equal(now.statusCode, 200, now.body);
      assert.equal(json(now).data.schema.default_value, 'CURRENT_TIMESTAMP');
      const literal = await patch('/fields/articles/published_at', {
        schema: { default_value: '2024-01-02T03:04:05' },
      });
      assert.equal(literal.statusCode, 200, literal.body);
      assert.equal(json(literal).data.schema.default_value, '2024-01-02 03:04:05');
    });

    it('changes the type of a column without data whatever the data would have allowed', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/fields/samples',
        payload: { field: 'unused', type: 'string' },
      });
      assert.equal(created.statusCode, 200, created.body);
      const res = await patch('/fields/samples/unused', { type: 'integer' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.type, 'integer');
      assert.deepEqual(await values('unused'), [null, null, null]);
    });

    it('makes a column unique only without duplicates, and indexes it', async () => {
      await refused('code', { schema: { is_unique: true } }, /duplicate values/);
      await knex('samples').where({ id: 2 }).update({ code: 'b' });
      const res = await patch('/fields/samples/code', { schema: { is_unique: true } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.schema.is_unique, true);
      assert.equal(json(res).data.schema.is_indexed, true);
      await assert.rejects(knex('samples').insert({ code: 'b' }));
      const plain = await patch('/fields/samples/code', { schema: { is_unique: false } });
      assert.equal(json(plain).data.schema.is_unique, false);
      assert.equal(json(plain).data.schema.is_indexed, false);
      const indexed = await patch('/fields/samples/code', { schema: { is_indexed: true } });
      assert.equal(json(indexed).data.schema.is_indexed, true);
      assert.equal(json(indexed).data.schema.is_unique, false);
      assert.equal(
        json(await patch('/fields/samples/code', { schema: { is_indexed: false } })).data.schema.is_indexed,
        false,
      );
    });

    it('changes a comment where the database keeps comments', async () => {
      const res = await patch('/fields/samples/code', { schema: { comment: 'The code' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.schema.comment, client === 'sqlite3' ? null : 'The code');
    });

    it('merges meta and creates a meta row where there was none', async () => {
      assert.equal((await column('code')).meta, null);
      const first = await patch('/fields/samples/code', { meta: { note: 'A code', width: 'half' } });
      assert.equal(first.statusCode, 200, first.body);
      const second = json(await patch('/fields/samples/code', { meta: { width: 'full', hidden: true } })).data.meta;
      assert.equal(second.note, 'A code');
      assert.equal(second.width, 'full');
      assert.equal(second.hidden, true);
      const bad = await patch('/fields/samples/code', { meta: { width: 'wide' } });
      assert.equal(bad.statusCode, 400);
    });

    it('refuses renaming', async () => {
      const res = await patch('/fields/samples/code', { field: 'other', meta: { note: 'x' } });
      assert.equal(res.statusCode, 400);
      assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      assert.match(json(res).errors[0].extensions.reason, /renaming fields is not supported/);
      assert.equal((await column('code')).meta.note, 'A code');
      assert.equal((await patch('/fields/samples/nope', { meta: { note: 'x' } })).statusCode, 403);
    });

    it('issues no DDL for a PATCH that changes nothing, for every field of the fixture read back and sent again', async () => {
      for (const collection of ['articles', 'authors', 'samples']) {
        const fields = json(await get(`/fields/${collection}`)).data as {
          field: string;
          type: string;
          schema: unknown;
          meta: unknown;
        }[];
        for (const field of fields) {
          const statements = await ddlDuring(async () => {
            const res = await patch(`/fields/${collection}/${field.field}`, {
              type: field.type,
              schema: field.schema,
              meta: field.meta,
            });
            assert.equal(res.statusCode, 200, `${collection}.${field.field}: ${res.body}`);
            assert.deepEqual(json(res).data, field, `${collection}.${field.field} reads back the same`);
          });
          assert.deepEqual(statements, [], `${collection}.${field.field}`);
        }
      }
    });

    it('changes several fields at once, or none of them', async () => {
      const res = await patch('/fields/samples', [
        { field: 'code', meta: { note: 'batch' } },
        { field: 'txt', schema: { max_length: 2 } },
      ]);
      assert.equal(res.statusCode, 400);
      assert.equal((await column('code')).meta.note, 'A code');
      const ok = await patch('/fields/samples', [
        { field: 'code', meta: { note: 'batch' } },
        { field: 'txt', schema: { max_length: 60 } },
      ]);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(
        json(ok).data.map((f: { field: string }) => f.field),
        ['code', 'txt'],
      );
      assert.equal((await column('txt')).schema.max_length, 60);
      assert.equal((await column('code')).meta.note, 'batch');
      assert.equal(errorCode(await patch('/fields/samples', { field: 'code' })), 'INVALID_PAYLOAD');
    });

    it('alters an indexed column and keeps its index', async () => {
      assert.equal(
        (await t.request({ method: 'GET', url: '/fields/articles/status' }).then(json)).data.schema.is_indexed,
        true,
      );
      const res = await patch('/fields/articles/status', { schema: { max_length: 40, default_value: 'new' } });
      assert.equal(res.statusCode, 200, res.body);
      const status = json(res).data.schema;
      assert.equal(status.max_length, 40);
      assert.equal(status.default_value, 'new');
      assert.equal(status.is_indexed, true);
      assert.deepEqual(
        json(await get('/items/articles?fields=status&sort=id')).data.map((r: { status: string }) => r.status),
        ['published', 'published', 'draft', 'published', 'archived', 'published'],
      );
    });

    it('alters columns on both sides of a foreign key and keeps the key', async () => {
      const codes = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'codes',
          schema: {},
          fields: [{ field: 'code', type: 'string', schema: { is_primary_key: true, max_length: 10 } }],
        },
      });
      assert.equal(codes.statusCode, 200, codes.body);
      await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'uses',
          schema: {},
          fields: [{ field: 'code', type: 'string', schema: { max_length: 10 } }],
        },
      });
      const relation = await t.request({
        method: 'POST',
        url: '/relations',
        payload: { collection: 'uses', field: 'code', related_collection: 'codes', schema: { on_delete: 'CASCADE' } },
      });
      assert.equal(relation.statusCode, 200, relation.body);
      await knex('codes').insert([{ code: 'A' }, { code: 'B' }]);
      await knex('uses').insert([{ code: 'A' }, { code: 'B' }]);

      for (const [collection, field] of [
        ['uses', 'code'],
        ['codes', 'code'],
      ]) {
        const res = await patch(`/fields/${collection}/${field}`, { schema: { max_length: 20 } });
        assert.equal(res.statusCode, 200, `${collection}.${field}: ${res.body}`);
        assert.equal(json(res).data.schema.max_length, 20);
      }
      const after = json(await get('/relations/uses/code')).data;
      assert.equal(after.schema.foreign_key_table, 'codes');
      assert.equal(after.schema.on_delete, 'CASCADE');
      await assert.rejects(knex('uses').insert({ code: 'nope' }), 'the key still holds');
      await knex('codes').where({ code: 'A' }).delete();
      assert.deepEqual(json(await get('/items/uses?fields=code')).data, [{ code: 'B' }], 'and still cascades');

      // A key whose columns would no longer match is refused where the database needs equal types.
      const widened = await patch('/fields/articles/author', { type: 'bigInteger' });
      if (client === 'mysql') {
        assert.equal(widened.statusCode, 400);
        assert.match(json(widened).errors[0].extensions.reason, /same type/);
        assert.equal((await column('id')).type, 'integer');
        assert.equal(json(await get('/fields/articles/author')).data.type, 'integer');
        assert.ok(json(await get('/relations/articles/author')).data.schema, 'the key was put back');
      } else {
        assert.equal(widened.statusCode, 200, widened.body);
        assert.equal(json(widened).data.type, 'bigInteger');
        assert.equal(json(await get('/relations/articles/author')).data.schema.on_delete, 'SET NULL');
      }
    });

    if (client === 'sqlite3') {
      it('rebuilds a SQLite table keeping rows, keys, indexes, foreign keys both ways, generated columns and the key counter', async () => {
        await knex('articles').insert({ title: 'Gone', slug: 'gone' });
        await knex('articles').where({ slug: 'gone' }).delete();
        const res = await patch('/fields/articles/title', { schema: { max_length: 150 } });
        assert.equal(res.statusCode, 200, res.body);
        const fields = Object.fromEntries(
          json(await get('/fields/articles')).data.map((f: { field: string; schema: unknown }) => [f.field, f.schema]),
        );
        assert.equal(fields.title.max_length, 150);
        assert.equal(fields.id.has_auto_increment, true);
        assert.equal(fields.slug.is_unique, true);
        assert.equal(fields.status.is_indexed, true);
        assert.equal(fields.title_length.is_generated, true);
        assert.equal(fields.author.foreign_key_table, 'authors');
        const rows = json(await get('/items/articles?fields=id,title,title_length&sort=id')).data;
        assert.equal(rows.length, 6);
        assert.deepEqual(rows[0], { id: 1, title: 'Hello World', title_length: 11 });
        const [fresh] = await knex('articles').insert({ title: 'Next', slug: 'next' }).returning('id');
        assert.equal((fresh as { id: number }).id, 8, 'ids deleted before the rebuild are not handed out again');
        await assert.rejects(
          knex
            .raw('pragma foreign_keys = on')
            .then(() => knex('articles').insert({ title: 'x', slug: 'x', author: 99 })),
        );
        // The junction's key to the rebuilt table still cascades.
        await knex.raw('pragma foreign_keys = on');
        await knex('articles').where({ id: 1 }).delete();
        assert.equal((await knex('articles_tags').where({ articles_id: 1 })).length, 0);
        assert.deepEqual((await knex.raw(`pragma foreign_key_check`)) as unknown[], []);
      });
    }
  });
}
