/**
 * Strata Studio's flows in chromium (playwright-core, Debian's chromium), on each database the machine has: a
 * webhook flow built through the UI (a log and a request operation, in order), run; switched to an action event, its
 * failed delivery in the log and replayed; a manual flow run from an item page's button; an operation removed.
 * Screenshots go to STUDIO_FLOWS_SHOTS (a folder) when it is set, for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { FlowReceiver, until } from '../helpers/flow-receiver.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();

function flowsSuite(client: DbClient): void {
  describe(
    `Studio flows in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let base: string;
      let page: Page;
      let flowId: string;
      let itemId: number;
      const receiver = new FlowReceiver();
      const violations: string[] = [];
      const shots = process.env.STUDIO_FLOWS_SHOTS;
      const shot = async (name: string) => {
        if (client === 'sqlite3' && ['flow-editor', 'flow-deliveries'].includes(name)) await screenshot(page, name);
        if (!shots) return;
        mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: path.join(shots, `${client}-${name}.png`), fullPage: true });
      };
      const api = async (url: string) => json(await t.request({ method: 'GET', url })).data;
      const status = (text: string) => page.getByRole('status').getByText(text).waitFor();
      const operations = () => page.getByRole('list', { name: 'Operations in order' }).getByRole('listitem');

      before(async () => {
        await receiver.start();
        browser = await launch(executable!);
        t = await startTestApp(client, {
          fixture: false,
          env: { FLOWS_DELIVERY_ATTEMPTS: '1', FLOWS_DELIVERY_POLL: '100', FLOWS_RUN_TIMEOUT: '5s' },
        });
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
        itemId = json(item).data.id;
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
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
      });
      after(async () => {
        await browser?.close();
        await t?.close();
        await receiver.stop();
      });

      it('creates a webhook flow from the Flows page and opens it in the editor', async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows' }).click();
        await page.getByRole('button', { name: 'Create flow' }).click();
        await page.getByLabel('Name').fill('Notify receiver');
        await page.getByLabel('Trigger').selectOption('webhook');
        await page.getByRole('button', { name: 'Create and edit' }).click();
        await page.getByRole('heading', { name: 'Flow · Notify receiver' }).waitFor();
        flowId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
        await page.locator('#trigger-method').selectOption('POST');
        await page.getByLabel('Colour').fill('#1F8A4C');
        await page.getByRole('button', { name: 'Save flow' }).click();
        await status('Flow saved.');
        const flow = await api(`/flows/${flowId}`);
        assert.equal(flow.trigger, 'webhook');
        assert.deepEqual(flow.options, { method: 'POST' });
        assert.equal(flow.color, '#1F8A4C');
      });

      it('adds a log and then a request operation, chained in that order', async () => {
        await page.getByRole('button', { name: 'Add operation' }).click();
        await page.locator('#op-name').fill('Note it');
        await page.locator('#op-type').selectOption('log');
        await page.locator('#opt-message').fill('Got {{ $trigger.body.title }}');
        await page.getByRole('form', { name: 'New operation' }).getByRole('button', { name: 'Add operation' }).click();
        await status('Added Note it.');
        await page.getByRole('button', { name: 'Add operation' }).click();
        await page.locator('#op-name').fill('Call receiver');
        await page.locator('#op-type').selectOption('request');
        await page.locator('#opt-method').selectOption('POST');
        await page.locator('#opt-url').fill(`${receiver.url}/hook`);
        await page.locator('#opt-headers').fill('X-Test: yes');
        await page.locator('#opt-body').fill('{"title": "{{ $trigger.body.title }}"}');
        assert.equal(
          await page.locator('#op-slot').inputValue(),
          (await api(`/flows/${flowId}`)).operation + ':resolve',
        );
        await shot('flow-operation-form');
        await page.getByRole('form', { name: 'New operation' }).getByRole('button', { name: 'Add operation' }).click();
        await status('Added Call receiver.');
        assert.deepEqual(
          (await operations().allInnerTexts()).map((text) => text.split('\n')[0]),
          ['first', 'after Note it, on success'],
        );
        const flow = await api(`/flows/${flowId}`);
        const ops = await api(`/operations?filter[flow][_eq]=${flowId}`);
        const log = ops.find((o: any) => o.key === 'note_it');
        const request = ops.find((o: any) => o.key === 'call_receiver');
        assert.equal(flow.operation, log.id);
        assert.equal(log.resolve, request.id);
        assert.deepEqual(log.options, { message: 'Got {{ $trigger.body.title }}' });
        assert.deepEqual(request.options, {
          method: 'POST',
          url: `${receiver.url}/hook`,
          headers: [{ header: 'X-Test', value: 'yes' }],
          body: '{"title": "{{ $trigger.body.title }}"}',
        });
        await shot('flow-editor');
      });

      it('runs when its webhook is called, and from the editor’s Run button', async () => {
        const called = await t.request({
          method: 'POST',
          url: `/flows/trigger/${flowId}`,
          payload: { title: 'Hello' },
        });
        assert.equal(called.statusCode, 200, called.body);
        assert.equal(receiver.received.length, 1);
        assert.deepEqual(receiver.bodies()[0], { title: 'Hello' });
        assert.equal(receiver.received[0]!.headers['x-test'], 'yes');
        await page.getByRole('button', { name: 'Run webhook' }).click();
        await page.getByRole('region', { name: 'Webhook answer' }).getByText('"ok": true').waitFor();
        assert.equal(receiver.received.length, 2);
      });

      it('switched to an action event: a failed delivery shows in the log, and Replay delivers it', async () => {
        await page.getByLabel('Trigger', { exact: true }).selectOption('event');
        await page.locator('#trigger-type').selectOption('action');
        await page.getByRole('group', { name: 'Scope' }).getByLabel('items.create').check();
        await page.getByRole('group', { name: 'Collections' }).getByLabel('pages').check();
        await page.getByRole('button', { name: 'Save flow' }).click();
        await status('Flow saved.');
        await page.getByRole('button', { name: 'Edit operation call_receiver' }).click();
        await page.locator('#opt-body').fill('{"title": "{{ $trigger.payload.headline }}"}');
        await page.getByRole('button', { name: 'Save operation' }).click();
        await status('Saved Call receiver.');
        receiver.answer = () => 500;
        const before = receiver.received.length;
        await t.request({ method: 'POST', url: '/items/pages', payload: { headline: 'Evented' } });
        const log = page.getByRole('region', { name: 'Delivery log' });
        await until('a failed delivery in the log', async () => {
          await log.getByRole('button', { name: 'Refresh' }).click();
          return (await log.locator('.badge.failed').count()) === 1;
        });
        assert.match(await log.locator('.delivery-error').first().innerText(), /500/);
        await shot('flow-deliveries-failed');
        receiver.answer = () => 200;
        await log.getByRole('button', { name: /^Replay delivery/ }).click();
        await until('the replayed delivery delivered', async () => {
          await log.getByRole('button', { name: 'Refresh' }).click();
          return (await log.locator('.badge.delivered').count()) === 1;
        });
        assert.equal(receiver.received.length, before + 1);
        assert.deepEqual(receiver.bodies().at(-1), { title: 'Evented' });
        await shot('flow-deliveries');
      });

      it('removes the first operation: the one after it becomes the first', async () => {
        await page.getByRole('button', { name: 'Remove operation note_it' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
        await status('Removed Note it.');
        assert.equal(await operations().count(), 1);
        const flow = await api(`/flows/${flowId}`);
        const ops = await api(`/operations?filter[flow][_eq]=${flowId}`);
        assert.deepEqual(
          ops.map((o: any) => o.key),
          ['call_receiver'],
        );
        assert.equal(flow.operation, ops[0].id);
      });

      it('runs a manual flow from a button on an item page of its collection', async () => {
        await page.goto(`${base}/admin/flows`);
        await page.getByRole('button', { name: 'Create flow' }).click();
        await page.getByLabel('Name').fill('Stamp page');
        await page.getByLabel('Trigger').selectOption('manual');
        await page.getByRole('button', { name: 'Create and edit' }).click();
        await page.getByRole('heading', { name: 'Flow · Stamp page' }).waitFor();
        await page.getByRole('group', { name: 'Collections' }).getByLabel('pages').check();
        await page.locator('#trigger-location').selectOption('item');
        await page.getByRole('button', { name: 'Save flow' }).click();
        await status('Flow saved.');
        await page.getByRole('button', { name: 'Add operation' }).click();
        await page.locator('#op-name').fill('Stamp');
        await page.locator('#op-type').selectOption('item-update');
        await page.locator('#opt-collection').selectOption('pages');
        await page.locator('#opt-key').fill('{{ $trigger.body.keys }}');
        await page.locator('#opt-payload').fill('{"headline": "Stamped"}');
        await page.locator('#opt-permissions').selectOption('$trigger');
        await page.getByRole('form', { name: 'New operation' }).getByRole('button', { name: 'Add operation' }).click();
        await status('Added Stamp.');
        await page.goto(`${base}/admin/content/pages/${itemId}`);
        await page.getByRole('group', { name: 'Flows' }).getByRole('button', { name: '▶ Stamp page' }).click();
        await status('Ran Stamp page.');
        assert.equal((await api(`/items/pages/${itemId}`)).headline, 'Stamped');
        // The form shows what the flow did to the item.
        await page.waitForFunction(
          () => (document.querySelector('#field-headline') as HTMLInputElement)?.value === 'Stamped',
        );
        await shot('flow-manual-button');
      });

      it('shows an app user the manual flow’s button on the item page, and no Flows page', async () => {
        const policy = await createPolicy(t, {
          app_access: true,
          permissions: [
            { collection: 'pages', action: 'read' },
            { collection: 'pages', action: 'update' },
          ],
        });
        const editor = await createUserWithPolicies(t, [policy], { email: 'flow-editor@example.com' });
        await t.context.permissionsChanged();
        const set = await t.request({
          method: 'PATCH',
          url: `/users/${editor.id}`,
          payload: { password: 'editor-password-1' },
        });
        assert.equal(set.statusCode, 200, set.body);
        await t.request({ method: 'PATCH', url: `/items/pages/${itemId}`, payload: { headline: 'Back again' } });
        const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
        const other = await context.newPage();
        other.setDefaultTimeout(15_000);
        await other.goto(`${base}/admin/`);
        await other.getByLabel('Email').fill('flow-editor@example.com');
        await other.getByLabel('Password').fill('editor-password-1');
        await other.getByRole('button', { name: 'Sign in' }).click();
        const nav = other.getByRole('navigation', { name: 'Main' });
        await nav.getByRole('link', { name: 'pages' }).waitFor();
        assert.equal(await nav.getByRole('link', { name: 'Flows' }).count(), 0);
        await other.goto(`${base}/admin/flows`);
        await other.getByRole('heading', { name: 'Not available' }).waitFor();
        await other.goto(`${base}/admin/content/pages/${itemId}`);
        await other.getByRole('group', { name: 'Flows' }).getByRole('button', { name: '▶ Stamp page' }).click();
        await other.getByRole('status').getByText('Ran Stamp page.').waitFor();
        assert.equal((await api(`/items/pages/${itemId}`)).headline, 'Stamped');
        await context.close();
      });

      it('lists the flows with status and trigger, fits a phone-width window, and nothing was blocked by the CSP', async () => {
        await page.goto(`${base}/admin/flows`);
        const rows = page.getByRole('table', { name: 'Flows' }).locator('tbody tr');
        await rows.nth(1).waitFor();
        const texts = await rows.allInnerTexts();
        assert.match(texts[0]!, /Notify receiver\s+active\s+Event hook/);
        assert.match(texts[1]!, /Stamp page\s+active\s+Manual/);
        await shot('flows-list');
        await page.setViewportSize({ width: 390, height: 800 });
        await page.goto(`${base}/admin/flows/${flowId}`);
        await page.getByRole('heading', { name: 'Flow · Notify receiver' }).waitFor();
        await page.getByRole('region', { name: 'Delivery log' }).locator('.badge.delivered').waitFor();
        await shot('flow-phone');
        assert.equal(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
          0,
        );
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(`${base}/admin/flows`);
        await page.getByRole('button', { name: 'Delete flow Stamp page' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await page.waitForFunction(() => !document.body.innerText.includes('Stamp page'));
        assert.equal((await api('/flows')).length, 1);
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) flowsSuite(client);
