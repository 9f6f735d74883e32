/**
 * GraphQL without a database: the names of a generated schema (Directus docs: GraphQL) and the Query IR a root field's
 * selection becomes (aliases, fragments, variables, nested arguments, function fields, m2a scopes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAccessView, usableTypeName } from '../../src/graphql/access-view.js';
import type { GraphQLContext } from '../../src/graphql/context.js';
import { DocumentCache } from '../../src/graphql/document-cache.js';
import { buildSchemas } from '../../src/graphql/schema-builder.js';
import type { Query } from '../../src/request/query.js';
import { ADMIN_ACCOUNTABILITY, SMALL_SCHEMA } from '../helpers/small-schema.js';

const limits = { queryLimitMax: 1000, maxRelationalDepth: 10 };
const schemas = buildSchemas(
  SMALL_SCHEMA,
  buildAccessView(SMALL_SCHEMA, ADMIN_ACCOUNTABILITY, null, () => true),
  true,
  limits,
);

async function irOf(query: string, variables: Record<string, unknown> = {}): Promise<Query[]> {
  const asked: Query[] = [];
  const context = {
    accountability: ADMIN_ACCOUNTABILITY,
    marks: { mark: () => {} },
    sdl: async () => '',
    oas: async () => ({}),
    app: {
      items: {
        rowsMany: async (_collection: string, q: Query) => {
          asked.push(q);
          return { data: [] };
        },
      },
    },
  } as unknown as GraphQLContext;
  const { compiled } = new DocumentCache({
    introspection: true,
    queryTokenLimit: 5000,
    queryMaxDepth: 20,
    queryMaxFields: 1000,
    queryMaxAliases: 100,
  }).get(schemas.items, query, undefined);
  const result = await compiled.query(undefined, context, variables);
  assert.equal(result.errors, undefined, JSON.stringify(result.errors));
  return asked;
}

describe('GraphQL schema generation', () => {
  it('leaves out collections whose names would clash with generated or built-in types', () => {
    for (const name of ['articles', 'users', 'my_pages']) assert.ok(usableTypeName(name), name);
    for (const name of [
      'JSON',
      'Query',
      'delete_one',
      'articles_filter',
      'create_x_input',
      'x_aggregated',
      '__secret',
      'a-b',
      '1st',
    ])
      assert.ok(!usableTypeName(name), name);
  });

  it('names types, roots, filters and inputs as the reference does', () => {
    const types = schemas.items.getTypeMap();
    for (const name of [
      'articles',
      'articles_filter',
      'comments_quantifier_filter',
      'articles_aggregated',
      'articles_aggregated_count',
      'articles_aggregated_fields',
      'create_articles_input',
      'update_articles_input',
      'articles_blocks_item_union',
      'string_filter_operators',
      'number_filter_operators',
      'date_filter_operators',
      'datetime_functions',
      'count_functions',
      'GraphQLStringOrFloat',
      'JSON',
      'Date',
    ]) {
      assert.ok(types[name], name);
    }
    const query = Object.keys(schemas.items.getQueryType()!.getFields());
    assert.ok(
      ['articles', 'articles_by_id', 'articles_aggregated', 'authors', 'comments'].every((n) => query.includes(n)),
    );
    assert.ok(
      !query.includes('service_users') && !query.includes('users'),
      'system collections are /graphql/system roots',
    );
    const mutation = Object.keys(schemas.items.getMutationType()!.getFields());
    for (const name of [
      'create_articles_item',
      'create_articles_items',
      'update_articles_item',
      'update_articles_items',
      'update_articles_batch',
      'delete_articles_item',
      'delete_articles_items',
    ])
      assert.ok(mutation.includes(name), name);
    const filter = schemas.items.getType('articles_filter') as import('graphql').GraphQLInputObjectType;
    assert.deepEqual(
      Object.keys(filter.getFields())
        .filter((f) =>
          ['_and', '_or', 'comments', 'comments_func', 'updated_at_func', 'metadata_func', 'blocks'].includes(f),
        )
        .sort(),
      ['_and', '_or', 'blocks', 'comments', 'comments_func', 'metadata_func', 'updated_at_func'],
    );
    const blocks = schemas.items.getType('articles_blocks_filter') as import('graphql').GraphQLInputObjectType;
    assert.ok(blocks.getFields().item__authors && blocks.getFields().item__comments);
    const empty = buildSchemas(SMALL_SCHEMA, new Map(), false, limits);
    assert.deepEqual(Object.keys(empty.items.getQueryType()!.getFields()), ['_empty']);
  });

  it('turns a selection into one Query IR: aliases at every level, fragments, variables, deep, functions, m2a scopes', async () => {
    const [query] = await irOf(
      `query Q($min: GraphQLStringOrFloat, $n: Int) {
        articles(filter: {rating: {_gte: $min}, author: {name: {_eq: "Ada"}}}, sort: ["-id"], limit: $n) {
          id ...more
          writer: author { name }
          recent: comments(limit: 2, sort: ["-id"]) { id text: body }
          updated_at_func { year month }
          blocks { item { ... on authors { name } ... on comments { body } } }
        }
      }
      fragment more on articles { title }`,
      { min: 3, n: 5 },
    );
    assert.deepEqual(query!.fields, [
      'id',
      'title',
      'writer.name',
      'recent.id',
      'recent.body',
      '__updated_at_func_year',
      '__updated_at_func_month',
      'blocks.__item_collection',
      'blocks.item:authors.name',
      'blocks.item:comments.body',
    ]);
    // Keyed by the client's response keys: objects without a prototype (compared as plain ones).
    assert.equal(Object.getPrototypeOf(query!.alias), null);
    assert.equal(Object.getPrototypeOf(query!.deep), null);
    assert.deepEqual(
      { ...query!.alias },
      {
        writer: 'author',
        recent: 'comments',
        __updated_at_func_year: 'year(updated_at)',
        __updated_at_func_month: 'month(updated_at)',
      },
    );
    assert.deepEqual(JSON.parse(JSON.stringify(query!.deep)), {
      // Plain values keep their field names (the default resolver reads them under any alias).
      recent: { limit: 2, sort: [{ field: 'id', order: 'desc' }] },
      blocks: { alias: { __item_collection: 'collection' } },
    });
    assert.equal(query!.limit, 5);
    assert.deepEqual(query!.sort, [{ field: 'id', order: 'desc' }]);
    assert.deepEqual(query!.filter, {
      type: 'logical',
      operator: '_and',
      children: [
        { type: 'condition', field: 'rating', operator: '_gte', value: 3 },
        {
          type: 'relation',
          field: 'author',
          quantifier: null,
          filter: { type: 'condition', field: 'name', operator: '_eq', value: 'Ada' },
        },
      ],
    });
  });

  it('maps function and m2a filters onto the filter grammar, and asks o2m keys as key lists', async () => {
    const [query] = await irOf(
      '{ articles(filter: {updated_at_func: {year: {_eq: 2024}}, comments: {_some: {body: {_contains: "x"}}}}) { comments { id } } }',
    );
    assert.deepEqual(query!.fields, ['comments']);
    const filter = JSON.stringify(query!.filter);
    assert.match(filter, /"field":"year\(updated_at\)"/);
    assert.match(filter, /"quantifier":"_some"/);
    const [blocks] = await irOf('{ articles_blocks(filter: {item__authors: {name: {_eq: "Ada"}}}) { id } }');
    assert.deepEqual(blocks!.filter, {
      type: 'relation',
      field: 'item:authors',
      quantifier: null,
      filter: { type: 'condition', field: 'name', operator: '_eq', value: 'Ada' },
    });
  });
});
