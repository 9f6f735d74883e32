import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { thrownCode as code } from '../helpers/thrown.js';
import { publicAccountability } from '../../src/permissions/accountability.js';
import { FULL_ACCESS } from '../../src/plan/access.js';
import { planRead, type ReadPlanContext } from '../../src/plan/read-planner.js';
import { coerceKey, coerceValue } from '../../src/plan/value-coercion.js';
import { buildSchemaOverview } from '../../src/schema/overview-builder.js';
import { emptyColumn } from '../../src/db/introspection-utils.js';
import type { FieldOverview } from '../../src/schema/types.js';
import { ADMIN_ACCOUNTABILITY, SMALL_SCHEMA } from '../helpers/small-schema.js';

const ctx: ReadPlanContext = {
  schema: SMALL_SCHEMA,
  access: FULL_ACCESS,
  accountability: ADMIN_ACCOUNTABILITY,
  queryLimitDefault: 100,
  now: new Date('2026-01-01T00:00:00Z'),
};

describe('planRead', () => {
  it('selects every column for * and defaults sort to the key and limit to the default', () => {
    const plan = planRead('articles', {}, ctx);
    assert.deepEqual(
      plan.outputs.map((f) => f.key),
      [
        'id',
        'title',
        'rating',
        'price',
        'published',
        'updated_at',
        'metadata',
        'secret',
        'author',
        'comments',
        'blocks',
      ],
    );
    assert.deepEqual(
      plan.sort.map((s) => [s.field.field, s.descending]),
      [['id', false]],
    );
    assert.equal(plan.limit, 100);
    assert.equal(plan.offset, 0);
    assert.equal(plan.filter, null);
    const secret = plan.outputs.find((f) => f.key === 'secret')!;
    assert.ok(secret.kind === 'value' && secret.field.concealed);
  });

  it('computes offsets from pages and treats -1 as no limit', () => {
    assert.equal(planRead('articles', { limit: 10, page: 3, offset: 1 }, ctx).offset, 21);
    assert.equal(planRead('articles', { limit: -1 }, ctx).limit, null);
  });

  it('coerces filter values to the field type and resolves dynamic values', () => {
    const plan = planRead(
      'articles',
      {
        filter: {
          type: 'logical',
          operator: '_and',
          children: [
            { type: 'condition', field: 'rating', operator: '_in', value: ['1', 2] },
            { type: 'condition', field: 'published', operator: '_eq', value: 'false' },
            { type: 'condition', field: 'price', operator: '_gt', value: 3 },
            {
              type: 'condition',
              field: 'updated_at',
              operator: '_lt',
              value: { dynamic: 'NOW', offsetMs: -86_400_000 },
            },
            { type: 'condition', field: 'title', operator: '_eq', value: { dynamic: 'CURRENT_USER' } },
          ],
        },
      },
      ctx,
    );
    assert.equal(plan.filter!.kind, 'and');
    const values = (plan.filter as { children: { value: unknown }[] }).children.map((c) => c.value);
    assert.deepEqual(values, [[1, 2], false, '3', '2025-12-31T00:00:00.000Z', 'u1']);
  });

  it('builds search over text fields, and numeric fields when the term is a number', () => {
    const words = planRead('articles', { search: 'Ada' }, ctx).filter as {
      kind: string;
      children: { field: { field: string }; operator: string }[];
    };
    assert.deepEqual(
      words.children.map((c) => [c.field.field, c.operator]),
      [['title', '_icontains']],
    );
    const number = planRead('articles', { search: '5' }, ctx).filter as { children: { field: { field: string } }[] };
    assert.deepEqual(
      number.children.map((c) => c.field.field),
      ['id', 'title', 'rating', 'price', 'author'],
    );
  });

  it('turns keys of the wrong type into a filter that matches nothing', () => {
    assert.deepEqual(planRead('articles', { keys: ['abc'] }, { ...ctx, single: true }).filter, {
      kind: 'constant',
      value: false,
    });
  });

  it('refuses unknown and system collections, unknown fields and non-admins with FORBIDDEN', () => {
    assert.equal(
      code(() => planRead('nope', {}, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planRead('service_users', {}, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planRead('articles', { fields: ['nope'] }, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planRead('articles', { sort: [{ field: 'nope', order: 'asc' }] }, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() =>
        planRead('articles', { filter: { type: 'condition', field: 'nope', operator: '_eq', value: 1 } }, ctx),
      ),
      'FORBIDDEN',
    );
    assert.equal(
      code(() =>
        planRead('articles', {}, { ...ctx, accountability: publicAccountability(), access: { read: () => null } }),
      ),
      'FORBIDDEN',
    );
  });

  it('refuses values that cannot fit the field with INVALID_QUERY', () => {
    for (const [field, value] of [
      ['rating', 'high'],
      ['published', 'maybe'],
      ['updated_at', '2024-13-01'],
      ['price', '1,5'],
    ] as const) {
      assert.equal(
        code(() => planRead('articles', { filter: { type: 'condition', field, operator: '_eq', value } }, ctx)),
        'INVALID_QUERY',
        field,
      );
    }
    assert.equal(
      code(() =>
        planRead('articles', { filter: { type: 'condition', field: 'rating', operator: '_gt', value: null } }, ctx),
      ),
      'INVALID_QUERY',
    );
  });

  it('ignores field paths through plain fields (as Directus), refuses filters through them with FORBIDDEN, and functions on the wrong type with INVALID_QUERY', () => {
    assert.equal(
      code(() => planRead('articles', { fields: ['title.length'] }, ctx)),
      'OK',
    );
    assert.equal(
      code(() =>
        planRead(
          'articles',
          {
            filter: {
              type: 'relation',
              field: 'title',
              quantifier: null,
              filter: { type: 'condition', field: 'x', operator: '_eq', value: 1 },
            },
          },
          ctx,
        ),
      ),
      'FORBIDDEN',
    );
    assert.equal(
      code(() =>
        planRead(
          'articles',
          {
            filter: {
              type: 'relation',
              field: 'nope',
              quantifier: null,
              filter: { type: 'condition', field: 'x', operator: '_eq', value: 1 },
            },
          },
          ctx,
        ),
      ),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planRead('articles', { fields: ['year(title)'] }, ctx)),
      'INVALID_QUERY',
    );
    assert.equal(
      code(() => planRead('articles', { fields: ['count(title)'] }, ctx)),
      'INVALID_QUERY',
    );
    assert.equal(
      code(() => planRead('articles', { sort: [{ field: 'title.x', order: 'asc' }] }, ctx)),
      'INVALID_QUERY',
    );
    const year = planRead(
      'articles',
      { fields: ['year(updated_at)'], sort: [{ field: 'month(updated_at)', order: 'desc' }] },
      ctx,
    );
    assert.deepEqual(
      year.outputs.map((o) => o.key),
      ['updated_at_year'],
    );
    assert.deepEqual(
      year.sort.map((s) => s.operand),
      [{ kind: 'date-part', part: 'month', field: field('updated_at') }],
    );
  });

  it('leaves alias fields out of *, sorts by the collection sort field, and plans single reads without sort or offset', () => {
    const plan = planRead('related', { page: 4, limit: 10 }, { ...ctx, schema: SORTED_SCHEMA });
    assert.deepEqual(
      plan.outputs.map((f) => f.key),
      ['key', 'position'],
    );
    assert.deepEqual(
      plan.sort.map((s) => s.field.field),
      ['position'],
    );
    assert.equal(plan.offset, 30);
    const single = planRead(
      'related',
      { keys: ['8F14E45F-CEEA-467F-A0E6-6F5F5E5D9C1A'], page: 4 },
      { ...ctx, schema: SORTED_SCHEMA, single: true },
    );
    assert.deepEqual([single.sort, single.limit, single.offset, single.single], [[], 1, 0, true]);
    const key = SORTED_SCHEMA.collections.related!.fields.key!;
    assert.deepEqual(single.filter, {
      kind: 'compare',
      operand: { kind: 'field', field: key },
      field: key,
      operator: '_in',
      value: ['8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a'],
    });
    assert.deepEqual(planRead('related', { keys: ['7'] }, { ...ctx, schema: SORTED_SCHEMA, single: true }).filter, {
      kind: 'constant',
      value: false,
    });
  });

  it('searches uuid fields only with a uuid term, and nothing when no field can match', () => {
    const uuid = planRead(
      'related',
      { search: '8F14E45F-CEEA-467F-A0E6-6F5F5E5D9C1A' },
      { ...ctx, schema: SORTED_SCHEMA },
    ).filter as { children: { field: { field: string }; value: unknown }[] };
    assert.deepEqual(
      uuid.children.map((c) => [c.field.field, c.value]),
      [['key', '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a']],
    );
    assert.deepEqual(planRead('related', { search: 'words' }, { ...ctx, schema: SORTED_SCHEMA }).filter, {
      kind: 'constant',
      value: false,
    });
    const decimal = planRead('articles', { search: '2.5' }, ctx).filter as { children: { field: { field: string } }[] };
    assert.deepEqual(
      decimal.children.map((c) => c.field.field),
      ['title', 'price'],
    );
  });

  it('resolves $CURRENT_ROLE and keeps text operator values as (lower-cased) text', () => {
    const plan = planRead(
      'articles',
      {
        filter: {
          type: 'logical',
          operator: '_or',
          children: [
            { type: 'condition', field: 'title', operator: '_eq', value: { dynamic: 'CURRENT_ROLE' } },
            { type: 'condition', field: 'rating', operator: '_icontains', value: 'AbC' },
            { type: 'condition', field: 'title', operator: '_starts_with', value: 'AbC' },
          ],
        },
      },
      ctx,
    );
    assert.deepEqual(
      (plan.filter as { children: { value: unknown }[] }).children.map((c) => c.value),
      ['r1', 'abc', 'AbC'],
    );
  });
});

const field = (name: string) => SMALL_SCHEMA.collections.articles!.fields[name]!;
const uuidField: FieldOverview = { ...field('title'), field: 'u', type: 'uuid' };

describe('value coercion', () => {
  it('normalises dates, times and timestamps (zones converted to UTC)', () => {
    const ts = field('updated_at');
    assert.equal(coerceValue(ts, '2024-02-29T14:45:07.25+01:00'), '2024-02-29T13:45:07.250Z');
    assert.equal(coerceValue(ts, '2024-02-29'), '2024-02-29T00:00:00.000Z');
    assert.equal(coerceValue({ ...ts, type: 'dateTime' }, '2024-02-29 13:45'), '2024-02-29T13:45:00');
    assert.equal(coerceValue({ ...ts, type: 'date' }, '2024-02-29T13:45:00Z'), '2024-02-29');
    assert.equal(coerceValue({ ...ts, type: 'time' }, '07:05'), '07:05:00');
    for (const bad of ['2023-02-29', '2024-01-01T24:00', 'yesterday', '12'])
      assert.equal(
        code(() => coerceValue(ts, bad)),
        'INVALID_QUERY',
        bad,
      );
    assert.equal(
      code(() => coerceValue({ ...ts, type: 'time' }, '25:00')),
      'INVALID_QUERY',
    );
  });

  it('keeps big integers and decimals exact, and accepts boolean spellings', () => {
    assert.equal(coerceValue({ ...field('rating'), type: 'bigInteger' }, '+9007199254740993'), '9007199254740993');
    assert.equal(coerceValue(field('price'), ' 12.50 '), '12.50');
    assert.deepEqual(
      ['1', 0, 'true', false].map((v) => coerceValue(field('published'), v)),
      [true, false, true, false],
    );
    assert.equal(
      code(() => coerceValue({ ...field('rating'), type: 'bigInteger' }, '1.5')),
      'INVALID_QUERY',
    );
  });

  it('accepts only uuids for uuid fields, lower-cased', () => {
    assert.equal(
      coerceValue(uuidField, '8F14E45F-CEEA-467F-A0E6-6F5F5E5D9C1A'),
      '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a',
    );
    assert.equal(
      code(() => coerceValue(uuidField, 'abc')),
      'INVALID_QUERY',
    );
  });

  it('turns keys that cannot be of the key type into null', () => {
    assert.deepEqual(
      ['7', '+7', 'abc', '1.5', '', '99999999999999999999'].map((k) => coerceKey(field('id'), k)),
      [7, 7, null, null, null, null],
    );
    assert.deepEqual(
      ['8F14E45F-CEEA-467F-A0E6-6F5F5E5D9C1A', 'nope'].map((k) => coerceKey(uuidField, k)),
      ['8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a', null],
    );
  });
});

/** A collection with a uuid key, a meta sort field and an alias (o2m) field. */
const SORTED_SCHEMA = buildSchemaOverview({
  tables: [
    {
      name: 'related',
      comment: null,
      primary_key: ['key'],
      foreign_keys: [],
      columns: [
        { ...emptyColumn('related', 'key'), data_type: 'uuid', is_primary_key: true, is_nullable: false },
        { ...emptyColumn('related', 'position'), data_type: 'integer' },
      ],
    },
  ],
  collections: [{ collection: 'related', sort_field: 'position' }],
  fields: [{ id: 1, collection: 'related', field: 'comments', special: 'o2m' }],
  relations: [],
  mapType: (c) => (c.data_type === 'uuid' ? 'uuid' : 'integer'),
  version: 1,
});
