/**
 * Password reset, invitations and registration end to end against a real SMTP server process on loopback: the
 * mail is read from the server, its link followed over HTTP. With the attacks tried on each: user enumeration by
 * answer, reused and expired tokens, tokens of another purpose, links off the allow-list, Host header poisoning,
 * passwords off policy, sessions that outlive a reset.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { readConfig } from '../../src/config/config.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { mailBody, mailLink, SmtpSink } from '../helpers/smtp-sink.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const PUBLIC_URL = 'http://strata.test';
const RESET_PAGE = 'https://app.example.com/reset';
const INVITE_PAGE = 'https://app.example.com/invite';
const BASE_ENV = {
  PUBLIC_URL,
  PASSWORD_RESET_URL_ALLOW_LIST: `${RESET_PAGE},https://other.example.com/r`,
  USER_INVITE_URL_ALLOW_LIST: INVITE_PAGE,
  USER_REGISTER_URL_ALLOW_LIST: 'https://app.example.com/verify',
  REGISTER_STALL_TIME: '20',
  RATE_LIMITER_REGISTRATION_ENABLED: 'false',
  RATE_LIMITER_PASSWORD_REQUEST_ENABLED: 'false',
};

/** What a caller can compare between two answers: status, body and the headers that are not per-response. */
function answer(response: LightMyRequestResponse): unknown {
  const headers = { ...response.headers };
  for (const varying of ['date', 'server-timing', 'x-request-id', 'retry-after']) delete headers[varying];
  return { status: response.statusCode, body: response.body, headers };
}

async function createUser(t: TestApp, email: string, password: string, extra: Record<string, unknown> = {}) {
  const created = await t.request({
    method: 'POST',
    url: '/users',
    payload: { email, password, status: 'active', ...extra },
  });
  assert.equal(created.statusCode, 200, created.body);
  return json(created).data.id as string;
}

function login(t: TestApp, email: string, password: string) {
  return t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, token: null });
}

