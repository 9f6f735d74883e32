/**
 * One declaration per route: every route of the API other than the collections' was registered from a declaration
 * (http/route-declaration.ts), the OpenAPI document shows exactly the declared body and query schemas, and those are
 * the schemas a request to the route is checked against (watched through body-check's observer). Route tables and
 * schemas do not depend on the database: SQLite only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { observeChecks } from '../../src/request/body-check.js';
import { openApiPath } from '../../src/specs/system-paths.js';
import { openApiSchema } from '../../src/specs/typebox-openapi.js';
import type { RouteDeclaration } from '../../src/http/route-declaration.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';

type Doc = { paths: Record<string, Record<string, any>> };

const OPERATIONS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * Routes documented per collection (items, the system collections, settings, imports) or not part of the API (the
 * reference page, the admin app): the only ones that may go without a declaration.
 */
const UNDECLARED =
  /^\/(items|docs|admin)(\/|$)|^\/$|^\/utils\/import\/|^\/(users|roles|policies|access|permissions|files|folders|versions|comments|notifications|flows|operations|presets)(\/:pk)?\/?$|^\/settings\/?$/;

/** Every schema object inside `schema` (TypeBox composes by reference: a part is the very object checked alone). */
function parts(schema: unknown, into = new Set<unknown>()): Set<unknown> {
  if (!schema || typeof schema !== 'object' || into.has(schema)) return into;
  into.add(schema);
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) for (const item of value) parts(item, into);
    else parts(value, into);
  }
  return into;
}

/** A path of the fixture for a declared URL. */
const concrete = (url: string) =>
  url.replace(':collection', 'articles').replace(':field', url.startsWith('/relations') ? 'author' : 'title');

describe('route declarations', () => {
  let t: TestApp;
  let declared: RouteDeclaration[];
  const docs = new Map<string, Doc>();

  before(async () => {
    t = await startTestApp('sqlite3', { relations: true });
    declared = [...new Set(t.app.routeTable.map((route) => route.declaration))].filter(
      (declaration): declaration is RouteDeclaration => declaration !== undefined,
    );
    for (const version of ['3.0', '3.1']) {
      const response = await t.request({ method: 'GET', url: `/server/specs/oas?openapi=${version}` });
      assert.equal(response.statusCode, 200);
      docs.set(version, json<Doc>(response));
    }
  });
  after(async () => {
    observeChecks(null);
    await t?.close();
  });

  it('every route other than the collections’ has a declaration, and the document only declared ones', () => {
    const missing = t.app.routeTable
      .filter((route) => OPERATIONS.has(route.method) && !route.declaration && !UNDECLARED.test(route.url))
      .map((route) => `${route.method} ${route.url}`);
    assert.deepEqual(missing, []);
    for (const route of t.app.routeTable) {
      if (!route.declaration || route.method === 'HEAD') continue;
      assert.equal(route.method, route.declaration.method);
      assert.equal(openApiPath(route.url), openApiPath(route.declaration.url), 'registered where declared');
    }
    // An operation written without a declaration would be summarised as `METHOD path`.
    const generic = Object.entries(docs.get('3.0')!.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method, operation]) => operation.summary === `${method.toUpperCase()} ${path}`)
        .map(([method]) => `${method} ${path}`),
    );
    assert.deepEqual(generic, []);
    // The 45 routes the hand-written descriptions covered before.
    assert.ok(declared.length >= 45, `${declared.length} declarations`);
  });

  it('the document shows each declared body and query as the TypeBox schema it is', () => {
    for (const [version, doc] of docs) {
      for (const declaration of declared) {
        const operation = doc.paths[openApiPath(declaration.url)]?.[declaration.method.toLowerCase()];
        assert.ok(operation, `${declaration.method} ${declaration.url} in the ${version} document`);
        const label = `${declaration.method} ${declaration.url} (${version})`;
        if (declaration.body) {
          assert.deepEqual(
            operation.requestBody?.content['application/json'].schema,
            openApiSchema(declaration.body, version as '3.0' | '3.1'),
            label,
          );
          assert.equal(operation.requestBody.required, declaration.bodyRequired !== false, label);
        } else assert.equal(operation.requestBody, undefined, label);
        const query = (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'query');
        const shown = declaration.querystring
          ? (openApiSchema(declaration.querystring, version as '3.0' | '3.1').properties as Record<string, any>)
          : {};
        assert.deepEqual(
          query.map((parameter: any) => parameter.name),
          Object.keys(shown),
          label,
        );
        for (const parameter of query) {
          const { description, ...schema } = shown[parameter.name];
          assert.deepEqual(parameter.schema, schema, `${label} ?${parameter.name}`);
          assert.equal(parameter.description, description, `${label} ?${parameter.name}`);
        }
      }
    }
  });

  it('a request is checked against the schema its declaration shows', async () => {
    const checked = new Set<TSchema>();
    observeChecks((schema) => checked.add(schema));
    for (const declaration of declared) {
      for (const [schema, where] of [
        [declaration.body, 'body'],
        [declaration.querystring, 'query'],
      ] as const) {
        if (!schema) continue;
        checked.clear();
        const array = (schema as { type?: unknown }).type === 'array';
        await t.request({
          method: declaration.method,
          url: concrete(declaration.url),
          ...(where === 'body' ? { payload: array ? [{}] : {} } : {}),
        });
        const declaredParts = parts(schema);
        assert.ok(
          [...checked].some((one) => declaredParts.has(one)),
          `${declaration.method} ${declaration.url}: its ${where} is not checked against the declared schema`,
        );
      }
    }
    observeChecks(null);
  });
});
