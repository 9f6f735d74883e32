/**
 * The pure stages of field management: request bodies → FieldInput, FieldInput + current column → the exact
 * attributes that change (none for a body that restates the column), the conversion check a type change needs,
 * defaults checked and compared across the forms each database writes them in, and special flags per type.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mysqlDdl } from '../../src/db/dialects/mysql/ddl.js';
import { postgresDdl } from '../../src/db/dialects/postgres/ddl.js';
import { sqliteDdl } from '../../src/db/dialects/sqlite/ddl.js';
import { emptyColumn } from '../../src/db/introspection-utils.js';
import type { ColumnSpec } from '../../src/schema-admin/plan/column-spec.js';
import { conversionCheck } from '../../src/schema-admin/plan/type-conversions.js';
import { parseFieldCreate, parseFieldUpdate } from '../../src/schema-admin/input/field-input.js';
import type { ColumnInfo, FieldOverview, ServiceType } from '../../src/schema/types.js';
import {
  alterColumn,
  newColumn,
  parseDefault,
  sameDefault,
  specialFor,
} from '../../src/schema-admin/plan/field-columns.js';
import { thrownCode } from '../helpers/thrown.js';

function field(type: ServiceType, facts: Partial<ColumnInfo>): FieldOverview {
  const schema = { ...emptyColumn('t', 'f'), ...facts };
  return {
    field: 'f',
    type,
    special: [],
    schema,
    meta: null,
    nullable: schema.is_nullable,
    primaryKey: schema.is_primary_key,
    concealed: false,
    searchable: true,
  };
}

function spec(over: Partial<ColumnSpec>): ColumnSpec {
  return {
    name: 'f',
    type: 'string',
    maxLength: 255,
    precision: null,
    scale: null,
    nullable: true,
    default: { kind: 'none' },
    primaryKey: false,
    autoIncrement: false,
    unique: false,
    indexed: false,
    comment: null,
    ...over,
  };
}

describe('field bodies', () => {
  it('maps alias type names to alias with their special flag, and refuses unknown and unsupported types', () => {
    assert.deepEqual(parseFieldCreate({ field: 'tags', type: 'm2m' }, 'c'), {
      field: 'tags',
      type: 'alias',
      aliasSpecial: 'm2m',
    });
    assert.deepEqual(parseFieldCreate({ field: 'x', type: 'alias' }, 'c'), { field: 'x', type: 'alias' });
    assert.equal(
      thrownCode(() => parseFieldCreate({ field: 'x', type: 'varchar' }, 'c')),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      thrownCode(() => parseFieldCreate({ field: 'x', type: 'geometry.Point' }, 'c')),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      thrownCode(() => parseFieldCreate({ field: 'x' }, 'c')),
      'INVALID_PAYLOAD',
    );
  });

  it('keeps a default that is given, even null, and leaves out what is not', () => {
    assert.deepEqual(parseFieldUpdate({ schema: { default_value: null } }, 'c', 'f').schema, { default_value: null });
    assert.deepEqual(parseFieldUpdate({ schema: {} }, 'c', 'f').schema, {});
    assert.deepEqual(parseFieldUpdate({ meta: { readonly: null, width: null } }, 'c', 'f').meta, {
      readonly: false,
      width: null,
    });
  });

  it('accepts a field object as GET returns it, ignores unknown keys (as Directus) and refuses renaming', () => {
    const body = {
      collection: 'c',
      field: 'f',
      type: 'string',
      meta: null,
      schema: { ...emptyColumn('c', 'f'), max_length: 10 },
    };
    assert.equal(parseFieldUpdate(body, 'c', 'f').schema!.max_length, 10);
    assert.equal(
      thrownCode(() => parseFieldUpdate({ field: 'g' }, 'c', 'f')),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      thrownCode(() => parseFieldUpdate({ collection: 'd' }, 'c', 'f')),
      'INVALID_PAYLOAD',
    );
    assert.deepEqual(parseFieldUpdate({ colour: 1, schema: { length: 36 } } as Record<string, unknown>, 'c', 'f'), {
      field: 'f',
      schema: {},
    });
    assert.equal(
      thrownCode(() => parseFieldUpdate({ meta: { special: [1] } }, 'c', 'f')),
      'INVALID_PAYLOAD',
    );
    assert.deepEqual(parseFieldUpdate({ meta: { special: 'a, b' } }, 'c', 'f').meta!.special, ['a', 'b']);
  });
});

describe('column alterations', () => {
  const varchar = field('string', {
    data_type: 'character varying',
    max_length: 100,
    default_value: 'draft',
    is_nullable: false,
    is_indexed: true,
    comment: 'State',
  });

  it('finds no change in a body that restates the column, on each database', () => {
    for (const [ddl, dataType] of [
      [postgresDdl, 'character varying'],
      [mysqlDdl, 'varchar'],
      [sqliteDdl, 'varchar'],
    ] as const) {
      const current = field('string', { ...varchar.schema!, data_type: dataType });
      const body = parseFieldUpdate({ type: 'string', schema: { ...current.schema } }, 't', 'f');
      const { changes } = alterColumn('t', current, body, ddl);
      assert.deepEqual(
        changes,
        { type: false, nullable: false, default: false, comment: false, unique: false, indexed: false },
        ddl === postgresDdl ? 'pg' : 'other',
      );
    }
  });

  it('flags exactly the attributes that differ', () => {
    const { changes, target } = alterColumn(
      't',
      varchar,
      parseFieldUpdate({ schema: { max_length: 50, default_value: 'new' } }, 't', 'f'),
      postgresDdl,
    );
    assert.deepEqual(changes, {
      type: true,
      nullable: false,
      default: true,
      comment: false,
      unique: false,
      indexed: false,
    });
    assert.equal(target.maxLength, 50);
    assert.equal(target.nullable, false, 'kept');
    assert.equal(
      alterColumn(
        't',
        varchar,
        parseFieldUpdate({ schema: { is_unique: true, is_indexed: true } }, 't', 'f'),
        postgresDdl,
      ).changes.indexed,
      false,
      'a unique index indexes',
    );
    assert.equal(
      alterColumn('t', varchar, parseFieldUpdate({ schema: { comment: 'Other' } }, 't', 'f'), sqliteDdl).changes
        .comment,
      false,
      'SQLite keeps no comments',
    );
  });

  it('picks the check a type change needs, and refuses changes no data allows', () => {
    assert.equal(
      alterColumn('t', varchar, parseFieldUpdate({ type: 'integer' }, 't', 'f'), postgresDdl).conversion,
      'integer-text',
    );
    assert.equal(
      alterColumn('t', varchar, parseFieldUpdate({ schema: { max_length: 10 } }, 't', 'f'), postgresDdl).conversion,
      'length',
    );
    assert.equal(
      alterColumn('t', varchar, parseFieldUpdate({ schema: { max_length: 200 } }, 't', 'f'), postgresDdl).conversion,
      'none',
    );
    const flag = field('boolean', { data_type: 'boolean' });
    assert.equal(
      thrownCode(() => alterColumn('t', flag, parseFieldUpdate({ type: 'string' }, 't', 'f'), postgresDdl)),
      'INVALID_PAYLOAD',
    );
    const key = field('integer', {
      data_type: 'integer',
      is_primary_key: true,
      has_auto_increment: true,
      is_nullable: false,
    });
    assert.equal(
      thrownCode(() =>
        alterColumn('t', key, parseFieldUpdate({ schema: { is_nullable: true } }, 't', 'f'), postgresDdl),
      ),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      alterColumn('t', key, parseFieldUpdate({ type: 'bigInteger' }, 't', 'f'), postgresDdl).conversion,
      'none',
    );
  });

  it('turns csv into text without touching the column', () => {
    const csv = field('csv', { data_type: 'text' });
    assert.equal(alterColumn('t', csv, parseFieldUpdate({ type: 'text' }, 't', 'f'), postgresDdl).changes.type, false);
  });
});

describe('conversion table', () => {
  const current = { max_length: 50, numeric_precision: 10, numeric_scale: 2 };
  it('lists the checks of the allowed changes and refuses the rest', () => {
    const cases: [Parameters<typeof conversionCheck>[0], Partial<ColumnSpec>, string | null][] = [
      ['string', { type: 'integer' }, 'integer-text'],
      ['integer', { type: 'string', maxLength: 5 }, 'length'],
      ['integer', { type: 'bigInteger' }, 'none'],
      ['bigInteger', { type: 'integer' }, 'integral'],
      ['float', { type: 'integer' }, 'integral'],
      ['decimal', { type: 'float' }, 'none'],
      ['integer', { type: 'decimal', precision: 4, scale: 2 }, 'decimal-fit'],
      ['integer', { type: 'boolean' }, 'boolean-int'],
      ['boolean', { type: 'integer' }, 'none'],
      ['dateTime', { type: 'date' }, 'midnight'],
      ['date', { type: 'dateTime' }, 'none'],
      ['text', { type: 'json' }, 'json-text'],
      ['json', { type: 'text' }, 'none'],
      ['string', { type: 'uuid' }, 'uuid-text'],
      ['uuid', { type: 'string', maxLength: 36 }, 'none'],
      ['boolean', { type: 'string' }, null],
      ['date', { type: 'string' }, null],
      ['dateTime', { type: 'timestamp' }, null],
      ['binary', { type: 'text' }, null],
      ['json', { type: 'integer' }, null],
    ];
    for (const [from, to, check] of cases)
      assert.equal(conversionCheck(from, current, spec(to)), check, `${from} → ${to.type}`);
    assert.equal(
      conversionCheck('decimal', { ...current, numeric_precision: 20 }, spec({ type: 'float' })),
      null,
      'a double keeps 15 digits',
    );
  });
});

describe('defaults', () => {
  it('checks a default against the column type and normalises it', () => {
    const of = (type: ColumnSpec['type'], value: unknown) => parseDefault(value, { name: 'f', type, maxLength: 10 });
    assert.deepEqual(of('integer', '42'), { kind: 'value', value: 42 });
    assert.deepEqual(of('bigInteger', '9007199254740993'), { kind: 'value', value: '9007199254740993' });
    assert.deepEqual(of('boolean', 0), { kind: 'value', value: false });
    assert.deepEqual(of('dateTime', '2024-01-02T03:04'), { kind: 'value', value: '2024-01-02 03:04:00' });
    assert.deepEqual(of('timestamp', 'now()'), { kind: 'now' });
    assert.deepEqual(of('timestamp', '2024-01-02T03:04:05+02:00'), {
      kind: 'value',
      value: '2024-01-02T01:04:05.000Z',
    });
    assert.deepEqual(of('json', { a: 1 }), { kind: 'value', value: '{"a":1}' });
    assert.deepEqual(of('string', null), { kind: 'none' });
    for (const [type, value] of [
      ['integer', 1.5],
      ['integer', '2147483648'],
      ['boolean', 'yes'],
      ['date', '2023-02-29'],
      ['time', '25:00'],
      ['string', 'elevenchars'],
      ['uuid', 'x'],
      ['json', '{bad'],
      ['binary', 'x'],
    ] as const) {
      assert.equal(
        thrownCode(() => of(type, value)),
        'INVALID_PAYLOAD',
        `${type} ${value}`,
      );
    }
  });

  it('recognises the default each database reports as the one asked for', () => {
    assert.equal(sameDefault(1, { kind: 'value', value: true }, 'boolean'), true);
    assert.equal(sameDefault('0', { kind: 'value', value: false }, 'boolean'), true);
    assert.equal(sameDefault('12.50', { kind: 'value', value: 12.5 }, 'decimal'), true);
    assert.equal(sameDefault('CURRENT_TIMESTAMP', { kind: 'now' }, 'timestamp'), true);
    assert.equal(
      sameDefault('2024-01-02 01:04:05+00', { kind: 'value', value: '2024-01-02T01:04:05.000Z' }, 'timestamp'),
      true,
    );
    assert.equal(sameDefault('{"a": 1}', { kind: 'value', value: '{"a":1}' }, 'json'), true);
    assert.equal(sameDefault('draft', { kind: 'value', value: 'Draft' }, 'string'), false);
    assert.equal(sameDefault(null, { kind: 'value', value: 'x' }, 'string'), false);
    assert.equal(sameDefault(null, { kind: 'none' }, 'string'), true);
  });
});

describe('special flags', () => {
  it('adds the flag a type needs and drops flags of a former type', () => {
    assert.equal(specialFor('csv', null, true), null, 'csv is a list only with the flag sent (as Directus)');
    assert.deepEqual(specialFor('csv', ['cast-csv'], true), ['cast-csv']);
    assert.deepEqual(specialFor('uuid', null, false), ['uuid']);
    assert.equal(specialFor('uuid', null, true), null);
    assert.deepEqual(specialFor('text', ['cast-csv', 'other'], true, { inherited: true }), ['other']);
    assert.deepEqual(specialFor('text', ['cast-json'], true), ['cast-json'], 'flags sent with the body stay');
    assert.deepEqual(specialFor('alias', null, true, { aliasSpecial: 'o2m' }), ['o2m']);
  });

  it('gives a new column its type and size', () => {
    const column = newColumn(
      parseFieldCreate({ field: 'price', type: 'decimal', schema: { numeric_precision: 3 } }, 'c'),
      'decimal',
      false,
    );
    assert.deepEqual([column.type, column.precision, column.scale, column.nullable], ['decimal', 3, 3, true]);
    assert.equal(newColumn(parseFieldCreate({ field: 'h', type: 'hash' }, 'c'), 'hash', false).type, 'string');
    assert.equal(
      thrownCode(() =>
        newColumn(
          parseFieldCreate(
            { field: 'k', type: 'string', schema: { has_auto_increment: true, is_primary_key: true } },
            'c',
          ),
          'string',
          true,
        ),
      ),
      'INVALID_PAYLOAD',
    );
  });
});
