/**
 * Every route that takes a body (and the query parameters that are not the query language) refuses a malformed one
 * with its coded error and Directus's reason, on every database; the caller's rights are checked before the body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'SEARCH';
/** [method, url, body as JSON text (undefined: none), reason]; the answer is 400 INVALID_PAYLOAD unless `code` says. */
type Case = [Method, string, string | undefined, string, { code?: string; token?: null }?];

const REQUIRED = 'Payload in body is required';
const KEY = 'must be a string, a number or an object of key fields';

const CASES: Case[] = [
  // Item writes: the envelopes.
  ['POST', '/items/articles', '1', '"value" must be of type object'],
  ['POST', '/items/articles', 'null', REQUIRED],
  ['POST', '/items/articles', '[{"title":"a"},2]', '"[1]" must be of type object'],
  ['PATCH', '/items/articles/1', '[]', '"value" must be of type object'],
  ['PATCH', '/items/articles', '{"keys":[1]}', '"data" is required'],
  ['PATCH', '/items/articles', '{"keys":[1],"data":[]}', '"data" must be of type object'],
  ['PATCH', '/items/articles', '{"keys":[1],"data":{},"other":1}', '"other" is not allowed'],
  [
    'PATCH',
    '/items/articles',
    '{"keys":[1],"query":{},"data":{}}',
    '"value" contains a conflict between exclusive peers [keys, query]',
  ],
  ['PATCH', '/items/articles', '{"data":{}}', '"value" must contain at least one of [keys, query]'],
  ['PATCH', '/items/articles', '{"keys":[true],"data":{}}', `"keys[0]" ${KEY}`],
  ['PATCH', '/items/articles', '{"query":[],"data":{}}', '"query" must be of type object'],
  ['DELETE', '/items/articles', '[1,null]', `"value[1]" ${KEY}`],
  ['DELETE', '/items/articles', '{"keys":"1"}', '"keys" must be an array'],
  ['DELETE', '/items/articles', '{}', '"value" must contain at least one of [keys, query]'],
  ['SEARCH', '/items/articles', '[]', '"body" must be an object'],
  ['SEARCH', '/items/articles', '{"limit":1}', '"limit" is not allowed'],
  ['SEARCH', '/items/articles', '{"query":1}', '"query" must be an object'],
  [
    'SEARCH',
    '/items/articles',
    '{"keys":[[1]]}',
    '"keys" must be an array of strings, numbers or objects of key fields',
  ],
  // System collections, the caller's own row, settings.
  ['POST', '/roles', '"x"', '"value" must be of type object'],
  ['PATCH', '/users', '{"keys":["a"]}', '"data" is required'],
  ['PATCH', '/users/me', '[]', '"value" must be of type object'],
  ['PATCH', '/users/me/track/page', '{"last_page":""}', '"last_page" key is required'],
  ['PATCH', '/settings', '1', '"value" must be of type object'],
  // Authentication and two-factor steps.
  ['POST', '/auth/login', undefined, REQUIRED, { token: null }],
  ['POST', '/auth/login', '[]', 'Payload has to be an object', { token: null }],
  ['POST', '/auth/login', '{"email":"a@b.co"}', '"password" is required', { token: null }],
  ['POST', '/auth/login', '{"email":"nobody","password":"x"}', '"email" must be a valid email', { token: null }],
  [
    'POST',
    '/auth/login',
    '{"email":"a@b.co","password":"x","mode":"jwt"}',
    '"mode" must be one of [json, cookie, session]',
    { token: null },
  ],
  ['POST', '/auth/refresh', '1', 'Payload has to be an object', { token: null }],
  ['POST', '/auth/refresh', '{"mode":5}', '"mode" must be one of [json, cookie, session]', { token: null }],
  ['POST', '/auth/logout', '"x"', 'Payload has to be an object', { token: null }],
  ['POST', '/users/me/tfa/generate', '{}', '"password" is required'],
  ['POST', '/users/me/tfa/enable', '{"otp":"123456"}', '"secret" is required'],
  ['POST', '/users/me/tfa/disable', '[]', 'Payload has to be an object'],
  // GraphQL requests, by POST and by GET.
  ['POST', '/graphql', '[]', 'Payload has to be an object'],
  ['POST', '/graphql', '{"query":"  "}', 'Must provide query string'],
  ['POST', '/graphql/system', '{"query":"{ users_me { id } }","operationName":1}', '"operationName" must be a string'],
  ['POST', '/graphql', '{"query":"{ articles { id } }","variables":[1]}', 'Variables must be an object'],
  [
    'GET',
    '/graphql?query=%7B%20articles%20%7B%20id%20%7D%20%7D&variables=%5B1%5D',
    undefined,
    'Variables must be an object',
  ],
  [
    'GET',
    '/graphql?query=%7B%20articles%20%7B%20id%20%7D%20%7D&variables=%7B',
    undefined,
    'Variables are invalid JSON',
  ],
  ['GET', '/graphql', undefined, 'Must provide query string'],
  // Schema management.
  // An array is a batch (Directus's createMany): each of its items is checked as one body.
  ['POST', '/collections', '[1]', 'Payload must be an object'],
  ['POST', '/collections', '"x"', 'Payload must be an object'],
  ['POST', '/collections', '{}', '"collection" is required'],
  [
    'POST',
    '/collections',
    '{"collection":"a b"}',
    'Collection name "a b" is invalid: use letters, digits, "_" and "-", at most 63 characters',
  ],
  [
    'POST',
    '/collections',
    '{"collection":"things","meta":{"sort":"1"}}',
    '"meta.sort" must be an integer from -2147483648 to 2147483647',
  ],
  ['POST', '/collections', '{"collection":"things","fields":{}}', '"fields" must be an array'],
  [
    'PATCH',
    '/collections/articles',
    '{"meta":{"collapse":"shut"}}',
    '"meta.collapse" must be one of open, closed, locked or null',
  ],
  [
    'PATCH',
    '/collections',
    '{"keys":["articles"]}',
    'Submitted body has to be an array, or an object with "keys" and "data"',
  ],
  ['PATCH', '/collections', '[{"meta":{}}]', '"collection" is required'],
  ['POST', '/fields/articles', '{"field":"extra"}', '"type" is required'],
  [
    'POST',
    '/fields/articles',
    '{"field":"extra","type":"string","meta":{"width":"wide"}}',
    '"meta.width" must be one of half, half-left, half-right, half-space, full, fill or null',
  ],
  [
    'POST',
    '/fields/articles',
    '{"field":"extra","type":"string","schema":{"is_nullable":null}}',
    '"schema.is_nullable" must be a boolean',
  ],
  [
    'POST',
    '/fields/articles',
    '{"field":"extra","type":"string","meta":{"special":["a",1]}}',
    '"meta.special" must be an array of strings',
  ],
  ['PATCH', '/fields/articles', '{}', 'Submitted body has to be an array'],
  ['PATCH', '/fields/articles', '[1]', 'Each field must be an object'],
  [
    'PATCH',
    '/fields/articles/title',
    '{"schema":{"max_length":0}}',
    '"schema.max_length" must be an integer from 1 to 65535',
  ],
  ['POST', '/relations', '{"collection":"articles"}', '"field" is required'],
  [
    'POST',
    '/relations',
    '{"collection":"articles","field":"author","schema":{"on_delete":"explode"}}',
    '"schema.on_delete" must be one of NO ACTION, RESTRICT, CASCADE, SET NULL, SET DEFAULT',
  ],
  ['PATCH', '/relations/articles/author', '{"meta":[]}', '"meta" must be an object'],
  ['POST', '/schema/diff', '[]', 'A snapshot must be an object'],
  [
    'POST',
    '/schema/diff',
    '{"collections":[],"fields":[{"collection":"a"}],"relations":[],"version":1}',
    '"fields[0].field" must be a string',
  ],
  [
    'POST',
    '/schema/apply',
    '{"hash":"h","diff":{"collections":[{"diff":[]}],"fields":[],"relations":[]}}',
    '"diff.collections[0]" must name its collection and hold a "diff" array',
  ],
  // Query parameters outside the query language.
  ['GET', '/server/specs/oas?openapi=2.0', undefined, '"openapi" must be 3.0 or 3.1', { code: 'INVALID_QUERY' }],
  ['GET', '/schema/snapshot?export=xml', undefined, '"export" must be json or yaml', { code: 'INVALID_QUERY' }],
];

