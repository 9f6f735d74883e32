/**
 * Every way in, over HTTP: login in json, cookie and session modes, refresh (rotation, spent tokens, grace),
 * logout, the session cookie as credentials, two-factor with a real TOTP, IP allow-lists, expiry, suspension after
 * failed logins, and equal timing for unknown users and wrong passwords.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { LightMyRequestResponse } from 'fastify';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { queryBuilder } from '../../src/db/connection.js';

const cookieOf = (response: LightMyRequestResponse, name: string) => response.cookies.find((c) => c.name === name);

for (const client of testClients()) {
  describe(`authentication flows (${clientLabel(client)})`, () => {
    let t: TestApp;
    const login = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
      t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password, ...payload },
        token: null,
        headers,
      });
    const me = (headers: Record<string, string>, cookies?: Record<string, string>) =>
      t.request({ method: 'GET', url: '/items/articles?fields=id&limit=1', token: null, headers, cookies });

    before(async () => {
      t = await startTestApp(client, { env: { LOGIN_STALL_TIME: '150' } });
    });
    after(async () => {
      await t?.close();
    });

    it('logs in in json mode, refreshes with rotation, and refuses a spent refresh token', async () => {
      const response = await login({ mode: 'json' });
      assert.equal(response.statusCode, 200, response.body);
      const { access_token, refresh_token, expires } = json(response).data;
      assert.equal(expires, 900_000);
      assert.equal((await me({ authorization: `Bearer ${access_token}` })).statusCode, 200);
      const refreshed = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { refresh_token },
        token: null,
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const next = json(refreshed).data;
      assert.notEqual(next.refresh_token, refresh_token);
      assert.equal((await me({ authorization: `Bearer ${next.access_token}` })).statusCode, 200);
      const spent = await t.request({ method: 'POST', url: '/auth/refresh', payload: { refresh_token }, token: null });
      assert.equal(errorCode(spent), 'INVALID_CREDENTIALS');
      assert.equal(spent.statusCode, 401);
      const missing = await t.request({ method: 'POST', url: '/auth/refresh', payload: {}, token: null });
      assert.equal(errorCode(missing), 'INVALID_PAYLOAD');
    });

    it('keeps the refresh token in an httpOnly cookie in cookie mode, and logout kills it', async () => {
      const response = await login({ mode: 'cookie' });
      const data = json(response).data;
      assert.deepEqual(Object.keys(data).sort(), ['access_token', 'expires']);
      const cookie = cookieOf(response, 'service_refresh_token')!;
      assert.ok(cookie.httpOnly);
      assert.equal(cookie.maxAge, 7 * 86_400);
      const refreshed = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: {},
        cookies: { service_refresh_token: cookie.value },
        token: null,
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const rotated = cookieOf(refreshed, 'service_refresh_token')!.value;
      assert.notEqual(rotated, cookie.value);
      const out = await t.request({
        method: 'POST',
        url: '/auth/logout',
        payload: {},
        cookies: { service_refresh_token: rotated },
        token: null,
      });
      assert.equal(out.statusCode, 204);
      assert.equal(out.body, '');
      assert.ok(out.cookies.some((c) => c.name === 'service_refresh_token' && c.value === ''));
      const dead = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: {},
        cookies: { service_refresh_token: rotated },
        token: null,
      });
      assert.equal(errorCode(dead), 'INVALID_CREDENTIALS');
    });

    it('authenticates every request with the session cookie in session mode, until logout', async () => {
      const response = await login({ mode: 'session' });
      assert.deepEqual(Object.keys(json(response).data), ['expires']);
      const session = cookieOf(response, 'service_session_token')!;
      assert.ok(session.httpOnly);
      assert.equal((await me({}, { service_session_token: session.value })).statusCode, 200);
      assert.equal(errorCode(await me({})), 'FORBIDDEN');
      const refreshed = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { mode: 'session' },
        cookies: { service_session_token: session.value },
        token: null,
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const next = cookieOf(refreshed, 'service_session_token')!.value;
      // The previous session keeps working for the grace period; the new one works too.
      assert.equal((await me({}, { service_session_token: session.value })).statusCode, 200);
      assert.equal((await me({}, { service_session_token: next })).statusCode, 200);
      const out = await t.request({
        method: 'POST',
        url: '/auth/logout',
        payload: { mode: 'session' },
        cookies: { service_session_token: next },
        token: null,
      });
      assert.equal(out.statusCode, 204);
      assert.equal(errorCode(await me({}, { service_session_token: next })), 'INVALID_CREDENTIALS');
    });

    it('refuses a token sent two ways, tampered tokens and unknown static tokens with their codes', async () => {
      const { access_token } = json(await login({})).data;
      const twice = await t.request({
        method: 'GET',
        url: `/items/articles?access_token=${access_token}`,
        token: access_token,
      });
      assert.equal(errorCode(twice), 'INVALID_PAYLOAD');
      const tampered = `${access_token.slice(0, -3)}abc`;
      assert.equal(errorCode(await me({ authorization: `Bearer ${tampered}` })), 'INVALID_TOKEN');
      assert.equal(errorCode(await me({ authorization: 'Bearer not-a-known-token' })), 'INVALID_CREDENTIALS');
    });

    it('expires access tokens after ACCESS_TOKEN_TTL with TOKEN_EXPIRED', async () => {
      // An hour, passed on the app's clock: a TTL of seconds could run out in real time on a loaded machine
      // between the login and the first use.
      const short = await startTestApp(client, { fixture: false, env: { ACCESS_TOKEN_TTL: '1h' } });
      try {
        const { access_token } = json(
          await short.request({
            method: 'POST',
            url: '/auth/login',
            payload: { email: ADMIN.email, password: ADMIN.password },
            token: null,
          }),
        ).data;
        assert.equal(
          (await short.request({ method: 'GET', url: '/server/info', token: access_token })).statusCode,
          200,
        );
        short.clock.advance(3_600_000 + 1_000);
        const expired = await short.request({ method: 'GET', url: '/server/info', token: access_token });
        assert.equal(expired.statusCode, 401);
        assert.equal(errorCode(expired), 'TOKEN_EXPIRED');
      } finally {
        await short.close();
      }
    });

    it('refuses a refresh token and a session past their lifetimes (REFRESH_TOKEN_TTL, SESSION_COOKIE_TTL)', async () => {
      const short = await startTestApp(client, {
        fixture: false,
        env: { REFRESH_TOKEN_TTL: '1h', SESSION_COOKIE_TTL: '2h' },
      });
      try {
        const credentials = { email: ADMIN.email, password: ADMIN.password };
        const { refresh_token } = json(
          await short.request({ method: 'POST', url: '/auth/login', payload: credentials, token: null }),
        ).data;
        const session = cookieOf(
          await short.request({
            method: 'POST',
            url: '/auth/login',
            payload: { ...credentials, mode: 'session' },
            token: null,
          }),
          'service_session_token',
        )!.value;
        const sessionMe = () =>
          short.request({
            method: 'GET',
            url: '/users/me?fields=email',
            token: null,
            cookies: { service_session_token: session },
          });
        // Minutes of margin around each lifetime: the clock also runs on in real time while the test does.
        short.clock.advance(30 * 60_000);
        const live = await short.request({
          method: 'POST',
          url: '/auth/refresh',
          payload: { refresh_token },
          token: null,
        });
        assert.equal(live.statusCode, 200, live.body);
        const next = json(live).data.refresh_token;
        assert.equal((await sessionMe()).statusCode, 200);
        // The rotated token lives an hour from the refresh on: 61 minutes later it is refused.
        short.clock.advance(61 * 60_000);
        const expired = await short.request({
          method: 'POST',
          url: '/auth/refresh',
          payload: { refresh_token: next },
          token: null,
        });
        assert.equal(expired.statusCode, 401);
        assert.equal(errorCode(expired), 'INVALID_CREDENTIALS');
        assert.equal((await sessionMe()).statusCode, 200);
        // Past two hours from its login, the session is over: its cookie is no credential any more.
        short.clock.advance(30 * 60_000);
        const ended = await sessionMe();
        assert.equal(ended.statusCode, 401, ended.body);
      } finally {
        await short.close();
      }
    });

    it('requires a valid TOTP once two-factor is enabled, and disables it with one', async () => {
      const { id } = await createUserWithPolicies(
        t,
        [await createPolicy(t, { permissions: [{ collection: 'articles' }] })],
        { email: 'tfa@example.com' },
      );
      await queryBuilder(t.context.db)('service_users')
        .update({ password: await hashPassword('tfa-password', t.context.config.hash) })
        .where('id', id);
      const { access_token } = json(await login({ email: 'tfa@example.com', password: 'tfa-password' })).data;
      const wrongPassword = await t.request({
        method: 'POST',
        url: '/users/me/tfa/generate',
        payload: { password: 'nope' },
        token: access_token,
      });
      assert.equal(errorCode(wrongPassword), 'INVALID_CREDENTIALS');
      const generated = json(
        await t.request({
          method: 'POST',
          url: '/users/me/tfa/generate',
          payload: { password: 'tfa-password' },
          token: access_token,
        }),
      ).data;
      assert.match(generated.otpauth_url, /^otpauth:\/\/totp\//);
      const totp = new TOTP({ secret: Secret.fromBase32(generated.secret) });
      // Directus 11: a wrong code at enable is a bad payload (a 401 would make SDKs refresh their token and retry).
      const wrongOtp = await t.request({
        method: 'POST',
        url: '/users/me/tfa/enable',
        payload: { secret: generated.secret, otp: '000000' },
        token: access_token,
      });
      assert.equal(wrongOtp.statusCode, 400);
      assert.equal(errorCode(wrongOtp), 'INVALID_PAYLOAD');
      const enabled = await t.request({
        method: 'POST',
        url: '/users/me/tfa/enable',
        payload: { secret: generated.secret, otp: totp.generate() },
        token: access_token,
      });
      assert.equal(enabled.statusCode, 204, enabled.body);
      const concealed = await queryBuilder(t.context.db)('service_users').select('tfa_secret').where('id', id).first();
      assert.equal(concealed.tfa_secret, generated.secret);

      assert.equal(errorCode(await login({ email: 'tfa@example.com', password: 'tfa-password' })), 'INVALID_OTP');
      // A wrong password says nothing about two-factor, even with a valid code.
      assert.equal(
        errorCode(await login({ email: 'tfa@example.com', password: 'wrong', otp: totp.generate() })),
        'INVALID_CREDENTIALS',
      );
      assert.equal(
        errorCode(await login({ email: 'tfa@example.com', password: 'tfa-password', otp: '123456' })),
        'INVALID_OTP',
      );
      const withOtp = await login({ email: 'tfa@example.com', password: 'tfa-password', otp: totp.generate() });
      assert.equal(withOtp.statusCode, 200, withOtp.body);

      assert.equal(
        errorCode(
          await t.request({
            method: 'POST',
            url: '/users/me/tfa/disable',
            payload: { otp: '000000' },
            token: access_token,
          }),
        ),
        'INVALID_PAYLOAD',
      );
      assert.equal(
        (
          await t.request({
            method: 'POST',
            url: '/users/me/tfa/disable',
            payload: { otp: totp.generate() },
            token: access_token,
          })
        ).statusCode,
        204,
      );
      assert.equal((await login({ email: 'tfa@example.com', password: 'tfa-password' })).statusCode, 200);
    });

    it('refuses clients outside a policy IP allow-list with INVALID_IP', async () => {
      const fenced = await createPolicy(t, {
        permissions: [{ collection: 'articles' }],
        ip_access: '10.9.0.0/16, 192.0.2.7',
      });
      const { token, id } = await createUserWithPolicies(t, [fenced], { email: 'fenced@example.com' });
      await queryBuilder(t.context.db)('service_users')
        .update({ password: await hashPassword('fenced-password', t.context.config.hash) })
        .where('id', id);
      const outside = await t.request({ method: 'GET', url: '/items/articles', token });
      assert.equal(errorCode(outside), 'INVALID_IP');
      assert.equal(json(outside).errors[0].message, 'Invalid IP address.', "Directus's message");
      assert.equal(errorCode(await login({ email: 'fenced@example.com', password: 'fenced-password' })), 'INVALID_IP');
      for (const remoteAddress of ['10.9.200.1', '192.0.2.7']) {
        assert.equal(
          (await t.request({ method: 'GET', url: '/items/articles?fields=id', token, remoteAddress })).statusCode,
          200,
          remoteAddress,
        );
      }
      const inside = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'fenced@example.com', password: 'fenced-password' },
        token: null,
        remoteAddress: '10.9.0.1',
      });
      assert.equal(inside.statusCode, 200, inside.body);
    });

    it('reads and writes policy ip_access as an array (a csv field, as in Directus 11)', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/policies',
        payload: { name: 'fenced by list', ip_access: ['10.8.0.0/16', '192.0.2.9'] },
      });
      assert.equal(created.statusCode, 200, created.body);
      const id = json(created).data.id;
      assert.deepEqual(
        json(await t.request({ method: 'GET', url: `/policies/${id}?fields=ip_access` })).data.ip_access,
        ['10.8.0.0/16', '192.0.2.9'],
      );
      const { token } = await createUserWithPolicies(t, [id], { email: 'listed@example.com' });
      await t.request({
        method: 'POST',
        url: '/permissions',
        payload: { policy: id, collection: 'articles', action: 'read', fields: ['id'] },
      });
      assert.equal(errorCode(await t.request({ method: 'GET', url: '/items/articles', token })), 'INVALID_IP');
      assert.equal(
        (await t.request({ method: 'GET', url: '/items/articles?fields=id', token, remoteAddress: '10.8.3.4' }))
          .statusCode,
        200,
      );
      assert.equal(
        (await t.request({ method: 'PATCH', url: `/policies/${id}`, payload: { ip_access: null } })).statusCode,
        200,
      );
      assert.equal((await t.request({ method: 'GET', url: '/items/articles?fields=id', token })).statusCode, 200);
    });

    it('suspends a user after auth_login_attempts failures; refresh then answers USER_SUSPENDED', async () => {
      await queryBuilder(t.context.db)('service_settings').update({ auth_login_attempts: 2 });
      const { id } = await createUserWithPolicies(t, [], { email: 'guess@example.com' });
      await queryBuilder(t.context.db)('service_users')
        .update({ password: await hashPassword('right-password', t.context.config.hash) })
        .where('id', id);
      const { refresh_token } = json(await login({ email: 'guess@example.com', password: 'right-password' })).data;
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push(errorCode(await login({ email: 'guess@example.com', password: 'wrong' })));
      assert.deepEqual(codes, ['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'INVALID_CREDENTIALS']);
      const row = await queryBuilder(t.context.db)('service_users').select('status').where('id', id).first();
      assert.equal(row.status, 'suspended');
      assert.equal(
        errorCode(await login({ email: 'guess@example.com', password: 'right-password' })),
        'INVALID_CREDENTIALS',
      );
      assert.equal(
        errorCode(await t.request({ method: 'POST', url: '/auth/refresh', payload: { refresh_token }, token: null })),
        'USER_SUSPENDED',
      );
      await queryBuilder(t.context.db)('service_settings').update({ auth_login_attempts: 25 });
    });

    it('answers unknown users, wrong passwords and inactive accounts alike, after the same stall', async () => {
      const { id } = await createUserWithPolicies(t, [], { email: 'archived@example.com' });
      await queryBuilder(t.context.db)('service_users')
        .update({ password: await hashPassword('archived-password', t.context.config.hash), status: 'archived' })
        .where('id', id);
      const bodies = new Set<string>();
      for (const payload of [
        { email: 'nobody@example.com' },
        { password: 'wrong-password' },
        { email: 'archived@example.com', password: 'archived-password' },
      ]) {
        const started = Date.now();
        const response = await login(payload);
        const elapsed = Date.now() - started;
        assert.equal(response.statusCode, 401);
        assert.equal(errorCode(response), 'INVALID_CREDENTIALS');
        // LOGIN_STALL_TIME is 150 ms here: no answer comes sooner, whatever failed.
        assert.ok(elapsed >= 145, `answered after ${elapsed} ms`);
        bodies.add(response.body);
      }
      assert.equal(bodies.size, 1);
    });
  });
}
