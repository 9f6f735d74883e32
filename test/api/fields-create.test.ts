/**
 * POST/GET/DELETE /fields on every database: every service type created, read back (its `schema` reflects it),
 * written (rows inserted directly: item writes are another issue) and read through /items; every schema option and
 * meta option; the refusals; deletes that take the column, its data and everything naming it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

/** type → [value inserted directly, value expected through /items]. */
function samples(client: DbClient): Record<string, [unknown, unknown]> {
  return {
    string: ['abc', 'abc'],
    text: ['line\nbreak', 'line\nbreak'],
    integer: [42, 42],
    bigInteger: ['9007199254740993', '9007199254740993'],
    float: [1.5, 1.5],
    decimal: ['12.345', '12.34500'],
    boolean: [true, true],
    date: ['2024-02-29', '2024-02-29'],
    dateTime: ['2024-02-29 13:45:07', '2024-02-29T13:45:07'],
    timestamp: [
      client === 'mysql' ? '2024-02-29 13:45:07.250' : '2024-02-29T13:45:07.250Z',
      '2024-02-29T13:45:07.250Z',
    ],
    time: ['13:45:07', '13:45:07'],
    json: ['{"a":[1,2],"b":null}', { a: [1, 2], b: null }],
    uuid: ['8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a', '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a'],
    // Binary wire values differ per database today (base64 on PostgreSQL/MySQL, hex on SQLite).
    binary: [Buffer.from('hi'), client === 'sqlite3' ? '6869' : 'aGk='],
    csv: ['a,b', ['a', 'b']],
    hash: ['$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA', '**********'],
  };
}

const DATA_TYPES: Record<DbClient, Record<string, string>> = {
  sqlite3: {
    string: 'varchar',
    integer: 'integer',
    boolean: 'boolean',
    uuid: 'uuid',
    timestamp: 'timestamp',
    decimal: 'decimal',
  },
  pg: {
    string: 'character varying',
    integer: 'integer',
    boolean: 'boolean',
    uuid: 'uuid',
    timestamp: 'timestamp with time zone',
    decimal: 'numeric',
  },
  mysql: {
    string: 'varchar',
    integer: 'int',
    boolean: 'tinyint',
    uuid: 'char',
    timestamp: 'timestamp',
    decimal: 'decimal',
  },
};