for (const client of testClients()) {
  describe(`mail and accounts (${clientLabel(client)})`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestApp(client, { fixture: false, env: { ...BASE_ENV, ...sink.env() } });
    });
    after(async () => {
      await t?.close();
      await sink?.stop();
    });

    it('resets a password by the mailed link once; unknown addresses answer alike; sessions end', async () => {
      await createUser(t, 'reader@example.com', 'old-password-1');
      const signedIn = json(await login(t, 'reader@example.com', 'old-password-1')).data;
      const request = (email: string, headers: Record<string, string> = {}) =>
        t.request({ method: 'POST', url: '/auth/password/request', payload: { email }, token: null, headers });
      // Host header poisoning: the link is built from PUBLIC_URL, never from the request.
      const known = await request('Reader@Example.com', { host: 'evil.example' });
      const unknown = await request('nobody@example.com');
      assert.equal(known.statusCode, 204, known.body);
      assert.deepEqual(answer(known), answer(unknown));

      const mail = await sink.next('reader@example.com');
      assert.match(mail.raw, /Subject: Password Reset Request/);
      const { url, token } = mailLink(mail);
      assert.equal(`${url.origin}${url.pathname}`, `${PUBLIC_URL}/admin/reset-password`);
      await t.context.mailer.queue.idle();
      assert.equal(sink.mails.filter((m) => m.to.includes('nobody@example.com')).length, 0);

      // A password off the policy is refused and leaves the link usable.
      await t.request({ method: 'PATCH', url: '/settings', payload: { auth_password_policy: '/^.{12,}$/' } });
      const weak = await t.request({
        method: 'POST',
        url: '/auth/password/reset',
        payload: { token, password: 'short' },
        token: null,
      });
      assert.equal(weak.statusCode, 400, weak.body);
      assert.equal(errorCode(weak), 'FAILED_VALIDATION');
      await t.request({ method: 'PATCH', url: '/settings', payload: { auth_password_policy: null } });

      const reset = (tok: string) =>
        t.request({
          method: 'POST',
          url: '/auth/password/reset',
          payload: { token: tok, password: 'new-password-22' },
          token: null,
        });
      assert.equal((await reset(token)).statusCode, 204);
      const again = await reset(token);
      assert.equal(again.statusCode, 403, again.body);
      assert.equal(errorCode(again), 'INVALID_TOKEN');
      for (const forged of ['', 'x'.repeat(5000), token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')]) {
        const refused = await reset(forged);
        assert.ok([400, 403].includes(refused.statusCode), refused.body);
      }
      // Every session of the user ended: the old access token and refresh token stop working.
      const me = await t.request({ method: 'GET', url: '/users/me', token: signedIn.access_token });
      assert.equal(me.statusCode, 401, me.body);
      const refreshed = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { refresh_token: signedIn.refresh_token },
        token: null,
      });
      assert.equal(refreshed.statusCode, 401, refreshed.body);
      assert.equal((await login(t, 'reader@example.com', 'old-password-1')).statusCode, 401);
      assert.equal((await login(t, 'reader@example.com', 'new-password-22')).statusCode, 200);
    });

    it('runs the flows over GraphQL as Directus names them', async () => {
      await createUser(t, 'gql@example.com', 'gql-password-1');
      const gql = (query: string, variables: Record<string, unknown>) =>
        t.request({ method: 'POST', url: '/graphql/system', payload: { query, variables }, token: null });
      const requested = await gql('mutation($e: String!) { auth_password_request(email: $e) }', {
        e: 'gql@example.com',
      });
      assert.deepEqual(json(requested), { data: { auth_password_request: true } });
      const unknown = await gql('mutation($e: String!) { auth_password_request(email: $e) }', {
        e: 'nobody-gql@example.com',
      });
      assert.deepEqual(answer(unknown), answer(requested));
      const { token } = mailLink(await sink.next('gql@example.com'));
      const reset = 'mutation($t: String!, $p: String!) { auth_password_reset(token: $t, password: $p) }';
      assert.deepEqual(json(await gql(reset, { t: token, p: 'gql-password-2' })), {
        data: { auth_password_reset: true },
      });
      const again = json(await gql(reset, { t: token, p: 'gql-password-3' }));
      assert.equal(again.errors[0].extensions.code, 'INVALID_TOKEN');
      assert.equal((await login(t, 'gql@example.com', 'gql-password-2')).statusCode, 200);
      const role = json(await t.request({ method: 'POST', url: '/roles', payload: { name: 'Via GraphQL' } })).data.id;
      const invited = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: {
          query: 'mutation($e: String!, $r: String!) { users_invite(email: $e, role: $r) }',
          variables: { e: 'gql-invite@example.com', r: role },
        },
      });
      assert.deepEqual(json(invited), { data: { users_invite: true } });
      const invite = mailLink(await sink.next('gql-invite@example.com')).token;
      const accept = 'mutation($t: String!, $p: String!) { users_invite_accept(token: $t, password: $p) }';
      assert.deepEqual(json(await gql(accept, { t: invite, p: 'gql-invited-1' })), {
        data: { users_invite_accept: true },
      });
      const register = await gql('mutation { users_register(email: "g2@example.com", password: "pw-123456") }', {});
      assert.equal(json(register).errors[0].extensions.code, 'FORBIDDEN');
    });

    it('takes reset_url only from the allow-list, drops its query, and expires links', async () => {
      await createUser(t, 'writer@example.com', 'writer-password-1');
      const request = (reset_url: string) =>
        t.request({
          method: 'POST',
          url: '/auth/password/request',
          payload: { email: 'writer@example.com', reset_url },
          token: null,
        });
      for (const evil of [
        'https://evil.example/reset',
        'https://app.example.com.evil.example/reset',
        'https://app.example.com/reset/../../evil',
        'http://app.example.com/reset',
        'https://app.example.com:8443/reset',
        'https://user:pw@app.example.com/reset',
        'javascript:alert(1)//app.example.com/reset',
        '//evil.example/reset',
      ]) {
        const refused = await request(evil);
        assert.equal(refused.statusCode, 400, `${evil}: ${refused.body}`);
        assert.equal(errorCode(refused), 'INVALID_PAYLOAD');
      }
      assert.equal((await request(`${RESET_PAGE}?next=https://evil.example#x`)).statusCode, 204);
      const { url, token } = mailLink(await sink.next('writer@example.com'));
      assert.equal(url.href, `${RESET_PAGE}?token=${token}`);
      t.clock.advance(2 * 3600_000);
      const late = await t.request({
        method: 'POST',
        url: '/auth/password/reset',
        payload: { token, password: 'whatever-password' },
        token: null,
      });
      assert.equal(errorCode(late), 'INVALID_TOKEN');
    });

    it('invites by mail, re-invites a pending user, accepts once; needs the right to create users', async () => {
      const role = json(await t.request({ method: 'POST', url: '/roles', payload: { name: 'Editors' } })).data.id;
      const invite = (payload: Record<string, unknown>, token?: string | null) =>
        t.request({ method: 'POST', url: '/users/invite', payload, token });
      assert.equal(
        (await invite({ email: ['ed1@example.com', 'ed2@example.com'], role, invite_url: INVITE_PAGE })).statusCode,
        204,
      );
      const first = mailLink(await sink.next('ed1@example.com'));
      assert.equal(`${first.url.origin}${first.url.pathname}`, INVITE_PAGE);
      await sink.next('ed2@example.com');
      const refused = await invite({ email: 'ed3@example.com', role, invite_url: 'https://evil.example/x' });
      assert.equal(errorCode(refused), 'INVALID_PAYLOAD');

      // Re-invite: a new link; the first one no longer works.
      assert.equal((await invite({ email: 'ed1@example.com', role })).statusCode, 204);
      const second = mailLink(await sink.next('ed1@example.com'));
      assert.equal(`${second.url.origin}${second.url.pathname}`, `${PUBLIC_URL}/admin/accept-invite`);
      const accept = (token: string) =>
        t.request({
          method: 'POST',
          url: '/users/invite/accept',
          payload: { token, password: 'editor-pass-1' },
          token: null,
        });
      assert.equal(errorCode(await accept(first.token)), 'INVALID_TOKEN');
      // A token of another purpose is no invitation.
      await t.request({
        method: 'POST',
        url: '/auth/password/request',
        payload: { email: 'reader@example.com' },
        token: null,
      });
      const resetToken = mailLink(await sink.next('reader@example.com')).token;
      assert.equal(errorCode(await accept(resetToken)), 'INVALID_TOKEN');
      assert.equal((await accept(second.token)).statusCode, 204);
      assert.equal(errorCode(await accept(second.token)), 'INVALID_TOKEN');
      const signedIn = await login(t, 'ed1@example.com', 'editor-pass-1');
      assert.equal(signedIn.statusCode, 200, signedIn.body);

      // An active user is not re-invited; a caller without the right to create users cannot invite.
      assert.equal((await invite({ email: 'ed1@example.com', role })).statusCode, 204);
      const editorToken = json(signedIn).data.access_token;
      const forbidden = await invite({ email: 'ed4@example.com', role }, editorToken);
      assert.equal(forbidden.statusCode, 403, forbidden.body);
      const anonymous = await invite({ email: 'ed4@example.com', role }, null);
      assert.equal(anonymous.statusCode, 403, anonymous.body);
      await t.context.mailer.queue.idle();
      assert.equal(
        sink.mails.filter((m) => m.to.includes('ed1@example.com') || m.to.includes('ed4@example.com')).length,
        0,
      );
    });

    it('lets one of two racing resets with one link through', async () => {
      await createUser(t, 'race@example.com', 'race-password-1');
      await t.request({
        method: 'POST',
        url: '/auth/password/request',
        payload: { email: 'race@example.com' },
        token: null,
      });
      const { token } = mailLink(await sink.next('race@example.com'));
      const answers = await Promise.all(
        ['race-password-2', 'race-password-3', 'race-password-4'].map((password) =>
          t.request({ method: 'POST', url: '/auth/password/reset', payload: { token, password }, token: null }),
        ),
      );
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [204, 403, 403]);
    });

    it('lets a policy that allows creating users invite', async () => {
      const policy = await createPolicy(t, {
        permissions: [{ collection: 'service_users', action: 'create', fields: '*' }],
      });
      const inviter = await createUserWithPolicies(t, [policy]);
      const invited = await t.request({
        method: 'POST',
        url: '/users/invite',
        payload: { email: 'by-policy@example.com', role: inviter.role },
        token: inviter.token,
      });
      assert.equal(invited.statusCode, 204, invited.body);
      const { token } = mailLink(await sink.next('by-policy@example.com'));
      const accepted = await t.request({
        method: 'POST',
        url: '/users/invite/accept',
        payload: { token, password: 'by-policy-pass' },
        token: null,
      });
      assert.equal(accepted.statusCode, 204, accepted.body);
    });

    it('registers when the settings allow it, verifies the address once, never tells a taken address', async () => {
      const register = (payload: Record<string, unknown>) =>
        t.request({ method: 'POST', url: '/users/register', payload, token: null });
      const closed = await register({ email: 'new@example.com', password: 'signup-pass-1' });
      assert.equal(closed.statusCode, 403, closed.body);
      const role = json(await t.request({ method: 'POST', url: '/roles', payload: { name: 'Members' } })).data.id;
      const patched = await t.request({
        method: 'PATCH',
        url: '/settings',
        payload: {
          public_registration: true,
          public_registration_role: role,
          public_registration_verify_email: true,
          public_registration_email_filter: { email: { _ends_with: '@example.com' } },
        },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      t.context.settings.clear();
      const info = json(await t.request({ method: 'GET', url: '/server/info', token: null })).data.project;
      assert.equal(info.public_registration, true);

      const fresh = await register({ email: 'new@example.com', password: 'signup-pass-1', first_name: 'New' });
      const taken = await register({ email: 'reader@example.com', password: 'signup-pass-1' });
      assert.equal(fresh.statusCode, 204, fresh.body);
      assert.deepEqual(answer(fresh), answer(taken));
      const filtered = await register({ email: 'new@elsewhere.example', password: 'signup-pass-1' });
      assert.equal(filtered.statusCode, 403);
      const offList = await register({
        email: 'x@example.com',
        password: 'signup-pass-1',
        verification_url: 'https://evil.example/v',
      });
      assert.equal(errorCode(offList), 'INVALID_PAYLOAD');

      const { url, token } = mailLink(await sink.next('new@example.com'));
      assert.equal(`${url.origin}${url.pathname}`, `${PUBLIC_URL}/users/register/verify-email`);
      assert.equal((await login(t, 'new@example.com', 'signup-pass-1')).statusCode, 401);
      const verify = (tok: string) =>
        t.request({ method: 'GET', url: `/users/register/verify-email?token=${encodeURIComponent(tok)}`, token: null });
      const verified = await verify(token);
      assert.equal(verified.statusCode, 302, verified.body);
      assert.equal(verified.headers.location, `${PUBLIC_URL}/admin`);
      assert.equal(errorCode(await verify(token)), 'INVALID_TOKEN');
      const signedIn = await login(t, 'new@example.com', 'signup-pass-1');
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      const user = json(
        await t.request({
          method: 'GET',
          url: '/users?filter[email][_eq]=new@example.com&fields=role,first_name,status',
        }),
      ).data;
      assert.deepEqual(user, [{ role, first_name: 'New', status: 'active' }]);
      await t.context.mailer.queue.idle();
      assert.equal(sink.mails.filter((m) => m.to.includes('reader@example.com')).length, 0);
    });
  });
}

