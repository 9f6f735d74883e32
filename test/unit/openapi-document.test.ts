/**
 * The pure builders of src/specs on awkward schemas: names that clash once made component or type names, names
 * that are not identifiers, a table without a key, a collection named like the generated `Schema`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { emptyColumn } from '../../src/db/introspection-utils.js';
import { buildAccessView } from '../../src/graphql/access-view.js';
import { buildSchemaOverview } from '../../src/schema/overview-builder.js';
import type { ColumnInfo, ServiceType, TableInfo } from '../../src/schema/types.js';
import { nullable } from '../../src/specs/json-schema.js';
import { buildOasDocument } from '../../src/specs/oas-document.js';
import { SCHEMA_ROUTES } from '../../src/http/routes/schema.js';
import { SpecsService } from '../../src/specs/specs-service.js';
import { typescriptTypes } from '../../src/specs/typescript-types.js';
import type { AppContext } from '../../src/app/app-context.js';

const TYPES: Record<string, ServiceType> = { int: 'integer', varchar: 'string', uuid: 'uuid', json: 'json' };
const column = (table: string, name: string, data_type: string, facts: Partial<ColumnInfo> = {}): ColumnInfo => ({
  ...emptyColumn(table, name),
  data_type,
  ...facts,
});
const table = (name: string, columns: ColumnInfo[], primary: string[] = []): TableInfo => ({
  name,
  comment: null,
  columns,
  primary_key: primary,
  foreign_keys: [],
});

const tables: TableInfo[] = [
  table(
    'a_b',
    [
      column('a_b', 'id', 'int', { is_primary_key: true, has_auto_increment: true, is_nullable: false }),
      column('a_b', 'first name', 'varchar', { max_length: 20 }),
    ],
    ['id'],
  ),
  table(
    'aB',
    [
      column('aB', 'id', 'uuid', { is_primary_key: true, is_nullable: false }),
      column('aB', 'parent', 'int', { foreign_key_table: 'a_b', foreign_key_column: 'id' }),
    ],
    ['id'],
  ),
  table(
    'my-items',
    [column('my-items', 'id', 'int', { is_primary_key: true, is_nullable: false }), column('my-items', 'data', 'json')],
    ['id'],
  ),
  table('logs', [column('logs', 'line', 'varchar')]),
  table('schema', [column('schema', 'id', 'int', { is_primary_key: true, is_nullable: false })], ['id']),
  table('2fa', [column('2fa', 'id', 'int', { is_primary_key: true, is_nullable: false })], ['id']),
];
tables[1]!.foreign_keys.push({
  table: 'aB',
  column: 'parent',
  foreign_key_table: 'a_b',
  foreign_key_column: 'id',
  constraint_name: null,
  on_update: null,
  on_delete: null,
});

const schema = buildSchemaOverview({
  tables,
  collections: [],
  fields: [],
  relations: [],
  mapType: (c) => TYPES[c.data_type] ?? 'unknown',
  version: 1,
});
const admin = { user: 'u', role: null, roles: [], policies: [], admin: true, app: true, ip: null };

describe('OpenAPI document builder', () => {
  const view = buildAccessView(schema, admin, null, () => true, 'any');
  const doc = buildOasDocument({
    schema,
    view,
    accountability: admin,
    routes: [],
    systemRoutes: {},
    schemaReader: () => true,
    version: '3.0',
    publicUrl: '/',
    sessionCookie: 's',
  }) as any;

  it('keeps every collection, naming clashing components apart', async () => {
    assert.ok(doc.components.schemas.ItemsAB && doc.components.schemas.ItemsAB2);
    assert.deepEqual(
      [doc.components.schemas.ItemsAB['x-collection'], doc.components.schemas.ItemsAB2['x-collection']].sort(),
      ['aB', 'a_b'],
    );
    assert.ok(doc.paths['/items/my-items'] && doc.paths['/items/2fa'] && doc.paths['/items/schema']);
    assert.ok(doc.paths['/items/logs'] && !doc.paths['/items/logs/{id}'], 'no reads by key without a key');
    assert.deepEqual(Object.keys(doc.paths['/items/logs']), ['get']);
    const ab = Object.values(doc.components.schemas).find((s: any) => s['x-collection'] === 'aB') as any;
    const target = Object.entries(doc.components.schemas).find(([, s]: any) => s['x-collection'] === 'a_b')![0];
    assert.deepEqual(ab.properties.parent, {
      oneOf: [{ type: 'integer' }, { $ref: `#/components/schemas/${target}` }],
      nullable: true,
    });
    assert.equal((await new Validator().validate(doc as never)).valid, true);
  });

  it('lists import paths per writable collection and the schema routes for admins, when the server has them', async () => {
    const routes = [
      { method: 'POST', url: '/utils/import/:collection' },
      { method: 'GET', url: '/schema/snapshot' },
      { method: 'POST', url: '/schema/apply', declaration: SCHEMA_ROUTES.apply },
      { method: 'GET', url: '/admin/*' },
      { method: 'GET', url: '/' },
    ];
    const withRoutes = buildOasDocument({
      schema,
      view,
      accountability: admin,
      routes,
      systemRoutes: {},
      schemaReader: () => true,
      version: '3.1',
      publicUrl: '/',
      sessionCookie: 's',
    }) as any;
    assert.equal((await new Validator().validate(withRoutes as never)).valid, true);
    assert.ok(withRoutes.paths['/utils/import/my-items'].post.requestBody.content['multipart/form-data']);
    assert.ok(!withRoutes.paths['/utils/import/{collection}'], 'one path per collection instead of the generic route');
    assert.deepEqual(withRoutes.paths['/schema/snapshot'].get.tags, ['Schema']);
    assert.ok(withRoutes.paths['/schema/apply'].post.responses['204']);
    assert.deepEqual(
      Object.keys(withRoutes.paths).filter((p) => p === '/' || p.startsWith('/admin')),
      [],
    );

    const reader = { ...admin, admin: false };
    const readOnly = buildAccessView(schema, reader, null, () => false, 'any');
    const limited = buildOasDocument({
      schema,
      view: readOnly,
      accountability: reader,
      routes,
      systemRoutes: {},
      schemaReader: () => false,
      version: '3.0',
      publicUrl: '/',
      sessionCookie: 's',
    }) as any;
    assert.deepEqual(
      Object.keys(limited.paths).filter((p) => p.startsWith('/utils') || p.startsWith('/schema')),
      [],
      'no imports without create, no schema routes for non-admins',
    );
  });

  it('says null the way each OpenAPI version does', () => {
    assert.deepEqual(nullable({ type: 'string' }, '3.0'), { type: 'string', nullable: true });
    assert.deepEqual(nullable({ type: 'string' }, '3.1'), { type: ['string', 'null'] });
    assert.deepEqual(nullable({ $ref: '#/x' }, '3.0'), { nullable: true, allOf: [{ $ref: '#/x' }] });
    assert.deepEqual(nullable({ $ref: '#/x' }, '3.1'), { oneOf: [{ $ref: '#/x' }, { type: 'null' }] });
    assert.deepEqual(nullable({}, '3.1'), {}, 'any value already includes null');
  });
});

describe('TypeScript types builder', () => {
  const text = typescriptTypes(schema);
  it('names types apart from each other and from Schema, and quotes names that are not identifiers', () => {
    assert.match(text, /export interface AB \{/);
    assert.match(text, /export interface AB2 \{/);
    assert.match(text, /export interface Schema2 \{/);
    assert.match(text, /export interface C2fa \{/);
    assert.match(text, /\n {2}"first name": string \| null;/);
    assert.match(text, /\n {2}"my-items": MyItems\[\];/);
    assert.match(text, /\n {2}data: unknown;/);
    assert.match(text, /\n {2}schema: Schema2\[\];/);
    assert.match(text, /\n {2}"2fa": C2fa\[\];/);
  });
});

describe('OpenAPI document cache', () => {
  it('serves a document again from the cache, and forgets the least recently used past its size', async () => {
    let builds = 0;
    const app = {
      schema: { current: schema },
      permissions: {
        forPolicies: async () => {
          throw new Error('admins need no permission set');
        },
      },
      writer: {
        canWrite: (collection: string, action: string) => (
          collection === 'a_b' && action === 'create' && builds++,
          true
        ),
      },
      config: { docs: { publicUrl: '/' }, auth: { sessionCookie: { name: 's' } } },
    } as unknown as AppContext;
    const size = (await new SpecsService(app, [], {}).oas(admin, '3.0')).length;
    builds = 0;
    const specs = new SpecsService(app, [], {}, Math.floor(size * 1.5));
    const first = await specs.oas(admin, '3.0');
    assert.equal(await specs.oas(admin, '3.0'), first);
    assert.equal(builds, 1, 'built once');
    await specs.oas(admin, '3.1');
    assert.equal(builds, 2);
    await specs.oas(admin, '3.1');
    assert.equal(builds, 2, 'the 3.1 document is cached');
    assert.equal(await specs.oas(admin, '3.0'), first);
    assert.equal(builds, 3, 'the 3.0 document was evicted to make room, and is built again');
  });
});
