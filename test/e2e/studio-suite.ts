/**
 * Strata Studio end to end: Debian's chromium (playwright-core) drives the built app against a live Strata on one
 * database; studio-<database>.test.ts run it for each database the machine has, side by side. One browser and one
 * page per database, steps in order (each builds on the last, as a person working through the app would).
 * STUDIO_SCREENSHOTS=1 saves the README's screenshots (from SQLite).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/passwords.js';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';
import { queryBuilder } from '../../src/db/connection.js';

const executable = chromiumPath();

async function seedLibrary(t: TestApp): Promise<void> {
  const post: Post = async (url, payload) => {
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
      {
        field: 'title',
        type: 'string',
        meta: { interface: 'input', required: true, sort: 1 },
        schema: { is_nullable: false },
      },
      { field: 'pages', type: 'integer', meta: { interface: 'input', sort: 2 } },
      { field: 'in_print', type: 'boolean', meta: { interface: 'boolean', sort: 3 } },
    ],
  });
  await addRelations(post);
  await post('/collections', {
    collection: 'about',
    meta: { group: 'library', sort: 9, singleton: true },
    fields: [idField, { field: 'motto', type: 'string' }],
  });
  await post(
    '/items/books',
    Array.from({ length: 30 }, (_, i) => ({
      title: `Book ${String(i + 1).padStart(2, '0')}`,
      pages: (i + 1) * 10,
      in_print: i % 2 === 0,
    })),
  );
}

type Post = (url: string, payload: object) => Promise<any>;

const idField = {
  field: 'id',
  type: 'integer',
  schema: { is_primary_key: true, has_auto_increment: true },
  meta: { hidden: true },
};

/** Authors (m2o from books, o2m back), tags through a sorted junction (m2m) and blocks of quotes or notes (m2a). */
async function addRelations(post: Post): Promise<void> {
  await post('/collections', {
    collection: 'authors',
    meta: { group: 'library', sort: 2 },
    fields: [
      { ...idField, meta: {} },
      { field: 'name', type: 'string' },
    ],
  });
  await post('/fields/books', {
    field: 'author',
    type: 'integer',
    meta: { interface: 'select-dropdown-m2o', special: ['m2o'], sort: 4, width: 'half' },
  });
  await post('/fields/authors', { field: 'books', type: 'alias', meta: { interface: 'list-o2m', special: ['o2m'] } });
  await post('/relations', {
    collection: 'books',
    field: 'author',
    related_collection: 'authors',
    meta: { one_field: 'books' },
    schema: { on_delete: 'SET NULL' },
  });
  await post('/items/authors', [
    { name: 'Ursula K. Le Guin' },
    { name: 'Octavia E. Butler' },
    { name: 'Italo Calvino' },
  ]);

  await post('/collections', {
    collection: 'tags',
    meta: { group: 'library', sort: 3 },
    fields: [
      { ...idField, meta: {} },
      { field: 'name', type: 'string' },
    ],
  });
  await post('/collections', {
    collection: 'books_tags',
    meta: { hidden: true },
    fields: [
      idField,
      { field: 'books_id', type: 'integer' },
      { field: 'tags_id', type: 'integer' },
      { field: 'sort', type: 'integer' },
    ],
  });
  await post('/fields/books', {
    field: 'tags',
    type: 'alias',
    meta: { interface: 'list-m2m', special: ['m2m'], sort: 5 },
  });
  await post('/relations', {
    collection: 'books_tags',
    field: 'books_id',
    related_collection: 'books',
    meta: { one_field: 'tags', junction_field: 'tags_id', sort_field: 'sort' },
    schema: { on_delete: 'CASCADE' },
  });
  await post('/relations', {
    collection: 'books_tags',
    field: 'tags_id',
    related_collection: 'tags',
    meta: { one_field: null, junction_field: 'books_id' },
    schema: { on_delete: 'CASCADE' },
  });
  await post('/items/tags', [{ name: 'fantasy' }, { name: 'classic' }, { name: 'essay' }]);

  await post('/collections', {
    collection: 'quotes',
    meta: { hidden: true },
    fields: [idField, { field: 'text', type: 'string' }],
  });
  await post('/collections', {
    collection: 'notes',
    meta: { hidden: true },
    fields: [idField, { field: 'body', type: 'text' }],
  });
  await post('/collections', {
    collection: 'books_blocks',
    meta: { hidden: true },
    fields: [
      idField,
      { field: 'books_id', type: 'integer' },
      { field: 'item', type: 'string' },
      { field: 'collection', type: 'string' },
      { field: 'sort', type: 'integer' },
    ],
  });
  await post('/fields/books', {
    field: 'blocks',
    type: 'alias',
    meta: { interface: 'list-m2a', special: ['m2a'], sort: 6 },
  });
  await post('/relations', {
    collection: 'books_blocks',
    field: 'item',
    related_collection: null,
    meta: {
      one_allowed_collections: ['quotes', 'notes'],
      one_collection_field: 'collection',
      junction_field: 'books_id',
    },
    schema: null,
  });
  await post('/relations', {
    collection: 'books_blocks',
    field: 'books_id',
    related_collection: 'books',
    meta: { one_field: 'blocks', junction_field: 'item', sort_field: 'sort' },
    schema: { on_delete: 'CASCADE' },
  });
}

