/**
 * Strata Studio's names, displays and field interfaces in chromium (playwright-core, Debian's chromium), on each
 * database the machine has: a collection with a field of each interface Directus users expect, created through the
 * API with its meta; an item created and edited through the form, its values checked through the API; display names,
 * translations and display templates in the table and the form; dates and numbers for a fixed locale and time zone
 * (the browser context's); save notifications, the unsaved-changes warning and the keyboard shortcuts.
 * Screenshots go to STUDIO_INTERFACE_SHOTS (a folder) when it is set, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();

const choices = (...pairs: [string, string][]) => pairs.map(([text, value]) => ({ text, value }));

/** Every interface of the form, each on a field of the type Directus gives it. */
const POST_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true } },
  {
    field: 'title',
    type: 'string',
    meta: { interface: 'input', options: { trim: true }, required: true },
    schema: { is_nullable: false },
  },
  { field: 'slug', type: 'string', meta: { interface: 'input', options: { slug: true, font: 'monospace' } } },
  { field: 'summary', type: 'text', meta: { interface: 'input-multiline' } },
  { field: 'body', type: 'text', meta: { interface: 'input-rich-text-md' } },
  { field: 'content', type: 'text', meta: { interface: 'input-rich-text-html' } },
  {
    field: 'status',
    type: 'string',
    meta: {
      interface: 'select-dropdown',
      options: { choices: choices(['Draft', 'draft'], ['Published', 'published']) },
      width: 'half',
    },
  },
  {
    field: 'audience',
    type: 'string',
    meta: {
      interface: 'select-radio',
      options: { choices: choices(['Everyone', 'all'], ['Members', 'members']) },
      width: 'half',
    },
  },
  {
    field: 'channels',
    type: 'json',
    meta: {
      interface: 'select-multiple-checkbox',
      options: { choices: choices(['Web', 'web'], ['Email', 'email'], ['Print', 'print']) },
      special: ['cast-json'],
    },
  },
  { field: 'keywords', type: 'json', meta: { interface: 'tags', special: ['cast-json'] } },
  { field: 'featured', type: 'boolean', meta: { interface: 'boolean', width: 'half' } },
  {
    field: 'rating',
    type: 'integer',
    meta: { interface: 'slider', options: { minValue: 0, maxValue: 10 }, width: 'half' },
  },
  { field: 'accent', type: 'string', meta: { interface: 'select-color', width: 'half' } },
  { field: 'views', type: 'integer', meta: { interface: 'input', width: 'half' } },
  { field: 'publish_on', type: 'date', meta: { interface: 'datetime', width: 'half' } },
  { field: 'meeting', type: 'time', meta: { interface: 'datetime', width: 'half' } },
  { field: 'published_at', type: 'timestamp', meta: { interface: 'datetime', width: 'half' } },
  { field: 'extra', type: 'json', meta: { interface: 'input-code', options: { language: 'JSON' } } },
  { field: 'snippet', type: 'text', meta: { interface: 'input-code', options: { language: 'javascript' } } },
];

