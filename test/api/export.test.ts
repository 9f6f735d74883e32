/**
 * `?export=` on list reads: the download holds exactly what the same read answers as JSON, whatever the batch size
 * (EXPORT_BATCH_SIZE=2 here, so every export spans several batches, by key ranges and by offsets), in every format.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parse as parseCsv } from 'csv-parse/sync';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`export (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true, env: { EXPORT_BATCH_SIZE: '2' } });
    });
    after(async () => {
      await t?.close();
    });

    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });
    const dataOf = async (url: string) => {
      const res = await get(url);
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    };

    it('json: the rows of the same read, by key ranges across batches, as an attachment', async () => {
      const res = await get('/items/articles?limit=-1&export=json');
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.match(String(res.headers['content-disposition']), /^attachment; filename="articles \d{8}-\d{6}\.json"/);
      assert.deepEqual(JSON.parse(res.body), await dataOf('/items/articles?limit=-1'));
      assert.equal(JSON.parse(res.body).length, 6);
    });

    it('keeps the query language: filter, sort (by offsets), limit, offset, page, nested fields', async () => {
      for (const query of [
        'filter[status][_eq]=published&limit=-1',
        'sort=-id&limit=-1',
        'sort=title&limit=3',
        'limit=3&offset=2',
        'limit=2&page=2',
        'fields=id,title,author.name,tags.tags_id.name&limit=-1',
        'fields=title,author.name&limit=5',
        'search=post&limit=-1',
      ]) {
        const res = await get(`/items/articles?${query}&export=json`);
        assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
        assert.deepEqual(JSON.parse(res.body), await dataOf(`/items/articles?${query}`), query);
      }
    });

    it('without a limit, exports QUERY_LIMIT_DEFAULT rows as /items reads them', async () => {
      const res = await get('/items/articles?export=json');
      assert.deepEqual(JSON.parse(res.body), await dataOf('/items/articles'));
    });

    it('ndjson: one row per line', async () => {
      const res = await get('/items/articles?limit=-1&fields=id,title&export=ndjson');
      assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
      const lines = res.body
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(lines, await dataOf('/items/articles?limit=-1&fields=id,title'));
    });

    it('csv: nested objects flattened to dot paths, quoting, nulls as empty cells, arrays as JSON', async () => {
      const res = await get('/items/articles?limit=-1&fields=id,title,body,author.name,metadata&sort=id&export=csv');
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      assert.match(String(res.headers['content-disposition']), /\.csv"/);
      const rows = parseCsv(res.body, { columns: true }) as Record<string, string>[];
      assert.deepEqual(Object.keys(rows[0]!), ['id', 'title', 'body', 'author.name', 'metadata']);
      assert.equal(rows.length, 6);
      const { metadata, ...plain } = rows[0]!;
      assert.deepEqual(plain, {
        id: '1',
        title: 'Hello World',
        body: 'First post body',
        'author.name': 'Ada Lovelace',
      });
      assert.deepEqual(JSON.parse(metadata!), { lang: 'en', tags: ['a', 'b'], n: 1 });
      assert.equal(rows[2]!.body, '');
      assert.equal(rows[5]!.body, 'Body with "quotes", 50% and a \\ backslash');
      assert.equal(rows[5]!.title, 'Unicode ✓ — 日本語');
      assert.equal(rows[5]!['author.name'], '');
      const bom = await get('/items/articles?limit=1&fields=id&export=csv_utf8');
      assert.equal(bom.rawPayload.subarray(0, 3).toString('hex'), 'efbbbf');
    });

    it('yaml and xml', async () => {
      const yaml = await get('/items/articles?limit=-1&fields=id,title,tags&export=yaml');
      assert.match(String(yaml.headers['content-type']), /^text\/yaml/);
      assert.deepEqual(parseYaml(yaml.body), await dataOf('/items/articles?limit=-1&fields=id,title,tags'));
      const empty = await get('/items/articles?filter[id][_eq]=999&export=yaml');
      assert.deepEqual(parseYaml(empty.body), []);
      const xml = await get('/items/articles?limit=-1&fields=id,title,tags&sort=id&export=xml');
      assert.match(String(xml.headers['content-type']), /^text\/xml/);
      assert.match(xml.body, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<data>\n/);
      assert.equal(xml.body.match(/<item><id>/g)?.length, 6);
      assert.match(
        xml.body,
        /<item><id>1<\/id><title>Hello World<\/title><tags><item>1<\/item><item>2<\/item><\/tags><\/item>/,
      );
      assert.match(xml.body, /Unicode ✓ — 日本語/);
      const emptyJson = await get('/items/articles?filter[id][_eq]=999&export=json');
      assert.deepEqual(JSON.parse(emptyJson.body), []);
    });

    it('errors and permissions as /items: bad format, unknown field, no access', async () => {
      const bad = await get('/items/articles?export=pdf');
      assert.equal(bad.statusCode, 400);
      assert.equal(errorCode(bad), 'INVALID_QUERY');
      const field = await get('/items/articles?fields=nope&export=csv');
      assert.equal(field.statusCode, 403);
      assert.equal(errorCode(field), 'FORBIDDEN');
      const anonymous = await get('/items/articles?export=json', null);
      assert.equal(anonymous.statusCode, 403);
      assert.equal(errorCode(anonymous), 'FORBIDDEN');
    });

    it('an empty export is no export, as Directus reads it (items, system collections, snapshot)', async () => {
      for (const url of [
        '/items/articles?fields=id&sort=id&limit=2&export=',
        '/users?fields=email&export=',
        '/schema/snapshot?export=',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/json/, url);
        assert.equal(res.headers['content-disposition'], undefined, url);
      }
      assert.deepEqual(await dataOf('/items/articles?fields=id&sort=id&limit=2&export='), [{ id: 1 }, { id: 2 }]);
    });

    it('system collections export too (/users)', async () => {
      const res = await get('/users?fields=email&export=csv');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(parseCsv(res.body, { columns: true }), [{ email: 'admin@example.com' }]);
    });

    it('aggregates export in one read', async () => {
      const res = await get('/items/articles?aggregate[count]=*&groupBy=status&sort=status&export=json');
      assert.deepEqual(
        JSON.parse(res.body),
        await dataOf('/items/articles?aggregate[count]=*&groupBy=status&sort=status'),
      );
    });
  });
}
