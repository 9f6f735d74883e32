/**
 * Strata Studio's activity page in chromium (playwright-core, Debian's chromium), on each database the machine has:
 * /activity newest first in pages with the total, who, what, which collection and item (linked), when (in the
 * browser's locale and time zone), a comment's text; filters by action, collection and user; a row's detail with its
 * revisions' changes; and an app user who sees only what /activity gives them (their own rows).
 * Screenshots go to STUDIO_ACTIVITY_SHOTS (a folder) when it is set, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();
const EDITOR = { email: 'editor@example.com', password: 'editor-password-1' };

function activitySuite(client: DbClient): void {
  describe(
    `Studio activity page in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let page: Page;
      let first: number;
      let editor: { id: string; token: string };
      const violations: string[] = [];
      const shots = process.env.STUDIO_ACTIVITY_SHOTS;
      const shot = async (name: string) => {
        if (client === 'sqlite3' && name === 'activity') await screenshot(page, 'activity', false);
        if (!shots) return;
        mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: path.join(shots, `${client}-${name}.png`), fullPage: true });
      };
      const call = async (method: 'POST' | 'PATCH', url: string, payload: unknown, token?: string) => {
        const response = await t.request({ method, url, payload: payload as object, token });
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
        return json(response).data;
      };
      const table = () => page.locator('table.activity-table tbody tr');
      const cells = (column: number) => page.locator(`table.activity-table tbody tr td:nth-child(${column})`);
      const pageStatus = () => page.getByRole('navigation', { name: 'Pages' }).getByRole('status');
      const signIn = async (who: { email: string; password: string }) => {
        await page.goto(`${base}/admin/`);
        await page.getByLabel('Email').fill(who.email);
        await page.getByLabel('Password').fill(who.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
      };

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        await call('POST', '/collections', {
          collection: 'pages',
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'headline', type: 'string', meta: { interface: 'input', sort: 1 } },
          ],
        });
        await call('POST', '/collections', {
          collection: 'notes',
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'text', type: 'string' },
          ],
        });
        first = (await call('POST', '/items/pages', { headline: 'Original' })).id;
        await call('PATCH', `/items/pages/${first}`, { headline: 'Edited by the admin' });
        // 30 more: the list has more than one page.
        await call(
          'POST',
          '/items/notes',
          Array.from({ length: 30 }, (_, i) => ({ text: `Note ${i + 1}` })),
        );
        const policy = await createPolicy(t, {
          app_access: true,
          permissions: [
            { collection: 'pages', action: 'read' },
            { collection: 'pages', action: 'update' },
          ],
        });
        editor = await createUserWithPolicies(t, [policy], { email: EDITOR.email });
        await call('PATCH', `/users/${editor.id}`, {
          password: EDITOR.password,
          first_name: 'Eddie',
          last_name: 'Tor',
        });
        await call('PATCH', `/items/pages/${first}`, { headline: 'Edited by the editor' }, editor.token);
        await call('POST', '/comments', {
          collection: 'pages',
          item: first,
          comment: `Looks good, @${editor.id}.`,
        });
        // The locale and time zone the times are shown in are the browser's.
        const context = await browser.newContext({
          viewport: { width: 1280, height: 900 },
          locale: 'de-DE',
          timezoneId: 'America/New_York',
        });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(message.text());
        });
        await signIn(ADMIN);
      });
      after(async () => {
        await browser?.close();
        await t?.close();
      });

      it('lists /activity newest first in pages, with who, what, where and when, from the navigation', async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity log' }).click();
        await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
        await table().first().waitFor();
        const all = json(
          await t.request({ method: 'GET', url: '/activity?sort=-timestamp,-id&limit=25&meta=total_count' }),
        );
        assert.ok(all.meta.total_count > 25, 'more than one page');
        assert.equal((await pageStatus().innerText()).trim(), `1–25 of ${all.meta.total_count}`);
        assert.equal(await table().count(), 25);
        // Newest first, as the API sorts them; times in the browser's locale (de-DE) and zone.
        const expected = all.data.map((row: { action: string }) => row.action);
        assert.deepEqual(await cells(3).allInnerTexts(), expected);
        const firstTime = await cells(1).first().innerText();
        // Written in UTC; the API sends it without a zone (a dateTime field).
        const stamp = String(all.data[0].timestamp).replace(/(Z|[+-]\d\d:?\d\d)?$/, (zone) => zone || 'Z');
        const local = new Intl.DateTimeFormat('de-DE', {
          dateStyle: 'medium',
          timeStyle: 'short',
          timeZone: 'America/New_York',
        }).format(new Date(stamp));
        assert.equal(firstTime.trim(), local);
        await page.getByRole('button', { name: 'Next' }).click();
        await page.getByText('Page 2 of').waitFor();
        await pageStatus().getByText(`26–${all.meta.total_count} of`).waitFor();
        await page.waitForFunction(
          (n) => document.querySelectorAll('table.activity-table tbody tr').length === n,
          all.meta.total_count - 25,
        );
        await page.getByRole('button', { name: 'Previous' }).click();
        await pageStatus().getByText('1–25 of').waitFor();
        await page.waitForFunction(() => document.querySelectorAll('table.activity-table tbody tr').length === 25);
      });

      it('shows the comment of a comment’s row, and links items to their page', async () => {
        // The mention (stored as the user's id) reads as the user's name; the item is the commented page.
        const row = table().filter({ hasText: 'Looks good, @Eddie Tor.' });
        await row.waitFor();
        assert.match(await row.innerText(), /Service Comments/);
        const link = row.getByRole('link', { name: `Pages ${first}` });
        assert.equal(await link.getAttribute('href'), `/admin/content/pages/${first}`);
        await shot('activity');
      });

      it('filters by action, collection and user', async () => {
        await page.getByLabel('Action', { exact: true }).selectOption('update');
        await page.waitForFunction(() =>
          [...document.querySelectorAll('table.activity-table tbody tr td:nth-child(3)')].every(
            (td) => td.textContent?.trim() === 'update',
          ),
        );
        // The two edits of the page and the editor's account (password and name).
        assert.equal(await table().count(), 3);
        await page.getByLabel('User', { exact: true }).selectOption({ label: 'Eddie Tor' });
        await page.waitForFunction(() => document.querySelectorAll('table.activity-table tbody tr').length === 1);
        assert.equal((await cells(2).first().innerText()).trim(), 'Eddie Tor');
        await page.getByLabel('User', { exact: true }).selectOption('');
        await page.getByLabel('Action', { exact: true }).selectOption('create');
        await page.getByLabel('Collection', { exact: true }).selectOption('notes');
        await pageStatus().getByText(/ 30$/).waitFor();
        assert.deepEqual(
          [...new Set(await cells(4).allInnerTexts())].map((s) => s.trim()),
          ['Notes'],
        );
        await page.getByLabel('Collection', { exact: true }).selectOption('');
        await page.getByLabel('Action', { exact: true }).selectOption('');
      });

      it('opens a row’s detail with its revision’s change, before → after', async () => {
        await page.getByLabel('User', { exact: true }).selectOption({ label: 'Eddie Tor' });
        await page.getByLabel('Action', { exact: true }).selectOption('update');
        await page.waitForFunction(() => document.querySelectorAll('table.activity-table tbody tr').length === 1);
        await cells(1).first().getByRole('link').click();
        await page.waitForURL(/\/admin\/activity\/\d+$/);
        const revision = page.getByRole('article', { name: /^Revision/ });
        await revision.getByText('headline').waitFor();
        assert.equal(await revision.locator('del').innerText(), 'Edited by the admin');
        assert.equal(await revision.locator('ins').innerText(), 'Edited by the editor');
        assert.match(await page.locator('.facts').innerText(), /Eddie Tor/);
        await shot('activity-detail');
      });

      it('shows an app user only what /activity gives them (their own rows)', async () => {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Email').waitFor();
        await signIn(EDITOR);
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity log' }).click();
        await table().first().waitFor();
        const theirs = json(await t.request({ method: 'GET', url: '/activity?limit=-1', token: editor.token })).data;
        assert.ok(theirs.length >= 2, 'an update and the sign-in');
        await page.waitForFunction(
          (n) => document.querySelectorAll('table.activity-table tbody tr').length === n,
          theirs.length,
        );
        for (const name of await cells(2).allInnerTexts()) assert.equal(name.trim(), 'Eddie Tor');
        await shot('activity-app-user');
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) activitySuite(client);
