/**
 * GET /server/specs/oas on every database: a valid OpenAPI 3.0 and 3.1 document (checked by a JSON-schema based
 * validator of the OpenAPI specifications), holding what the caller may do and nothing more; the answers of the
 * API fit the schemas it announces; and types generated from it by openapi-typescript type-check a client program.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { STRICT_NODENEXT, typeCheck } from '../helpers/type-check.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
  servers: { url: string }[];
};

async function oas(t: TestApp, token?: string | null, query = ''): Promise<Doc> {
  const response = await t.request({ method: 'GET', url: `/server/specs/oas${query}`, token });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /application\/json/);
  return json<Doc>(response);
}

async function assertValid(doc: Doc): Promise<void> {
  const result = await new Validator().validate(doc as never);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
}

/** One validator per document: ajv compiles a component (and the components it refers to) once per instance. */
const validators = new WeakMap<Doc, InstanceType<typeof Ajv2020.default>>();

/** Checks `data` against a component schema of a 3.1 document (JSON Schema 2020-12). */
function fits(doc: Doc, component: string, data: unknown): void {
  let ajv = validators.get(doc);
  if (!ajv) {
    ajv = new Ajv2020.default({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, 'oas');
    validators.set(doc, ajv);
  }
  const validate = ajv.getSchema(`oas#/components/schemas/${component}`)!;
  assert.ok(
    validate(data),
    `${component}: ${JSON.stringify(validate.errors)?.slice(0, 1500)} in ${JSON.stringify(data).slice(0, 500)}`,
  );
}

const methods = (doc: Doc, p: string) => Object.keys(doc.paths[p] ?? {}).sort();

for (const client of testClients()) {
  describe(`OpenAPI document (${clientLabel(client)})`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(client, { relations: true, env: { PUBLIC_URL: 'https://api.example.com/' } });
    });
    after(async () => {
      await t?.close();
    });

    it('is a valid OpenAPI 3.0 and 3.1 document for an admin, with every collection and route', async () => {
      const doc = await oas(t);
      assert.equal(doc.openapi, '3.0.3');
      assert.deepEqual(doc.servers, [{ url: 'https://api.example.com' }]);
      await assertValid(doc);
      const doc31 = await oas(t, undefined, '?openapi=3.1');
      assert.equal(doc31.openapi, '3.1.0');
      await assertValid(doc31);

      for (const collection of [
        'articles',
        'authors',
        'tags',
        'articles_tags',
        'pages',
        'pages_sections',
        'headings',
        'paragraphs',
      ]) {
        assert.deepEqual(methods(doc, `/items/${collection}`), ['delete', 'get', 'patch', 'post'], collection);
        assert.deepEqual(methods(doc, `/items/${collection}/{id}`), ['delete', 'get', 'patch'], collection);
      }
      assert.equal(doc.paths['/items/articles']!.get.operationId, 'readItemsArticles');
      assert.equal(doc.paths['/items/articles/{id}']!.get.operationId, 'readSingleItemsArticles');
      for (const p of [
        '/users',
        '/users/{id}',
        '/roles',
        '/policies',
        '/access',
        '/permissions',
        '/settings',
        '/users/me',
        '/auth/login',
        '/auth/refresh',
        '/auth/logout',
        '/server/info',
        '/server/specs/oas',
        '/graphql',
        '/graphql/system',
        '/collections',
        '/fields/{collection}/{field}',
        '/relations',
      ]) {
        assert.ok(doc.paths[p], p);
      }
      assert.deepEqual(methods(doc, '/settings'), ['get', 'patch']);
      assert.equal(doc.paths['/utils/import/articles']!.post.operationId, 'importItemsArticles');
      assert.ok(doc.paths['/utils/cache/clear']!.post);
      for (const p of ['/schema/snapshot', '/schema/diff', '/schema/apply'])
        assert.deepEqual(
          Object.values(doc.paths[p] ?? {}).map((op) => op.tags),
          [['Schema']],
          p,
        );
      assert.deepEqual(methods(doc, '/graphql'), ['get', 'post'], 'routes that only answer 405 are not operations');
      for (const page of ['/', '/admin', '/docs']) assert.ok(!doc.paths[page], `${page} is a page, not the API`);
      const list = doc.paths['/items/articles']!.get;
      assert.ok(list.parameters.some((p: { $ref: string }) => p.$ref === '#/components/parameters/Export'));
      assert.ok(
        list.responses['200'].content['text/csv'] && doc.paths['/users']!.get.responses['200'].content['text/yaml'],
      );
      assert.deepEqual(doc.paths['/auth/login']!.post.security, [], 'login needs no token');

      // Every documented operation is a route the server serves (collections through their generic routes).
      for (const [p, operations] of Object.entries(doc.paths)) {
        const url = p
          .replace(/^\/items\/[^/]+/, '/items/:collection')
          .replace(/^\/utils\/import\/[^/]+/, '/utils/import/:collection')
          .replace('{id}', ':pk')
          .replace(/\{([^}]+)\}/g, ':$1');
        for (const method of Object.keys(operations)) {
          const served =
            t.app.hasRoute({ method: method.toUpperCase() as 'GET', url }) ||
            t.app.hasRoute({ method: method.toUpperCase() as 'GET', url: `${url}/` });
          assert.ok(served, `${method} ${p} (${url})`);
        }
      }
    });

    it('types fields as Strata answers them, with nullability, max length and relations', async () => {
      const doc = await oas(t);
      const articles = doc.components.schemas.ItemsArticles;
      assert.equal(articles['x-collection'], 'articles');
      const p = articles.properties;
      assert.deepEqual(p.id, { type: 'integer' });
      assert.deepEqual(p.title, { type: 'string', maxLength: 200 });
      assert.equal(p.body.type, 'string');
      assert.equal(p.body.nullable, true);
      assert.equal(p.views.type, 'string', 'bigInteger reads as an exact string');
      assert.equal(p.price.type, 'string', 'decimal reads as an exact string');
      assert.equal(p.score.type, 'number');
      assert.equal(p.publish_date.format, 'date');
      assert.equal(p.title_length.readOnly, true, 'a generated column');
      assert.deepEqual(p.author, {
        oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/ItemsAuthors' }],
        nullable: true,
      });
      assert.deepEqual(p.tags, {
        type: 'array',
        items: { oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/ItemsArticlesTags' }] },
      });
      const sections = doc.components.schemas.ItemsPagesSections.properties.item;
      assert.deepEqual(sections.anyOf.slice(2), [
        { $ref: '#/components/schemas/ItemsHeadings' },
        { $ref: '#/components/schemas/ItemsParagraphs' },
      ]);

      const create = doc.components.schemas.CreateItemsArticles;
      assert.deepEqual(create.required, ['title'], 'NOT NULL without default; the key is generated');
      assert.ok(!('title_length' in create.properties), 'generated columns are not written');
      assert.ok(doc.components.schemas.UpdateItemsArticles.properties.status);
      assert.equal(doc.components.schemas.Users['x-collection'], 'service_users');

      const doc31 = await oas(t, undefined, '?openapi=3.1');
      assert.deepEqual(doc31.components.schemas.ItemsArticles.properties.body.type, ['string', 'null']);
      assert.deepEqual(doc31.components.schemas.ItemsArticles.properties.author.oneOf.at(-1), { type: 'null' });
    });

    it('describes what the API answers: reads and writes fit the announced schemas', async () => {
      const doc = await oas(t, undefined, '?openapi=3.1');
      const read = json(
        await t.request({ method: 'GET', url: '/items/articles?fields=*,author.*,tags.tags_id.*,tags.*&limit=-1' }),
      ).data;
      for (const article of read) fits(doc, 'ItemsArticles', article);
      const keysOnly = json(await t.request({ method: 'GET', url: '/items/articles?limit=-1' })).data;
      for (const article of keysOnly) fits(doc, 'ItemsArticles', article);
      const pages = json(
        await t.request({
          method: 'GET',
          url: '/items/pages_sections?fields=*,item:headings.*,item:paragraphs.*&limit=-1',
        }),
      ).data;
      for (const section of pages) fits(doc, 'ItemsPagesSections', section);
      fits(doc, 'Users', json(await t.request({ method: 'GET', url: '/users/me' })).data);
      const exported = await t.request({
        method: 'GET',
        url: '/items/articles?export=json&fields=*,author.*&limit=-1',
      });
      assert.equal(exported.statusCode, 200);
      for (const article of json(exported)) fits(doc, 'ItemsArticles', article);

      const body = { title: 'From the spec', views: '12', price: '3.50', metadata: { a: 1 }, author: 1 };
      fits(doc, 'CreateItemsArticles', body);
      const created = await t.request({ method: 'POST', url: '/items/articles', payload: body });
      assert.equal(created.statusCode, 200, created.body);
      fits(doc, 'ItemsArticles', json(created).data);
      assert.throws(() => fits(doc, 'CreateItemsArticles', { body: 'no title' }), /required/);
      assert.throws(() => fits(doc, 'CreateItemsArticles', { title: 'x'.repeat(201) }), /maxLength|must NOT have more/);
    });

    it('shows a caller only what it may do', async () => {
      await grantPublic(t, [{ collection: 'articles', fields: 'id,title,author' }]);
      const anonymous = await oas(t, null);
      await assertValid(anonymous);
      const items = Object.keys(anonymous.paths).filter((p) => p.startsWith('/items/'));
      assert.deepEqual(items.sort(), ['/items/articles', '/items/articles/{id}']);
      assert.deepEqual(methods(anonymous, '/items/articles'), ['get']);
      assert.deepEqual(methods(anonymous, '/items/articles/{id}'), ['get']);
      assert.deepEqual(Object.keys(anonymous.components.schemas.ItemsArticles.properties), ['id', 'title', 'author']);
      assert.deepEqual(
        anonymous.components.schemas.ItemsArticles.properties.author.oneOf,
        undefined,
        'authors are not readable: the key only',
      );
      assert.ok(!anonymous.components.schemas.ItemsAuthors && !anonymous.components.schemas.CreateItemsArticles);
      for (const hidden of [
        '/users',
        '/users/me',
        '/fields',
        '/collections',
        '/relations',
        '/settings',
        '/server/specs/typescript',
        '/schema/snapshot',
      ])
        assert.ok(!anonymous.paths[hidden], hidden);
      assert.ok(anonymous.paths['/auth/login'] && anonymous.paths['/server/ping'] && anonymous.paths['/graphql']);
      assert.ok(
        !Object.keys(anonymous.paths).some((p) => p.startsWith('/utils/')),
        'no imports without create rules, no cache clearing',
      );

      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'articles', fields: 'id,title,status' },
          { collection: 'articles', action: 'create', fields: 'title,status' },
          { collection: 'authors', fields: 'name' },
        ],
      });
      const writer = await createUserWithPolicies(t, [policy]);
      const doc = await oas(t, writer.token);
      await assertValid(doc);
      assert.deepEqual(methods(doc, '/items/articles'), ['get', 'post']);
      assert.deepEqual(
        Object.keys(doc.paths).filter((p) => p.startsWith('/utils/')),
        ['/utils/import/articles'],
      );
      assert.deepEqual(Object.keys(doc.components.schemas.CreateItemsArticles.properties), ['title', 'status']);
      assert.deepEqual(Object.keys(doc.components.schemas.ItemsAuthors.properties), ['name']);
      assert.ok(doc.paths['/users/me'], 'signed-in callers have their own user');
      assert.ok(!doc.paths['/fields'], 'no app access, no read rule on service_fields');
      assert.ok(!doc.paths['/items/tags']);

      // Once the rules change, the document follows.
      await grantPublic(t, [{ collection: 'tags', fields: '*' }]);
      assert.ok((await oas(t, null)).paths['/items/tags']);
    });

    it('shows a collection the caller may only create in: its create path and body, and no reads', async () => {
      await grantPublic(t, [{ collection: 'headings', action: 'create', fields: 'text,level' }]);
      for (const version of ['', '?openapi=3.1']) {
        const doc = await oas(t, null, version);
        await assertValid(doc);
        assert.deepEqual(methods(doc, '/items/headings'), ['post']);
        assert.equal(doc.paths['/items/headings/{id}'], undefined, 'no reads or writes by key');
        assert.deepEqual(Object.keys(doc.components.schemas.CreateItemsHeadings.properties), ['text', 'level']);
        assert.deepEqual(doc.components.schemas.CreateItemsHeadings.required, ['text']);
        assert.equal(doc.components.schemas.ItemsHeadings, undefined, 'nothing of it can be read');
        const post = doc.paths['/items/headings']!.post;
        assert.deepEqual(
          Object.keys(post.responses).filter((status) => status.startsWith('2')),
          ['204'],
        );
        assert.ok(doc.paths['/utils/import/headings']?.post, 'creating includes importing');
      }
      // And the API does what the document says.
      const created = await t.request({
        method: 'POST',
        url: '/items/headings',
        payload: { text: 'new' },
        token: null,
      });
      assert.equal(created.statusCode, 204, created.body);
      assert.equal((await t.request({ method: 'GET', url: '/items/headings', token: null })).statusCode, 403);
    });

    it('answers GraphQL server_specs_oas and refuses a bad version', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: '{ server_specs_oas }' },
      });
      const data = json(response).data.server_specs_oas;
      assert.deepEqual(data, await oas(t));
      const bad = await t.request({ method: 'GET', url: '/server/specs/oas?openapi=2.0' });
      assert.equal(bad.statusCode, 400);
      assert.equal(errorCode(bad), 'INVALID_QUERY');
      const badToken = await t.request({ method: 'GET', url: '/server/specs/oas', token: 'nope' });
      assert.equal(badToken.statusCode, 401);
    });

    it('generates a client with openapi-typescript that type-checks', async () => {
      const doc = await oas(t);
      const types = astToString(await openapiTS(doc as never));
      const dir = mkdtempSync(path.join(tmpdir(), 'strata-oas-'));
      try {
        writeFileSync(path.join(dir, 'api.ts'), types);
        writeFileSync(
          path.join(dir, 'client.ts'),
          `import type { components, paths } from './api.js';
type Article = components['schemas']['ItemsArticles'];
type Author = components['schemas']['ItemsAuthors'];
type List = paths['/items/articles']['get']['responses']['200']['content']['application/json'];
type CreateBody = NonNullable<paths['/items/articles']['post']['requestBody']>['content']['application/json'];

async function listArticles(base: string, token: string): Promise<Article[]> {
  const response = await fetch(base + '/items/articles?fields=*,author.*', { headers: { authorization: 'Bearer ' + token } });
  const body = (await response.json()) as List;
  return body.data ?? [];
}
async function createArticle(base: string, body: CreateBody): Promise<void> {
  await fetch(base + '/items/articles', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}
const author: Author = { id: 1, name: 'Ada', bio: null };
const article: Article = { id: 1, title: 'Hello', views: '9007199254740993', body: null, author, tags: [1, { id: 2 }] };
const keyed: Article = { author: 3 };
const create: CreateBody = [{ title: 'One' }, { title: 'Two', status: 'draft' }];
// @ts-expect-error bigInteger values are strings
const badViews: Article = { views: 12 };
// @ts-expect-error title may not be null
const badTitle: Article = { title: null };
// @ts-expect-error a create needs its title
const badCreate: CreateBody = { status: 'draft' };
export { listArticles, createArticle, article, keyed, create, badViews, badTitle, badCreate };
`,
        );
        const result = typeCheck(dir, ['client.ts'], STRICT_NODENEXT);
        assert.equal(result.status, 0, result.output);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