for (const client of testClients()) {
  describe(`body schemas (${clientLabel(client)})`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    it('refuses each malformed body with its coded error and reason', async () => {
      for (const [method, url, body, reason, options = {}] of CASES) {
        const response = await t.request({
          method,
          url,
          ...(body === undefined ? {} : { payload: body, headers: { 'content-type': 'application/json' } }),
          ...(options.token === null ? { token: null } : {}),
        });
        const label = `${method} ${url} ${body ?? ''}: ${response.body}`;
        assert.equal(response.statusCode, 400, label);
        const [error] = json(response).errors;
        const code = options.code ?? 'INVALID_PAYLOAD';
        assert.equal(error.extensions.code, code, label);
        assert.equal(error.extensions.reason, reason, label);
        assert.equal(
          error.message,
          `${code === 'INVALID_QUERY' ? 'Invalid query' : 'Invalid payload'}. ${reason}.`,
          label,
        );
      }
    });

    it('checks who asks before what the body holds', async () => {
      // A caller without rights hears 403 (or 401 for a bad token), whatever the body: schemas run in the handler.
      for (const [method, url] of [
        ['POST', '/items/articles'],
        ['PATCH', '/items/articles'],
        ['DELETE', '/items/articles'],
        ['POST', '/collections'],
        ['POST', '/fields/articles'],
        ['POST', '/relations'],
      ] as const) {
        const anonymous = await t.request({
          method,
          url,
          payload: '1',
          headers: { 'content-type': 'application/json' },
          token: null,
        });
        assert.equal(anonymous.statusCode, 403, `${method} ${url}: ${anonymous.body}`);
        const badToken = await t.request({
          method,
          url,
          payload: '1',
          headers: { 'content-type': 'application/json' },
          token: 'not-a-token',
        });
        assert.equal(badToken.statusCode, 401, `${method} ${url}: ${badToken.body}`);
      }
    });

    it('lets a well-formed body through to the engine', async () => {
      const created = await t.request({ method: 'POST', url: '/items/articles', payload: { title: 'Schema-checked' } });
      assert.equal(created.statusCode, 200, created.body);
      const found = await t.request({
        method: 'SEARCH',
        url: '/items/articles',
        payload: { query: { filter: { title: { _eq: 'Schema-checked' } }, fields: ['title'] } },
      });
      assert.deepEqual(json(found).data, [{ title: 'Schema-checked' }]);
    });
  });
}
