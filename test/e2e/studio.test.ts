/**
 * Strata Studio end to end: Debian's chromium (playwright-core) drives the built app against a live Strata on each
 * database the machine has. One browser for the whole file, one page per database, steps in order (each builds on
 * the last, as a person working through the app would). STUDIO_SCREENSHOTS=1 saves the README's screenshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();
let browser: Browser | undefined;

before(async () => {
  if (executable) browser = await launch(executable);
});
after(async () => {
  await browser?.close();
});

async function seedLibrary(t: TestApp): Promise<void> {
  const post = async (url: string, payload: object) => {
    const response = await t.request({ method: 'POST', url, payload });
    assert.ok(response.statusCode < 300, `${url}: ${response.body}`);
    return json(response).data;
  };
  await post('/collections', { collection: 'library', schema: null, meta: { sort: 1 } });
  await post('/collections', {
    collection: 'books',
    meta: { group: 'library', sort: 1 },
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string', meta: { interface: 'input', required: true, sort: 1 }, schema: { is_nullable: false } },
      { field: 'pages', type: 'integer', meta: { interface: 'input', sort: 2 } },
      { field: 'in_print', type: 'boolean', meta: { interface: 'boolean', sort: 3 } },
    ],
  });
  await post(
    '/items/books',
    Array.from({ length: 30 }, (_, i) => ({ title: `Book ${String(i + 1).padStart(2, '0')}`, pages: (i + 1) * 10, in_print: i % 2 === 0 })),
  );
}

for (const client of testClients()) {
  describe(`Strata Studio in chromium (${clientLabel(client)})`, { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' }, () => {
    let t: TestApp;
    let base: string;
    let context: BrowserContext;
    let page: Page;
    const shots = client === 'sqlite3';
    const shot = (name: string) => (shots ? screenshot(page, name) : Promise.resolve());
    const status = () => page.locator('.pager [role="status"]');

    before(async () => {
      t = await startTestApp(client, { fixture: false });
      base = await listenOnLoopback(t);
      await seedLibrary(t);
      context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
    });
    after(async () => {
      await context?.close();
      await t?.close();
    });

    it('refuses a wrong password, then signs in and lists the readable collections in their folders', async () => {
      await page.goto(`${base}/admin/`);
      await page.getByLabel('Email').fill(ADMIN.email);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
      await shot('sign-in');
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByText('library').waitFor();
      await nav.getByRole('link', { name: 'books' }).waitFor();
      // The first readable collection opens.
      await page.waitForURL(/\/admin\/content\/books$/);
      await status().filter({ hasText: '1–25 of 30' }).waitFor();
    });

    it('sorts by a column, searches, filters and pages with the total', async () => {
      const firstCell = () => page.locator('tbody tr').first().locator('td').nth(2);
      await page.getByRole('button', { name: /^Pages/ }).click();
      await page.getByRole('button', { name: /^Pages/ }).click();
      await page.locator('th[aria-sort="descending"]').waitFor();
      await page.waitForFunction(() => document.querySelector('tbody tr td:nth-child(3)')?.textContent?.includes('Book 30'));
      assert.match(await firstCell().innerText(), /Book 30/);

      await page.getByRole('button', { name: 'Next' }).click();
      await status().filter({ hasText: '26–30 of 30' }).waitFor();
      await page.getByRole('button', { name: 'Previous' }).click();

      await page.getByPlaceholder('Search…').fill('Book 1');
      await status().filter({ hasText: '1–10 of 10' }).waitFor(); // Book 10–19

      await page.getByPlaceholder('Search…').fill('');
      await page.getByRole('button', { name: /^Filters/ }).click();
      await page.getByRole('button', { name: '+ Add filter' }).click();
      await page.getByLabel('Filter 1: field').selectOption('pages');
      await page.getByLabel('Filter 1: operator').selectOption('_gt');
      await page.getByLabel('Filter 1: value').fill('250');
      await status().filter({ hasText: '1–5 of 5' }).waitFor();
      await shot('content-table');
      await page.getByRole('button', { name: 'Remove filter 1' }).click();
      await status().filter({ hasText: '1–25 of 30' }).waitFor();
    });

    it('deletes the selected items after confirmation', async () => {
      await page.getByLabel('Select item 30', { exact: true }).check();
      await page.getByLabel('Select item 29', { exact: true }).check();
      await page.getByRole('button', { name: 'Delete 2 selected' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete 2 selected' }).click();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await status().filter({ hasText: 'of 28' }).waitFor();
      const left = json(await t.request({ method: 'GET', url: '/items/books?aggregate[count]=*' })).data[0].count;
      assert.equal(Number(left), 28);
    });

    it('stays signed in across a reload, and signs out', async () => {
      await page.reload();
      await page.getByRole('link', { name: 'books' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await page.reload();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0);
    });
  });
}
