/**
 * Strata Studio's screens before sign-in that go by mail, in chromium (playwright-core, Debian's chromium), against a
 * real SMTP server process: "forgot password" to the mailed link's reset screen and a sign-in with the new password,
 * the accept-invite screen, and the sign-up screen once the project opens registration.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { mailLink, SmtpSink } from '../helpers/smtp-sink.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumPath, launch, screenshot } from './browser.js';

const executable = chromiumPath();
/** The links' address in the mails; the test opens their path on the server it started. */
const PUBLIC_URL = 'http://studio.test';

function accountsSuite(client: DbClient): void {
  describe(
    `Studio password reset, invitation and sign-up in chromium (${clientLabel(client)})`,
    { skip: executable ? false : 'chromium is not installed (apt-get install -y chromium)' },
    () => {
      let browser: Browser | undefined;
      let sink: SmtpSink;
      let t: TestApp;
      let base: string;
      let page: Page;
      let adminRole: string;
      const violations: string[] = [];
      /** The mailed link's path and query, on this server. */
      const follow = async (to: string, path: string) => {
        const { url } = mailLink(await sink.next(to));
        assert.equal(url.pathname, path);
        await page.goto(`${base}${url.pathname}${url.search}`);
      };
      const signIn = async (email: string, password: string) => {
        await page.goto(`${base}/admin/`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('button', { name: 'Sign in' }).waitFor();
      };

      before(async () => {
        browser = await launch(executable!);
        sink = await SmtpSink.start();
        t = await startTestApp(client, {
          fixture: false,
          env: { ...sink.env(), PUBLIC_URL, REGISTER_STALL_TIME: '20', RATE_LIMITER_PASSWORD_REQUEST_ENABLED: 'false' },
        });
        base = await listenOnLoopback(t);
        // Studio shows its shell to users who may read themselves: the test's users are admins.
        const roles = await t.request({ method: 'GET', url: '/roles?filter[name][_eq]=Administrator&fields=id' });
        adminRole = json(roles).data[0].id;
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.setDefaultTimeout(15_000);
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
            violations.push(message.text());
        });
      });
      after(async () => {
        await browser?.close();
        await t?.close();
        await sink?.stop();
      });

      it('asks for a reset link, sets a new password from the mail, signs in with it', async () => {
        const created = await t.request({
          method: 'POST',
          url: '/users',
          payload: { email: 'reader@example.com', password: 'old-password-1', status: 'active', role: adminRole },
        });
        assert.equal(created.statusCode, 200, created.body);
        await page.goto(`${base}/admin/`);
        assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await page.getByLabel('Email').fill('reader@example.com');
        await page.getByRole('button', { name: 'Reset your password' }).click();
        await page.getByRole('status').getByText('a link to reset its password is on its way').waitFor();
        await screenshot(page, 'forgot-password', false);

        await follow('reader@example.com', '/admin/reset-password');
        await page.getByLabel('New password', { exact: true }).fill('new-password-22');
        await page.getByRole('button', { name: 'Choose a new password' }).click();
        await page.getByRole('status').getByText('Your password is changed').waitFor();
        await signIn('reader@example.com', 'new-password-22');

        // The same link again: spent.
        await page.goto(`${base}/admin/reset-password?token=spent-or-unknown`);
        await page.getByLabel('New password', { exact: true }).fill('another-password-3');
        await page.getByRole('button', { name: 'Choose a new password' }).click();
        await page.getByRole('alert').getByText('expired or was already used').waitFor();
      });

      it('accepts an invitation from the mailed link', async () => {
        const role = adminRole;
        const invited = await t.request({
          method: 'POST',
          url: '/users/invite',
          payload: { email: 'editor@example.com', role },
        });
        assert.equal(invited.statusCode, 204, invited.body);
        await follow('editor@example.com', '/admin/accept-invite');
        await page.getByLabel('New password', { exact: true }).fill('editor-password-1');
        await page.getByRole('button', { name: 'Accept your invitation' }).click();
        await page.getByRole('status').getByText('Your account is ready').waitFor();
        const login = await t.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: 'editor@example.com', password: 'editor-password-1' },
          token: null,
        });
        assert.equal(login.statusCode, 200, login.body);
      });

      it('signs up once the project opens registration, and verifies the address', async () => {
        const patched = await t.request({
          method: 'PATCH',
          url: '/settings',
          payload: { public_registration: true, public_registration_role: adminRole },
        });
        assert.equal(patched.statusCode, 200, patched.body);
        t.context.settings.clear();
        await page.goto(`${base}/admin/`);
        await page.getByRole('link', { name: 'Create an account' }).click();
        await page.getByLabel('Email').fill('member@example.com');
        await page.getByLabel('First name').fill('Mem');
        await page.getByLabel('Password').fill('member-password-1');
        await page.getByRole('button', { name: 'Create an account' }).click();
        await page.getByRole('status').getByText('Follow the link we mailed you').waitFor();
        await screenshot(page, 'sign-up', false);
        const { url } = mailLink(await sink.next('member@example.com'));
        assert.equal(url.pathname, '/users/register/verify-email');
        // The API activates the user and redirects to Studio at PUBLIC_URL (not this loopback server).
        const verified = await t.request({ method: 'GET', url: `${url.pathname}${url.search}`, token: null });
        assert.equal(verified.statusCode, 302, verified.body);
        assert.equal(verified.headers.location, `${PUBLIC_URL}/admin`);
        await signIn('member@example.com', 'member-password-1');
        assert.deepEqual(violations, []);
      });
    },
  );
}

for (const client of testClients()) accountsSuite(client);
