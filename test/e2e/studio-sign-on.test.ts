/**
 * Studio's sign-in screen with a single sign-on provider, in chromium against a real OpenID Connect provider on
 * loopback (oidc-provider): the provider's button, the round trip through the provider's sign-in page, the app
 * signed in (session mode) on return, and a refused sign-in shown with its reason. SQLite only: the flow's database
 * work is the same on every database and test/api/single-sign-on.test.ts runs it on all three.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../helpers/child-server.js';
import { startOidcServer, type OidcServer } from '../helpers/oidc-server.js';
import { json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { testClients } from '../helpers/test-db.js';
import { chromiumPath, launch } from './browser.js';

const executable = chromiumPath();

describe(
  'Studio single sign-on in chromium (sqlite)',
  {
    skip: !executable
      ? 'chromium is not installed (apt-get install -y chromium)'
      : !testClients().includes('sqlite3') && 'SQLite is not among the test databases',
  },
  () => {
    let browser: Browser | undefined;
    let t: TestApp;
    let oidc: OidcServer;
    let page: Page;
    let base: string;

    before(async () => {
      const port = await freePort();
      const issuer = `http://127.0.0.1:${port}`;
      const client = { CLIENT_ID: 'strata-test', CLIENT_SECRET: 'provider-client-secret-do-not-leak' };
      t = await startTestApp('sqlite3', {
        fixture: false,
        env: {
          AUTH_PROVIDERS: 'company',
          AUTH_COMPANY_DRIVER: 'openid',
          AUTH_COMPANY_ISSUER_URL: issuer,
          AUTH_COMPANY_CLIENT_ID: client.CLIENT_ID,
          AUTH_COMPANY_CLIENT_SECRET: client.CLIENT_SECRET,
          AUTH_COMPANY_LABEL: 'Company account',
        },
      });
      base = await listenOnLoopback(t);
      oidc = await startOidcServer([`${base}/auth/login/company/callback`], port);
      oidc.accounts.set('dana-sub', { email: 'dana@example.com', email_verified: true });
      // Dana is an admin here, known by the provider's identifier (Studio needs a role that may read the app).
      const roles = json(await t.request({ method: 'GET', url: '/roles?fields=id,name' })).data as { id: string }[];
      const user = await t.request({
        method: 'POST',
        url: '/users',
        payload: { email: 'dana@example.com', provider: 'company', external_identifier: 'dana-sub', role: roles[0].id },
      });
      assert.equal(user.statusCode, 200, user.body);
      browser = await launch(executable!);
      page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(15_000);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await oidc?.close();
    });

    it('signs in through the provider and comes back signed in', async () => {
      await page.goto(`${base}/admin/`);
      await page.getByRole('link', { name: 'Sign in with Company account' }).click();
      await page.getByLabel('Account').fill('dana-sub');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${base}/admin/**`);
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      const cookies = await page.context().cookies(base);
      assert.ok(cookies.some((c) => c.name === 'service_session_token' && c.httpOnly));
    });

    it('shows why a sign-in was refused', async () => {
      await page.context().clearCookies();
      await page.goto(`${base}/admin/`);
      await page.getByRole('link', { name: 'Sign in with Company account' }).click();
      // An account the provider knows but Strata has none for, with registration off.
      oidc.accounts.set('erin-sub', { email: 'erin@example.com' });
      await page.getByLabel('Account').fill('erin-sub');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('alert').getByText('there is no account here for you').waitFor();
      assert.ok(!page.url().includes('reason='), 'the reason is taken out of the address');
    });
  },
);
