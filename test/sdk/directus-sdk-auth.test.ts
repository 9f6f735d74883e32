/**
 * The real @directus/sdk's authentication composable against a real listening Strata, in its three modes: json
 * (tokens in the body), cookie (refresh token in an httpOnly cookie) and session (a session cookie carries every
 * request). Node's fetch keeps no cookies, so the client gets a small cookie jar that behaves as a browser with
 * `credentials: 'include'` would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  authentication,
  createDirectus,
  disableTwoFactor,
  enableTwoFactor,
  generateTwoFactorSecret,
  readItems,
  readMe,
  rest,
  type AuthenticationData,
} from '@directus/sdk';
import { Secret, TOTP } from 'otpauth';
import { hashPassword } from '../../src/auth/passwords.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp, listenOnLoopback } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

interface StoredCookie {
  value: string;
  attributes: string[];
}

/** A browser-like cookie store for one origin: Set-Cookie in, Cookie out; an expired or emptied cookie goes. */
class CookieJar {
  readonly cookies = new Map<string, StoredCookie>();
  /** Every Set-Cookie header seen, for the attribute checks. */
  readonly seen: string[] = [];

  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([name, c]) => `${name}=${c.value}`).join('; '));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) this.store(line);
    return response;
  };

  private store(line: string): void {
    this.seen.push(line);
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const at = pair!.indexOf('=');
    const name = pair!.slice(0, at);
    const value = decodeURIComponent(pair!.slice(at + 1));
    const maxAge = attributes.find((a) => /^max-age=/i.test(a));
    const expires = attributes.find((a) => /^expires=/i.test(a));
    const gone =
      value === '' ||
      (maxAge !== undefined && Number(maxAge.split('=')[1]) <= 0) ||
      (expires !== undefined && Date.parse(expires.slice(8)) <= Date.now());
    if (gone) this.cookies.delete(name);
    else this.cookies.set(name, { value, attributes });
  }
}

/**
 * The SDK's token storage (its memory storage, as the SDK keeps it), telling when a refresh has stored a token other
 * than `first` — the SDK's autoRefresh runs on its own timer, so the test waits for that instead of for a duration.
 */
function watchedStorage() {
  let data: AuthenticationData | null = null;
  let first: string | null = null;
  let refreshed: (token: string) => void = () => {};
  const next = new Promise<string>((resolve) => (refreshed = resolve));
  return {
    storage: {
      get: () => data,
      set(value: AuthenticationData | null) {
        data = value;
        const token = value?.access_token ?? null;
        if (token && first === null) first = token;
        else if (token && token !== first) refreshed(token);
      },
    },
    /** The first token stored after the login's. */
    refresh: next,
  };
}