describe('mail delivery', () => {
  it('answers the request when the mail server refuses or is away, and logs it', async () => {
    const failing = await SmtpSink.start({ SMTP_SINK_FAIL: '1' });
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    const t = await startTestApp('sqlite3', {
      fixture: false,
      env: { ...BASE_ENV, ...failing.env({ EMAIL_SMTP_USER: 'mailer', EMAIL_SMTP_PASSWORD: 'smtp-secret-1' }) },
      context: { log },
    });
    try {
      await createUser(t, 'a@example.com', 'a-password-123');
      const answered = await t.request({
        method: 'POST',
        url: '/auth/password/request',
        payload: { email: 'a@example.com' },
        token: null,
      });
      assert.equal(answered.statusCode, 204);
      while (t.context.mailer.queue.counts.failed === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await failing.stop();
      // The server is gone: the next request still answers at once.
      const role = json(await t.request({ method: 'POST', url: '/roles', payload: { name: 'R' } })).data.id;
      const invited = await t.request({
        method: 'POST',
        url: '/users/invite',
        payload: { email: 'b@example.com', role },
      });
      assert.equal(invited.statusCode, 204, invited.body);
      await t.context.mailer.queue.idle();
      assert.equal(t.context.mailer.queue.counts.failed, 2);
      // Logged with the domain and the server's code: never the address, the link's token nor the credentials.
      const logged = lines.filter((line) => line.startsWith('Mail not sent'));
      assert.equal(logged.length, 2, lines.join('\n'));
      assert.match(logged[0]!, /"to":"example.com"/);
      for (const line of lines) assert.doesNotMatch(line, /smtp-secret|token=|a@example|b@example/);
    } finally {
      await t.close();
      await failing.stop();
    }
  });

  it('limits reset requests per address, and uses templates from EMAIL_TEMPLATES_PATH', async () => {
    const sink = await SmtpSink.start();
    const folder = mkdtempSync(path.join(tmpdir(), 'strata-mail-templates-'));
    writeFileSync(
      path.join(folder, 'password-reset.liquid'),
      '{% layout "base" %}{% block content %}Custom reset for {{ email }}: <a href="{{ url }}">go</a>{% endblock %}',
    );
    const t = await startTestApp('sqlite3', {
      fixture: false,
      env: {
        ...BASE_ENV,
        ...sink.env(),
        EMAIL_TEMPLATES_PATH: folder,
        RATE_LIMITER_PASSWORD_REQUEST_ENABLED: 'true',
        RATE_LIMITER_PASSWORD_REQUEST_POINTS: '2',
      },
    });
    try {
      await t.request({
        method: 'PATCH',
        url: '/settings',
        payload: { project_name: 'Acme <b>Docs</b>', project_color: '#123456' },
      });
      await createUser(t, 'c@example.com', 'c-password-123');
      const request = () =>
        t.request({ method: 'POST', url: '/auth/password/request', payload: { email: 'c@example.com' }, token: null });
      assert.equal((await request()).statusCode, 204);
      assert.equal((await request()).statusCode, 204);
      const limited = await request();
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal(errorCode(limited), 'REQUESTS_EXCEEDED');
      const body = mailBody(await sink.next('c@example.com'));
      assert.match(body, /Custom reset for c@example.com/);
      // The project's name is escaped, its colour is in the layout.
      assert.match(body, /Acme &lt;b&gt;Docs&lt;\/b&gt;/);
      assert.match(body, /#123456/);
    } finally {
      await t.close();
      await sink.stop();
    }
  });

  it('signs in to the SMTP server with EMAIL_SMTP_USER/PASSWORD, and limits registrations per IP', async () => {
    const sink = await SmtpSink.start({ SMTP_SINK_USER: 'mailer', SMTP_SINK_PASSWORD: 'smtp-secret-1' });
    const t = await startTestApp('sqlite3', {
      fixture: false,
      env: {
        ...BASE_ENV,
        ...sink.env({ EMAIL_SMTP_USER: 'mailer', EMAIL_SMTP_PASSWORD: 'smtp-secret-1' }),
        RATE_LIMITER_REGISTRATION_ENABLED: 'true',
        RATE_LIMITER_REGISTRATION_POINTS: '2',
      },
    });
    try {
      await t.request({ method: 'PATCH', url: '/settings', payload: { public_registration: true } });
      const register = (email: string) =>
        t.request({ method: 'POST', url: '/users/register', payload: { email, password: 'pw-1234567' }, token: null });
      assert.equal((await register('r1@example.com')).statusCode, 204);
      assert.equal((await register('r2@example.com')).statusCode, 204);
      assert.equal(errorCode(await register('r3@example.com')), 'REQUESTS_EXCEEDED');
      assert.match(mailBody(await sink.next('r1@example.com')), /Verify your email address/);
    } finally {
      await t.close();
      await sink.stop();
    }
  });

  it('refuses an unknown EMAIL_TRANSPORT at start', () => {
    assert.throws(() => readConfig({ EMAIL_TRANSPORT: 'sendmail' }), /EMAIL_TRANSPORT: only smtp is supported/);
    assert.throws(
      () => readConfig({ PASSWORD_RESET_URL_ALLOW_LIST: 'javascript:alert(1)' }),
      /PASSWORD_RESET_URL_ALLOW_LIST/,
    );
  });
});
