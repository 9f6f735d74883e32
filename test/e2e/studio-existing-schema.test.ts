/**
 * Studio on a schema Strata did not create (test/e2e/existing-schema-fixture.ts, made by SQL before Studio opens),
 * in chromium on each database the machine has: every table listed (a second PostgreSQL schema's too), uuid and
 * composite keys opened and saved, a key-less table and a view listed read-only, and item pages that load right
 * every time they are opened by address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch } from './browser.js';
import { existingSchemaSql, POST_1, POST_2 } from './existing-schema-fixture.js';

const executable = chromiumPath();
const LOADS = 20;

function existingSchemaSuite(client: DbClient): void {
  describe(
    `Studio on an existing schema in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let page: Page;
      const form = () => page.locator('form.form');
      const status = () => page.locator('.pager [role="status"]');

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, {
          fixture: false,
          env: client === 'pg' ? { DB_SEARCH_PATH: 'public,ex_sales' } : {},
        });
        const knex = knexFor(t.testDb);
        try {
          for (const statement of existingSchemaSql(client)) await knex.raw(statement);
        } finally {
          await knex.destroy();
        }
        await t.reloadSchema();
        base = await listenOnLoopback(t);
        page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
        page.setDefaultTimeout(15_000);
      });
      after(async () => {
        await browser?.close();
        await t?.close();
      });

      it('lists every table and view, the second schema’s too', async () => {
        await page.goto(`${base}/admin/`);
        await page.getByLabel('Email').fill(ADMIN.email);
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const nav = page.getByRole('navigation', { name: 'Main' });
        // Named as Directus's Data Studio names them (title-cased: ex_post_tags → "Ex Post Tags").
        await nav.getByRole('link', { name: 'Ex Posts', exact: true }).waitFor();
        const names = (await nav.getByRole('link').allInnerTexts())
          .map((n) => n.trim())
          .filter((n) => n.startsWith('Ex '));
        const expected = ['Ex Authors', 'Ex Log', 'Ex Post Tags', 'Ex Post Titles', 'Ex Posts', 'Ex Tags'];
        if (client === 'pg') expected.push('Ex Orders');
        assert.deepEqual(names.sort(), expected.sort());
      });

      it('lists a table without a primary key read-only: its rows, no links, no create', async () => {
        await page.goto(`${base}/admin/content/ex_log`);
        await status().filter({ hasText: '1–2 of 2' }).waitFor();
        await page.getByRole('cell', { name: 'started' }).waitFor();
        assert.equal(await page.locator('tbody a').count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Create item' }).count(), 0);
        assert.equal(await page.getByLabel('Select all on this page').count(), 0);
        await page.getByText(/Read-only/).waitFor();
      });

      it('lists a view read-only', async () => {
        await page.goto(`${base}/admin/content/ex_post_titles`);
        await status().filter({ hasText: '1–2 of 2' }).waitFor();
        await page.getByRole('cell', { name: 'First post' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Create item' }).count(), 0);
        assert.equal(await page.locator('tbody a').count(), 0);
      });

      it('opens a composite-key item from its list by its key string, and saves it', async () => {
        await page.goto(`${base}/admin/content/ex_post_tags`);
        await status().filter({ hasText: '1–3 of 3' }).waitFor();
        // The link carries the key string (the cell shows the related post by name).
        const link = page.locator(`tbody a[href$="/content/ex_post_tags/${POST_2}%2C2"]`);
        assert.equal(await link.count(), 1);
        await link.click();
        await page.waitForURL(new RegExp(`/content/ex_post_tags/${POST_2}%2C2$`));
        await form().waitFor();
        assert.equal(await page.locator('#field-note').inputValue(), 'third note');
        await page.locator('#field-note').fill('third note, edited');
        await page.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved' }).first().waitFor();
        const stored = json(await t.request({ method: 'GET', url: `/items/ex_post_tags/${POST_2},2` })).data;
        assert.equal(stored.note, 'third note, edited');
      });

      it(`loads every item page right ${LOADS} times in a row by address`, async () => {
        const pages: [string, Record<string, string>, string | null][] = [
          [`ex_posts/${POST_1}`, { '#field-title': 'First post', '#field-body': 'Hello' }, 'Ada Lovelace'],
          [`ex_posts/${POST_2}`, { '#field-title': 'Second, with a comma' }, 'Alan Turing'],
          [`ex_post_tags/${encodeURIComponent(`${POST_1},1`)}`, { '#field-note': 'first note' }, null],
          ['ex_tags/2', { '#field-name': 'machines' }, null],
        ];
        if (client === 'pg') pages.push(['ex_orders/1', { '#field-customer': 'Grace', '#field-total': '12.50' }, null]);
        for (const [address, values, related] of pages) {
          for (let load = 1; load <= LOADS; load++) {
            await page.goto(`${base}/admin/content/${address}`);
            await form().waitFor();
            for (const [selector, value] of Object.entries(values))
              assert.equal(await page.locator(selector).inputValue(), value, `${address}, load ${load}: ${selector}`);
            // The related item's name, as in-app navigation shows it, not its raw key.
            if (related) await page.locator('#field-author').getByText(related).waitFor({ timeout: 5_000 });
          }
        }
      });

      it('saves an edit to a uuid-keyed item, reloaded after', async () => {
        await page.goto(`${base}/admin/content/ex_posts/${POST_1}`);
        await form().waitFor();
        await page.locator('#field-title').fill('First post, edited');
        await page.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved' }).first().waitFor();
        await page.reload();
        await form().waitFor();
        assert.equal(await page.locator('#field-title').inputValue(), 'First post, edited');
        const stored = json(await t.request({ method: 'GET', url: `/items/ex_posts/${POST_1}` })).data;
        assert.equal(stored.title, 'First post, edited');
      });

      it('shows system text named by a `$t:` key in words, and keeps the key when it is saved unchanged', async () => {
        await page.goto(`${base}/admin/access/policies`);
        const admin = page
          .getByRole('row')
          .filter({ hasText: 'Initial administrative role with unrestricted App/API access' });
        await admin.waitFor();
        await page.getByRole('link', { name: 'Public', exact: true }).waitFor();
        assert.equal(await page.getByText('$t:').count(), 0);
        await admin.getByRole('link').click();
        const description = page.locator('#po-description');
        await page.waitForFunction(() => (document.querySelector('#po-description') as HTMLInputElement)?.value !== '');
        assert.equal(await description.inputValue(), 'Initial administrative role with unrestricted App/API access');
        await page.getByRole('button', { name: 'Save policy' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved' }).first().waitFor();
        const policies = json(
          await t.request({ method: 'GET', url: '/policies?filter[admin_access][_eq]=true&fields=description' }),
        ).data;
        assert.deepEqual(policies, [{ description: '$t:admin_description' }]);
      });
    },
  );
}

for (const client of testClients()) existingSchemaSuite(client);
