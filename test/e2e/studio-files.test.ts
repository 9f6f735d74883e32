/**
 * Strata Studio's file library in chromium (playwright-core, Debian's chromium), on each database the machine has:
 * uploads by the picker and by drop, thumbnails, the metadata form, folders, and an item form's image field.
 * Screenshots go to STUDIO_FILES_SHOTS (a folder) when it is set, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();

/** A PNG of one colour with a white square in its top-left quarter (so a crop's position can be seen). */
async function png(width: number, height: number, colour: { r: number; g: number; b: number }): Promise<Buffer> {
  const square = await sharp({
    create: { width: width / 4, height: height / 4, channels: 3, background: { r: 255, g: 255, b: 255 } },
  })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .composite([{ input: square, left: width / 8, top: height / 8 }])
    .png()
    .toBuffer();
}

function filesSuite(client: DbClient): void {
  describe(
    `Studio file library in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let page: Page;
      let work: string;
      const violations: string[] = [];
      const shots = process.env.STUDIO_FILES_SHOTS;
      /** STUDIO_SCREENSHOTS=1 (from SQLite) also saves the README's screenshots of the library. */
      const docShot = (name: string) => (client === 'sqlite3' ? screenshot(page, name) : Promise.resolve());
      const shot = async (name: string) => {
        if (!shots) return;
        mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: path.join(shots, `${client}-${name}.png`), fullPage: true });
      };
      const files = () => page.getByRole('list', { name: 'Files' });
      const fileRows = async () =>
        json(await t.request({ method: 'GET', url: '/files?fields=id,title,folder,tags,description&sort=title' })).data;

      before(async () => {
        browser = await launch(executable!);
        t = await startTestApp(client, { fixture: false });
        base = await listenOnLoopback(t);
        work = mkdtempSync(path.join(tmpdir(), 'strata-studio-files-'));
        writeFileSync(path.join(work, 'sunset.png'), await png(320, 200, { r: 230, g: 110, b: 40 }));
        writeFileSync(path.join(work, 'forest.png'), await png(200, 240, { r: 40, g: 140, b: 70 }));
        writeFileSync(path.join(work, 'river.txt'), 'Uploaded into the open folder.\n');
        const created = await t.request({
          method: 'POST',
          url: '/collections',
          payload: {
            collection: 'posts',
            fields: [
              {
                field: 'id',
                type: 'integer',
                schema: { is_primary_key: true, has_auto_increment: true },
                meta: { hidden: true },
              },
              { field: 'headline', type: 'string', meta: { interface: 'input', sort: 1 } },
              { field: 'cover', type: 'uuid', meta: { interface: 'file-image', special: ['file'], sort: 2 } },
            ],
          },
        });
        assert.equal(created.statusCode, 200, created.body);
        // A gallery: the files interface, a many-to-many to service_files through a sorted junction.
        for (const [url, payload] of [
          [
            '/collections',
            {
              collection: 'posts_files',
              meta: { hidden: true },
              fields: [
                { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
                { field: 'posts_id', type: 'integer' },
                { field: 'service_files_id', type: 'uuid' },
                { field: 'sort', type: 'integer' },
              ],
            },
          ],
          [
            '/fields/posts',
            { field: 'gallery', type: 'alias', meta: { interface: 'files', special: ['files'], sort: 3 } },
          ],
          [
            '/relations',
            {
              collection: 'posts_files',
              field: 'posts_id',
              related_collection: 'posts',
              meta: { one_field: 'gallery', junction_field: 'service_files_id', sort_field: 'sort' },
              schema: { on_delete: 'CASCADE' },
            },
          ],
          [
            '/relations',
            {
              collection: 'posts_files',
              field: 'service_files_id',
              related_collection: 'service_files',
              meta: { one_field: null, junction_field: 'posts_id' },
              schema: { on_delete: 'CASCADE' },
            },
          ],
        ] as const) {
          const answer = await t.request({ method: 'POST', url, payload: payload as object });
          assert.equal(answer.statusCode, 200, `${url}: ${answer.body}`);
        }
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
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Files' }).click();
        await page.waitForURL(/\/admin\/files$/);
      });
      let step = 0;
      afterEach(() => shot(`after-${++step}`));
      after(async () => {
        await browser?.close();
        await t?.close();
        if (work) rmSync(work, { recursive: true, force: true });
      });

      it('uploads two images by the file picker and shows their thumbnails in the grid', async () => {
        const chooser = page.waitForEvent('filechooser');
        await page.getByRole('button', { name: 'Choose files' }).click();
        await (await chooser).setFiles([path.join(work, 'sunset.png'), path.join(work, 'forest.png')]);
        await files().getByRole('link', { name: 'Sunset', exact: true }).waitFor();
        await files().getByRole('link', { name: 'Forest', exact: true }).waitFor();
        // The thumbnails are the server's cover-fit variants, loaded and decoded by the browser.
        const thumbnail = files().locator('img.thumb').first();
        assert.match(
          String(await thumbnail.getAttribute('src')),
          /^\/assets\/[0-9a-f-]+\?width=200&height=200&fit=cover$/,
        );
        await page.waitForFunction(() =>
          [...document.querySelectorAll<HTMLImageElement>('.file-grid img.thumb')].every(
            (img) => img.complete && img.naturalWidth === 200 && img.naturalHeight === 200,
          ),
        );
        assert.equal(await files().locator('img.thumb').count(), 2);
        await shot('1-grid');
      });

      it('uploads a file dropped on the drop zone (a DataTransfer dispatch), shown by its type', async () => {
        const transfer = await page.evaluateHandle(() => {
          const data = new DataTransfer();
          data.items.add(new File(['Plain text, shown by its type.\n'], 'notes.txt', { type: 'text/plain' }));
          return data;
        });
        const zone = page.locator('.drop-zone');
        await zone.dispatchEvent('dragenter', { dataTransfer: transfer });
        await zone.dispatchEvent('drop', { dataTransfer: transfer });
        await files().getByRole('link', { name: 'Notes', exact: true }).waitFor();
        await files().getByText('TEXT', { exact: true }).waitFor();
        const rows = await fileRows();
        assert.equal(rows.length, 3);
      });

      it('switches to the table view and back', async () => {
        await page.getByRole('button', { name: 'Table' }).click();
        const table = page.getByRole('table', { name: 'Files' });
        await table.getByRole('cell', { name: 'image/png' }).first().waitFor();
        await table.getByRole('cell', { name: '320×200' }).waitFor();
        await shot('2-table');
        await page.getByRole('button', { name: 'Grid' }).click();
        await files().waitFor();
      });

      it('edits a file’s metadata (title, description, tags, focal point) and saves it', async () => {
        await files().getByRole('link', { name: 'Sunset', exact: true }).click();
        await page.waitForURL(/\/admin\/files\/[0-9a-f-]+$/);
        const form = page.getByRole('form', { name: 'File details' });
        await form.getByLabel('Title').fill('Sunset over the bay');
        await form.getByLabel('Description').fill('Orange sky, white sail.');
        await form.getByLabel('Tags').fill('sea, evening');
        // A click on the image's centre sets the focal point there (in the original's pixels).
        const image = page.locator('.focal img');
        await page.waitForFunction(() => (document.querySelector('.focal img') as HTMLImageElement)?.complete);
        await image.click();
        assert.equal(await form.getByLabel('Focal point X').inputValue(), '160');
        assert.equal(await form.getByLabel('Focal point Y').inputValue(), '100');
        await form.getByLabel('Focal point X').fill('80');
        await form.getByRole('button', { name: 'Save' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        await page.getByRole('heading', { name: 'Sunset over the bay' }).waitFor();
        await shot('3-file-page');
        await docShot('file-page');
        const id = page.url().split('/').pop();
        const row = json(
          await t.request({
            method: 'GET',
            url: `/files/${id}?fields=title,description,tags,focal_point_x,focal_point_y`,
          }),
        ).data;
        assert.deepEqual(row, {
          title: 'Sunset over the bay',
          description: 'Orange sky, white sail.',
          tags: ['sea', 'evening'],
          focal_point_x: 80,
          focal_point_y: 100,
        });
        await page.reload();
        assert.equal(await form.getByLabel('Tags').inputValue(), 'sea, evening');
        // Download is the original as an attachment.
        const download = String(await page.getByRole('link', { name: 'Download' }).getAttribute('href'));
        const original = await t.request({ method: 'GET', url: download });
        assert.equal(original.statusCode, 200);
        assert.match(String(original.headers['content-disposition']), /^attachment; filename="?sunset\.png/);
      });

      it('creates a folder, renames it, moves files into it (selection, upload, drag onto a folder), deletes a folder', async () => {
        await page.getByRole('button', { name: 'Back' }).click();
        await page.waitForURL(/\/admin\/files$/);
        await page.getByRole('button', { name: '+ New folder' }).click();
        await page.getByLabel('New folder name').fill('Landscapes');
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        const folders = page.getByRole('navigation', { name: 'Folders' });
        await folders.getByRole('button', { name: 'Landscapes' }).waitFor();
        await page.getByRole('heading', { name: 'Landscapes' }).waitFor();
        await page.getByRole('button', { name: 'Rename folder' }).click();
        await page.getByLabel('Folder name').fill('Views');
        await page.getByRole('button', { name: 'Rename', exact: true }).click();
        await folders.getByRole('button', { name: 'Views' }).waitFor();
        await page.getByText('No files here yet.').waitFor();

        await folders.getByRole('button', { name: 'All files' }).click();
        await files().getByRole('link', { name: 'Sunset over the bay' }).waitFor();
        // The thumbnail is cropped around the focal point, at an address of its own.
        const thumbnail = files()
          .getByRole('listitem')
          .filter({ has: page.getByRole('link', { name: 'Sunset over the bay' }) })
          .locator('img.thumb');
        assert.match(String(await thumbnail.getAttribute('src')), /&focal_point_x=80&focal_point_y=100$/);
        await page.getByLabel('Select Forest', { exact: true }).check();
        await page.getByLabel('Select Sunset over the bay').check();
        await page.getByLabel('Move to folder').selectOption({ label: 'Views' });
        await page.getByRole('button', { name: 'Move 2 selected' }).click();
        await page.getByRole('status').filter({ hasText: 'Moved 2 files to Views.' }).waitFor();

        await folders.getByRole('button', { name: 'Views' }).click();
        await page.waitForURL(/\/admin\/files\?folder=[0-9a-f-]+$/);
        await files().getByRole('link', { name: 'Forest', exact: true }).waitFor();
        await page.waitForFunction(() => document.querySelectorAll('.file-grid li.file-card').length === 2);
        // An upload goes into the open folder.
        const chooser = page.waitForEvent('filechooser');
        await page.getByRole('button', { name: 'Choose files' }).click();
        await (await chooser).setFiles(path.join(work, 'river.txt'));
        await files().getByRole('link', { name: 'River', exact: true }).waitFor();
        await shot('4-folder');
        await docShot('file-library');
        const folder = json(await t.request({ method: 'GET', url: '/folders?fields=id,name,parent' })).data;
        assert.deepEqual(
          folder.map((f: any) => [f.name, f.parent]),
          [['Views', null]],
        );
        const rows = await fileRows();
        assert.deepEqual(
          rows.map((r: any) => [r.title, r.folder === folder[0].id]),
          [
            ['Forest', true],
            ['Notes', false],
            ['River', true],
            ['Sunset over the bay', true],
          ],
        );

        // A file dragged onto a folder moves there.
        await files()
          .getByRole('listitem')
          .filter({ has: page.getByRole('link', { name: 'River', exact: true }) })
          .dragTo(folders.getByRole('button', { name: 'All files' }));
        await page.getByRole('status').filter({ hasText: 'Moved 1 file to All files (no folder).' }).waitFor();
        await page.waitForFunction(() => document.querySelectorAll('.file-grid li.file-card').length === 2);
        const river = json(
          await t.request({ method: 'GET', url: '/files?filter[title][_eq]=River&fields=folder' }),
        ).data;
        assert.deepEqual(river, [{ folder: null }]);

        // A folder is deleted after confirmation; its files stay.
        await page.getByRole('button', { name: 'Delete folder' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('button', { name: '+ New folder' }).click();
        await page.getByLabel('New folder name').fill('Drafts');
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('heading', { name: 'Drafts' }).waitFor();
        await page.getByRole('button', { name: 'Delete folder' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('status').filter({ hasText: 'Deleted the folder Drafts.' }).waitFor();
        await page.getByRole('heading', { name: 'Views' }).waitFor();
        assert.equal(await folders.getByRole('button', { name: 'Drafts' }).count(), 0);
        const names = json(await t.request({ method: 'GET', url: '/folders?fields=name,parent' })).data;
        assert.deepEqual(names, [{ name: 'Views', parent: null }]);
        await folders.getByRole('button', { name: 'All files' }).click();
      });

      it('picks an uploaded image in an item form’s image field, saves, and shows the thumbnail after a reload', async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'posts' }).click();
        await page.getByRole('button', { name: 'Create item' }).click();
        const form = page.getByRole('form', { name: 'posts item' });
        await form.getByLabel('Headline').fill('Evening light');
        const cover = form.getByRole('group', { name: 'Cover' });
        await cover.getByText('No image.').waitFor();
        await cover.getByRole('button', { name: 'Choose from library' }).click();
        // The image interface offers images only.
        await cover.getByRole('button', { name: 'Choose Forest' }).waitFor();
        assert.equal(await cover.getByRole('button', { name: 'Choose Notes' }).count(), 0);
        await cover.getByRole('button', { name: 'Choose Sunset over the bay' }).click();
        await cover.getByRole('img', { name: 'Cover: Sunset over the bay' }).waitFor();
        await shot('5-item-form');
        await form.getByRole('button', { name: 'Save and stay' }).click();
        await page.waitForURL(/\/admin\/content\/posts\/\d+$/);
        await page.reload();
        const image = page
          .getByRole('group', { name: 'Cover' })
          .getByRole('img', { name: 'Cover: Sunset over the bay' });
        await image.waitFor();
        await page.waitForFunction(
          () => (document.querySelector('.file-input img.thumb') as HTMLImageElement | null)?.naturalWidth === 96,
        );
        await shot('6-item-reloaded');
        const post = json(await t.request({ method: 'GET', url: '/items/posts?fields=headline,cover.title' })).data;
        assert.deepEqual(post, [{ headline: 'Evening light', cover: { title: 'Sunset over the bay' } }]);
      });

      it('replaces the image by an upload in the form, then removes it', async () => {
        const form = page.getByRole('form', { name: 'posts item' });
        const cover = form.getByRole('group', { name: 'Cover' });
        await cover.getByRole('button', { name: 'Upload a replacement' }).click();
        const chooser = page.waitForEvent('filechooser');
        await cover.getByRole('button', { name: 'Choose a file' }).click();
        await (await chooser).setFiles(path.join(work, 'forest.png'));
        await cover.getByRole('img', { name: 'Cover: Forest' }).waitFor();
        await form.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        const replaced = json(await t.request({ method: 'GET', url: '/items/posts?fields=cover.filename_download' }))
          .data[0];
        assert.deepEqual(replaced, { cover: { filename_download: 'forest.png' } });
        assert.equal((await fileRows()).length, 5, 'the upload added a file to the library');

        await cover.getByRole('button', { name: 'Remove' }).click();
        await cover.getByText('No image.').waitFor();
        await form.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        const removed = json(await t.request({ method: 'GET', url: '/items/posts?fields=cover' })).data[0];
        assert.deepEqual(removed, { cover: null });
      });

      it('adds files to a files field (from the library and by upload), orders them, removes one and saves', async () => {
        const form = page.getByRole('form', { name: 'posts item' });
        const gallery = form.getByRole('group', { name: 'Gallery' });
        await gallery.getByText('No files.').waitFor();
        await gallery.getByRole('button', { name: 'Add from library' }).click();
        await gallery.getByRole('button', { name: 'Choose Sunset over the bay' }).click();
        await gallery.getByRole('button', { name: 'Add from library' }).click();
        // A linked file cannot be added twice.
        assert.equal(await gallery.getByRole('button', { name: 'Choose Sunset over the bay' }).isDisabled(), true);
        await gallery.getByRole('button', { name: 'Choose Notes' }).click();
        await gallery.getByRole('button', { name: 'Upload files' }).click();
        const chooser = page.waitForEvent('filechooser');
        await gallery.getByRole('button', { name: 'Choose files' }).click();
        await (await chooser).setFiles([path.join(work, 'sunset.png'), path.join(work, 'forest.png')]);
        await gallery.getByRole('img', { name: 'Sunset', exact: true }).waitFor();
        await gallery.getByRole('img', { name: 'Forest', exact: true }).waitFor();
        await gallery.getByRole('button', { name: 'Remove Notes' }).click();
        await gallery.getByRole('button', { name: 'Move Sunset over the bay later' }).click();
        await shot('7-files-field');
        await form.getByRole('button', { name: 'Save and stay' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        const saved = json(
          await t.request({ method: 'GET', url: '/items/posts?fields=gallery.sort,gallery.service_files_id.title' }),
        ).data[0].gallery;
        saved.sort((a: any, b: any) => a.sort - b.sort);
        assert.equal(saved.length, 3);
        assert.equal(saved[1].service_files_id.title, 'Sunset over the bay');
        assert.deepEqual(saved.map((row: any) => row.service_files_id.title).sort(), [
          'Forest',
          'Sunset',
          'Sunset over the bay',
        ]);
        await page.reload();
        await page.getByRole('group', { name: 'Gallery' }).getByRole('img', { name: 'Sunset over the bay' }).waitFor();
        await page.waitForFunction(() =>
          [...document.querySelectorAll<HTMLImageElement>('.files-list img.thumb')].every((img) => img.complete),
        );
        await docShot('files-field');
      });

      it('deletes a file from its page after confirmation', async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Files' }).click();
        await files().getByRole('link', { name: 'Notes', exact: true }).click();
        await page.getByText('text/plain').waitFor();
        await page.getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL(/\/admin\/files$/);
        await files().getByRole('link', { name: 'Forest', exact: true }).first().waitFor();
        assert.equal(await files().getByRole('link', { name: 'Notes', exact: true }).count(), 0);
        assert.equal((await fileRows()).length, 6);
      });

      it('fits a phone-width window in the dark theme, and ran with nothing blocked by its Content-Security-Policy', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        await page.getByRole('button', { name: /^Theme/ }).click(); // auto → dark
        await files().getByRole('link', { name: 'Sunset over the bay' }).waitFor();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.equal(overflow, 0, 'nothing wider than the window');
        await shot('8-phone-dark');
        await files().getByRole('link', { name: 'Sunset over the bay' }).click();
        await page.getByRole('form', { name: 'File details' }).waitFor();
        assert.equal(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
          0,
        );
        await shot('9-phone-file');
        await page.setViewportSize({ width: 1280, height: 800 });
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) filesSuite(client);