function interfacesSuite(client: DbClient): void {
  describe(
    `Studio names, displays and interfaces in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let context: BrowserContext;
      let page: Page;
      let id: number;
      const violations: string[] = [];
      const shots = process.env.STUDIO_INTERFACE_SHOTS;
      const shot = async (name: string) => {
        if (client === 'sqlite3' && !['interfaces-saved', 'interfaces-phone-dark'].includes(name))
          await screenshot(page, name);
        if (!shots) return;
        mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: path.join(shots, `${client}-${name}.png`), fullPage: true });
      };
      const post = async (url: string, payload: object) => {
        const response = await t.request({ method: 'POST', url, payload });
        assert.ok(response.statusCode < 300, `${url}: ${response.body}`);
        return json(response).data;
      };
      const form = () => page.getByRole('form', { name: 'blog_posts item' });
      const stored = async () => json(await t.request({ method: 'GET', url: `/items/blog_posts/${id}` })).data;

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        await post('/collections', {
          collection: 'writers',
          meta: {
            display_template: '{{name}} ({{country}})',
            translations: [
              { language: 'de-DE', translation: 'Autorinnen', singular: 'Autorin', plural: 'Autorinnen' },
              { language: 'en-US', translation: 'Writers', singular: 'Writer', plural: 'Writers' },
            ],
          },
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            {
              field: 'name',
              type: 'string',
              meta: { translations: [{ language: 'de-DE', translation: 'Vollständiger Name' }] },
            },
            { field: 'country', type: 'string' },
          ],
        });
        await post('/items/writers', [
          { name: 'Ada Lovelace', country: 'UK' },
          { name: 'Grace Hopper', country: 'US' },
        ]);
        await post('/collections', {
          collection: 'blog_posts',
          meta: { display_template: '{{title}} by {{writer.name}}' },
          fields: POST_FIELDS.map((f, i) => ({ ...f, meta: { ...f.meta, sort: i + 1 } })),
        });
        await post('/fields/blog_posts', {
          field: 'writer',
          type: 'integer',
          meta: { interface: 'select-dropdown-m2o', special: ['m2o'], sort: 3 },
        });
        await post('/fields/writers', {
          field: 'posts',
          type: 'alias',
          meta: { interface: 'list-o2m', special: ['o2m'] },
        });
        await post('/relations', {
          collection: 'blog_posts',
          field: 'writer',
          related_collection: 'writers',
          meta: { one_field: 'posts' },
        });

        // A fixed locale and time zone: what the displays show is theirs, not the machine's.
        context = await browser.newContext({
          viewport: { width: 1280, height: 900 },
          locale: 'de-DE',
          timezoneId: 'America/New_York',
        });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(`${message.text()} (${page.url()})`);
        });
        await page.goto(`${base}/admin/`);
        await page.getByLabel('Email').fill(ADMIN.email);
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
      });
      after(async () => {
        await context?.close();
        await browser?.close();
        await t?.close();
      });

      it('names collections and fields from their translations, else title-cased as Directus does', async () => {
        const nav = page.getByRole('navigation', { name: 'Main' });
        await nav.getByRole('link', { name: 'Autorinnen', exact: true }).waitFor();
        await nav.getByRole('link', { name: 'Blog Posts', exact: true }).click();
        await page.getByRole('heading', { name: 'Blog Posts', exact: true }).waitFor();
        await page.getByRole('button', { name: 'Create item' }).click();
        await page.getByRole('heading', { name: 'New Blog Post', exact: true }).waitFor();
        await form().getByText('Published At', { exact: true }).waitFor();
        await form().getByText('Publish On', { exact: true }).waitFor();
      });

      it('creates an item through every interface; the API stores what was entered', async () => {
        const f = form();
        await f.getByLabel(/^Title/).fill('  Hello world  ');
        await f.getByLabel('Slug').fill('Hello World');
        await f.getByRole('button', { name: 'Choose Autorinnen' }).click();
        await f.getByRole('button', { name: 'Ada Lovelace (UK)' }).click();
        await f.locator('#field-writer').filter({ hasText: 'Ada Lovelace (UK)' }).waitFor();
        await f.getByLabel('Summary').fill('A first post.');

        await f.getByLabel('Body').fill('## Notes\n\nSome **bold** text.<img src=x onerror="alert(1)">');
        await f.getByRole('button', { name: 'Preview' }).click();
        const preview = f.locator('.markdown-preview');
        await preview.locator('h2', { hasText: 'Notes' }).waitFor();
        assert.equal(await preview.locator('strong').innerText(), 'bold');
        assert.equal(await preview.locator('img').count(), 0, 'raw HTML is shown as text');
        await preview.getByText('<img src=x onerror="alert(1)">').waitFor();
        await f.getByRole('button', { name: 'Write' }).click();

        const rich = f.getByRole('textbox', { name: 'Content' });
        await rich.click();
        await page.keyboard.type('Rich ');
        await page.keyboard.press('Control+b');
        await page.keyboard.type('words');

        await f.getByLabel('Status').selectOption('published');
        await f.getByRole('radiogroup', { name: 'Audience' }).getByLabel('Members').check();
        const channels = f.getByRole('group', { name: 'Channels' });
        await channels.getByLabel('Print').check();
        await channels.getByLabel('Web').check();
        await f.getByLabel('Keywords').fill('vue');
        await f.getByLabel('Keywords').press('Enter');
        await f.getByLabel('Keywords').fill('strata, api');
        await f.getByLabel('Keywords').press('Enter');
        await f.getByRole('switch').check();
        await f.getByLabel('Rating').fill('7');
        await f.getByLabel('Accent').fill('#ff6600');
        await f.getByLabel('Views').fill('1234567');
        await f.getByLabel('Publish On').fill('2026-03-14');
        await f.getByLabel('Meeting').fill('14:05');
        await f.getByLabel('Published At').fill('2026-03-14T09:30');
        // The JSON code editor: typed into with the keyboard; text that does not parse is the field's message, the
        // editor is marked invalid and described by it, and the form is not sent.
        const extra = f.getByRole('textbox', { name: 'Extra' });
        await extra.click();
        await page.keyboard.type('{"pinned": true');
        const message = f.locator('#error-extra');
        await message.getByText('Not valid JSON yet.').waitFor();
        assert.equal(await extra.getAttribute('aria-invalid'), 'true');
        assert.match((await extra.getAttribute('aria-describedby')) ?? '', /error-extra/);
        await f.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('alert').getByText('Some fields need attention.').waitFor();
        assert.match(page.url(), /\/blog_posts\/\+$/);
        assert.equal(json(await t.request({ method: 'GET', url: '/items/blog_posts' })).data.length, 0);
        await extra.click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type(', "tags": [1, 2]}');
        await message.waitFor({ state: 'detached' });
        assert.equal(await extra.getAttribute('aria-invalid'), null);
        // Highlighted: keys, booleans and numbers in their own colours.
        assert.ok((await extra.locator('span').count()) >= 4, 'highlighted tokens');
        const snippet = f.getByRole('textbox', { name: 'Snippet' });
        await snippet.click();
        await page.keyboard.type('const answer = 42;');
        await shot('interfaces-form');

        await f.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('status', { name: 'Notifications' }).getByText('Item created').waitFor();
        await page.waitForURL(/\/admin\/content\/blog_posts$/);
        const rows = json(await t.request({ method: 'GET', url: '/items/blog_posts?fields=*,writer.name' })).data;
        assert.equal(rows.length, 1);
        const row = rows[0];
        id = row.id;
        assert.match(row.content, /^<p>Rich <strong>words<\/strong><\/p>$/);
        assert.equal(
          Date.parse(row.published_at),
          Date.parse('2026-03-14T13:30:00Z'),
          'New York wall clock, stored as an instant',
        );
        assert.deepEqual(
          {
            ...row,
            id: undefined,
            content: undefined,
            published_at: undefined,
            meeting: String(row.meeting).slice(0, 5),
            publish_on: String(row.publish_on).slice(0, 10),
          },
          {
            id: undefined,
            title: 'Hello world',
            slug: 'hello-world',
            writer: { name: 'Ada Lovelace' },
            summary: 'A first post.',
            body: '## Notes\n\nSome **bold** text.<img src=x onerror="alert(1)">',
            content: undefined,
            status: 'published',
            audience: 'members',
            channels: ['web', 'print'],
            keywords: ['vue', 'strata', 'api'],
            featured: true,
            rating: 7,
            accent: '#ff6600',
            views: 1234567,
            publish_on: '2026-03-14',
            meeting: '14:05',
            published_at: undefined,
            extra: { pinned: true, tags: [1, 2] },
            snippet: 'const answer = 42;',
          },
        );
      });

      it('shows names, choices, dates, numbers, booleans, colours and JSON in the table', async () => {
        const columns = [
          'title',
          'writer',
          'status',
          'publish_on',
          'published_at',
          'meeting',
          'views',
          'featured',
          'accent',
          'extra',
        ];
        // The columns chosen as a user does (the view is kept as the user's preset, not in the browser).
        await page.locator('thead th').nth(1).waitFor();
        const choices = page.locator('details.columns');
        await choices.locator('summary').click();
        const box = (name: string) => choices.getByRole('checkbox', { name, exact: true });
        for (const name of ['Slug', 'Summary', 'Body', 'Content'])
          if (await box(name).isChecked()) await box(name).uncheck();
        for (const name of ['Status', 'Publish On', 'Published At', 'Meeting', 'Views', 'Featured', 'Accent', 'Extra'])
          await box(name).check();
        await choices.locator('summary').click();
        assert.equal(columns.length, 10);
        const header = await page.locator('thead th').allInnerTexts();
        assert.deepEqual(
          header.slice(1).map((h) => h.trim()),
          [
            'Title',
            'Writer',
            'Status',
            'Publish On',
            'Published At',
            'Meeting',
            'Views',
            'Featured',
            'Accent',
            'Extra',
          ],
        );
        const cells = page.locator('tbody tr').first().locator('td');
        await cells.nth(2).filter({ hasText: 'Ada Lovelace (UK)' }).waitFor();
        const text = (await cells.allInnerTexts()).slice(1).map((c) => c.trim());
        assert.equal(text[0], 'Hello world');
        assert.equal(text[2], 'Published');
        assert.equal(text[3], '14.03.2026');
        assert.equal(text[4], '14.03.2026, 09:30'); // 13:30 UTC in New York
        assert.equal(text[5], '14:05');
        assert.equal(text[6], '1.234.567');
        assert.match(text[7]!, /✓/);
        assert.equal(await cells.nth(9).locator('.swatch').count(), 1);
        assert.equal(
          await cells
            .nth(9)
            .locator('.swatch')
            .evaluate((e) => getComputedStyle(e).backgroundColor),
          'rgb(255, 102, 0)',
        );
        assert.equal(text[9], '{"pinned":true,"tags":[1,2]}');
        await shot('interfaces-table');
      });

      it('"/" focuses the search; Ctrl-click opens an item in a new tab', async () => {
        await page.locator('body').press('/');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'search');
        await page.locator('thead').click();
        const opened = context.waitForEvent('page');
        await page.getByRole('link', { name: 'Hello world' }).click({ modifiers: ['Control'] });
        const tab = await opened;
        await tab.waitForLoadState();
        assert.match(tab.url(), new RegExp(`/admin/content/blog_posts/${id}$`));
        await tab.close();
        assert.match(page.url(), /\/admin\/content\/blog_posts$/);
      });

      it('titles the item page from its display template, and edits through the interfaces; Ctrl+S saves', async () => {
        await page.getByRole('link', { name: 'Hello world' }).click();
        await page.getByRole('heading', { name: 'Blog Posts · Hello world by Ada Lovelace' }).waitFor();
        const f = form();
        await page.waitForFunction(
          () => (document.querySelector('#field-views') as HTMLInputElement | null)?.value === '1234567',
        );
        await f.getByRole('textbox', { name: 'Content' }).filter({ hasText: 'Rich words' }).waitFor();
        await f.getByLabel('Status').selectOption('draft');
        await f.getByRole('radiogroup', { name: 'Audience' }).getByLabel('Everyone').check();
        await f.getByRole('group', { name: 'Channels' }).getByLabel('Web').uncheck();
        await f.getByRole('button', { name: 'Remove vue' }).click();
        await f.getByRole('switch').uncheck();
        await f.getByLabel('Accent').fill('#0a7');
        await f.getByRole('button', { name: 'Choose Autorinnen' }).click();
        await f.getByRole('button', { name: 'Grace Hopper (US)' }).click();
        // The stored JSON reads back pretty-printed; edited, it is saved as JSON again.
        const extra = f.getByRole('textbox', { name: 'Extra' });
        assert.equal(await extra.innerText(), '{\n  "pinned": true,\n  "tags": [\n    1,\n    2\n  ]\n}');
        await extra.click();
        await page.keyboard.press('Control+a');
        await page.keyboard.type('{"pinned": false, "note": "déjà vu"}');
        await page.keyboard.press('Control+s');
        await page.getByRole('status', { name: 'Notifications' }).getByText('Item saved').waitFor();
        await page.getByRole('heading', { name: 'Blog Posts · Hello world by Grace Hopper' }).waitFor();
        await form().getByRole('button', { name: 'Preview' }).click();
        await shot('interfaces-saved');
        await form().getByRole('button', { name: 'Write' }).click();
        const row = await stored();
        assert.deepEqual(
          [row.status, row.audience, row.channels, row.keywords, row.featured, row.accent, row.writer, row.extra],
          ['draft', 'all', ['print'], ['strata', 'api'], false, '#0a7', 2, { pinned: false, note: 'déjà vu' }],
        );
      });

      it('warns before unsaved changes are lost, in the app and when the tab closes', async () => {
        await form()
          .getByLabel(/^Title/)
          .fill('Hello again');
        let asked = 0;
        page.once('dialog', (dialog) => {
          asked++;
          void dialog.dismiss();
        });
        await page.getByRole('button', { name: 'Back' }).click();
        await page.waitForFunction(() => true);
        assert.equal(asked, 1);
        assert.match(page.url(), new RegExp(`/blog_posts/${id}$`));
        assert.equal(
          await form()
            .getByLabel(/^Title/)
            .inputValue(),
          'Hello again',
        );

        // The browser's back button asks too, and staying keeps the page and its changes.
        page.once('dialog', (dialog) => {
          asked++;
          void dialog.dismiss();
        });
        await page.goBack();
        await page.waitForURL(new RegExp(`/blog_posts/${id}$`));
        assert.equal(asked, 2);
        assert.equal(
          await form()
            .getByLabel(/^Title/)
            .inputValue(),
          'Hello again',
        );

        page.once('dialog', (dialog) => {
          asked++;
          assert.equal(dialog.type(), 'beforeunload');
          void dialog.dismiss();
        });
        await page.close({ runBeforeUnload: true });
        await page.waitForEvent('close', { timeout: 1000 }).catch(() => undefined);
        assert.equal(asked, 3);
        assert.equal(page.isClosed(), false, 'the tab stayed open');

        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Autorinnen' }).click();
        await page.getByRole('heading', { name: 'Autorinnen', exact: true }).waitFor();
        assert.equal((await stored()).title, 'Hello world', 'the discarded change was not saved');
        await page.getByRole('columnheader', { name: 'Vollständiger Name' }).waitFor();
        // An o2m column lists its items by their display template, nested fields included, read in the same request.
        await page.locator('summary', { hasText: 'Columns' }).click();
        await page.getByLabel('Posts', { exact: true }).check();
        await page
          .locator('tbody tr')
          .filter({ hasText: 'Grace Hopper' })
          .getByRole('cell', { name: 'Hello world by Grace Hopper' })
          .waitFor();
      });

      it('fits a phone-width window with every interface, in the dark theme', async () => {
        await page.goto(`${base}/admin/content/blog_posts/${id}`);
        await form().getByRole('textbox', { name: 'Content' }).filter({ hasText: 'Rich words' }).waitFor();
        await page.setViewportSize({ width: 390, height: 800 });
        await page.getByRole('button', { name: /^Theme/ }).click(); // auto → dark
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.equal(overflow, 0, 'nothing wider than the window');
        await shot('interfaces-phone-dark');
        await page.getByRole('button', { name: /^Theme/ }).click(); // dark → light
        await page.getByRole('button', { name: /^Theme/ }).click(); // light → auto
        await page.setViewportSize({ width: 1280, height: 900 });
      });

      it('ran under its Content-Security-Policy with nothing blocked (the editors included)', async () => {
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) interfacesSuite(client);
