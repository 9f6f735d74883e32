/**
 * Single sign-on against a real OpenID Connect provider on loopback (oidc-provider), through the openid and oauth2
 * drivers: a new user is created with the provider's default role, a known one is matched by external_identifier,
 * cookie and session modes, and the attacks: a tampered state, a replayed callback, an injected code from another
 * flow, redirects off the allow-list, a provider that is down, registration off, password logins of SSO accounts
 * and AUTH_DISABLE_DEFAULT.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { freePort } from '../helpers/child-server.js';
import { signInAtProvider, startOidcServer, type OidcServer } from '../helpers/oidc-server.js';
import { errorCode, json, startSecondInstance, startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertCreateRecorded } from '../helpers/user-audit.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const PUBLIC = 'http://strata.test';
const ALLOWED = 'http://app.test/done';
const ROLE = '7b1e0c8a-5d2f-4f63-9a4e-2c9b0d1e3f40';
const FLOW = 'service_sso_flow';
const cookieOf = (response: LightMyRequestResponse, name: string) => response.cookies.find((c) => c.name === name);

function providerEnv(oidc: OidcServer, downPort: number): Record<string, string> {
  const client = { CLIENT_ID: oidc.clientId, CLIENT_SECRET: oidc.clientSecret };
  const env: Record<string, string> = {
    PUBLIC_URL: PUBLIC,
    AUTH_PROVIDERS: 'kc,gh,closed,down',
    AUTH_KC_DRIVER: 'openid',
    AUTH_KC_ISSUER_URL: oidc.issuer,
    AUTH_KC_ALLOW_PUBLIC_REGISTRATION: 'true',
    AUTH_KC_DEFAULT_ROLE_ID: ROLE,
    AUTH_KC_REDIRECT_ALLOW_LIST: ALLOWED,
    AUTH_KC_LABEL: 'Keycloak',
    AUTH_KC_ICON: 'key',
    AUTH_GH_DRIVER: 'oauth2',
    AUTH_GH_AUTHORIZE_URL: `${oidc.issuer}/auth`,
    AUTH_GH_ACCESS_URL: `${oidc.issuer}/token`,
    AUTH_GH_PROFILE_URL: `${oidc.issuer}/me`,
    AUTH_GH_SCOPE: 'openid email profile',
    AUTH_GH_IDENTIFIER_KEY: 'email',
    AUTH_GH_ALLOW_PUBLIC_REGISTRATION: 'true',
    AUTH_GH_REDIRECT_ALLOW_LIST: ALLOWED,
    AUTH_CLOSED_DRIVER: 'openid',
    AUTH_CLOSED_ISSUER_URL: oidc.issuer,
    AUTH_CLOSED_REDIRECT_ALLOW_LIST: ALLOWED,
    AUTH_DOWN_DRIVER: 'openid',
    AUTH_DOWN_ISSUER_URL: `http://127.0.0.1:${downPort}`,
  };
  for (const p of ['KC', 'GH', 'CLOSED', 'DOWN'])
    for (const [key, value] of Object.entries(client)) env[`AUTH_${p}_${key}`] = value;
  return env;
}

for (const client of testClients()) {
  describe(`single sign-on (${clientLabel(client)})`, () => {
    let t: TestApp;
    let oidc: OidcServer;
    let env: Record<string, string>;

    const begin = async (provider: string, query = `?redirect=${encodeURIComponent(ALLOWED)}`) => {
      const start = await t.request({ method: 'GET', url: `/auth/login/${provider}${query}`, token: null });
      assert.equal(start.statusCode, 302, start.body);
      return { location: String(start.headers.location), flow: cookieOf(start, FLOW)!.value };
    };
    const atProvider = (location: string, account: string) =>
      signInAtProvider(location, account, `${PUBLIC}/auth/login/`);
    const back = (flow: string | null, url: URL) =>
      t.request({
        method: 'GET',
        url: `${url.pathname}${url.search}`,
        cookies: flow === null ? {} : { [FLOW]: flow },
        token: null,
      });
    const me = async (response: LightMyRequestResponse) => {
      const refresh = cookieOf(response, 'service_refresh_token')!.value;
      const tokens = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { mode: 'json', refresh_token: refresh },
        token: null,
      });
      assert.equal(tokens.statusCode, 200, tokens.body);
      // The token's user, read by the admin (a user of a role without policies may not read its own row).
      const claims = JSON.parse(Buffer.from(json(tokens).data.access_token.split('.')[1], 'base64url').toString());
      const user = await t.request({
        method: 'GET',
        url: `/users/${claims.id}?fields=id,email,first_name,role,provider,external_identifier`,
      });
      assert.equal(user.statusCode, 200, user.body);
      return json(user).data;
    };

    before(async () => {
      const callbacks = ['kc', 'gh', 'closed', 'down'].map((p) => `${PUBLIC}/auth/login/${p}/callback`);
      oidc = await startOidcServer(callbacks);
      oidc.accounts.set('alice-sub', { email: 'Alice@Example.com', email_verified: true, given_name: 'Alice' });
      oidc.accounts.set('bob-sub', { email: 'bob@example.com', email_verified: true, given_name: 'Bob' });
      oidc.accounts.set('carol-sub', { email: 'carol@example.com', email_verified: true });
      env = providerEnv(oidc, await freePort());
      t = await startTestApp(client, { env });
      const role = await t.request({ method: 'POST', url: '/roles', payload: { id: ROLE, name: 'Staff' } });
      assert.equal(role.statusCode, 200, role.body);
    });
    after(async () => {
      await t?.close();
      await oidc?.close();
    });

    it('lists the providers on GET /auth', async () => {
      const response = await t.request({ method: 'GET', url: '/auth', token: null });
      assert.equal(response.statusCode, 200, response.body);
      const body = json(response);
      assert.equal(body.disableDefault, false);
      assert.deepEqual(body.data[0], { name: 'kc', driver: 'openid', icon: 'key', label: 'Keycloak' });
      assert.deepEqual(
        body.data.map((p: { name: string; driver: string }) => `${p.name}:${p.driver}`),
        ['kc:openid', 'gh:oauth2', 'closed:openid', 'down:openid'],
      );
    });

    it('openid: sends the browser with PKCE, state and nonce, creates the user with the default role', async () => {
      const { location, flow } = await begin('kc');
      const sent = new URL(location);
      assert.equal(sent.origin, oidc.issuer);
      assert.equal(sent.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(sent.searchParams.get('state') && sent.searchParams.get('nonce'));
      assert.equal(sent.searchParams.get('redirect_uri'), `${PUBLIC}/auth/login/kc/callback`);
      const response = await back(flow, await atProvider(location, 'alice-sub'));
      assert.equal(response.statusCode, 302, response.body);
      assert.equal(response.headers.location, ALLOWED);
      assert.ok(cookieOf(response, 'service_refresh_token')!.httpOnly);
      const user = await me(response);
      assert.equal(user.email, 'alice@example.com');
      assert.equal(user.first_name, 'Alice');
      assert.equal(user.role, ROLE);
      assert.equal(user.provider, 'kc');
      assert.equal(user.external_identifier, 'alice-sub');
      await assertCreateRecorded(t, user.id);
    });

    it("leaves out an email the users' check would refuse, and signs the new user in", async () => {
      oidc.accounts.set('dave-sub', { email: 'not an address', email_verified: true, given_name: 'Dave' });
      const { location, flow } = await begin('kc');
      const response = await back(flow, await atProvider(location, 'dave-sub'));
      assert.equal(response.statusCode, 302, response.body);
      assert.equal(response.headers.location, ALLOWED);
      const user = await me(response);
      assert.equal(user.email, null);
      assert.equal(user.first_name, 'Dave');
      assert.equal(user.external_identifier, 'dave-sub');
    });

    it('matches a known user by external_identifier, and refuses it a password login', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/users',
        payload: {
          email: 'bob@example.com',
          password: 'bob-password-1',
          provider: 'kc',
          external_identifier: 'bob-sub',
        },
      });
      assert.equal(created.statusCode, 200, created.body);
      const id = json(created).data.id;
      const { location, flow } = await begin('kc');
      const response = await back(flow, await atProvider(location, 'bob-sub'));
      assert.equal(response.statusCode, 302, response.body);
      const user = await me(response);
      assert.equal(user.id, id);
      assert.equal(user.role, null, 'a known user keeps its role');
      const password = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'bob@example.com', password: 'bob-password-1' },
        token: null,
      });
      assert.equal(errorCode(password), 'INVALID_CREDENTIALS');
    });

    it('oauth2: code with PKCE and state, the profile URL gives the identity; session mode', async () => {
      const query = `?redirect=${encodeURIComponent(ALLOWED)}&mode=session`;
      const { location, flow } = await begin('gh', query);
      assert.equal(new URL(location).searchParams.get('nonce'), null);
      const response = await back(flow, await atProvider(location, 'carol-sub'));
      assert.equal(response.statusCode, 302, response.body);
      const session = cookieOf(response, 'service_session_token')!;
      assert.ok(session.httpOnly);
      const claims = JSON.parse(Buffer.from(session.value.split('.')[1], 'base64url').toString());
      const live = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { mode: 'session' },
        cookies: { service_session_token: session.value },
        token: null,
      });
      assert.equal(live.statusCode, 200, live.body);
      const user = await t.request({
        method: 'GET',
        url: `/users/${claims.id}?fields=email,provider,external_identifier`,
      });
      assert.deepEqual(json(user).data, {
        email: 'carol@example.com',
        provider: 'gh',
        external_identifier: 'carol@example.com',
      });
    });

    it('refuses a tampered state, a replayed callback and a missing flow cookie', async () => {
      const { location, flow } = await begin('kc');
      const callback = await atProvider(location, 'alice-sub');
      const tampered = new URL(callback);
      tampered.searchParams.set('state', `${callback.searchParams.get('state')}x`);
      const refusedState = await back(flow, tampered);
      assert.equal(errorCode(refusedState), 'INVALID_CREDENTIALS');
      assert.equal(refusedState.statusCode, 401);
      // The flow was spent by the refused try: the genuine callback with the same cookie is refused too.
      assert.equal(errorCode(await back(flow, callback)), 'INVALID_CREDENTIALS');

      const second = await begin('kc');
      const good = await atProvider(second.location, 'alice-sub');
      assert.equal((await back(second.flow, good)).statusCode, 302);
      assert.equal(errorCode(await back(second.flow, good)), 'INVALID_CREDENTIALS', 'a replay (same nonce) is refused');
      const third = await begin('kc');
      assert.equal(errorCode(await back(null, await atProvider(third.location, 'alice-sub'))), 'INVALID_CREDENTIALS');
      const forged = `${third.flow.slice(0, -2)}AA`;
      assert.equal(errorCode(await back(forged, await atProvider(third.location, 'alice-sub'))), 'INVALID_CREDENTIALS');
    });

    it('spends a flow once across instances: a replay to another instance and a tampered try on one are refused on the other', async () => {
      // A spent flow long expired: deleted off a callback's path (the other instance's first callback prunes).
      await t.context.db.query("insert into service_sign_on_flows (id, expires_at) values ('expired-flow', 1)");
      const other = await startSecondInstance(t, env);
      const backTo = (flow: string, url: URL) =>
        other.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, cookies: { [FLOW]: flow } });
      try {
        const first = await begin('kc');
        const callback = await atProvider(first.location, 'alice-sub');
        assert.equal((await back(first.flow, callback)).statusCode, 302);
        // Refused as spent (401, no redirect), before the provider is asked: not its refusal of a used code (a 302
        // to the redirect with ?reason=).
        const replayed = await backTo(first.flow, callback);
        assert.equal(replayed.statusCode, 401, replayed.body);
        assert.equal(errorCode(replayed), 'INVALID_CREDENTIALS');

        const second = await begin('kc');
        const genuine = await atProvider(second.location, 'alice-sub');
        const tampered = new URL(genuine);
        tampered.searchParams.set('state', `${genuine.searchParams.get('state')}x`);
        assert.equal((await backTo(second.flow, tampered)).statusCode, 401);
        const after = await back(second.flow, genuine);
        assert.equal(after.statusCode, 401, 'the refused try on the other instance spent the flow');
        assert.equal(cookieOf(after, 'service_refresh_token'), undefined);

        const spent = async () =>
          (await t.context.db.query<{ id: string }>('select id from service_sign_on_flows')).map((row) => row.id);
        for (let tries = 0; (await spent()).includes('expired-flow') && tries < 200; tries++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const left = await spent();
        assert.ok(!left.includes('expired-flow'), 'the expired spent flow was pruned');
        assert.ok(left.length >= 2, 'the live spent flows stay');
      } finally {
        await other.close();
      }
    });

    it('refuses a code from another flow (code injection: PKCE and nonce differ)', async () => {
      const attacker = await begin('kc');
      const stolen = await atProvider(attacker.location, 'alice-sub');
      const victim = await begin('kc');
      const victimState = new URL(victim.location).searchParams.get('state')!;
      const injected = new URL(stolen);
      injected.searchParams.set('state', victimState);
      const response = await back(victim.flow, injected);
      assert.equal(response.statusCode, 302);
      assert.equal(response.headers.location, `${ALLOWED}?reason=INVALID_CREDENTIALS`);
      assert.equal(cookieOf(response, 'service_refresh_token'), undefined);
    });

    it('returns a refusal at the provider (access_denied) to the redirect with its reason', async () => {
      const { location, flow } = await begin('kc');
      const state = new URL(location).searchParams.get('state')!;
      const denied = new URL(`${PUBLIC}/auth/login/kc/callback`);
      denied.searchParams.set('error', 'access_denied');
      denied.searchParams.set('error_description', 'the user said no');
      denied.searchParams.set('state', state);
      denied.searchParams.set('iss', oidc.issuer);
      const response = await back(flow, denied);
      assert.equal(response.statusCode, 302, response.body);
      assert.equal(response.headers.location, `${ALLOWED}?reason=INVALID_CREDENTIALS`);
    });

    it('refuses redirects off the allow-list', async () => {
      for (const redirect of [
        'https://evil.test/',
        '//evil.test/done',
        '/\\evil.test',
        'http://app.test.evil.test/done',
        'http://app.test@evil.test/done',
        'http://app.test/donex',
        'javascript:alert(1)',
        'http://app.test/done\r\nx: y',
      ]) {
        const response = await t.request({
          method: 'GET',
          url: `/auth/login/kc?redirect=${encodeURIComponent(redirect)}`,
          token: null,
        });
        assert.equal(response.statusCode, 400, `${redirect}: ${response.body}`);
        assert.equal(errorCode(response), 'INVALID_PAYLOAD');
      }
      for (const redirect of [ALLOWED, 'http://app.test/done/deeper?x=1', `${PUBLIC}/admin`, '/admin/content'])
        assert.equal(
          (
            await t.request({
              method: 'GET',
              url: `/auth/login/kc?redirect=${encodeURIComponent(redirect)}`,
              token: null,
            })
          ).statusCode,
          302,
          redirect,
        );
    });

    it('refuses a new user where registration is off, and an unknown provider', async () => {
      const { location, flow } = await begin('closed');
      const response = await back(flow, await atProvider(location, 'carol-sub'));
      assert.equal(response.headers.location, `${ALLOWED}?reason=INVALID_CREDENTIALS`);
      const unknown = await t.request({ method: 'GET', url: '/auth/login/nope', token: null });
      assert.equal(errorCode(unknown), 'INVALID_PROVIDER');
      assert.equal(unknown.statusCode, 403);
    });

    it('answers 503 when the provider is down, with nothing of its settings', async () => {
      const response = await t.request({ method: 'GET', url: '/auth/login/down', token: null });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(errorCode(response), 'SERVICE_UNAVAILABLE');
      assert.ok(!response.body.includes(oidc.clientSecret) && !response.body.includes('127.0.0.1'), response.body);
    });
  });
}

describe('AUTH_DISABLE_DEFAULT', () => {
  it('refuses email and password logins and says so on GET /auth', async () => {
    const [client] = testClients();
    const t = await startTestApp(client, { env: { AUTH_DISABLE_DEFAULT: 'true' } });
    try {
      const list = await t.request({ method: 'GET', url: '/auth', token: null });
      assert.deepEqual(json(list), { data: [], disableDefault: true });
      const login = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'admin@example.com', password: 'strata-test-password' },
        token: null,
      });
      assert.equal(errorCode(login), 'INVALID_PROVIDER');
      const graphql = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: {
          query: 'mutation { auth_login(email: "admin@example.com", password: "strata-test-password") { expires } }',
        },
        token: null,
      });
      assert.equal(json(graphql).errors?.[0]?.extensions?.code, 'INVALID_PROVIDER', graphql.body);
    } finally {
      await t.close();
    }
  });
});
