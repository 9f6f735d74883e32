/**
 * Field changes planned as data, without a database: the checks, DDL steps and metadata writes a body leads to.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postgresDdl } from '../../src/db/dialects/postgres/ddl.js';
import { parseFieldCreate, parseFieldUpdate } from '../../src/schema-admin/input/field-input.js';
import {
  newDeleteState,
  planFieldCreate,
  planFieldDelete,
  planFieldUpdate,
} from '../../src/schema-admin/plan/field-plans.js';
import { SchemaChangePlan } from '../../src/schema-admin/schema-changes.js';
import { SMALL_SCHEMA } from '../helpers/small-schema.js';

const ctx = { schema: SMALL_SCHEMA, ddl: postgresDdl };

describe('field change plans', () => {
  it('a required field without default: a check that the collection is empty, the column, no metadata row', () => {
    const plan = new SchemaChangePlan('adding');
    planFieldCreate(
      plan,
      ctx,
      'articles',
      parseFieldCreate({ field: 'code', type: 'string', schema: { is_nullable: false, max_length: 12 } }, 'articles'),
    );
    assert.equal(
      plan.toString(),
      ['check articles: rows ≤ 0', 'add column articles.code string(12) not null'].join('\n'),
    );
    assert.deepEqual(plan.checks[0]!.refusal, { kind: 'containsNulls', collection: 'articles', field: 'code' });
    assert.deepEqual(plan.writes, []);
  });

  it('a type change with nullability: checks for nulls and lossy values, then one alterColumn step with what changes', () => {
    const plan = new SchemaChangePlan('changing');
    const field = SMALL_SCHEMA.collections.articles!.fields.title!;
    planFieldUpdate(
      plan,
      ctx,
      'articles',
      field,
      parseFieldUpdate({ schema: { max_length: 50, is_nullable: false } }, 'articles', 'title'),
    );
    assert.deepEqual(
      plan.checks.map((c) => c.query),
      [
        { count: 'nulls', table: 'articles', column: 'title' },
        {
          count: 'lossy',
          table: 'articles',
          column: 'title',
          conversion: 'length',
          target: (plan.ddl[0] as { target: unknown }).target,
        },
      ],
    );
    const step = plan.ddl[0]!;
    assert.equal(step.kind, 'alterColumn');
    if (step.kind !== 'alterColumn') return;
    assert.deepEqual(step.changes, {
      type: true,
      nullable: true,
      default: false,
      comment: false,
      unique: false,
      indexed: false,
    });
    assert.equal(step.target.maxLength, 50);
    assert.deepEqual(plan.writes, []);
  });

  it('deleting a field that holds a relation: the relation row, the column, and every place naming the field', () => {
    const plan = new SchemaChangePlan('deleting');
    planFieldDelete(plan, ctx, 'articles', 'author', newDeleteState());
    assert.equal(
      plan.toString(),
      [
        'drop column articles.author',
        'delete service_relations where many_collection = "articles" and many_field = "author"',
        'update service_relations set {"junction_field":null} where many_collection = "articles" and junction_field = "author"',
        'delete service_fields where collection = "articles" and field = "author"',
        'update service_fields set {"group":null} where collection = "articles" and group = "author"',
        'update service_collections set {"archive_field":null} where collection = "articles" and archive_field = "author"',
        'update service_collections set {"sort_field":null} where collection = "articles" and sort_field = "author"',
        'update service_relations set {"sort_field":null} where many_collection = "articles" and sort_field = "author"',
        'remove articles.author from permission field lists',
      ].join('\n'),
    );
    assert.equal(plan.permissionsTouched, true);
  });
});
