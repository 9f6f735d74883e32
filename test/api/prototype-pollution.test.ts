/**
 * Prototype pollution through imports and schema diffs, on every database: CSV headers (`__proto__.x`,
 * `data.__proto__.x`, `constructor.prototype.x`), JSON/NDJSON records and CSV cells holding `__proto__`, diffs whose
 * paths walk `__proto__`, `constructor.prototype` or a built-in (`schema.toString`), snapshots holding the names as keys
 * (YAML bodies and CLI files keep them as plain keys). Each is refused with a coded 400 (or stored as plain data where
 * the name is only data) and leaves every shared prototype of the process untouched, and the next login and read work.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { grantPublic, createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { assertPristine, cleanPrototypes } from '../helpers/prototypes.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { cliInProcess } from '../cli/cli-in-process.js';

const HEADERS = [
  '__proto__.status',
  '__proto__.polluted',
  'data.__proto__.polluted',
  'constructor.prototype.polluted',
  'title.constructor.prototype.polluted',
  'metadata.prototype',
  'constructor',
];

for (const client of testClients()) {
  describe(`prototype pollution: imports and schema diffs (${clientLabel(client)})`, () => {
    let t: TestApp;
    let editor: string;
    let titleOnly: string;
    let reader: string;
    before(async () => {
      t = await startTestApp(client);
      await grantPublic(t, [{ collection: 'articles', action: 'create', fields: '*' }]);
      const editing = await createPolicy(t, { permissions: [{ collection: 'articles', action: 'create' }] });
      const reading = await createPolicy(t, { permissions: [{ collection: 'articles', action: 'read' }] });
      const titles = await createPolicy(t, {
        permissions: [{ collection: 'articles', action: 'create', fields: 'title' }],
      });
      editor = (await createUserWithPolicies(t, [editing])).token;
      titleOnly = (await createUserWithPolicies(t, [titles])).token;
      reader = (await createUserWithPolicies(t, [reading])).token;
    });
    after(async () => {
      await t?.close();
    });
    // A pollution a test finds is removed after it, so that it fails alone (and not every test after it).
    afterEach(() => void cleanPrototypes());

    const count = async () =>
      json(await t.request({ method: 'GET', url: '/items/articles?aggregate[count]=*' })).data[0].count;

    /**
     * Prototypes untouched, and the requests that broke after a pollution (a read; a login, which hashes, once a
     * test with `login`) still answer.
     */
    const stillWorks = async (where: string, login = false) => {
      assertPristine(where);
      if (login) {
        const answer = await t.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: ADMIN.email, password: ADMIN.password },
          token: null,
        });
        assert.equal(answer.statusCode, 200, `${where}: login ${answer.body}`);
      }
      const read = await t.request({ method: 'GET', url: '/items/articles?limit=1&fields=id,title' });
      assert.equal(read.statusCode, 200, `${where}: read ${read.body}`);
    };

    const importCsv = (csv: string, token?: string | null) =>
      t.request({
        method: 'POST',
        url: '/utils/import/articles',
        payload: csv,
        headers: { 'content-type': 'text/csv' },
        token,
      });

    it('CSV headers naming __proto__, constructor or prototype: 400 before any row, for admins, editors and the public', async () => {
      const before = await count();
      for (const header of HEADERS) {
        for (const [who, token] of [
          ['admin', undefined],
          ['editor', editor],
          ['public', null],
        ] as const) {
          const res = await importCsv(`title,${header}\r\nPolluter,yes\r\n`, token);
          const where = `${who}: ${header}`;
          assertPristine(where);
          assert.equal(res.statusCode, 400, `${where}: ${res.body}`);
          assert.equal(errorCode(res), 'INVALID_PAYLOAD', where);
          assert.match(json(res).errors[0].message, /reserved name/, where);
          await stillWorks(where);
        }
      }
      // The same through multipart, as the SDK and the app send files.
      const boundary = '----strata-pollution';
      const res = await t.request({
        method: 'POST',
        url: '/utils/import/articles',
        payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\ntitle,__proto__.polluted\r\nx,yes\r\n--${boundary}--\r\n`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      await stillWorks('multipart', true);
      assert.equal(await count(), before);
    });

    it('an import refused with 403 leaves the prototypes alone too; a header naming a forbidden field is 400 first', async () => {
      for (const header of HEADERS) {
        // No create right at all: refused before the file is read.
        const res = await importCsv(`title,${header}\r\nPolluter,yes\r\n`, reader);
        assertPristine(`reader: ${header}`);
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(errorCode(res), 'FORBIDDEN');
        await stillWorks(`reader: ${header}`);
      }
      // May create, but only `title`: `slug.__proto__.x` named a field it may not write (403), after the header had
      // already written onto Object.prototype.
      for (const header of ['slug.__proto__.polluted', 'slug.constructor.prototype.polluted', '__proto__.polluted']) {
        const res = await importCsv(`title,${header}\r\nPolluter,yes\r\n`, titleOnly);
        assertPristine(`title only: ${header}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD', res.body);
        await stillWorks(`title only: ${header}`);
      }
      await stillWorks('403', true);
    });

    it('JSON and NDJSON records and CSV cells holding __proto__ (or constructor.prototype): 400 naming the line', async () => {
      const before = await count();
      const cases: [string, string][] = [
        ['application/json', '[{"title":"ok"},{"title":"x","__proto__":{"polluted":"yes"}}]'],
        ['application/json', '[{"title":"x","metadata":{"__proto__":{"polluted":"yes"}}}]'],
        ['application/json', '[{"title":"x","constructor":{"prototype":{"polluted":"yes"}}}]'],
        ['application/x-ndjson', '{"title":"ok"}\n{"title":"x","__proto__":{"polluted":"yes"}}\n'],
        ['text/csv', 'title,metadata\r\nx,"{""__proto__"":{""polluted"":""yes""}}"\r\n'],
      ];
      for (const [type, body] of cases) {
        const res = await t.request({
          method: 'POST',
          url: '/utils/import/articles',
          payload: body,
          headers: { 'content-type': type },
        });
        assertPristine(body);
        assert.equal(res.statusCode, 400, `${type} ${body}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        assert.equal(typeof json(res).errors[0].extensions.line, 'number');
        await stillWorks(body);
      }
      await stillWorks('records', true);
      assert.equal(await count(), before);
    });

    it('the names as plain data in a JSON field are stored as they are, and read back', async () => {
      const metadata = { constructor: { name: 'data' }, prototype: 'also data', nested: { toString: 1 } };
      const res = await t.request({
        method: 'POST',
        url: '/utils/import/articles',
        payload: JSON.stringify([{ title: 'Plain data', slug: 'plain-data', metadata }]),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const csv = await importCsv(
        `title,slug,metadata\r\nPlain CSV,plain-csv,"${JSON.stringify(metadata).replace(/"/g, '""')}"\r\n`,
      );
      assert.equal(csv.statusCode, 200, csv.body);
      const rows = json(
        await t.request({
          method: 'GET',
          url: '/items/articles?filter[slug][_in]=plain-data,plain-csv&fields=metadata&sort=slug',
        }),
      ).data;
      assert.deepEqual(
        rows.map((r: { metadata: unknown }) => r.metadata),
        [metadata, metadata],
      );
      await stillWorks('plain data', true);
    });

    /** A diff the server accepts the hash of: the current snapshot with one harmless difference. */
    const currentHash = async () => {
      const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
      const field = snapshot.fields.find((f: { collection: string; field: string }) => f.field === 'title');
      field.meta = { ...(field.meta ?? {}), note: `changed ${Math.random()}` };
      const diff = await t.request({ method: 'POST', url: '/schema/diff', payload: snapshot });
      assert.equal(diff.statusCode, 200, diff.body);
      return json(diff).data.hash as string;
    };
    const apply = async (diff: Record<string, unknown[]>) =>
      t.request({
        method: 'POST',
        url: '/schema/apply',
        payload: { hash: await currentHash(), diff: { collections: [], fields: [], relations: [], ...diff } },
      });

    it('POST /schema/apply: paths through __proto__ or constructor.prototype are 400, nothing is applied', async () => {
      const cases: Record<string, unknown[]>[] = [
        {
          collections: [{ collection: 'articles', diff: [{ kind: 'N', path: ['__proto__', 'polluted'], rhs: 'yes' }] }],
        },
        {
          fields: [
            {
              collection: 'articles',
              field: 'title',
              diff: [{ kind: 'E', path: ['constructor', 'prototype', 'polluted'], lhs: null, rhs: 'yes' }],
            },
          ],
        },
        {
          fields: [
            {
              collection: 'articles',
              field: 'title',
              diff: [{ kind: 'N', path: ['meta', 'prototype'], rhs: 'yes' }],
            },
          ],
        },
        {
          fields: [
            {
              collection: 'articles',
              field: 'title',
              diff: [
                { kind: 'A', path: ['meta', 'options'], index: 0, item: { kind: 'N', path: ['__proto__'], rhs: 1 } },
              ],
            },
          ],
        },
        // A path segment that is an array turns into its text ("__proto__") as a property key.
        {
          collections: [
            { collection: 'articles', diff: [{ kind: 'N', path: [['__proto__'], 'polluted'], rhs: 'yes' }] },
          ],
        },
      ];
      for (const diff of cases) {
        const res = await apply(diff);
        assertPristine(JSON.stringify(diff));
        assert.equal(res.statusCode, 400, `${JSON.stringify(diff)}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        await stillWorks(JSON.stringify(diff));
      }
      await stillWorks('diffs', true);
      const fields = json(await t.request({ method: 'GET', url: '/fields/articles/title' })).data;
      assert.equal(fields.meta?.prototype, undefined);
    });

    it('POST /schema/apply: a path through a built-in (schema.toString) writes onto no shared function', async () => {
      const res = await apply({
        fields: [
          {
            collection: 'articles',
            field: 'title',
            diff: [{ kind: 'N', path: ['schema', 'toString', 'polluted'], rhs: 'yes' }],
          },
        ],
      });
      assert.ok(res.statusCode === 204 || errorCode(res) === 'INVALID_PAYLOAD', res.body);
      await stillWorks('schema.toString', true);
    });

    it('POST /schema/diff: a snapshot holding the names as keys (a YAML body keeps __proto__) is 400', async () => {
      const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
      const field = snapshot.fields.find((f: { field: string }) => f.field === 'title');
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        field.meta = { RESERVED: { polluted: 'yes' } };
        // JSON is YAML: the YAML parser keeps `__proto__` as a plain key, as JSON.parse does.
        const text = JSON.stringify(snapshot).replace('"RESERVED"', JSON.stringify(key));
        const res = await t.request({
          method: 'POST',
          url: '/schema/diff',
          payload: text,
          headers: { 'content-type': 'application/yaml' },
        });
        assertPristine(`snapshot ${key}`);
        assert.equal(res.statusCode, 400, `${key}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        assert.match(json(res).errors[0].message, /fields\[\d+\]\.meta\./);
        await stillWorks(`snapshot ${key}`);
      }
      await stillWorks('snapshots', true);
    });

    it('strata schema apply: a snapshot file holding __proto__ is refused (exit 1), this process untouched', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'strata-pollution-'));
      try {
        const snapshot = json(await t.request({ method: 'GET', url: '/schema/snapshot' })).data;
        const field = snapshot.fields.find((f: { field: string }) => f.field === 'title');
        field.meta = { RESERVED: { polluted: 'yes' } };
        for (const file of ['snapshot.json', 'snapshot.yaml']) {
          writeFileSync(path.join(dir, file), JSON.stringify(snapshot).replace('"RESERVED"', '"__proto__"'));
          const result = await cliInProcess(['schema', 'apply', file, '--yes'], {
            cwd: dir,
            env: { ...t.testDb.env, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'silent' },
          });
          assertPristine(`cli ${file}`);
          assert.equal(result.status, 1, `${file}: ${result.stdout} ${result.stderr}`);
          assert.match(result.stderr, /reserved name/);
          await stillWorks(`cli ${file}`, true);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
