/**
 * /websocket authentication (Directus docs: WebSockets, Authentication): an `auth` message with an access token, a
 * refresh token (rotated, the new one in the answer) or email and password; a token in the upgrade request (query,
 * header, session cookie); expiry measured on the app's clock (advanced, never slept): TOKEN_EXPIRED, then a new
 * `auth` and the subscription goes on; a logout ends the socket's rights; strict mode and the auth timeout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openWs, refusedUpgrade } from '../helpers/ws-client.js';
import { grantPublic } from '../helpers/access-fixture.js';

const WS_ENV = { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' };

for (const client of testClients()) {
  describe(`websocket authentication (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { env: WS_ENV });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    const login = async (mode: 'json' | 'session' = 'json') => {
      const response = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password, mode },
        token: null,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response;
    };
    const post = async (name: string) => {
      const res = await t.request({ method: 'POST', url: '/items/authors?fields=id', payload: { name } });
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data as { id: number };
    };

    it('exchanges a refresh token for a session, handing back the rotated refresh token', async () => {
      const { refresh_token: first } = json(await login()).data;
      const ws = await openWs(url);
      ws.send({ type: 'auth', refresh_token: first });
      const answer = await ws.next();
      assert.equal(answer.type, 'auth');
      assert.equal(answer.status, 'ok');
      assert.equal(typeof answer.refresh_token, 'string');
      assert.notEqual(answer.refresh_token, first);
      ws.send({ type: 'items', action: 'read', collection: 'authors', query: { limit: 1, fields: ['id'] }, uid: 'r' });
      const read = await ws.next();
      assert.equal(read.uid, 'r');
      assert.equal(read.data.length, 1);
      // Rotated as POST /auth/refresh rotates it: the old one is spent, the new one works over REST.
      const old = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { refresh_token: first },
        token: null,
      });
      assert.equal(errorCode(old), 'INVALID_CREDENTIALS');
      const fresh = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { refresh_token: answer.refresh_token },
        token: null,
      });
      assert.equal(fresh.statusCode, 200, fresh.body);
      ws.close();
    });

    it('logs in with email and password, and refuses a wrong password with AUTH_FAILED', async () => {
      const ws = await openWs(url);
      ws.send({ type: 'auth', email: ADMIN.email, password: 'wrong' });
      const refused = await ws.next();
      assert.deepEqual(refused, {
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_FAILED', message: 'Authentication handshake failed.' },
      });
      assert.equal((await ws.closed).code, 1008, 'handshake mode closes a socket whose first auth fails');
      const missing = await openWs(url);
      missing.send({ type: 'auth', email: ADMIN.email });
      assert.deepEqual((await missing.next()).error, {
        code: 'AUTH_FAILED',
        message: 'Authentication handshake failed.',
      });
      assert.equal((await missing.closed).code, 1008);
      const again = await openWs(url);
      again.send({ type: 'auth', email: ADMIN.email, password: ADMIN.password });
      const ok = await again.next();
      assert.equal(ok.status, 'ok');
      assert.equal(typeof ok.refresh_token, 'string');
      again.close();
    });

    it('an expired token gets TOKEN_EXPIRED instead of events; a new auth resumes the subscription', async () => {
      const { access_token } = json(await login()).data;
      const ws = await openWs(url);
      ws.send({ type: 'auth', access_token });
      assert.equal((await ws.next()).status, 'ok');
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['id', 'name'] }, uid: 's' });
      assert.equal((await ws.next()).event, 'init');
      const before = await post('Before expiry');
      assert.deepEqual(await ws.next(), {
        type: 'subscription',
        event: 'create',
        data: [{ id: before.id, name: 'Before expiry' }],
        uid: 's',
      });
      t.clock.advance(t.context.config.accessTokenTtlMs + 5_000);
      await post('After expiry');
      const expired = await ws.next();
      assert.deepEqual(expired, {
        type: 'auth',
        status: 'error',
        error: { code: 'TOKEN_EXPIRED', message: 'Token expired.' },
      });
      // Handshake mode: the socket stays open for a new `auth`; the subscription was kept. The expired token again is
      // a failed auth (not TOKEN_EXPIRED, which the SDK would answer with the same token, forever).
      ws.send({ type: 'auth', access_token });
      const stale = await ws.next();
      assert.deepEqual(stale.error, { code: 'AUTH_FAILED', message: 'Authentication failed.' });
      const { access_token: renewed } = json(await login()).data;
      ws.send({ type: 'auth', access_token: renewed });
      assert.equal((await ws.next()).status, 'ok');
      const later = await post('After re-auth');
      assert.deepEqual((await ws.next()).data, [{ id: later.id, name: 'After re-auth' }]);
      ws.close();
    });

    it('a logout ends the socket rights at its next message', async () => {
      const { access_token, refresh_token } = json(await login()).data;
      const ws = await openWs(url);
      ws.send({ type: 'auth', access_token });
      assert.equal((await ws.next()).status, 'ok');
      const out = await t.request({ method: 'POST', url: '/auth/logout', payload: { refresh_token }, token: null });
      assert.equal(out.statusCode, 204, out.body);
      ws.send({ type: 'items', action: 'read', collection: 'authors', uid: 'after-logout' });
      const refused = await ws.next();
      assert.equal(refused.type, 'auth');
      assert.equal(refused.error.code, 'AUTH_FAILED');
      ws.close();
    });

    it('a logout stops the events of a subscribed socket: no event read under the ended session is sent', async () => {
      const { access_token, refresh_token } = json(await login()).data;
      const ws = await openWs(url);
      ws.send({ type: 'auth', access_token });
      assert.equal((await ws.next()).status, 'ok');
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['name'] }, uid: 'l' });
      assert.equal((await ws.next()).event, 'init');
      await post('Before logout');
      assert.deepEqual((await ws.next()).data, [{ name: 'Before logout' }]);
      const out = await t.request({ method: 'POST', url: '/auth/logout', payload: { refresh_token }, token: null });
      assert.equal(out.statusCode, 204, out.body);
      // Past the re-check interval (on the app's clock), the next event re-resolves the token first.
      t.clock.advance(2_000);
      await post('After logout');
      const refused = await ws.next();
      assert.equal(refused.type, 'auth');
      assert.equal(refused.error.code, 'AUTH_FAILED');
      ws.send({ type: 'ping', uid: 'next' });
      assert.deepEqual(await ws.next(), { type: 'pong', uid: 'next' }, 'the event after the logout was never sent');
      ws.close();
    });

    it('authenticates with the session cookie of the upgrade request (session mode)', async () => {
      const response = await login('session');
      const cookie = response.cookies.find((c) => c.name === t.context.config.auth.sessionCookie.name)!;
      const ws = await openWs(url, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
      ws.send({ type: 'items', action: 'read', collection: 'authors', query: { limit: 1 }, uid: 'c' });
      const read = await ws.next();
      assert.equal(read.type, 'items');
      assert.equal(read.data.length, 1);
      ws.close();
    });

    it('refuses a message before auth in handshake mode, and a malformed auth with AUTH_FAILED', async () => {
      const ws = await openWs(url);
      ws.send({ type: 'auth', access_token: 42 });
      assert.equal((await ws.next()).error.code, 'AUTH_FAILED');
      assert.equal((await ws.closed).code, 1008);
      const early = await openWs(url);
      early.send({ type: 'subscribe', collection: 'authors' });
      assert.equal((await early.next()).error.code, 'AUTH_FAILED');
      await early.closed;
      // Not even a ping comes before the handshake's `auth`, as in Directus.
      const pinging = await openWs(url);
      pinging.send({ type: 'ping', uid: 'p' });
      assert.deepEqual(await pinging.next(), {
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_FAILED', message: 'Authentication handshake failed.' },
      });
      assert.equal((await pinging.closed).code, 1008);
    });
  });

  describe(`websocket strict mode (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, {
        env: { ...WS_ENV, WEBSOCKETS_REST_AUTH: 'strict', WEBSOCKETS_REST_AUTH_TIMEOUT: '1' },
      });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('refuses an upgrade without a valid token with 401, as Directus does; an expired one closes the socket', async () => {
      const wsUrl = `${url.replace(/^http/, 'ws')}/websocket`;
      const missing = await refusedUpgrade(wsUrl);
      assert.equal(missing.status, 401);
      assert.equal(missing.body.errors[0].extensions.code, 'INVALID_CREDENTIALS');
      const bad = await refusedUpgrade(`${wsUrl}?access_token=not-a-token`);
      assert.equal(bad.status, 401);
      assert.equal(bad.body.errors[0].extensions.code, 'INVALID_CREDENTIALS');
      const twoWays = await refusedUpgrade(`${wsUrl}?access_token=${ADMIN.token}`, {
        authorization: `Bearer ${ADMIN.token}`,
      });
      assert.equal(twoWays.status, 401);

      const viaHeader = await openWs(url, { headers: { authorization: `Bearer ${ADMIN.token}` } });
      viaHeader.send({ type: 'ping', uid: 'p' });
      assert.deepEqual(await viaHeader.next(), { type: 'pong', uid: 'p' });
      viaHeader.close();

      const login = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password },
        token: null,
      });
      const { access_token } = json(login).data;
      const ws = await openWs(url, { query: `access_token=${access_token}` });
      ws.send({ type: 'items', action: 'read', collection: 'authors', query: { limit: 1 }, uid: 'q' });
      assert.equal((await ws.next()).uid, 'q');
      t.clock.advance(t.context.config.accessTokenTtlMs + 5_000);
      ws.send({ type: 'items', action: 'read', collection: 'authors', uid: 'late' });
      assert.equal((await ws.next()).error.code, 'TOKEN_EXPIRED');
      assert.equal((await ws.closed).code, 1008);
    });
  });

  describe(`websocket auth timeout (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { env: { ...WS_ENV, WEBSOCKETS_REST_AUTH_TIMEOUT: '1' } });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('closes a handshake socket that does not authenticate within WEBSOCKETS_REST_AUTH_TIMEOUT', async () => {
      const ws = await openWs(url);
      const message = await ws.next();
      assert.deepEqual(message, {
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_TIMEOUT', message: 'Authentication timed out.' },
      });
      assert.equal((await ws.closed).code, 1008);
    });
  });

  describe(`websocket public mode (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { env: { ...WS_ENV, WEBSOCKETS_REST_AUTH: 'public' } });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('an unauthenticated socket gets only what the Public policy may read; auth upgrades it', async () => {
      await grantPublic(t, [
        { collection: 'authors', action: 'read', fields: 'id,name', permissions: { name: { _starts_with: 'Public' } } },
      ]);
      await t.context.permissionsChanged();
      const ws = await openWs(url);
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['*'] }, uid: 'p' });
      assert.equal((await ws.next()).event, 'init');
      const write = async (name: string) =>
        json(await t.request({ method: 'POST', url: '/items/authors?fields=id', payload: { name, bio: 'private' } }))
          .data as { id: number };
      await write('Private author');
      const open = await write('Public author');
      assert.deepEqual(await ws.next(), {
        type: 'subscription',
        event: 'create',
        data: [{ id: open.id, name: 'Public author' }],
        uid: 'p',
      });
      ws.send({ type: 'subscribe', collection: 'posts', uid: 'no' });
      assert.equal((await ws.next()).error.code, 'FORBIDDEN');
      ws.send({ type: 'auth', access_token: ADMIN.token });
      assert.equal((await ws.next()).status, 'ok');
      const privateOne = await write('Private, seen by the admin');
      const created = await ws.next();
      assert.equal(created.event, 'create');
      assert.equal(created.data[0].id, privateOne.id);
      assert.equal(created.data[0].bio, 'private', 'after auth the subscription reads with the admin rights');
      ws.close();
    });
  });
}
