/**
 * Typed clients on every database: `strata types --out <file>` (the CLI, in process) and GET
 * /server/specs/typescript (admins) write the same types, and a program using `@directus/sdk`'s
 * `createDirectus<Schema>()` over them type-checks with TypeScript (in this process as tsc would,
 * test/helpers/type-check.ts; once per distinct text) — including the mistakes it must refuse (unknown collections,
 * wrong value types, a singleton read as a list).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, startTestApp, type TestApp } from '../helpers/test-app.js';
import { STRICT_NODENEXT, typeCheck, type TypeCheckResult } from '../helpers/type-check.js';
import { cliInProcess } from './cli-in-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A scratch folder inside the repository, so that the program resolves @directus/sdk from its node_modules. */
function scratch(): string {
  const parent = path.join(ROOT, 'node_modules', '.cache');
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(path.join(parent, 'strata-types-'));
}

const PROGRAM = `import { createDirectus, createItem, readItem, readItems, readSingleton, rest, staticToken, updateSingleton } from '@directus/sdk';
import type { Schema } from './schema.js';

const client = createDirectus<Schema>('http://127.0.0.1:8055').with(staticToken('token')).with(rest());

export async function run(): Promise<void> {
  const articles = await client.request(readItems('articles', { fields: ['id', 'title', 'views', 'body', { author: ['name'] }], limit: 5 }));
  const title: string = articles[0]!.title;
  const views: string | null = articles[0]!.views;
  const body: string | null = articles[0]!.body;
  const one = await client.request(readItem('authors', 1, { fields: ['name', 'active'] }));
  const active: boolean = one.active;
  const settings = await client.request(readSingleton('site_settings'));
  const headline: string | null = settings.headline;
  await client.request(updateSingleton('site_settings', { headline: 'New' }));
  await client.request(createItem('articles', { title: 'New', author: 1, tags: [1, 2] }));
  // @ts-expect-error no such collection
  await client.request(readItems('no_such_collection'));
  // @ts-expect-error titles are strings
  const wrongTitle: number = articles[0]!.title;
  // @ts-expect-error bigInteger values are exact strings
  const wrongViews: number | null = articles[0]!.views;
  // @ts-expect-error a singleton is one object: it has no list reads
  await client.request(readItems('site_settings'));
  // @ts-expect-error a collection of items is not a singleton
  await client.request(readSingleton('articles'));
  console.log(title, views, body, active, headline, wrongTitle, wrongViews);
}
`;

/** Results by the types' text: the databases answer the same types, and the same program checks the same way. */
const checked = new Map<string, TypeCheckResult>();

function checkProgram(types: string): TypeCheckResult {
  const known = checked.get(types);
  if (known) return known;
  const dir = scratch();
  try {
    writeFileSync(path.join(dir, 'schema.ts'), types);
    writeFileSync(path.join(dir, 'client.ts'), PROGRAM);
    const result = typeCheck(dir, ['client.ts'], STRICT_NODENEXT);
    checked.set(types, result);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const client of testClients()) {
  describe(`TypeScript types for @directus/sdk (${clientLabel(client)})`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(client, { relations: true });
      const created = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'site_settings',
          meta: { singleton: true, note: 'One row of site-wide settings' },
          schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            {
              field: 'headline',
              type: 'string',
              schema: { max_length: 120 },
              meta: { note: 'Shown on top of every page' },
            },
          ],
        },
      });
      assert.equal(created.statusCode, 200, created.body);
    });
    after(async () => {
      await t?.close();
    });

    it('answers admins only, the same types as `strata types --out`', async () => {
      const response = await t.request({ method: 'GET', url: '/server/specs/typescript' });
      assert.equal(response.statusCode, 200);
      const types = response.body;
      assert.match(types, /export interface Articles \{[^}]*\n {2}author: number \| Authors \| null;/);
      assert.match(types, /\n {2}tags: number\[\] \| ArticlesTags\[\];/);
      assert.match(types, /\n {2}views: string \| null;/, 'bigInteger as its exact string');
      assert.match(types, /\n {2}site_settings: SiteSettings;/, 'a singleton is one object');
      assert.match(types, /\n {2}articles: Articles\[\];/);
      assert.match(types, /\/\*\* Shown on top of every page \*\/\n {2}headline: string \| null;/);
      assert.ok(!/service_/.test(types), 'system collections are the SDK’s own');

      const dir = scratch();
      try {
        const out = path.join(dir, 'schema.ts');
        // In this process (runCli): a node process per command would cost more than the command.
        const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...t.testDb.env };
        const result = await cliInProcess(['types', '--out', out], { cwd: dir, env });
        assert.equal(result.status, 0, result.stderr);
        assert.equal(readFileSync(out, 'utf8'), types);
        assert.equal(result.stderr, `Wrote ${out}\n`);
        const stdout = await cliInProcess(['types'], { cwd: dir, env });
        assert.equal(stdout.status, 0, stdout.stderr);
        assert.equal(stdout.stdout, types);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }

      const policy = await createPolicy(t, { app_access: true, permissions: [{ collection: 'articles' }] });
      const user = await createUserWithPolicies(t, [policy]);
      const refused = await t.request({ method: 'GET', url: '/server/specs/typescript', token: user.token });
      assert.equal(refused.statusCode, 403);
      assert.equal(errorCode(refused), 'FORBIDDEN');
    });

    it('type-checks a @directus/sdk client program, refusing its mistakes', async () => {
      const types = (await t.request({ method: 'GET', url: '/server/specs/typescript' })).body;
      const checked = checkProgram(types);
      assert.equal(checked.status, 0, checked.output);
      // The same program against types that lost the singleton and the relations fails: the check has teeth.
      const broken = checkProgram(
        types
          .replace('site_settings: SiteSettings;', 'site_settings: SiteSettings[];')
          .replace(/title: string;/g, 'title: number;'),
      );
      assert.notEqual(broken.status, 0);
      assert.match(broken.output, /site_settings|title/);
    });
  });
}