for (const client of testClients()) {
  describe(`@directus/sdk authentication against Strata (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    const raw = (path: string, init: RequestInit = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
      });
    const sdkWith = (mode: 'json' | 'cookie' | 'session', jar?: CookieJar) =>
      createDirectus<any>(url, jar ? { globals: { fetch: jar.fetch } } : {})
        .with(authentication(mode, { autoRefresh: false, credentials: 'include' }))
        .with(rest({ credentials: 'include' }));

    before(async () => {
      t = await startTestApp(client, { relations: true });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('json mode: login, readMe, refresh (rotating), logout kills the refresh token', async () => {
      const sdk = sdkWith('json');
      const login = await sdk.login(ADMIN.email, ADMIN.password);
      assert.equal(typeof login.access_token, 'string');
      assert.equal(typeof login.refresh_token, 'string');
      assert.equal(login.expires, 900_000);
      const me = await sdk.request(readMe({ fields: ['email'] }));
      assert.deepEqual(me, { email: ADMIN.email });

      const refreshed = await sdk.refresh();
      assert.notEqual(refreshed.refresh_token, login.refresh_token);
      assert.equal(await sdk.getToken(), refreshed.access_token);
      const spent = await raw('/auth/refresh', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: login.refresh_token }),
      });
      assert.equal(spent.status, 401);

      await sdk.logout();
      assert.equal(await sdk.getToken(), null);
      const dead = await raw('/auth/refresh', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: refreshed.refresh_token }),
      });
      assert.equal(dead.status, 401);
      assert.equal((await dead.json()).errors[0].extensions.code, 'INVALID_CREDENTIALS');
    });

    it('cookie mode: the refresh token lives in an httpOnly cookie; refresh rotates it; logout clears and kills it', async () => {
      const jar = new CookieJar();
      const sdk = sdkWith('cookie', jar);
      const login = await sdk.login(ADMIN.email, ADMIN.password);
      assert.deepEqual(Object.keys(login).sort(), ['access_token', 'expires', 'expires_at']);
      const first = jar.cookies.get('service_refresh_token');
      assert.ok(first, jar.seen.join('\n'));
      for (const attribute of ['HttpOnly', 'Path=/', 'SameSite=Lax', `Max-Age=${7 * 86_400}`]) {
        assert.ok(
          first.attributes.some((a) => a.toLowerCase() === attribute.toLowerCase()),
          `${attribute} in ${jar.seen.at(-1)}`,
        );
      }
      assert.deepEqual(await sdk.request(readMe({ fields: ['email'] })), { email: ADMIN.email });

      const refreshed = await sdk.refresh();
      assert.equal(typeof refreshed.access_token, 'string');
      const second = jar.cookies.get('service_refresh_token')!.value;
      assert.notEqual(second, first.value);
      assert.deepEqual(await sdk.request(readItems('tags', { fields: ['name'], limit: 1, sort: ['id'] })), [
        { name: 'science' },
      ]);

      await sdk.logout();
      assert.equal(jar.cookies.has('service_refresh_token'), false);
      const dead = await raw('/auth/refresh', {
        method: 'POST',
        body: JSON.stringify({ mode: 'cookie' }),
        headers: { cookie: `service_refresh_token=${second}` },
      });
      assert.equal(dead.status, 401);
      await assert.rejects(sdk.refresh(), (error: { errors: { extensions: { code: string } } }) => {
        // The jar holds no refresh cookie any more: the server asks for one.
        assert.equal(
          (error.errors as unknown as { extensions: { code: string } }[])[0]!.extensions.code,
          'INVALID_PAYLOAD',
        );
        return true;
      });
    });

    it('session mode: the session cookie authenticates every request, refresh renews it, logout ends it', async () => {
      const jar = new CookieJar();
      const sdk = sdkWith('session', jar);
      const login = await sdk.login(ADMIN.email, ADMIN.password);
      assert.equal(login.expires, 86_400_000);
      assert.equal(login.access_token, undefined);
      assert.equal(await sdk.getToken(), null);
      const session = jar.cookies.get('service_session_token');
      assert.ok(session, jar.seen.join('\n'));
      assert.ok(session.attributes.some((a) => a.toLowerCase() === 'httponly'));
      assert.deepEqual(await sdk.request(readMe({ fields: ['email'] })), { email: ADMIN.email });

      await sdk.refresh();
      const renewed = jar.cookies.get('service_session_token')!.value;
      assert.notEqual(renewed, session.value);
      assert.deepEqual(await sdk.request(readItems('tags', { fields: ['id'], filter: { name: { _eq: 'history' } } })), [
        { id: 2 },
      ]);

      await sdk.logout();
      assert.equal(jar.cookies.has('service_session_token'), false);
      // Without its cookie the client is the public; with the old cookie kept aside, the session is dead.
      await assert.rejects(sdk.request(readMe()), (error: { errors: { extensions: { code: string } }[] }) => {
        assert.equal(error.errors[0]!.extensions.code, 'INVALID_CREDENTIALS');
        return true;
      });
      const dead = await raw('/users/me', { headers: { cookie: `service_session_token=${renewed}` } });
      assert.equal(dead.status, 401);
    });

    it('sets up two-factor through the SDK, then logs in with its otp option', async () => {
      const policy = await createPolicy(t, { app_access: true, permissions: [{ collection: 'tags', fields: 'name' }] });
      const { id } = await createUserWithPolicies(t, [policy], { email: 'sdk-tfa@example.com' });
      await queryBuilder(t.context.db)('service_users')
        .update({ password: await hashPassword('sdk-tfa-password', t.context.config.hash) })
        .where('id', id);
      const sdk = sdkWith('json');
      await sdk.login('sdk-tfa@example.com', 'sdk-tfa-password');
      const { secret, otpauth_url } = await sdk.request(generateTwoFactorSecret('sdk-tfa-password'));
      assert.match(otpauth_url, /^otpauth:\/\/totp\//);
      const totp = new TOTP({ secret: Secret.fromBase32(secret) });
      await sdk.request(enableTwoFactor(secret, totp.generate()));

      const again = sdkWith('json');
      await assert.rejects(
        again.login('sdk-tfa@example.com', 'sdk-tfa-password'),
        (error: { errors: { extensions: { code: string } }[] }) => {
          assert.equal(error.errors[0]!.extensions.code, 'INVALID_OTP');
          return true;
        },
      );
      await again.login('sdk-tfa@example.com', 'sdk-tfa-password', { otp: totp.generate() });
      assert.deepEqual(await again.request(readMe({ fields: ['email'] })), { email: 'sdk-tfa@example.com' });
      await again.request(disableTwoFactor(totp.generate()));
      await sdkWith('json').login('sdk-tfa@example.com', 'sdk-tfa-password');
    });

    it('refuses wrong credentials with the coded error the SDK surfaces', async () => {
      const sdk = sdkWith('json');
      await assert.rejects(
        sdk.login(ADMIN.email, 'wrong-password'),
        (error: { errors: { extensions: { code: string } }[]; response: Response }) => {
          assert.equal(error.response.status, 401);
          assert.equal(error.errors[0]!.extensions.code, 'INVALID_CREDENTIALS');
          return true;
        },
      );
    });

    // The timeout ends the test should the SDK's refresh fail (it swallows the error and the refresh never comes).
    it('refreshes on its own before a short ACCESS_TOKEN_TTL runs out (autoRefresh)', { timeout: 60_000 }, async () => {
      const short = await startTestApp(client, { fixture: false, env: { ACCESS_TOKEN_TTL: '2s' } });
      try {
        const shortUrl = await listenOnLoopback(short);
        const { storage, refresh } = watchedStorage();
        const sdk = createDirectus<any>(shortUrl)
          .with(authentication('json', { autoRefresh: true, msRefreshBeforeExpires: 1_500, storage }))
          .with(rest());
        const login = await sdk.login(ADMIN.email, ADMIN.password);
        assert.equal(login.expires, 2_000);
        try {
          // Past the first token's lifetime on the server's clock before the SDK's refresh timer (0.5 s after the
          // login) fires: the SDK refreshes with its refresh token, and requests pass with the new access token.
          short.clock.advance(2_600);
          assert.notEqual(await refresh, login.access_token);
          const current = await sdk.getToken();
          assert.notEqual(current, login.access_token);
          assert.deepEqual(await sdk.request(readMe({ fields: ['email'] })), { email: ADMIN.email });
          const stale = await fetch(`${shortUrl}/users/me`, {
            headers: { authorization: `Bearer ${login.access_token}` },
          });
          assert.equal(stale.status, 401);
          assert.equal((await stale.json()).errors[0].extensions.code, 'TOKEN_EXPIRED');
        } finally {
          sdk.stopRefreshing();
        }
      } finally {
        await short.close();
      }
    });
  });
}
