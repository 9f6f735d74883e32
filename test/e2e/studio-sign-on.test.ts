/**
 * Studio's sign-in screen with single sign-on providers, in chromium, on each database the machine has: against a
 * real OpenID Connect provider on loopback (oidc-provider), the provider's button, the round trip through the
 * provider's sign-in page, the app signed in (session mode) on return, and a refused sign-in shown with its reason;
 * against a real directory (Debian's slapd), the directory's own tab and form (identifier and password), a wrong
 * password refused in place, and a first sign-in that creates the user and opens the app.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DbClient } from '../../src/config/config.js';
import { freePort } from '../helpers/child-server.js';
import { slapdAvailable, TestLdap } from '../helpers/ldap-server.js';
import { startOidcServer, type OidcServer } from '../helpers/oidc-server.js';
import { json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { chromiumPath, launch } from './browser.js';

const executable = chromiumPath();

const SUFFIX = 'dc=example,dc=org';
const SERVICE_DN = `cn=reader,${SUFFIX}`;
const SERVICE_PASSWORD = 'reader-secret-e2e-7d1f';
/** Frank's directory group is named as the Administrator role: his first sign-in makes him a user of it. */
const LDIF = `dn: ${SUFFIX}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ou=people,${SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=groups,${SUFFIX}
objectClass: organizationalUnit
ou: groups

dn: ${SERVICE_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: ${SERVICE_PASSWORD}

dn: uid=frank,ou=people,${SUFFIX}
objectClass: inetOrgPerson
uid: frank
cn: Frank Fischer
sn: Fischer
givenName: Frank
mail: frank@example.org
userPassword: frank-directory-pass

dn: cn=Administrator,ou=groups,${SUFFIX}
objectClass: groupOfNames
cn: Administrator
member: uid=frank,ou=people,${SUFFIX}
`;

function ldapEnv(url: string): Record<string, string> {
  return {
    AUTH_CORP_DRIVER: 'ldap',
    AUTH_CORP_LABEL: 'Corporate directory',
    AUTH_CORP_CLIENT_URL: url,
    AUTH_CORP_BIND_DN: SERVICE_DN,
    AUTH_CORP_BIND_PASSWORD: SERVICE_PASSWORD,
    AUTH_CORP_USER_DN: `ou=people,${SUFFIX}`,
    AUTH_CORP_USER_ATTRIBUTE: 'uid',
    AUTH_CORP_GROUP_DN: `ou=groups,${SUFFIX}`,
  };
}

function signOnSuite(client: DbClient): void {
  describe(
    `Studio single sign-on in chromium (${clientLabel(client)})`,
    {
      skip: !executable
        ? 'chromium is not installed (apt-get install -y chromium)'
        : !slapdAvailable() && 'slapd is not installed (apt-get install -y slapd ldap-utils)',
    },
    () => {
      let browser: Browser | undefined;
      let t: TestApp;
      let oidc: OidcServer;
      let ldap: TestLdap;
      let page: Page;
      let base: string;

      before(async () => {
        ldap = await TestLdap.start(SUFFIX, SERVICE_DN, LDIF);
        const port = await freePort();
        const issuer = `http://127.0.0.1:${port}`;
        const oauth = { CLIENT_ID: 'strata-test', CLIENT_SECRET: 'provider-client-secret-do-not-leak' };
        t = await startTestApp(client, {
          fixture: false,
          env: {
            ...ldapEnv(ldap.url),
            AUTH_PROVIDERS: 'company,corp',
            AUTH_COMPANY_DRIVER: 'openid',
            AUTH_COMPANY_ISSUER_URL: issuer,
            AUTH_COMPANY_CLIENT_ID: oauth.CLIENT_ID,
            AUTH_COMPANY_CLIENT_SECRET: oauth.CLIENT_SECRET,
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
          payload: {
            email: 'dana@example.com',
            provider: 'company',
            external_identifier: 'dana-sub',
            role: roles[0].id,
          },
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
        await ldap?.close();
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

      it("signs in through a directory provider's own form", async () => {
        await page.context().clearCookies();
        await page.goto(`${base}/admin/`);
        // A directory has no page of its own to send the browser to: no link, a tab of the sign-in form instead.
        assert.equal(await page.getByRole('link', { name: /Corporate directory/ }).count(), 0);
        await page.getByRole('tab', { name: 'Corporate directory' }).click();
        await page.getByLabel('Identifier').fill('frank');
        await page.getByLabel('Password').fill('not-franks-password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').getByText('Wrong identifier or password.').waitFor();
        await page.getByLabel('Password').fill('frank-directory-pass');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        const cookies = await page.context().cookies(base);
        assert.ok(cookies.some((c) => c.name === 'service_session_token' && c.httpOnly));
        const filter = encodeURIComponent(JSON.stringify({ provider: { _eq: 'corp' } }));
        const users = json(await t.request({ method: 'GET', url: `/users?filter=${filter}&fields=email,role.name` }));
        assert.deepEqual(users.data, [{ email: 'frank@example.org', role: { name: 'Administrator' } }]);
      });
    },
  );
}

for (const client of testClients()) signOnSuite(client);
