/**
 * Strata Studio's bookmarks in chromium (playwright-core, Debian's chromium), on each database the machine has: a
 * collection's view (search, sort, columns, filter) saved as a named bookmark by keyboard, listed under its
 * collection, reopened, renamed and deleted; the last view restored on reload (the preset without a bookmark name);
 * an admin's bookmarks for a role and for everyone, seen by a user of that role and not changeable by them; phone
 * width and dark mode. STUDIO_SCREENSHOTS=1 saves docs/screenshots/bookmarks.png (from SQLite); STUDIO_BOOKMARK_SHOTS
 * (a folder) gets every step's screenshot, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/passwords.js';
import type { DbClient } from '../../src/config/config.js';
import { queryBuilder } from '../../src/db/connection.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();
const READER = { email: 'reader@example.com', password: 'reader-password-1' };

function bookmarksSuite(client: DbClient): void {
  describe(
    `Studio bookmarks in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let page: Page;
      let readerRole: string;
      const violations: string[] = [];
      const shot = async (name: string) => {
        const folder = process.env.STUDIO_BOOKMARK_SHOTS;
        if (!folder) return;
        mkdirSync(folder, { recursive: true });
        await page.screenshot({ path: path.join(folder, `${client}-${name}.png`) });
      };

      const get = async (url: string) => json(await t.request({ method: 'GET', url })).data;
      const nav = () => page.getByRole('navigation', { name: 'Main' });
      const bookmarkLinks = () => nav().getByRole('list', { name: 'Books bookmarks' }).getByRole('link');
      /** The bookmark links as read out: name, whose (a tag on screen, words for screen readers). */
      const bookmarkTexts = async () =>
        (await bookmarkLinks().allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
      const menu = () => page.locator('details.bookmarks');
      const openMenu = async () => {
        if (!(await menu().evaluate((d: HTMLDetailsElement) => d.open))) await menu().locator('summary').click();
      };
      const firstCells = () =>
        page
          .locator('tbody tr')
          .evaluateAll((rows) => rows.map((row) => row.querySelector('td:not(.select)')?.textContent?.trim() ?? ''));
      const status = () => page.locator('.pager [role=status]');
      const rowsSettle = async (count: string) => {
        await page.waitForFunction(
          (text) => document.querySelector('.pager [role=status]')?.textContent?.endsWith(`of ${text}`),
          count,
        );
      };
      /** Waits for the last view to be stored, then returns the caller's own last-view preset of books. */
      const lastView = async (user: string) => {
        for (let i = 0; i < 100; i++) {
          const rows = await get(`/presets?filter[user][_eq]=${user}&filter[bookmark][_null]=true&fields=*`);
          if (rows.length) return rows;
          await new Promise((r) => setTimeout(r, 50));
        }
        return [];
      };
      const signIn = async (email: string, password: string) => {
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await nav().waitFor();
      };

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        const post = async (url: string, payload: unknown) => {
          const response = await t.request({ method: 'POST', url, payload: payload as object });
          assert.ok(response.statusCode < 300, `${url}: ${response.body}`);
          return json(response).data;
        };
        await post('/collections', {
          collection: 'books',
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'title', type: 'string', meta: { interface: 'input', sort: 1 } },
            { field: 'pages', type: 'integer', meta: { interface: 'input', sort: 2 } },
          ],
        });
        await post(
          '/items/books',
          Array.from({ length: 30 }, (_, i) => ({
            title: `Book ${String(i + 1).padStart(2, '0')}`,
            pages: (i + 1) * 10,
          })),
        );
        const policy = await createPolicy(t, { app_access: true, permissions: [{ collection: 'books' }] });
        const reader = await createUserWithPolicies(t, [policy], { email: READER.email });
        readerRole = reader.role;
        await queryBuilder(t.context.db)('service_roles').where({ id: readerRole }).update({ name: 'Editors' });
        await queryBuilder(t.context.db)('service_users')
          .where({ id: reader.id })
          .update({ password: await hashPassword(READER.password, t.context.config.hash) });
        await t.context.permissionsChanged();
        // Everyone's bookmark, made through the API as another client would: a filter, newest first.
        await post('/presets', {
          bookmark: 'Short books',
          collection: 'books',
          layout: 'tabular',
          layout_query: { tabular: { fields: ['title', 'pages'], sort: ['-pages'], limit: 25 } },
          filter: { pages: { _lte: 50 } },
        });
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(message.text());
        });
        await page.goto(`${base}/admin/`);
        await signIn(ADMIN.email, ADMIN.password);
        await page.goto(`${base}/admin/content/books`);
        await rowsSettle('30');
      });
      after(async () => {
        await browser?.close();
        await t?.close();
      });

      it('remembers the last view of a collection: sorted and searched, it comes back after a reload', async () => {
        await page.getByRole('button', { name: 'Pages' }).click();
        await page.getByRole('button', { name: 'Pages' }).click(); // descending
        await page.getByLabel('Search').fill('Book 2');
        await rowsSettle('10');
        const admin = (await get('/users/me?fields=id')).id;
        // The view is saved once it rests: wait until the stored one has the search too.
        for (let i = 0; i < 100 && (await lastView(admin))[0].search !== 'Book 2'; i++)
          await new Promise((r) => setTimeout(r, 50));
        const stored = await lastView(admin);
        assert.equal(stored.length, 1, 'one last view per user and collection');
        assert.equal(stored[0].collection, 'books');
        assert.equal(stored[0].layout, 'tabular');
        assert.equal(stored[0].search, 'Book 2');
        assert.deepEqual(stored[0].layout_query.tabular.sort, ['-pages']);
        assert.deepEqual(stored[0].layout_query.tabular.fields, ['id', 'title', 'pages']);
        assert.equal(stored[0].layout_query.tabular.limit, 25);
        await page.reload();
        await rowsSettle('10');
        assert.equal(await page.getByLabel('Search').inputValue(), 'Book 2');
        assert.equal(await page.locator('th[aria-sort=descending]').innerText(), 'Pages ▼');
        assert.equal((await firstCells())[0], '29');
      });

      it('saves the view as a bookmark by keyboard, lists it under the collection and opens it', async () => {
        const summary = menu().locator('summary');
        await summary.focus();
        await page.keyboard.press('Enter');
        const name = page.getByLabel('Save this view as a bookmark');
        await name.waitFor();
        // Escape closes the menu and gives the focus back to its button; Enter opens it again.
        await name.focus();
        await page.keyboard.press('Escape');
        await name.waitFor({ state: 'hidden' });
        assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'SUMMARY');
        await page.keyboard.press('Enter');
        await name.waitFor();
        await name.focus();
        await page.keyboard.type('Twenties');
        await page.keyboard.press('Enter');
        await page.getByRole('status').getByText('Bookmark “Twenties” saved.').waitFor();
        await page.waitForURL(/\?bookmark=\d+$/);
        const [saved] = await get('/presets?filter[bookmark][_eq]=Twenties&fields=*');
        assert.equal(saved.search, 'Book 2');
        assert.deepEqual(saved.layout_query.tabular.sort, ['-pages']);
        assert.equal(saved.user, (await get('/users/me?fields=id')).id);
        assert.deepEqual(await bookmarkTexts(), [
          '★ Short books all (everyone’s bookmark)',
          '★ Twenties mine (your bookmark)',
        ]);
        assert.equal(await bookmarkLinks().nth(1).getAttribute('aria-current'), 'page');
        assert.match(await bookmarkLinks().nth(1).innerText(), /Twenties/);
        assert.equal(
          await nav()
            .getByRole('link', { name: /Twenties \(your bookmark\)/ })
            .count(),
          1,
        );
      });

      it('goes back to the last view, changes it, and reopens the bookmark as it was saved', async () => {
        await nav().getByRole('link', { name: 'Books', exact: true }).click();
        await page.getByLabel('Search').fill('');
        await rowsSettle('30');
        await page.getByRole('button', { name: 'Title' }).click(); // title ascending
        await page.waitForFunction(() => document.querySelector('th[aria-sort=ascending]') !== null);
        await bookmarkLinks().filter({ hasText: 'Twenties' }).click();
        await rowsSettle('10');
        assert.equal(await page.getByLabel('Search').inputValue(), 'Book 2');
        assert.equal((await firstCells())[0], '29');
        // The everyone's bookmark: its filter, its columns and its sort.
        await bookmarkLinks().filter({ hasText: 'Short books' }).click();
        await rowsSettle('5');
        assert.equal(await page.getByLabel('Search').inputValue(), '');
        assert.deepEqual(await page.locator('thead th:not(.select)').allInnerTexts(), ['Title', 'Pages ▼']);
        assert.match(await page.getByRole('button', { name: /^Filters/ }).innerText(), /•/);
        await shot('everyone-bookmark');
        assert.equal((await firstCells())[0], 'Book 05');
        // Back to the last view: sorted by title, not searched.
        await nav().getByRole('link', { name: 'Books', exact: true }).click();
        await rowsSettle('30');
        assert.equal((await firstCells())[0], '1');
        assert.equal(await page.locator('th[aria-sort=ascending]').count(), 1);
      });

      it('renames its own bookmark, saves a changed view into it, and deletes it after a confirmation', async () => {
        await bookmarkLinks().filter({ hasText: 'Twenties' }).click();
        await rowsSettle('10');
        await openMenu();
        await page.getByLabel('Name', { exact: true }).fill('Books twenty-something');
        await page.getByRole('button', { name: 'Rename' }).click();
        await page.getByRole('status').getByText('Bookmark renamed.').waitFor();
        await bookmarkLinks().filter({ hasText: 'Books twenty-something' }).waitFor();
        await page.getByRole('button', { name: 'Pages' }).click(); // back to no sort
        await menu().locator('summary').getByText('edited').waitFor();
        await openMenu();
        await page.getByRole('button', { name: 'Save changes to this bookmark' }).click();
        await page.getByRole('status').getByText('Bookmark updated.').waitFor();
        const [renamed] = await get('/presets?filter[bookmark][_eq]=Books twenty-something&fields=*');
        assert.deepEqual(renamed.layout_query.tabular.sort, []);
        await openMenu();
        await page.getByRole('button', { name: 'Delete bookmark' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('status').getByText('Bookmark “Books twenty-something” deleted.').waitFor();
        await page.waitForURL(/\/content\/books$/);
        assert.deepEqual(await bookmarkTexts(), ['★ Short books all (everyone’s bookmark)']);
        assert.deepEqual(await get('/presets?filter[bookmark][_eq]=Books twenty-something'), []);
      });

      it('lets an admin save a bookmark for a role', async () => {
        await page.getByLabel('Search').fill('Book 0');
        await rowsSettle('9');
        await openMenu();
        await page.getByLabel('Save this view as a bookmark').fill('First nine');
        await page.getByLabel('For', { exact: true }).selectOption({ label: 'Role: Editors' });
        await page.getByRole('button', { name: 'Save bookmark' }).click();
        await page.getByRole('status').getByText('Bookmark “First nine” saved.').waitFor();
        const [saved] = await get('/presets?filter[bookmark][_eq]=First nine&fields=user,role,search');
        assert.deepEqual(saved, { user: null, role: readerRole, search: 'Book 0' });
        if (client === 'sqlite3' && process.env.STUDIO_SCREENSHOTS === '1') {
          // The screenshot shows the open bookmark's menu, without the notification over the page.
          await page.getByRole('status').getByText('Bookmark “First nine” saved.').waitFor({ state: 'hidden' });
          await openMenu();
          await screenshot(page, 'bookmarks', false);
          await menu().locator('summary').click();
        }
      });

      it('keeps the layout in a bookmark: a cards view saved, the table chosen, the bookmark opens as cards', async () => {
        await page.locator('.layout-switch label').filter({ hasText: 'Cards' }).click();
        await page.waitForURL(/layout=cards/);
        await openMenu();
        await page.getByLabel('Save this view as a bookmark').fill('Gallery');
        await page.getByLabel('For', { exact: true }).selectOption({ label: 'Only me' });
        await page.getByRole('button', { name: 'Save bookmark' }).click();
        await page.getByRole('status').getByText('Bookmark “Gallery” saved.').waitFor();
        const [saved] = await get('/presets?filter[bookmark][_eq]=Gallery&fields=layout,layout_options');
        assert.equal(saved.layout, 'cards');
        assert.equal(typeof saved.layout_options.cards, 'object');
        await nav().getByRole('link', { name: 'Books', exact: true }).click();
        await page.locator('.layout-switch label').filter({ hasText: 'Table' }).click();
        await rowsSettle('9');
        await bookmarkLinks().filter({ hasText: 'Gallery' }).click();
        await page.waitForFunction(
          () =>
            (document.querySelector('input[name=layout][value=cards]') as HTMLInputElement | null)?.checked === true,
        );
        await nav().getByRole('link', { name: 'Books', exact: true }).click();
        await page.locator('.layout-switch label').filter({ hasText: 'Table' }).click();
        await rowsSettle('9');
      });

      it('shows a user their role’s and everyone’s bookmarks, not an admin’s own, and only their own to change', async () => {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await signIn(READER.email, READER.password);
        await page.goto(`${base}/admin/content/books`);
        await rowsSettle('30');
        assert.deepEqual(await bookmarkTexts(), [
          '★ First nine role (a role’s bookmark)',
          '★ Short books all (everyone’s bookmark)',
        ]);
        await bookmarkLinks().filter({ hasText: 'First nine' }).click();
        await rowsSettle('9');
        await openMenu();
        await menu().getByText('First nine, a role’s bookmark.').waitFor();
        assert.equal(await page.getByRole('button', { name: 'Delete bookmark' }).count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Rename' }).count(), 0);
        await page.getByLabel('Save this view as a bookmark').fill('My nine');
        assert.equal(
          await page.getByLabel('For', { exact: true }).count(),
          0,
          'only admins choose whom a bookmark is for',
        );
        await page.getByRole('button', { name: 'Save bookmark' }).click();
        await page.getByRole('status').getByText('Bookmark “My nine” saved.').waitFor();
        const [mine] = await get('/presets?filter[bookmark][_eq]=My nine&fields=user.email,role');
        assert.deepEqual(mine, { user: { email: READER.email }, role: null });
        assert.deepEqual(await bookmarkTexts(), [
          '★ First nine role (a role’s bookmark)',
          '★ My nine mine (your bookmark)',
          '★ Short books all (everyone’s bookmark)',
        ]);
      });

      it('fits a phone-width window in the dark theme, menu open', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        await page.emulateMedia({ colorScheme: 'dark' });
        await openMenu();
        await page.getByRole('button', { name: 'Delete bookmark' }).waitFor();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.equal(overflow, 0, 'nothing wider than the window');
        const panel = await page.locator('details.bookmarks .panel').boundingBox();
        assert.ok(panel && panel.x >= 0 && panel.x + panel.width <= 390, JSON.stringify(panel));
        const background = await page.evaluate(
          () => getComputedStyle(document.querySelector('details.bookmarks .panel')!).backgroundColor,
        );
        assert.equal(background, 'rgb(27, 29, 35)');
        await shot('phone-dark');
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.emulateMedia({ colorScheme: 'light' });
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) bookmarksSuite(client);
