/**
 * Property-based fuzzing over HTTP on every database: query strings, SEARCH bodies, item writes and GraphQL
 * documents made of hostile input. Every answer must be a coded answer: no 5xx other than 503, errors in the
 * `{errors: [{message, extensions: {code}}]}` shape, no SQL or driver text in them, and `/server/ping` answering
 * throughout, and every shared prototype of the process untouched (bodies, queries, import headers and records, and
 * schema diffs carry `__proto__`, `constructor` and `prototype` keys and paths; those that name one as a key or
 * path segment must be a 400). Seeded and bounded: FUZZ_SEED (default fixed, so CI runs are reproducible; a failure prints the seed
 * and path to replay), FUZZ_RUNS per property (default 60) and FUZZ_TIME_LIMIT per property in ms (default 60000).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import qs from 'qs';
import { assertPristine } from '../helpers/prototypes.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import {
  COLLECTIONS,
  diffRefused,
  graphqlDocument,
  importFile,
  itemWrite,
  plausibleQuery,
  prototypeQuery,
  query,
  schemaDiff,
  snapshotMeta,
} from './arbitraries.js';

/** Every collection under /items, and the system collections and schema endpoints that take the query language. */
const READ_PATHS = [
  ...COLLECTIONS.map((c) => `/items/${c}`),
  '/users',
  '/roles',
  '/policies',
  '/access',
  '/permissions',
  '/users/me',
  '/settings',
  '/fields/articles',
  '/collections',
  '/relations',
];

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const TIME_LIMIT = Number(process.env.FUZZ_TIME_LIMIT ?? 60_000);

/** Text that only a database, a driver or a stack trace would write. */
const LEAK =
  /SQLITE_|\bER_[A-Z_]{3,}|sqlState|syntax error at|near "[^"]*": syntax|violates [a-z ]*constraint|duplicate key value|pg_catalog|\bknex\b|node_modules|\n\s+at |column "[^"]*" does not exist|relation "[^"]*" does not exist|error in your SQL|Unknown column|better-sqlite3|mysql2|invalid input syntax/i;

interface ErrorEntry {
  message?: unknown;
  extensions?: { code?: unknown };
}

function checkErrors(errors: unknown, where: string): void {
  assert.ok(Array.isArray(errors) && errors.length > 0, `${where}: errors must be a non-empty array`);
  for (const error of errors as ErrorEntry[]) {
    assert.equal(typeof error.message, 'string', `${where}: message`);
    assert.match(String(error.extensions?.code), /^[A-Z_]+$/, `${where}: extensions.code`);
    const text = JSON.stringify(error);
    assert.doesNotMatch(text, LEAK, `${where}: leaks ${text.slice(0, 300)}`);
  }
}

/** The properties every answer has, whatever was asked. */
function checkAnswer(response: LightMyRequestResponse, where: string): void {
  const label = `${where} → ${response.statusCode} ${response.body.slice(0, 300)}`;
  if (response.statusCode >= 500) {
    assert.equal(response.statusCode, 503, label);
  }
  if (response.statusCode === 204) return;
  if (!String(response.headers['content-type'] ?? '').includes('json')) {
    assert.ok(response.statusCode < 400, label);
    return;
  }
  const body = JSON.parse(response.body) as { errors?: unknown; data?: unknown };
  if (response.statusCode >= 400) checkErrors(body.errors, label);
  else if (body.errors !== undefined) checkErrors(body.errors, label);
  if (response.statusCode === 503)
    assert.equal((body.errors as ErrorEntry[])[0]!.extensions!.code, 'SERVICE_UNAVAILABLE', label);
}

