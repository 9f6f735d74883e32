/**
 * A real Strata process with the fixture extensions (test/fixtures/extensions), broken ones included: it starts, an
 * extension's unhandled promise rejection (an action that leaves one behind) is logged and the process keeps
 * answering, the SIGTERM stop ends it with 0. SQLite, and PostgreSQL / MariaDB when their URLs are set.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';
import { StrataProcess } from '../helpers/strata-process.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/extensions');
const TOKEN = 'strata-ext-admin-token';

for (const client of testClients()) {
  describe(`extensions in a real process (${clientLabel(client)})`, () => {
    let db: TestDb;
    let strata: StrataProcess | undefined;
    before(async () => {
      db = await createTestDatabase(client, { fixture: true });
      strata = await StrataProcess.start({
        ...db.env,
        SECRET: 'strata-ext-secret-0123456789abcdef',
        ADMIN_EMAIL: 'admin@example.com',
        ADMIN_PASSWORD: 'strata-ext-password',
        ADMIN_TOKEN: TOKEN,
        RATE_LIMITER_ENABLED: 'false',
        PRESSURE_LIMITER_ENABLED: 'false',
        EXTENSIONS_PATH: FIXTURES,
        EXTENSIONS_LOAD_TIMEOUT: '1s',
        EXTENSIONS_FILTER_TIMEOUT: '500ms',
      });
    });
    after(async () => {
      await strata?.stop('SIGKILL');
      await db?.drop();
    });

    const post = (url: string, body: unknown) =>
      fetch(`${strata!.url}${url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('an unhandled rejection of an extension is logged; the server keeps answering; it stops cleanly', async () => {
      const res = await post('/items/paragraphs', { body: 'leaves a rejection' });
      assert.equal(res.status, 200, await res.text());
      const slow = await post('/items/headings', { text: 'never answered by its filter' });
      assert.equal(slow.status, 503);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const ping = await fetch(`${strata!.url}/server/ping`);
      assert.equal(ping.status, 200);
      assert.match(strata!.output, /left unhandled/);
      const hello = await fetch(`${strata!.url}/hello`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(hello.status, 200);
      assert.equal(await strata!.stop('SIGTERM'), 0);
      strata = undefined;
    });
  });
}
