/**
 * Strata Studio's item sidebar in chromium (playwright-core, Debian's chromium), on each database the machine has:
 * an item's history (who, when, what changed), reverting to a revision, and comments.
 * Screenshots go to STUDIO_HISTORY_SHOTS (a folder) when it is set, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();

function historySuite(client: DbClient): void {
  describe(
    `Studio item history and comments in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let page: Page;
      let id: number;
      const violations: string[] = [];
      const shots = process.env.STUDIO_HISTORY_SHOTS;
      const shot = async (name: string) => {
        if (client === 'sqlite3' && name === 'history-diff') await screenshot(page, 'item-history', false);
        if (!shots) return;
        mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: path.join(shots, `${client}-${name}.png`), fullPage: true });
      };
      const headline = () => page.locator('#field-headline');
      const revisions = () => page.getByRole('list', { name: 'Revisions' }).getByRole('button');
      const saveAndStay = async (text: string) => {
        await headline().fill(text);
        await page.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').getByText('Saved.').waitFor();
      };

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        const created = await t.request({
          method: 'POST',
          url: '/collections',
          payload: {
            collection: 'pages',
            fields: [
              { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
              { field: 'headline', type: 'string', meta: { interface: 'input', sort: 1 } },
            ],
          },
        });
        assert.equal(created.statusCode, 200, created.body);
        const item = await t.request({ method: 'POST', url: '/items/pages', payload: { headline: 'Original' } });
        assert.equal(item.statusCode, 200, item.body);
        id = json(item).data.id;
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(message.text());
        });
        await page.goto(`${base}/admin/`);
        await page.getByLabel('Email').fill(ADMIN.email);
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        await page.goto(`${base}/admin/content/pages/${id}`);
        await headline().waitFor();
      });
      after(async () => {
        await browser?.close();
        await t?.close();
      });

      it('lists the item’s revisions after two edits: two updates above the create, with who made them', async () => {
        assert.equal(await headline().inputValue(), 'Original');
        await revisions().first().waitFor();
        assert.equal(await revisions().count(), 1, 'the create');
        await saveAndStay('First edit');
        await saveAndStay('Second edit');
        await page.waitForFunction(() => document.querySelectorAll('.revisions button').length === 3);
        const actions = await page.locator('.revisions .action').allTextContents();
        assert.deepEqual(actions, ['update', 'update', 'create']);
        // Two saves in a row show one notification, not a stack of copies over the page's buttons.
        assert.equal(await page.locator('.toast', { hasText: 'Item saved' }).count(), 1);
        assert.match(await revisions().first().innerText(), new RegExp(ADMIN.email.replace('.', '\\.')));
        await shot('history');
      });

      it('shows what a revision changed, old → new', async () => {
        await revisions().nth(1).click();
        const changes = page.getByRole('region', { name: 'Changes' });
        await changes.getByText('headline').waitFor();
        assert.equal(await changes.locator('del').innerText(), 'Original');
        assert.equal(await changes.locator('ins').innerText(), 'First edit');
        await shot('history-diff');
      });

      it('reverts to the first edit after a confirmation; the form and the stored item have the old value', async () => {
        await page.getByRole('button', { name: 'Revert to this' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Revert' }).click();
        await page.waitForFunction(
          () => (document.querySelector('#field-headline') as HTMLInputElement)?.value === 'First edit',
        );
        const stored = json(await t.request({ method: 'GET', url: `/items/pages/${id}` })).data;
        assert.equal(stored.headline, 'First edit');
        // The revert is a change like any other: it has its own revision.
        await page.waitForFunction(() => document.querySelectorAll('.revisions button').length === 4);
        await shot('history-reverted');
      });

      it('adds a comment and shows it, and its author deletes it', async () => {
        await page.getByLabel('Add a comment').fill('Checked the headline with the editor.');
        await page.getByRole('button', { name: 'Comment', exact: true }).click();
        const list = page.getByRole('list', { name: 'Comments' });
        await list.getByText('Checked the headline with the editor.').waitFor();
        const rows = json(
          await t.request({ method: 'GET', url: `/comments?filter[item][_eq]=${id}&fields=comment,collection` }),
        ).data;
        assert.deepEqual(rows, [{ comment: 'Checked the headline with the editor.', collection: 'pages' }]);
        await shot('comments');
        await page.getByLabel('Add a comment').fill('A second thought.');
        await page.getByRole('button', { name: 'Comment', exact: true }).click();
        await list.getByText('A second thought.').waitFor();
        await list
          .getByRole('listitem')
          .filter({ hasText: 'A second thought.' })
          .getByRole('button', { name: 'Delete comment' })
          .click();
        await page.waitForFunction(() => !document.body.innerText.includes('A second thought.'));
      });

      it('drafts a content version, reads main and version apart, and promotes it (collections with versioning)', async () => {
        assert.equal(await page.getByLabel('Version', { exact: true }).count(), 0, 'no picker without versioning');
        const on = await t.request({
          method: 'PATCH',
          url: '/collections/pages',
          payload: { meta: { versioning: true } },
        });
        assert.equal(on.statusCode, 200, on.body);
        await page.reload();
        await headline().waitFor();
        await page.getByRole('button', { name: 'New version' }).click();
        await page.getByLabel('Version name').fill('Spring draft');
        await page.getByRole('button', { name: 'Create version' }).click();
        await page.waitForFunction(
          () => (document.querySelector('#item-version') as HTMLSelectElement)?.value === 'spring-draft',
        );
        await headline().fill('Drafted headline');
        await page.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').getByText('Saved to Spring draft.').waitFor();
        const main = () => t.request({ method: 'GET', url: `/items/pages/${id}` }).then((r) => json(r).data.headline);
        assert.equal(await main(), 'First edit', 'the main item is untouched');
        await page.getByLabel('Version', { exact: true }).selectOption('');
        await page.waitForFunction(
          () => (document.querySelector('#field-headline') as HTMLInputElement)?.value === 'First edit',
        );
        await page.getByLabel('Version', { exact: true }).selectOption('spring-draft');
        await page.waitForFunction(
          () => (document.querySelector('#field-headline') as HTMLInputElement)?.value === 'Drafted headline',
        );
        await shot('version');
        await page.getByRole('button', { name: 'Promote to main' }).click();
        await page.getByRole('status').getByText('Promoted to the main item.').waitFor();
        assert.equal(await main(), 'Drafted headline');
        assert.equal(await headline().inputValue(), 'Drafted headline');
      });

      it('folds the sidebar behind a button on a phone-width window, and nothing was blocked by the CSP', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        const toggle = page.getByRole('button', { name: 'History and comments' });
        await toggle.waitFor();
        assert.equal(await page.getByRole('list', { name: 'Revisions' }).isVisible(), false);
        await toggle.click();
        await page.getByRole('list', { name: 'Revisions' }).waitFor();
        assert.equal(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
          0,
        );
        await shot('history-phone');
        await page.setViewportSize({ width: 1280, height: 800 });
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) historySuite(client);
