/**
 * Strata Studio's collection layouts in chromium (playwright-core, Debian's chromium), on each database the machine
 * has: cards (images from a file field, titles and subtitles from templates, loading more at the grid's end), the
 * calendar (items on their days, months apart, a range read), the switch remembered on reload, new tabs, a phone's
 * width, and a restricted user who sees only what they may read.
 * STUDIO_SCREENSHOTS=1 saves docs/screenshots/cards.png and calendar.png (from SQLite); STUDIO_LAYOUT_SHOTS (a
 * folder) keeps more, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { multipartBody } from '../helpers/multipart.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();

/** A landscape picture: sky over ground in two colours, a sun in the sky (so a thumbnail reads as a photo). */
async function picture(sky: string, ground: string, sun: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="320">
    <rect width="480" height="320" fill="${sky}"/><rect y="200" width="480" height="120" fill="${ground}"/>
    <circle cx="330" cy="120" r="48" fill="${sun}"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const pad = (n: number) => String(n).padStart(2, '0');
const now = new Date();
const thisMonth = `${now.getFullYear()}-${pad(now.getMonth() + 1)}`;
const next = new Date(now.getFullYear(), now.getMonth() + 1, 1);
const nextMonth = `${next.getFullYear()}-${pad(next.getMonth() + 1)}`;

async function seed(t: TestApp): Promise<void> {
  const post = async (url: string, payload: object) => {
    const answer = await t.request({ method: 'POST', url, payload });
    assert.ok(answer.statusCode < 300, `${url}: ${answer.body}`);
    return json(answer).data;
  };
  const upload = async (name: string, content: Buffer) => {
    const answer = await t.request({
      method: 'POST',
      url: '/files',
      ...multipartBody([{ name: 'file', filename: `${name}.png`, type: 'image/png', content }]),
    });
    assert.equal(answer.statusCode, 200, answer.body);
    return json(answer).data.id as string;
  };
  const sunset = await upload('sunset', await picture('#f2a65a', '#5b3a29', '#ffe27a'));
  const forest = await upload('forest', await picture('#9fd3f0', '#2f6b3a', '#fff6c9'));
  const more = [
    await upload('lake', await picture('#bfe3f5', '#3d7ea6', '#ffffff')),
    await upload('dunes', await picture('#f7d9a0', '#d49a4a', '#fff2b3')),
    await upload('night', await picture('#1d2951', '#0c1326', '#f4f1c9')),
    await upload('meadow', await picture('#cfe8ff', '#7fb446', '#ffd84d')),
  ];
  await post('/collections', {
    collection: 'photos',
    meta: { display_template: '{{title}}' },
    fields: [
      {
        field: 'id',
        type: 'integer',
        schema: { is_primary_key: true, has_auto_increment: true },
        meta: { hidden: true },
      },
      { field: 'title', type: 'string', meta: { interface: 'input', sort: 1 } },
      { field: 'caption', type: 'string', meta: { interface: 'input', sort: 2 } },
      { field: 'image', type: 'uuid', meta: { interface: 'file-image', special: ['file'], sort: 3 } },
      { field: 'taken', type: 'date', meta: { interface: 'datetime', sort: 4 } },
      { field: 'until', type: 'date', meta: { interface: 'datetime', sort: 5 } },
      { field: 'shot_at', type: 'timestamp', meta: { interface: 'datetime', sort: 6 } },
      { field: 'posted', type: 'dateTime', meta: { interface: 'datetime', sort: 7 } },
    ],
  });
  await post('/items/photos', [
    {
      title: 'Sunset',
      caption: 'Over the bay',
      image: sunset,
      taken: `${thisMonth}-03`,
      shot_at: `${thisMonth}-08T12:00:00Z`,
    },
    {
      title: 'Forest',
      caption: 'Morning walk',
      image: forest,
      taken: `${thisMonth}-17`,
      until: `${thisMonth}-19`,
      posted: `${thisMonth}-11T09:30:00`,
    },
    { title: 'Harbour', caption: 'No picture yet', taken: `${nextMonth}-05` },
    // Photos 04 to 09 have pictures too (so the first screen looks like a gallery); the rest have none.
    ...Array.from({ length: 27 }, (_, i) => ({
      title: `Photo ${pad(i + 4)}`,
      caption: 'Archive',
      image: i < 6 ? more[i % more.length] : null,
    })),
  ]);
}

function layoutsSuite(client: DbClient): void {
  describe(
    `Studio layouts in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let context: BrowserContext;
      let page: Page;
      const violations: string[] = [];
      const itemReads: string[] = [];
      const docShot = (name: string) => (client === 'sqlite3' ? screenshot(page, name, false) : Promise.resolve());
      const shot = async (name: string) => {
        const folder = process.env.STUDIO_LAYOUT_SHOTS;
        if (!folder) return;
        mkdirSync(folder, { recursive: true });
        await page.screenshot({ path: path.join(folder, `${client}-${name}.png`), fullPage: true });
      };
      const cards = () => page.getByRole('list', { name: 'Items' }).getByRole('listitem');
      const day = (date: string) => page.locator(`table.calendar td[data-date="${date}"]`);
      /** The switcher's radios are drawn as their labels: a person clicks the label. */
      const choose = (target: Page, name: string) =>
        target.locator('.layout-switch label').filter({ hasText: name }).click();
      const options = (target: Page, name: string) => target.locator('summary', { hasText: name }).click();
      const noSideScroll = () =>
        page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

      async function signIn(target: Page, email: string, password: string) {
        await target.goto(`${base}/admin/`);
        await target.getByLabel('Email').fill(email);
        await target.getByLabel('Password').fill(password);
        await target.getByRole('button', { name: 'Sign in' }).click();
        await target.getByRole('navigation', { name: 'Main' }).waitFor();
      }

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        await seed(t);
        context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(message.text());
        });
        page.on('request', (request) => {
          if (request.url().includes('/items/photos?')) itemReads.push(decodeURIComponent(request.url()));
        });
        await signIn(page, ADMIN.email, ADMIN.password);
        await page.goto(`${base}/admin/content/photos`);
        await page.locator('.pager [role="status"]').filter({ hasText: 'of 30' }).waitFor();
      });
      after(async () => {
        await browser?.close();
        await t?.close();
      });

      it('switches to cards by keyboard: images from the file field, titles, and a subtitle template', async () => {
        // The switcher is a radio group: focus it and move with the arrow keys.
        await page.getByRole('radio', { name: 'Table' }).focus();
        await page.keyboard.press('ArrowRight');
        assert.equal(await page.getByRole('radio', { name: 'Cards' }).isChecked(), true);
        await page.waitForURL(/\/admin\/content\/photos\?layout=cards$/);
        await cards().first().waitFor();
        assert.equal(await cards().count(), 25, 'one page of cards');
        assert.deepEqual(
          await page.locator('.card-title').evaluateAll((e) => e.slice(0, 3).map((x) => x.textContent)),
          ['Sunset', 'Forest', 'Harbour'],
        );
        const images = page.locator('.card-image img');
        assert.equal(await images.count(), 8, 'the photos with an image');
        const first = images.first();
        assert.match((await first.getAttribute('src'))!, /^\/assets\/[0-9a-f-]+\?width=\d+&height=\d+&fit=cover$/);
        await page.waitForFunction(() =>
          [...document.querySelectorAll<HTMLImageElement>('.card-image img')].every(
            (i) => i.complete && i.naturalWidth,
          ),
        );
        await options(page, 'Card options');
        await page.getByLabel('Subtitle').fill('{{caption}}');
        await page.getByLabel('Subtitle').press('Enter');
        await options(page, 'Card options');
        await page.locator('.card-subtitle').first().filter({ hasText: 'Over the bay' }).waitFor();
        await shot('cards');
        await docShot('cards');
      });

      it('loads the next page of cards at the grid’s end', async () => {
        await page.locator('.cards-end').scrollIntoViewIfNeeded();
        await page.waitForFunction(() => document.querySelectorAll('.item-card').length === 30);
        await page.getByRole('status').filter({ hasText: '30 of 30' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
        await page.evaluate(() => window.scrollTo(0, 0));
      });

      it('applies the search and filters to the cards', async () => {
        await page.getByLabel('Search').fill('forest');
        await page.getByRole('status').filter({ hasText: '1 of 1' }).waitFor();
        assert.deepEqual(await page.locator('.card-title').allInnerTexts(), ['Forest']);
        await page.getByLabel('Search').fill('');
        await page.getByRole('status').filter({ hasText: '25 of 30' }).waitFor();
      });

      it('opens a card’s item; Ctrl-click and middle-click open it in a new tab', async () => {
        const sunset = page.getByRole('link', { name: /Sunset/ });
        for (const click of [{ modifiers: ['Control' as const] }, { button: 'middle' as const }]) {
          const opened = context.waitForEvent('page');
          await sunset.click(click);
          const tab = await opened;
          await tab.waitForLoadState();
          assert.match(tab.url(), /\/admin\/content\/photos\/1$/);
          await tab.close();
          assert.match(page.url(), /\?layout=cards$/, 'the page itself stays');
        }
        await sunset.click();
        await page.waitForURL(/\/admin\/content\/photos\/1$/);
        await page.getByRole('form', { name: 'photos item' }).waitFor();
        await page.goBack();
        await cards().first().waitFor();
      });

      it('remembers cards on reload and when the collection is opened again without the URL saying so', async () => {
        await page.reload();
        await cards().first().waitFor();
        assert.equal(await page.getByRole('radio', { name: 'Cards' }).isChecked(), true);
        assert.equal(await page.locator('.card-subtitle').first().innerText(), 'Over the bay', 'the options too');
        await page.goto(`${base}/admin/content/photos`);
        await cards().first().waitFor();
        await page.waitForURL(/\?layout=cards$/);
      });

      it('places items on their days in the calendar, reading only the shown weeks, and moves between months', async () => {
        itemReads.length = 0;
        await choose(page, 'Calendar');
        await page.waitForURL(/\?layout=calendar$/);
        await day(`${thisMonth}-03`).getByRole('link', { name: 'Sunset' }).waitFor();
        assert.equal(await day(`${thisMonth}-17`).getByRole('link', { name: 'Forest' }).count(), 1);
        assert.equal(await day(`${thisMonth}-18`).getByRole('link').count(), 0, 'no end field chosen yet');
        assert.equal(
          await page.locator('table.calendar td:not(.outside) a.entry').count(),
          2,
          'undated items are not placed',
        );
        const read = itemReads.find((u) => u.includes('filter'));
        // One range on the date field (an index serves it), covering the month's weeks and no more.
        const [, from, to] =
          /"taken":\{"_between":\["(\d{4}-\d\d-\d\d)","(\d{4}-\d\d-\d\d)"\]\}/.exec(read ?? '') ?? [];
        assert.ok(from && to, read);
        assert.ok(from <= `${thisMonth}-01` && to >= `${thisMonth}-28` && to < `${nextMonth}-08`, `${from}..${to}`);
        const today = `${thisMonth}-${pad(now.getDate())}`;
        assert.equal(await day(today).getAttribute('aria-current'), 'date');

        await options(page, 'Calendar options');
        await page.getByLabel('End date field').selectOption('until');
        await options(page, 'Calendar options');
        for (const d of ['17', '18', '19'])
          await day(`${thisMonth}-${d}`).getByRole('link', { name: 'Forest' }).waitFor();
        await shot('calendar');
        await docShot('calendar');

        await page.getByRole('button', { name: 'Next month' }).click();
        await day(`${nextMonth}-05`).getByRole('link', { name: 'Harbour' }).waitFor();
        assert.equal(await page.getByRole('link', { name: 'Sunset' }).count(), 0);
        await page.getByRole('button', { name: 'Today' }).click();
        await day(`${thisMonth}-03`).getByRole('link', { name: 'Sunset' }).waitFor();
        await page.getByRole('button', { name: 'Previous month' }).click();
        await page.getByRole('button', { name: 'Next month' }).click();
        await day(`${thisMonth}-03`).getByRole('link', { name: 'Sunset' }).waitFor();
      });

      it('places items by a timestamp (in the browser’s zone) and a date-time field', async () => {
        await options(page, 'Calendar options');
        await page.getByLabel('End date field').selectOption({ label: 'None' });
        await page.getByLabel('Date field', { exact: true }).selectOption('shot_at');
        await day(`${thisMonth}-08`).getByRole('link', { name: 'Sunset' }).waitFor();
        assert.equal(await page.locator('table.calendar td:not(.outside) a.entry').count(), 1);
        await page.getByLabel('Date field', { exact: true }).selectOption('posted');
        await day(`${thisMonth}-11`).getByRole('link', { name: 'Forest' }).waitFor();
        assert.equal(await page.locator('table.calendar td:not(.outside) a.entry').count(), 1);
        await page.getByLabel('Date field', { exact: true }).selectOption('taken');
        await page.getByLabel('End date field').selectOption('until');
        await options(page, 'Calendar options');
        await day(`${thisMonth}-18`).getByRole('link', { name: 'Forest' }).waitFor();
      });

      it('opens a calendar entry in a new tab by Ctrl-click, and remembers the calendar on reload', async () => {
        const opened = context.waitForEvent('page');
        await day(`${thisMonth}-03`)
          .getByRole('link', { name: 'Sunset' })
          .click({ modifiers: ['Control'] });
        const tab = await opened;
        await tab.waitForLoadState();
        assert.match(tab.url(), /\/admin\/content\/photos\/1$/);
        await tab.close();
        await page.reload();
        await day(`${thisMonth}-19`).getByRole('link', { name: 'Forest' }).waitFor();
        assert.equal(await page.getByRole('radio', { name: 'Calendar' }).isChecked(), true);
      });

      it('fits a phone’s width in the dark: the calendar as a list of days, cards two abreast', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        await page.emulateMedia({ colorScheme: 'dark' });
        await day(`${thisMonth}-03`).getByRole('link', { name: 'Sunset' }).waitFor();
        assert.equal(await noSideScroll(), 0);
        assert.equal(await day(`${thisMonth}-04`).isVisible(), false, 'days without items are left out');
        await shot('calendar-phone');
        await choose(page, 'Cards');
        await cards().first().waitFor();
        assert.equal(await noSideScroll(), 0);
        const [a, b] = await cards().evaluateAll((e) => e.slice(0, 2).map((x) => x.getBoundingClientRect().top));
        assert.equal(a, b, 'two cards in a row');
        await shot('cards-phone');
        await page.setViewportSize({ width: 1280, height: 860 });
        await page.emulateMedia({ colorScheme: 'light' });
        await choose(page, 'Table');
        await page.waitForURL(/\/admin\/content\/photos$/);
        await page.locator('.pager [role="status"]').filter({ hasText: 'of 30' }).waitFor();
        assert.deepEqual(violations, []);
      });

      it('shows a user only what they may read: no images without the image field and files, no caption', async () => {
        const policy = await createPolicy(t, {
          app_access: true,
          permissions: [{ collection: 'photos', action: 'read', fields: 'id,title,taken' }],
        });
        const { id } = await createUserWithPolicies(t, [policy], { email: 'viewer@example.com' });
        const password = await t.request({
          method: 'PATCH',
          url: `/users/${id}`,
          payload: { password: 'viewer-pass-1' },
        });
        assert.equal(password.statusCode, 200, password.body);
        await t.context.permissionsChanged();
        const own = await context.browser()!.newContext({ viewport: { width: 1280, height: 860 } });
        const viewer = await own.newPage();
        viewer.setDefaultTimeout(15_000);
        const denied: string[] = [];
        viewer.on('response', (r) => {
          if (r.status() === 403) denied.push(r.url());
        });
        await signIn(viewer, 'viewer@example.com', 'viewer-pass-1');
        await viewer.goto(`${base}/admin/content/photos?layout=cards`);
        await viewer.locator('.card-title').filter({ hasText: 'Sunset' }).waitFor();
        assert.equal(await viewer.locator('.card-image img').count(), 0);
        assert.equal(await viewer.locator('.card-subtitle').count(), 0);
        await options(viewer, 'Card options');
        assert.deepEqual(await viewer.getByLabel('Image', { exact: true }).locator('option').allInnerTexts(), ['None']);
        await choose(viewer, 'Calendar');
        await viewer.locator(`td[data-date="${thisMonth}-03"]`).getByRole('link', { name: 'Sunset' }).waitFor();
        await options(viewer, 'Calendar options');
        assert.deepEqual(await viewer.getByLabel('End date field').locator('option').allInnerTexts(), [
          'None',
          'Taken',
        ]);
        assert.deepEqual(denied, []);
        await own.close();
      });
    },
  );
}

for (const client of testClients()) layoutsSuite(client);