for (const client of testClients()) {
  describe(`fuzz (${clientLabel(client)}), seed ${SEED}`, { timeout: 15 * 60_000 }, () => {
    let t: TestApp;
    let cases = 0;
    before(async () => {
      t = await startTestApp(client, { relations: true });
    });
    const statuses = new Map<number, number>();
    after(async () => {
      // What the fuzzed requests got: a suite whose requests all fail parsing would test little.
      console.log(
        `fuzz (${clientLabel(client)}) statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
      );
      await t?.close();
    });

    /**
     * Sends one fuzzed request (as the admin or as the public), checks its answer and the shared prototypes, and now
     * and then the ping. `text` is a body sent as it is, with its content type.
     */
    const send = async (request: {
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'SEARCH';
      url: string;
      payload?: unknown;
      text?: { type: string; body: string };
      asPublic?: boolean;
    }): Promise<LightMyRequestResponse> => {
      const body = request.text
        ? { payload: request.text.body, headers: { 'content-type': request.text.type } }
        : request.payload === undefined
          ? {}
          : { payload: JSON.stringify(request.payload), headers: { 'content-type': 'application/json' } };
      const response = await t.request({
        method: request.method,
        url: request.url,
        ...body,
        token: request.asPublic ? null : undefined,
      });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      const where = `${request.method} ${request.url.slice(0, 200)} ${String(body.payload ?? '').slice(0, 300)}`;
      assertPristine(where);
      checkAnswer(response, where);
      if (++cases % 10 === 0) {
        const ping = await t.request({ method: 'GET', url: '/server/ping' });
        assert.equal(ping.body, 'pong');
      }
      return response;
    };
    /** A refusal the oracle expects: 400 with one of these codes. */
    const refused = (response: LightMyRequestResponse, codes: string[], where: string) => {
      assert.equal(response.statusCode, 400, `${where}: ${response.body.slice(0, 300)}`);
      assert.ok(codes.includes(json(response).errors[0].extensions.code), `${where}: ${response.body.slice(0, 300)}`);
    };
    const options = {
      seed: SEED,
      numRuns: RUNS,
      interruptAfterTimeLimit: TIME_LIMIT,
      markInterruptAsFailure: false,
      endOnFailure: true,
    };

    it('query strings', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.tuple(fc.constantFrom(...READ_PATHS), query),
            fc.tuple(fc.constant('/items/articles'), plausibleQuery),
          ),
          fc.boolean(),
          fc.boolean(),
          async ([path, params], jsonFilter, asPublic) => {
            const shaped =
              jsonFilter && params.filter !== undefined ? { ...params, filter: JSON.stringify(params.filter) } : params;
            let search: string;
            try {
              search = qs.stringify(shaped, { encodeValuesOnly: true, allowDots: false });
            } catch {
              search = encodeURIComponent(JSON.stringify(shaped));
            }
            await send({ method: 'GET', url: `${path}?${search}`, asPublic });
          },
        ),
        options,
      );
    });

    it('query strings and SEARCH bodies naming __proto__, constructor or prototype: 400', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...READ_PATHS),
          prototypeQuery,
          fc.boolean(),
          fc.boolean(),
          async (path, params, asPublic, search) => {
            if (search) {
              // SEARCH is a route of /items only.
              const url = path.startsWith('/items/') ? path : '/items/articles';
              const response = await send({ method: 'SEARCH', url, payload: { query: params }, asPublic });
              // A `__proto__` key is refused by the JSON body parser before the query is read.
              refused(response, ['INVALID_QUERY', 'INVALID_PAYLOAD'], JSON.stringify(params));
              return;
            }
            const url = `${path}?${qs.stringify(params, { encodeValuesOnly: true })}`;
            const response = await send({ method: 'GET', url, asPublic });
            // A key of the query string is refused before anything else; one inside a JSON-text parameter when the
            // query is read, after the route's access check (the public may be refused first, as Directus does).
            // /fields, /collections and /relations read no query parameters: JSON text there is never parsed.
            const jsonText = Object.values(params).some((value) => typeof value === 'string');
            if (
              jsonText &&
              (/^\/(fields|collections|relations)/.test(path) || (asPublic && [401, 403].includes(response.statusCode)))
            )
              return;
            refused(response, ['INVALID_QUERY'], url);
          },
        ),
        options,
      );
    });

    it('SEARCH bodies', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...COLLECTIONS),
          fc.oneof(
            fc.record(
              {
                query: fc.oneof(query, plausibleQuery),
                keys: fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 5 }),
              },
              { requiredKeys: [] },
            ),
            fc.record({ query: plausibleQuery }),
            fc.jsonValue({ maxDepth: 3 }),
          ),
          async (collection, body) => {
            await send({ method: 'SEARCH', url: `/items/${collection}`, payload: body });
          },
        ),
        options,
      );
    });

    it('item payloads', async () => {
      await fc.assert(
        fc.asyncProperty(itemWrite, fc.boolean(), async (write, asPublic) => {
          await send({ method: write.method, url: write.url, payload: write.body, asPublic });
        }),
        options,
      );
    });

    it('imports: CSV headers, JSON and NDJSON records', async () => {
      await fc.assert(
        fc.asyncProperty(importFile, fc.boolean(), async (file, asPublic) => {
          const response = await send({
            method: 'POST',
            url: '/utils/import/authors',
            text: { type: file.type, body: file.body },
            asPublic,
          });
          // The public may not create authors: 403 before the file is read.
          if (file.refused && !asPublic) refused(response, ['INVALID_PAYLOAD'], file.body.slice(0, 200));
        }),
        options,
      );
    });

    it('GraphQL documents', async () => {
      await fc.assert(
        fc.asyncProperty(
          graphqlDocument,
          fc.constantFrom('/graphql', '/graphql/system'),
          fc.boolean(),
          async (document, url, asPublic) => {
            await send({ method: 'POST', url, payload: { query: document }, asPublic });
          },
        ),
        options,
      );
      assert.ok(cases > 0);
    });

    // Last: a diff that passes may change the metadata of articles.title.
    it('schema diffs and snapshots', async () => {
      const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
      /** The hash of the current schema, from a diff of its snapshot with one harmless change. */
      const currentHash = async () => {
        const wanted = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
        wanted.collections[0].meta = { note: `fuzz ${cases}` };
        return json(await t.request({ method: 'POST', url: '/schema/diff', payload: wanted })).data.hash as string;
      };
      let hash = await currentHash();
      await fc.assert(
        fc.asyncProperty(schemaDiff, snapshotMeta, fc.boolean(), async (diff, meta, asSnapshot) => {
          if (asSnapshot) {
            const wanted = structuredClone(snapshot);
            wanted.fields[0].meta = meta;
            const response = await send({ method: 'POST', url: '/schema/diff', payload: wanted });
            refused(response, ['INVALID_PAYLOAD'], JSON.stringify(meta));
            return;
          }
          const response = await send({ method: 'POST', url: '/schema/apply', payload: { hash, diff } });
          if (diffRefused(diff)) refused(response, ['INVALID_PAYLOAD'], JSON.stringify(diff));
          if (response.statusCode === 204) hash = await currentHash();
        }),
        options,
      );
    });
  });
}
