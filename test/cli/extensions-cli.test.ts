/**
 * The CLI's data commands load the hook extensions of EXTENSIONS_PATH: an import raises their filters (the slug a
 * fixture hook sets) and actions (the tag it writes through ItemsService), on every database.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clientLabel, createTestDatabase, knexFor, testClients, type TestDb } from '../helpers/test-db.js';
import { cliInProcess } from './cli-in-process.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/extensions');

for (const client of testClients()) {
  describe(`strata import with hook extensions (${clientLabel(client)})`, () => {
    let db: TestDb;
    let dir: string;
    before(async () => {
      db = await createTestDatabase(client, { fixture: true });
      dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-ext-'));
      cpSync(path.join(FIXTURES, 'directus-extension-slugger'), path.join(dir, 'extensions/slugger'), {
        recursive: true,
      });
    });
    after(async () => {
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('an import runs the filters and actions of the hooks', async () => {
      const file = path.join(dir, 'articles.ndjson');
      writeFileSync(file, '{"title":"From The CLI"}\n');
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...db.env,
        ADMIN_PASSWORD: 'cli-admin-password',
        LOG_LEVEL: 'silent',
        EXTENSIONS_PATH: path.join(dir, 'extensions'),
      };
      const imported = await cliInProcess(['import', 'articles', file, '--json'], { cwd: dir, env });
      assert.equal(imported.status, 0, imported.stderr);
      const k = knexFor(db);
      try {
        const [row] = await k('articles').where({ title: 'From The CLI' });
        assert.equal(row.slug, 'from-the-cli');
        const authors = path.join(dir, 'authors.ndjson');
        writeFileSync(authors, '{"name":"Cli Hooked"}\n');
        assert.equal((await cliInProcess(['import', 'authors', authors], { cwd: dir, env })).status, 0);
        const [author] = await k('authors').where({ name: 'Cli Hooked' });
        const tags = await k('tags').where({ name: `author-${author.id}-Cli Hooked` });
        assert.equal(tags.length, 1);
      } finally {
        await k.destroy();
      }
    });
  });
}
