/**
 * POST /utils/import/{collection}: CSV, JSON and NDJSON, multipart or raw, in batches of IMPORT_BATCH_SIZE=2 inside
 * one transaction through the /items write path. A bad row anywhere names its line (and field) and writes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';

function multipart(
  filename: string,
  type: string,
  content: string,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----strata-test-boundary';
  const payload = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  );
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

for (const client of testClients()) {
  describe(`import (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { env: { IMPORT_BATCH_SIZE: '2', IMPORT_MAX_FILE_SIZE: '4kb' } });
      await addWriteFixture(t);
    });
    after(async () => {
      await t?.close();
    });

    const raw = (collection: string, type: string, body: string, token?: string | null) =>
      t.request({
        method: 'POST',
        url: `/utils/import/${collection}`,
        payload: body,
        headers: { 'content-type': type },
        token,
      });
    const names = async () =>
      json(await t.request({ method: 'GET', url: '/items/authors?fields=name&sort=id&limit=-1' })).data.map(
        (r: { name: string }) => r.name,
      );

    it('CSV (raw body): typed values, empty cells take the default, several batches, one answer', async () => {
      const csv =
        'name,email,bio,active,joined\r\nEdsger Dijkstra,edsger@example.com,"Wrote ""GOTO considered harmful"", 1968",false,1930-05-11\r\nBarbara Liskov,barbara@example.com,,true,1939-11-07\r\nDonald Knuth,,TAOCP,1,\r\n';
      const res = await raw('authors', 'text/csv', csv);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, { collection: 'authors', created: 3 });
      const rows = json(
        await t.request({
          method: 'GET',
          url: '/items/authors?filter[id][_gt]=3&sort=id&fields=name,email,bio,active,joined',
        }),
      ).data;
      assert.deepEqual(rows, [
        {
          name: 'Edsger Dijkstra',
          email: 'edsger@example.com',
          bio: 'Wrote "GOTO considered harmful", 1968',
          active: false,
          joined: '1930-05-11',
        },
        { name: 'Barbara Liskov', email: 'barbara@example.com', bio: null, active: true, joined: '1939-11-07' },
        { name: 'Donald Knuth', email: null, bio: 'TAOCP', active: true, joined: null },
      ]);
    });

    it('JSON array and NDJSON, raw and multipart', async () => {
      const before = (await names()).length;
      const jsonBody =
        '[\n  {"name": "J1", "bio": "a [bracket] and a \\"quote\\" {brace}"},\n  {"name": "J2"},\n  {"name": "J3", "active": false}\n]\n';
      assert.equal((await raw('authors', 'application/json', jsonBody)).statusCode, 200);
      assert.equal((await raw('authors', 'application/x-ndjson', '{"name":"N1"}\n\n{"name":"N2"}\n')).statusCode, 200);
      const file = multipart('authors.csv', 'text/csv', 'name\nM1\nM2\n');
      const res = await t.request({ method: 'POST', url: '/utils/import/authors', ...file });
      assert.equal(res.statusCode, 200, res.body);
      const ndjsonFile = multipart('authors.ndjson', 'application/octet-stream', '{"name":"M3"}\n');
      assert.equal((await t.request({ method: 'POST', url: '/utils/import/authors', ...ndjsonFile })).statusCode, 200);
      const all = await names();
      assert.deepEqual(all.slice(before), ['J1', 'J2', 'J3', 'N1', 'N2', 'M1', 'M2', 'M3']);
      const j1 = json(await t.request({ method: 'GET', url: '/items/authors?filter[name][_eq]=J1&fields=bio' }))
        .data[0];
      assert.equal(j1.bio, 'a [bracket] and a "quote" {brace}');
    });

    it('a bad row names its line and field, and nothing is written (planner and database errors)', async () => {
      const before = await names();
      // Line 5 (third batch) misses the required name.
      const missing = await raw('authors', 'text/csv', 'name,bio\nA1,x\nA2,x\nA3,x\n,no name\nA5,x\n');
      assert.equal(missing.statusCode, 400, missing.body);
      const error = json(missing).errors[0];
      assert.equal(error.extensions.line, 5);
      assert.equal(error.extensions.field, 'name');
      assert.match(error.message, /line 5/);
      // A unique email taken by line 4 of the file: a database error in the second batch.
      const duplicate = await raw(
        'authors',
        'application/x-ndjson',
        '{"name":"B1"}\n{"name":"B2"}\n{"name":"B3","email":"dup@example.com"}\n{"name":"B4","email":"dup@example.com"}\n',
      );
      assert.equal(duplicate.statusCode, 400, duplicate.body);
      assert.equal(errorCode(duplicate), 'RECORD_NOT_UNIQUE');
      assert.equal(json(duplicate).errors[0].extensions.line, 4);
      // A value of the wrong type on the 3rd line of a JSON file.
      const typed = await raw(
        'authors',
        'application/json',
        '[{"name":"C1"},\n{"name":"C2"},\n{"name":"C3","joined":"not a date"}]',
      );
      assert.equal(typed.statusCode, 400, typed.body);
      assert.equal(json(typed).errors[0].extensions.line, 3);
      // Broken syntax.
      const broken = await raw('authors', 'application/x-ndjson', '{"name":"D1"}\n{"name":\n');
      assert.equal(errorCode(broken), 'INVALID_PAYLOAD');
      assert.equal(json(broken).errors[0].extensions.line, 2);
      const ragged = await raw('authors', 'text/csv', 'name,bio\nE1,x\nE2,x,extra\n');
      assert.equal(errorCode(ragged), 'INVALID_PAYLOAD');
      assert.equal(json(ragged).errors[0].extensions.line, 3);
      const notArray = await raw('authors', 'application/json', '{"name":"F1"}');
      assert.equal(errorCode(notArray), 'INVALID_PAYLOAD');
      assert.deepEqual(await names(), before);
      // A column that is no field is dropped, as POST /items drops the key (Directus does).
      const unknownField = await raw('authors', 'text/csv', 'name,nope\nG1,x\n');
      assert.equal(unknownField.statusCode, 200, unknownField.body);
    });

    it('hash fields are hashed and presets apply, as on POST /items', async () => {
      const res = await raw('gadgets', 'application/x-ndjson', '{"name":"Imported","secret":"p4ssw0rd"}\n');
      assert.equal(res.statusCode, 200, res.body);
      const k = knexFor(t.testDb);
      try {
        const row = await k('gadgets').where({ name: 'Imported' }).first();
        assert.match(row.secret, /^\$argon2id\$/);
        assert.match(row.id, /^[0-9a-f-]{36}$/);
        assert.ok(row.created_on);
      } finally {
        await k.destroy();
      }
    });

    it('permissions, media types, sizes and unknown collections', async () => {
      const anonymous = await raw('authors', 'text/csv', 'name\nX\n', null);
      assert.equal(anonymous.statusCode, 403);
      const unknown = await raw('nope', 'text/csv', 'name\nX\n');
      assert.equal(unknown.statusCode, 403);
      const plain = await raw('authors', 'text/plain', 'name\nX\n');
      assert.equal(plain.statusCode, 415);
      assert.equal(errorCode(plain), 'UNSUPPORTED_MEDIA_TYPE');
      const big = `name\n${'Y'.repeat(50)}\n`.repeat(100);
      const tooLarge = await raw('authors', 'text/csv', `name\n${'Y\n'.repeat(3000)}`);
      assert.equal(tooLarge.statusCode, 413, tooLarge.body);
      assert.equal(errorCode(tooLarge), 'CONTENT_TOO_LARGE');
      const tooLargeFile = await t.request({
        method: 'POST',
        url: '/utils/import/authors',
        ...multipart('a.csv', 'text/csv', big),
      });
      assert.equal(tooLargeFile.statusCode, 413, tooLargeFile.body);
      assert.equal((await names()).filter((n: string) => n.startsWith('Y')).length, 0);
      const singleton = await raw('site', 'text/csv', 'site_name\nX\n');
      assert.equal(singleton.statusCode, 400);
    });

    it('an export imports back (CSV round trip with nested dot paths flattened and rebuilt)', async () => {
      const exported = await t.request({
        method: 'GET',
        url: '/items/authors?fields=name,bio,joined&filter[id][_lte]=3&export=csv',
      });
      const before = (await names()).length;
      const res = await raw('authors', 'text/csv', exported.body);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.created, 3);
      const copies = json(
        await t.request({ method: 'GET', url: `/items/authors?fields=name,bio,joined&sort=id&offset=${before}` }),
      ).data;
      assert.deepEqual(
        copies,
        json(
          await t.request({ method: 'GET', url: '/items/authors?fields=name,bio,joined&sort=id&filter[id][_lte]=3' }),
        ).data,
      );
    });
  });
}