/**
 * The suite on one database: its name, options and body, for its test file's describe (the test runner counts a
 * test as the file's that declares it).
 */
export function studioSuite(client: DbClient): [string, { skip: string | false }, () => void] {
  return [
    `Strata Studio in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let context: BrowserContext;
      let page: Page;
      const shots = client === 'sqlite3';
      const shot = (name: string, fullPage = true) => (shots ? screenshot(page, name, fullPage) : Promise.resolve());
      const status = () => page.locator('.pager [role="status"]');
      const violations: string[] = [];

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        await seedLibrary(t);
        context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        // Chromium reports what the page's Content-Security-Policy blocked as a console error.
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(message.text());
        });
      });
      after(async () => {
        await context?.close();
        await browser?.close();
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
        await page.waitForFunction(() =>
          document.querySelector('tbody tr td:nth-child(3)')?.textContent?.includes('Book 30'),
        );
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

      it('shows the answer to the latest search when an earlier search is answered after it', async () => {
        const searchFor = (text: string) => (url: URL) => url.searchParams.get('search') === text;
        // The first search's requests (its page and its count) are held until the second search is shown.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        await page.route(searchFor('Book 2'), async (route) => {
          await held;
          await route.continue();
        });
        const first = page.waitForRequest((request) => searchFor('Book 2')(new URL(request.url())));
        await page.getByPlaceholder('Search…').fill('Book 2');
        await first;
        await page.getByPlaceholder('Search…').fill('Book 3');
        await status().filter({ hasText: '1–1 of 1' }).waitFor();
        const answered = [1, 2].map(() =>
          page.waitForResponse((response) => searchFor('Book 2')(new URL(response.url()))),
        );
        release();
        await Promise.all(answered);
        // A frame for the page to show whatever it would do with the late answers.
        await page.evaluate(
          () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        );
        assert.equal(await status().innerText(), '1–1 of 1');
        assert.match(await page.locator('tbody tr').first().innerText(), /Book 30/);
        await page.unroute(searchFor('Book 2'));
        await page.getByPlaceholder('Search…').fill('');
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

      it('creates an item through its form: validation shown on the field, m2o picker, m2m and m2a lists', async () => {
        const form = page.getByRole('form', { name: 'books item' });
        await page.getByRole('button', { name: 'Create item' }).click();
        await form.waitFor();
        await form.getByLabel('Pages').fill('123');
        await form.getByRole('button', { name: 'Save and stay' }).click();
        await form.locator('#error-title').filter({ hasText: 'Value is required' }).waitFor();
        assert.equal(await form.getByLabel(/^Title/).getAttribute('aria-invalid'), 'true');

        await form.getByLabel(/^Title/).fill('The Dispossessed');
        await form.getByLabel('Yes').check();
        await form.getByRole('button', { name: 'Choose authors' }).click();
        await form.getByLabel('Search authors').fill('Le Guin');
        await form.getByRole('button', { name: 'Ursula K. Le Guin' }).click();
        await form.locator('#field-author').filter({ hasText: 'Ursula K. Le Guin' }).waitFor();

        const tags = form.getByRole('group', { name: 'Tags' });
        await tags.getByRole('button', { name: 'Add existing' }).click();
        await tags.getByRole('button', { name: 'classic' }).click();
        await tags.getByRole('button', { name: 'Create new' }).click();
        const dialog = page.getByRole('dialog', { name: 'New tags item' });
        await dialog.getByLabel('Name').fill('utopia');
        await dialog.getByRole('button', { name: 'Add' }).click();
        await tags.getByRole('button', { name: 'Move utopia up' }).click();

        const blocks = form.getByRole('group', { name: 'Blocks' });
        await blocks.getByLabel('Blocks: collection to add from').selectOption('quotes');
        await blocks.getByRole('button', { name: 'Create new' }).click();
        await page.getByRole('dialog', { name: 'New quotes item' }).getByLabel('Text').fill('True journey is return.');
        await page.getByRole('dialog', { name: 'New quotes item' }).getByRole('button', { name: 'Add' }).click();
        await shot('item-form');

        await form.getByRole('button', { name: 'Save and stay' }).click();
        await page.waitForURL(/\/admin\/content\/books\/\d+$/);
        const id = page.url().split('/').pop();
        const saved = json(
          await t.request({
            method: 'GET',
            url: `/items/books/${id}?fields=title,pages,in_print,author.name,tags.sort,tags.tags_id.name,blocks.collection,blocks.item:quotes.text`,
          }),
        ).data;
        saved.tags.sort((a: any, b: any) => a.sort - b.sort);
        assert.deepEqual(saved, {
          title: 'The Dispossessed',
          pages: 123,
          in_print: true,
          author: { name: 'Ursula K. Le Guin' },
          tags: [
            { sort: 1, tags_id: { name: 'utopia' } },
            { sort: 2, tags_id: { name: 'classic' } },
          ],
          blocks: [{ collection: 'quotes', item: { text: 'True journey is return.' } }],
        });
      });

      it('edits an item (save and stay, then save), and lists it in the o2m of its author', async () => {
        const form = page.getByRole('form', { name: 'books item' });
        // The page of the created item has read it back.
        await page.waitForFunction(
          () => (document.querySelector('#field-pages') as HTMLInputElement | null)?.value === '123',
        );
        await form.getByLabel('Pages').fill('387');
        await form.getByRole('group', { name: 'Tags' }).getByRole('button', { name: 'Remove classic' }).click();
        await form.getByRole('button', { name: 'Save', exact: true }).click();
        await page.waitForURL(/\/admin\/content\/books$/);
        const row = json(
          await t.request({
            method: 'GET',
            url: '/items/books?filter[title][_eq]=The Dispossessed&fields=pages,tags.tags_id.name',
          }),
        ).data[0];
        assert.deepEqual(row, { pages: 387, tags: [{ tags_id: { name: 'utopia' } }] });

        await page.getByRole('link', { name: 'authors' }).click();
        await page.getByRole('link', { name: '1', exact: true }).click();
        const books = page.getByRole('group', { name: 'Books' });
        await books.getByText('The Dispossessed').waitFor();
      });

      it('deletes an item from its page after confirmation', async () => {
        await page.getByRole('link', { name: 'books' }).click();
        await page.getByPlaceholder('Search…').fill('Dispossessed');
        await status().filter({ hasText: '1–1 of 1' }).waitFor();
        await page.locator('tbody a').first().click();
        await page.getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL(/\/admin\/content\/books$/);
        const left = json(
          await t.request({ method: 'GET', url: '/items/books?filter[title][_eq]=The Dispossessed' }),
        ).data;
        assert.deepEqual(left, []);
      });

      it('creates a collection with string, integer, boolean, datetime and json fields, an m2o and an m2m; errors show in place', async () => {
        await page.getByRole('link', { name: 'Data model' }).click();
        await page.getByRole('button', { name: 'Create collection' }).click();
        const create = page.getByRole('form', { name: 'New collection' });
        await create.getByLabel('Name').fill('films');
        await create.getByLabel('In folder').selectOption('library');
        await create.getByRole('button', { name: 'Create', exact: true }).click();
        await page.waitForURL(/\/admin\/data-model\/films$/);

        const addField = async (
          name: string,
          type: string,
          extra?: (form: ReturnType<Page['getByRole']>) => Promise<void>,
        ) => {
          await page.getByRole('button', { name: 'Add field' }).click();
          const form = page.getByRole('form', { name: 'New field' });
          await form.getByLabel('Name').fill(name);
          await form.getByLabel('Type').selectOption(type);
          if (extra) await extra(form);
          await form.getByRole('button', { name: 'Create field' }).click();
          await page.getByRole('cell', { name, exact: true }).waitFor();
          assert.equal(await form.count(), 0, `the form closed as ${name} showed`);
        };
        // The settings answer late, as on a loaded server: the page never shows a saved field with its form open.
        const settings = (url: URL) => url.pathname === '/settings';
        await page.route(settings, async (route) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await route.continue();
        });
        await addField('title', 'string', async (form) => {
          await form.getByLabel('Max length').fill('120');
          await form.getByLabel('Required').check();
        });
        await page.unroute(settings);
        await addField('minutes', 'integer');
        await addField('in_color', 'boolean', (form) => form.getByLabel('Default value').fill('true'));
        await addField('premiere', 'dateTime');
        await addField('details', 'json');

        // A second "minutes" is the API's error, shown in the form.
        await page.getByRole('button', { name: 'Add field' }).click();
        const again = page.getByRole('form', { name: 'New field' });
        await again.getByLabel('Name').fill('minutes');
        await again.getByRole('button', { name: 'Create field' }).click();
        await again
          .getByRole('alert')
          .filter({ hasText: /minutes/ })
          .waitFor();
        await again.getByRole('button', { name: 'Cancel' }).click();

        await page.getByRole('button', { name: 'Add relation' }).click();
        let relation = page.getByRole('form', { name: 'New relation' });
        await relation.getByLabel('Field name').fill('director');
        await relation.getByLabel('Related collection', { exact: true }).selectOption('authors');
        await relation.getByLabel(/Reverse o2m field/).fill('films');
        await relation.getByRole('button', { name: 'Create relation' }).click();
        await page.getByRole('cell', { name: 'm2o → authors' }).waitFor();

        await page.getByRole('button', { name: 'Add relation' }).click();
        relation = page.getByRole('form', { name: 'New relation' });
        await relation.getByLabel('Kind').selectOption('m2m');
        await relation.getByLabel('Field name').fill('genres');
        await relation.getByLabel('Related collection', { exact: true }).selectOption('tags');
        await relation.getByLabel('Manual order (sort field)').check();
        await relation.getByRole('button', { name: 'Create relation' }).click();
        await page.getByRole('cell', { name: 'm2m → tags' }).waitFor();
        await shot('data-model');

        const fields = json(await t.request({ method: 'GET', url: '/fields/films' })).data.map(
          (f: any) => `${f.field}:${f.type}`,
        );
        assert.deepEqual(fields.sort(), [
          'details:json',
          'director:integer',
          'genres:alias',
          'id:integer',
          'in_color:boolean',
          'minutes:integer',
          'premiere:dateTime',
          'title:string',
        ]);
      });

      it('creates, edits, filters, sorts and deletes items of the new collection through the forms', async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'films' }).click();
        const form = page.getByRole('form', { name: 'films item' });
        const createFilm = async (title: string, minutes: string, genre: string) => {
          await page.getByRole('button', { name: 'Create item' }).click();
          await form.getByLabel(/^Title/).fill(title);
          await form.getByLabel('Minutes').fill(minutes);
          await form.getByLabel('Premiere').fill('2024-05-17T20:30');
          await form.getByLabel('Details').fill('{"rating": "PG", "languages": ["en", "fr"]}');
          await form.getByRole('button', { name: 'Choose authors' }).click();
          await form.getByRole('button', { name: 'Octavia E. Butler' }).click();
          const genres = form.getByRole('group', { name: 'Genres' });
          await genres.getByRole('button', { name: 'Add existing' }).click();
          await genres.getByRole('button', { name: genre }).click();
          await form.getByRole('button', { name: 'Create', exact: true }).click();
          await page.waitForURL(/\/admin\/content\/films$/);
        };
        await createFilm('Kindred', '95', 'classic');
        await createFilm('Parable', '130', 'essay');
        await status().filter({ hasText: 'of 2' }).waitFor();
        const film = json(
          await t.request({
            method: 'GET',
            url: '/items/films?filter[title][_eq]=Kindred&fields=title,minutes,in_color,premiere,details,director.name,genres.tags_id.name',
          }),
        ).data[0];
        assert.deepEqual(film, {
          title: 'Kindred',
          minutes: 95,
          in_color: true,
          premiere: '2024-05-17T20:30:00',
          details: { rating: 'PG', languages: ['en', 'fr'] },
          director: { name: 'Octavia E. Butler' },
          genres: [{ tags_id: { name: 'classic' } }],
        });

        await page.getByRole('link', { name: 'Kindred' }).click();
        await page.waitForFunction(
          () => (document.querySelector('#field-minutes') as HTMLInputElement | null)?.value === '95',
        );
        await form.getByLabel('Minutes').fill('101');
        await form.getByLabel('Yes').uncheck();
        await form.getByRole('button', { name: 'Save', exact: true }).click();
        await page.waitForURL(/\/admin\/content\/films$/);
        const edited = json(await t.request({ method: 'GET', url: '/items/films/1?fields=minutes,in_color' })).data;
        assert.deepEqual(edited, { minutes: 101, in_color: false });

        await page.getByRole('button', { name: /^Minutes/ }).click();
        await page.getByRole('button', { name: /^Minutes/ }).click();
        await page.locator('th[aria-sort="descending"]').waitFor();
        await page.waitForFunction(() =>
          document.querySelector('tbody tr td:nth-child(2)')?.textContent?.includes('Parable'),
        );
        await page.getByRole('button', { name: /^Filters/ }).click();
        await page.getByRole('button', { name: '+ Add filter' }).click();
        await page.getByLabel('Filter 1: field').selectOption('minutes');
        await page.getByLabel('Filter 1: operator').selectOption('_lt');
        await page.getByLabel('Filter 1: value').fill('120');
        await status().filter({ hasText: '1–1 of 1' }).waitFor();
        await page.getByLabel('Select all on this page').check();
        await page.getByRole('button', { name: 'Delete 1 selected' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await status().filter({ hasText: '0–0 of 0' }).waitFor();
        const titles = json(await t.request({ method: 'GET', url: '/items/films?fields=title' })).data;
        assert.deepEqual(titles, [{ title: 'Parable' }]);
      });

      it('edits a singleton on its collection page', async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'about' }).click();
        const form = page.getByRole('form', { name: 'about item' });
        await form.getByLabel('Motto').fill('Read widely.');
        await form.getByRole('button', { name: 'Save', exact: true }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        assert.deepEqual(json(await t.request({ method: 'GET', url: '/items/about?fields=motto' })).data, {
          motto: 'Read widely.',
        });
        assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
      });

      it('grants access: a policy with item rule and field checkboxes, a role holding it, a user in the role; settings', async () => {
        await page.getByRole('link', { name: 'Policies' }).click();
        await page.getByRole('button', { name: 'Create policy' }).click();
        await page.getByRole('form', { name: 'New policy' }).getByLabel('Name').fill('Editors');
        await page.getByRole('form', { name: 'New policy' }).getByRole('button', { name: 'Create' }).click();
        await page.waitForURL(/\/admin\/access\/policies\/[0-9a-f-]+$/);

        await page.getByRole('button', { name: 'Add permission' }).click();
        const permission = page.getByRole('form', { name: 'New permission' });
        await permission.getByLabel('Collection').selectOption('books');
        await permission.getByLabel('Action').selectOption('read');
        await permission.getByLabel('All fields').uncheck();
        for (const field of ['id', 'title', 'pages']) await permission.getByLabel(field, { exact: true }).check();
        await permission.getByRole('button', { name: '+ Add item rule' }).click();
        await permission.getByLabel('Item rule 1: field').selectOption('pages');
        await permission.getByLabel('Item rule 1: operator').selectOption('_lte');
        await permission.getByLabel('Item rule 1: value').fill('100');
        await shot('policy');
        await permission.getByRole('button', { name: 'Save permission' }).click();
        await page.getByRole('cell', { name: '3 fields · item rule' }).waitFor();

        await page.getByRole('link', { name: 'Roles' }).click();
        await page.getByRole('button', { name: 'Create role' }).click();
        const role = page.getByRole('form', { name: 'New role' });
        await role.getByLabel('Name').fill('Editor');
        await role.getByLabel('Editors').check();
        await role.getByRole('button', { name: 'Save role' }).click();
        await page.getByRole('cell', { name: 'Editor', exact: true }).waitFor();

        await page.getByRole('link', { name: 'Users' }).click();
        await page.getByRole('button', { name: 'Create user' }).click();
        const user = page.getByRole('form', { name: 'New user' });
        await user.getByLabel('Email').fill('editor@example.com');
        await user.getByLabel('Password').fill('editor-password-1');
        await user.getByLabel('Role').selectOption({ label: 'Editor' });
        await user.getByRole('button', { name: 'Save user' }).click();
        await page.getByRole('cell', { name: 'editor@example.com', exact: true }).waitFor();

        await page.getByRole('link', { name: 'Settings' }).click();
        const settings = page.getByRole('form', { name: 'Settings' });
        await settings.getByLabel('Project name').fill('Library');
        await settings.getByLabel('Password policy').selectOption({ index: 1 });
        await settings.getByLabel('Login attempts before suspension').fill('5');
        await settings.getByRole('button', { name: 'Save settings' }).click();
        await page.locator('.brand').filter({ hasText: 'Library' }).waitFor();
        const saved = json(
          await t.request({
            method: 'GET',
            url: '/settings?fields=project_name,auth_password_policy,auth_login_attempts',
          }),
        ).data;
        assert.deepEqual(saved, { project_name: 'Library', auth_password_policy: '/^.{8,}$/', auth_login_attempts: 5 });
      });

      it('shows a restricted user only their collections, fields and rows, read-only, and no data model', async () => {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Email').fill('editor@example.com');
        await page.getByLabel('Password').fill('editor-password-1');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(/\/admin\/content\/books$/);
        const nav = page.getByRole('navigation', { name: 'Main' });
        // Their collections, and the activity log (app users read their own activity, as in Directus).
        assert.deepEqual(await nav.getByRole('link').allInnerTexts(), ['Books', 'Activity log']);
        assert.equal(await nav.getByText('Administration').count(), 0);

        // Books with at most 100 pages, of which the bulk delete took none (it took 29 and 30).
        await status().filter({ hasText: '1–10 of 10' }).waitFor();
        assert.deepEqual(await page.locator('thead th').allInnerTexts(), ['ID', 'Title', 'Pages']);
        assert.equal(await page.getByRole('button', { name: 'Create item' }).count(), 0);
        assert.equal(await page.getByLabel('Select all on this page').count(), 0);
        await shot('restricted-user');

        await page.getByRole('link', { name: '3', exact: true }).click();
        const form = page.getByRole('form', { name: 'books item' });
        await form.waitFor();
        assert.equal(await form.getByLabel(/^Title/).getAttribute('readonly'), '');
        assert.equal(await form.getByRole('button', { name: 'Save' }).count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
        assert.equal(await form.getByText('Author').count(), 0);

        await page.goto(`${base}/admin/data-model`);
        await page.getByRole('heading', { name: 'Not available' }).waitFor();
        await page.goto(`${base}/admin/content/authors`);
        await page.getByRole('alert').waitFor();
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

      it('asks an account with two-factor authentication for its one-time password', async () => {
        const secret = new Secret({ size: 20 });
        const knex = queryBuilder(t.context.db);
        const [role] = await knex('service_roles').select('id').where({ name: 'Administrator' });
        await knex('service_users').insert({
          id: randomUUID(),
          email: 'otp@example.com',
          password: await hashPassword('otp-password-1', t.context.config.hash),
          status: 'active',
          role: role.id,
          provider: 'default',
          tfa_secret: secret.base32,
        });
        await page.getByLabel('Email').fill('otp@example.com');
        await page.getByLabel('Password').fill('otp-password-1');
        await page.getByRole('button', { name: 'Sign in' }).click();
        const otp = page.getByLabel('One-time password');
        await otp.waitFor();
        await otp.fill('000000');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').waitFor();
        await otp.fill(new TOTP({ secret, digits: 6, period: 30, algorithm: 'SHA1' }).generate());
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('link', { name: 'Data model' }).waitFor();
      });

      it('fits a phone-width window (menu behind a button) and follows the dark theme', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'books' })
          .waitFor({ state: 'hidden' });
        await page.getByRole('button', { name: 'Menu' }).click();
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'books' }).click();
        await status().waitFor();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.equal(overflow, 0, 'nothing wider than the window');
        await page.getByRole('button', { name: /^Theme/ }).click(); // auto → dark
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        assert.equal(background, 'rgb(18, 19, 23)');
        await shot('phone-dark', false);
        await page.setViewportSize({ width: 1280, height: 800 });
      });

      it('ran under its Content-Security-Policy with nothing blocked', async () => {
        const response = await page.goto(`${base}/admin/`);
        const policy = String(response?.headers()['content-security-policy']);
        assert.match(policy, /script-src 'self'(;|$)/);
        assert.match(policy, /frame-ancestors 'none'/);
        assert.deepEqual(violations, []);
      });
    },
  ];
}