for (const client of testClients()) {
  describe(`fields: create, read, delete (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    const post = (url: string, payload: unknown, token?: string | null) =>
      t.request({ method: 'POST', url, payload: payload as object, token });
    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });

    it('creates a field of every type; each reads back with its type and column, and its values read through /items', async () => {
      assert.equal((await post('/collections', { collection: 'kinds', schema: {} })).statusCode, 200);
      const values = samples(client);
      for (const type of Object.keys(values)) {
        // csv lists need their flag, as in Directus (without it the field is plain text: see directus-compat).
        const res = await post(
          '/fields/kinds',
          type === 'csv' ? { field: `f_${type}`, type, meta: { special: ['cast-csv'] } } : { field: `f_${type}`, type },
        );
        assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
        const field = json(res).data;
        assert.equal(field.collection, 'kinds');
        assert.equal(field.field, `f_${type}`);
        assert.equal(field.type, type, type);
        assert.equal(field.schema.name, `f_${type}`);
        assert.equal(field.schema.table, 'kinds');
        assert.equal(field.schema.is_nullable, true);
        if (DATA_TYPES[client][type]) assert.equal(field.schema.data_type, DATA_TYPES[client][type], type);
        // Types the column alone cannot tell carry their special flag; the others have no meta at all.
        const special = { csv: ['cast-csv'], hash: ['hash'], uuid: client === 'mysql' ? ['uuid'] : null }[
          type as 'csv' | 'hash' | 'uuid'
        ];
        if (special) assert.deepEqual(field.meta.special, special, type);
        else assert.equal(field.meta, null, type);
      }
      const read = json(await get('/fields/kinds/f_string')).data;
      assert.equal(read.schema.max_length, 255);
      assert.deepEqual(json(await get('/fields/kinds/f_decimal')).data.schema.numeric_precision, 10);
      assert.deepEqual(json(await get('/fields/kinds/f_decimal')).data.schema.numeric_scale, 5);

      const knex = knexFor(t.testDb);
      try {
        await knex('kinds').insert(
          Object.fromEntries(Object.entries(values).map(([type, [value]]) => [`f_${type}`, value])),
        );
      } finally {
        await knex.destroy();
      }
      const items = json(await get('/items/kinds'));
      assert.equal(items.data.length, 1);
      const row = items.data[0];
      assert.equal(typeof row.id, 'number');
      for (const [type, [, expected]] of Object.entries(values)) assert.deepEqual(row[`f_${type}`], expected, type);
      // Filters work on the new columns at once.
      const filtered = json(await get(`/items/kinds?filter[f_integer][_eq]=42&filter[f_boolean][_eq]=true&fields=id`));
      assert.equal(filtered.data.length, 1);
    });

    it('creates alias fields without a column, for every alias type', async () => {
      for (const type of ['alias', 'o2m', 'm2m', 'm2a']) {
        const res = await post('/fields/authors', {
          field: `a_${type}`,
          type,
          meta: { interface: 'presentation-divider' },
        });
        assert.equal(res.statusCode, 200, res.body);
        const field = json(res).data;
        assert.equal(field.type, 'alias');
        assert.equal(field.schema, null);
        assert.equal(field.meta.interface, 'presentation-divider');
        if (type !== 'alias') assert.deepEqual(field.meta.special, [type]);
      }
      const items = json(await get('/items/authors?limit=1'));
      assert.deepEqual(Object.keys(items.data[0]), ['id', 'name', 'email', 'bio', 'active', 'joined']);
    });

    it('adds a column with schema options to a table with rows; a unique column whose default would repeat is refused whole', async () => {
      const refused = await post('/fields/authors', {
        field: 'code',
        type: 'string',
        schema: { max_length: 12, default_value: 'none', is_nullable: false, is_unique: true },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(errorCode(refused), 'INVALID_PAYLOAD');
      assert.match(json(refused).errors[0].extensions.reason, /unique/);
      assert.equal((await get('/fields/authors/code')).statusCode, 403);

      const res = await post('/fields/authors', {
        field: 'code',
        type: 'string',
        schema: { max_length: 12, default_value: 'none', is_nullable: false, is_indexed: true, comment: 'Short code' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const code = json(res).data.schema;
      assert.equal(code.max_length, 12);
      assert.equal(code.default_value, 'none');
      assert.equal(code.is_nullable, false);
      assert.equal(code.is_indexed, true);
      assert.equal(code.is_unique, false);
      assert.equal(code.comment, client === 'sqlite3' ? null : 'Short code');
      assert.deepEqual(json(await get('/items/authors?fields=code&sort=id')).data, [
        { code: 'none' },
        { code: 'none' },
        { code: 'none' },
      ]);
    });

    it('creates unique, indexed, numeric and defaulted columns on a table', async () => {
      const created = await post('/collections', {
        collection: 'gauges',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          {
            field: 'serial',
            type: 'string',
            schema: { max_length: 20, is_unique: true, is_nullable: false, comment: 'Serial number' },
          },
          { field: 'site', type: 'string', schema: { is_indexed: true, default_value: 'main' } },
          { field: 'reading', type: 'decimal', schema: { numeric_precision: 8, numeric_scale: 3, default_value: 1.5 } },
          { field: 'count', type: 'integer', schema: { default_value: 7, is_nullable: false } },
          { field: 'big', type: 'bigInteger', schema: { default_value: '9007199254740993' } },
          { field: 'on', type: 'boolean', schema: { default_value: true, is_nullable: false } },
          { field: 'off', type: 'boolean', schema: { default_value: false } },
          { field: 'ratio', type: 'float', schema: { default_value: 0.5 } },
          { field: 'seen', type: 'timestamp', schema: { default_value: 'CURRENT_TIMESTAMP' } },
          { field: 'day', type: 'date', schema: { default_value: '2024-01-31' } },
          { field: 'at', type: 'time', schema: { default_value: '08:30:00' } },
          { field: 'doc', type: 'json', schema: { default_value: { a: 1 } } },
        ],
      });
      assert.equal(created.statusCode, 200, created.body);
      const fields = Object.fromEntries(
        json(await get('/fields/gauges')).data.map((f: { field: string; schema: unknown }) => [f.field, f.schema]),
      );
      assert.equal(fields.id.is_primary_key, true);
      assert.equal(fields.id.has_auto_increment, true);
      assert.equal(fields.serial.is_unique, true);
      assert.equal(fields.serial.is_indexed, true);
      assert.equal(fields.serial.is_nullable, false);
      assert.equal(fields.serial.max_length, 20);
      assert.equal(fields.serial.comment, client === 'sqlite3' ? null : 'Serial number');
      assert.equal(fields.site.is_indexed, true);
      assert.equal(fields.site.is_unique, false);
      assert.equal(fields.site.default_value, 'main');
      assert.equal(fields.reading.numeric_precision, 8);
      assert.equal(fields.reading.numeric_scale, 3);
      assert.equal(Number(fields.reading.default_value), 1.5);
      assert.equal(fields.count.default_value, 7);
      assert.equal(fields.count.is_nullable, false);
      assert.equal(String(fields.big.default_value), '9007199254740993');
      assert.equal(fields.on.default_value, true);
      assert.equal(fields.off.default_value, false);
      assert.equal(fields.ratio.default_value, 0.5);
      assert.equal(fields.seen.default_value, 'CURRENT_TIMESTAMP');
      assert.equal(fields.day.default_value, '2024-01-31');
      assert.equal(fields.at.default_value, '08:30:00');
      assert.deepEqual(JSON.parse(String(fields.doc.default_value)), { a: 1 });

      // The defaults are the database's: a row inserted with only the serial gets them all.
      const knex = knexFor(t.testDb);
      try {
        await knex('gauges').insert({ serial: 'S-1' });
        await assert.rejects(knex('gauges').insert({ serial: 'S-1' }), 'serial is unique');
      } finally {
        await knex.destroy();
      }
      const [row] = json(await get('/items/gauges')).data;
      assert.deepEqual(
        { ...row, seen: typeof row.seen },
        {
          id: 1,
          serial: 'S-1',
          site: 'main',
          reading: '1.500',
          count: 7,
          big: '9007199254740993',
          on: true,
          off: false,
          ratio: 0.5,
          seen: 'string',
          day: '2024-01-31',
          at: '08:30:00',
          doc: { a: 1 },
        },
      );
    });

    it('stores every meta option and reads it back', async () => {
      const meta = {
        special: ['cast-json'],
        interface: 'input-code',
        options: { language: 'json', lineNumbers: true },
        display: 'formatted-json-value',
        display_options: { format: '{{a}}' },
        readonly: true,
        hidden: true,
        sort: 4,
        width: 'half-right',
        translations: [{ language: 'de-DE', translation: 'Notiz' }],
        note: 'Free notes',
        conditions: [{ name: 'when', rule: { status: { _eq: 'x' } }, hidden: true }],
        required: true,
        group: null,
        validation: { _and: [{ notes: { _nnull: true } }] },
        validation_message: 'Needed',
        searchable: false,
      };
      const res = await post('/fields/authors', { field: 'notes', type: 'text', meta });
      assert.equal(res.statusCode, 200, res.body);
      const field = json(await get('/fields/authors/notes')).data;
      assert.equal(typeof field.meta.id, 'number');
      assert.equal(field.meta.collection, 'authors');
      assert.equal(field.meta.field, 'notes');
      for (const [key, value] of Object.entries(meta)) assert.deepEqual(field.meta[key], value, key);
      assert.equal(field.type, 'json', 'cast-json makes a text column read as json');
    });

    it('lists fields of every collection, of one, and one field; unknown ones are 403', async () => {
      const all = json(await get('/fields')).data as { collection: string; field: string }[];
      assert.ok(all.some((f) => f.collection === 'articles' && f.field === 'title'));
      assert.ok(all.some((f) => f.collection === 'kinds' && f.field === 'f_json'));
      const articles = json(await get('/fields/articles')).data as { field: string }[];
      assert.deepEqual(
        articles.slice(0, 3).map((f) => f.field),
        ['id', 'title', 'slug'],
      );
      const title = json(await get('/fields/articles/title')).data;
      assert.deepEqual(Object.keys(title), ['collection', 'field', 'type', 'meta', 'schema']);
      assert.deepEqual(Object.keys(title.schema).sort(), [
        'comment',
        'data_type',
        'default_value',
        'foreign_key_column',
        'foreign_key_table',
        'generation_expression',
        'has_auto_increment',
        'is_generated',
        'is_indexed',
        'is_nullable',
        'is_primary_key',
        'is_unique',
        'max_length',
        'name',
        'numeric_precision',
        'numeric_scale',
        'table',
      ]);
      assert.equal(title.schema.max_length, 200);
      for (const url of ['/fields/nope', '/fields/nope/title', '/fields/articles/nope']) {
        const res = await get(url);
        assert.equal(res.statusCode, 403, url);
        assert.equal(errorCode(res), 'FORBIDDEN');
      }
    });

    it('refuses bad input with INVALID_PAYLOAD naming the problem', async () => {
      const cases: [string, unknown, RegExp][] = [
        ['/fields/articles', { field: 'title', type: 'string' }, /already exists/],
        ['/fields/articles', { field: 'TITLE', type: 'string' }, /already exists/],
        ['/fields/articles', { field: 'x', type: 'varchar' }, /Type "varchar" is unknown/],
        ['/fields/articles', { field: 'x' }, /"type" is required/],
        ['/fields/articles', { field: 'x', type: 'geometry' }, /not supported/],
        ['/fields/articles', { field: 'x.y', type: 'string' }, /name "x.y" is invalid/],
        ['/fields/articles', { field: 'x', type: 'string', meta: { width: 'wide' } }, /"meta.width" must be one of/],
        [
          '/fields/articles',
          { field: 'x', type: 'string', schema: { max_length: -1 } },
          /"schema.max_length" must be an integer/,
        ],
        [
          '/fields/articles',
          { field: 'x', type: 'string', schema: { is_nullable: 'no' } },
          /"schema.is_nullable" must be a boolean/,
        ],
        [
          '/fields/articles',
          { field: 'x', type: 'decimal', schema: { numeric_precision: 4, numeric_scale: 6 } },
          /numeric_scale/,
        ],
        ['/fields/articles', { field: 'x', type: 'integer', schema: { default_value: 'abc' } }, /must be an integer/],
        ['/fields/articles', { field: 'x', type: 'date', schema: { default_value: '2024-02-30' } }, /must be a date/],
        [
          '/fields/articles',
          { field: 'x', type: 'string', schema: { max_length: 3, default_value: 'toolong' } },
          /at most 3 characters/,
        ],
        ['/fields/articles', { field: 'x', type: 'integer', schema: { is_primary_key: true } }, /primary key/],
        ['/fields/articles', [], /must be an object/],
      ];
      for (const [url, payload, reason] of cases) {
        const res = await post(url, payload);
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        assert.match(json(res).errors[0].extensions.reason, reason, JSON.stringify(payload));
      }
      assert.equal((await post('/fields/nope', { field: 'x', type: 'string' })).statusCode, 403);
      // service_users takes an admin's own fields (system-custom-fields.test.ts); the internal collections do not.
      assert.equal((await post('/fields/service_sessions', { field: 'x', type: 'string' })).statusCode, 403);
    });

    it('refuses a NOT NULL field without default on a table that has rows (CONTAINS_NULL_VALUES)', async () => {
      const res = await post('/fields/articles', { field: 'must', type: 'integer', schema: { is_nullable: false } });
      assert.equal(res.statusCode, 400);
      assert.equal(errorCode(res), 'CONTAINS_NULL_VALUES');
      assert.deepEqual(json(res).errors[0].extensions, {
        code: 'CONTAINS_NULL_VALUES',
        collection: 'articles',
        field: 'must',
      });
      assert.equal((await get('/fields/articles/must')).statusCode, 403);
      // With a default the rows take it.
      const ok = await post('/fields/articles', {
        field: 'must',
        type: 'integer',
        schema: { is_nullable: false, default_value: 3 },
      });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(json(await get('/items/articles?fields=must&limit=2')).data, [{ must: 3 }, { must: 3 }]);
    });

    it('lets only admins see or change fields', async () => {
      for (const token of [null, 'not-a-token-of-anyone']) {
        const res = await get('/fields', token);
        assert.ok([401, 403].includes(res.statusCode), res.body);
      }
      assert.equal((await get('/fields', null)).statusCode, 403);
      assert.equal((await post('/fields/articles', { field: 'y', type: 'string' }, null)).statusCode, 403);
      assert.equal((await t.request({ method: 'DELETE', url: '/fields/articles/title', token: null })).statusCode, 403);
    });

    it('deletes a field: its column and data, its meta, its relation and o2m alias, and its name in permissions', async () => {
      const knex = knexFor(t.testDb);
      try {
        await knex('service_fields').insert([
          { collection: 'articles', field: 'author', special: 'm2o', interface: 'select-dropdown-m2o' },
          { collection: 'authors', field: 'articles', special: 'o2m', interface: 'list-o2m' },
        ]);
        await knex('service_relations').insert({
          many_collection: 'articles',
          many_field: 'author',
          one_collection: 'authors',
          one_field: 'articles',
        });
        const [policy] = await knex('service_policies').select('id').limit(1);
        await knex('service_permissions').insert({
          collection: 'articles',
          action: 'read',
          fields: 'id,title,author',
          policy: policy.id,
        });
        await t.reloadSchema();
        assert.equal((await get('/fields/authors/articles')).statusCode, 200);

        const res = await t.request({ method: 'DELETE', url: '/fields/articles/author' });
        assert.equal(res.statusCode, 204);
        assert.equal(res.body, '');
        assert.equal((await get('/fields/articles/author')).statusCode, 403);
        assert.equal(
          (await get('/fields/authors/articles')).statusCode,
          403,
          'the o2m alias on the other side goes too',
        );
        assert.equal(
          json(await get('/relations')).data.filter((r: { field: string }) => r.field === 'author').length,
          0,
        );
        assert.equal(errorCode(await get('/items/articles?fields=author')), 'FORBIDDEN');
        assert.equal((await knex('service_fields').where({ collection: 'articles', field: 'author' })).length, 0);
        assert.equal((await knex('service_relations').where({ many_field: 'author' })).length, 0);
        const [permission] = await knex('service_permissions').where({ collection: 'articles' });
        assert.equal(permission.fields, 'id,title');
        const columns = Object.keys(await knex('articles').columnInfo());
        assert.ok(!columns.includes('author'));
        // The other rows are intact.
        assert.equal((await knex('articles').count({ n: '*' }))[0]!.n == 6, true);
      } finally {
        await knex.destroy();
      }
      // Deleting an alias field removes its meta row only.
      assert.equal((await t.request({ method: 'DELETE', url: '/fields/authors/a_alias' })).statusCode, 204);
      assert.equal((await get('/fields/authors/a_alias')).statusCode, 403);
      assert.equal((await t.request({ method: 'DELETE', url: '/fields/articles/id' })).statusCode, 400, 'primary key');
      assert.equal((await t.request({ method: 'DELETE', url: '/fields/articles/nope' })).statusCode, 403);
    });
  });
}
