/**
 * Sign-in through an `ldap` provider against a real OpenLDAP server (Debian's slapd, started by the test on a free
 * loopback port): the first login creates the user with the role of its group, later ones find it and keep its role
 * in step; wrong passwords, unknown and ambiguous identifiers answer alike; filter syntax in the identifier is taken
 * literally; empty passwords never reach a bind; a directory that is down, silent or misconfigured is a coded 503.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from 'ldapts';
import { Secret, TOTP } from 'otpauth';
import { authenticateInDirectory } from '../../src/auth/ldap/ldap-directory.js';
import { LdapDriver } from '../../src/auth/ldap/ldap-driver.js';
import { queryBuilder } from '../../src/db/connection.js';
import { InvalidCredentialsError } from '../../src/errors/catalogue.js';
import { freePort } from '../helpers/child-server.js';
import { LDAP_ROOT_PASSWORD, slapdAvailable, TestLdap } from '../helpers/ldap-server.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { assertCreateRecorded } from '../helpers/user-audit.js';

const SUFFIX = 'dc=example,dc=org';
const SERVICE_DN = `cn=reader,${SUFFIX}`;
const SERVICE_PASSWORD = 'reader-secret-5f2c';
const WRONG_BIND_PASSWORD = 'wrong-bind-secret-91ab';
const DEFAULT_ROLE = '0b7c1d4e-2f3a-4b5c-8d6e-7f8091a2b3c4';
const ALICE_DN = `uid=alice,ou=people,${SUFFIX}`;

const person = (uid: string, rdn: string, given: string, sn: string, mail: string, password: string) => `
dn: ${rdn},ou=people,${SUFFIX}
objectClass: inetOrgPerson
uid: ${uid}
cn: ${given} ${sn}
sn: ${sn}
givenName: ${given}
mail: ${mail}
userPassword: ${password}
`;

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
${person('alice', 'uid=alice', 'Alice', 'Liddell', 'Alice@Example.org', 'alice-pass')}
${person('bob', 'uid=bob', 'Bob', 'Builder', 'bob@example.org', 'bob-pass')}
${person('carol', 'uid=carol', 'Carol', 'Clash', ADMIN.email, 'carol-pass')}
${person('o*brien)(x', 'cn=obrien', 'Oisin', 'Brien', 'obrien@example.org', 'obrien-pass')}
${person('twin', 'cn=twin-a', 'Twin', 'A', 'twin-a@example.org', 'twin-pass')}
${person('twin', 'cn=twin-b', 'Twin', 'B', 'twin-b@example.org', 'twin-pass')}
${[1, 2, 3].map((n) => person('trio', `cn=trio-${n}`, 'Trio', String(n), `trio-${n}@example.org`, 'trio-pass')).join('')}
dn: cn=Editors,ou=groups,${SUFFIX}
objectClass: groupOfNames
cn: Editors
member: ${ALICE_DN}

dn: cn=Staff,ou=groups,${SUFFIX}
objectClass: groupOfNames
cn: Staff
member: ${ALICE_DN}
member: uid=bob,ou=people,${SUFFIX}
`;

/** The settings the registry's ldap driver of `name` uses (read once by the config loader). */
function ldapSettings(t: TestApp, name: string) {
  const driver = t.context.signOn.credentials(name);
  assert.ok(driver instanceof LdapDriver);
  return driver.settings;
}

function providerEnv(name: string, url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [`AUTH_${name}_DRIVER`]: 'ldap',
    [`AUTH_${name}_CLIENT_URL`]: url,
    [`AUTH_${name}_BIND_DN`]: SERVICE_DN,
    [`AUTH_${name}_BIND_PASSWORD`]: SERVICE_PASSWORD,
    [`AUTH_${name}_USER_DN`]: `ou=people,${SUFFIX}`,
    [`AUTH_${name}_USER_ATTRIBUTE`]: 'uid',
    [`AUTH_${name}_CLIENT_TIMEOUT`]: '1s',
    [`AUTH_${name}_CLIENT_CONNECT_TIMEOUT`]: '1s',
    ...extra,
  };
}

for (const client of testClients()) {
  describe(`ldap sign-in (${clientLabel(client)})`, { skip: !slapdAvailable() && 'slapd is not installed' }, () => {
    let t: TestApp;
    let ldap: TestLdap;
    let silent: net.Server;
    let editors: string;
    const login = (
      identifier: unknown,
      password: unknown,
      extra: Record<string, unknown> = {},
      provider = 'directory',
      worker?: number,
    ) =>
      t.request({
        method: 'POST',
        url: `/auth/login/${provider}`,
        payload: { identifier, password, ...extra },
        token: null,
        ...(worker === undefined ? {} : { worker }),
      });
    const userRow = (dn: string) =>
      queryBuilder(t.context.db)('service_users')
        .select('id', 'provider', 'external_identifier', 'email', 'first_name', 'last_name', 'role', 'password')
        .whereRaw('lower(external_identifier) = ?', [dn.toLowerCase()]);

    before(async () => {
      ldap = await TestLdap.start(SUFFIX, SERVICE_DN, LDIF);
      // A server that accepts connections and never answers: the client's own timeouts must end the login.
      silent = net.createServer(() => {});
      const silentPort = await freePort();
      await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
      t = await startTestApp(client, {
        env: {
          AUTH_PROVIDERS: 'Directory,wrongbind,silent',
          ...providerEnv('DIRECTORY', ldap.url, {
            AUTH_DIRECTORY_GROUP_DN: `ou=groups,${SUFFIX}`,
            AUTH_DIRECTORY_DEFAULT_ROLE_ID: DEFAULT_ROLE,
            AUTH_DIRECTORY_SYNC_USER_INFO: 'true',
          }),
          ...providerEnv('WRONGBIND', ldap.url, { AUTH_WRONGBIND_BIND_PASSWORD: WRONG_BIND_PASSWORD }),
          ...providerEnv('SILENT', `ldap://127.0.0.1:${silentPort}`),
        },
      });
      const created = await t.request({ method: 'POST', url: '/roles', payload: { name: 'editors' } });
      assert.equal(created.statusCode, 200, created.body);
      editors = json(created).data.id;
      const fallback = await t.request({
        method: 'POST',
        url: '/roles',
        payload: { id: DEFAULT_ROLE, name: 'Readers' },
      });
      assert.equal(fallback.statusCode, 200, fallback.body);
    });
    after(async () => {
      await t?.close();
      await ldap?.close();
      silent?.close();
    });

    it('creates the user on a first login, with the role of its group, and signs it in', async () => {
      const response = await login('alice', 'alice-pass');
      assert.equal(response.statusCode, 200, response.body);
      const { access_token, refresh_token, expires } = json(response).data;
      assert.ok(access_token && refresh_token);
      assert.equal(expires, 900_000);
      const rows = await userRow(ALICE_DN);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].provider, 'directory');
      assert.equal(rows[0].external_identifier, ALICE_DN);
      assert.equal(rows[0].email, 'alice@example.org');
      assert.equal(rows[0].first_name, 'Alice');
      assert.equal(rows[0].last_name, 'Liddell');
      assert.equal(rows[0].role, editors);
      assert.equal(rows[0].password, null);
      const claims = JSON.parse(Buffer.from(access_token.split('.')[1], 'base64url').toString('utf8'));
      assert.equal(claims.id, rows[0].id);
      assert.equal(claims.role, editors);
      await assertCreateRecorded(t, rows[0].id);
      const refreshed = await t.request({
        method: 'POST',
        url: '/auth/refresh',
        payload: { refresh_token },
        token: null,
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
    });

    it('finds the same user on the next logins, in cookie and session modes, and keeps its role in step', async () => {
      const [{ id }] = await userRow(ALICE_DN);
      await queryBuilder(t.context.db)('service_users').update({ role: null, first_name: 'Edited' }).where('id', id);
      const cookie = await login('alice', 'alice-pass', { mode: 'cookie' });
      assert.equal(cookie.statusCode, 200, cookie.body);
      assert.deepEqual(Object.keys(json(cookie).data).sort(), ['access_token', 'expires']);
      assert.ok(cookie.cookies.find((c) => c.name === 'service_refresh_token')?.httpOnly);
      const session = await login('ALICE', 'alice-pass', { mode: 'session' });
      assert.equal(session.statusCode, 200, session.body);
      assert.ok(session.cookies.find((c) => c.name === 'service_session_token')?.httpOnly);
      const rows = await userRow(ALICE_DN);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].id, id);
      assert.equal(rows[0].role, editors);
      assert.equal(rows[0].first_name, 'Alice');
    });

    it('gives the default role to a user none of whose groups is a role', async () => {
      const response = await login('bob', 'bob-pass');
      assert.equal(response.statusCode, 200, response.body);
      const [row] = await userRow(`uid=bob,ou=people,${SUFFIX}`);
      assert.equal(row.role, DEFAULT_ROLE);
    });

    it('answers a wrong password, an unknown user and an ambiguous identifier alike, and writes nothing', async () => {
      const unknown = await login('nobody', 'alice-pass');
      assert.equal(unknown.statusCode, 401);
      assert.equal(errorCode(unknown), 'INVALID_CREDENTIALS');
      for (const [identifier, password] of [
        ['alice', 'wrong'],
        ['alice', ' '],
        ['twin', 'twin-pass'],
        ['trio', 'trio-pass'],
        ['nobody', 'x'],
      ]) {
        const response = await login(identifier, password);
        assert.equal(response.statusCode, 401, `${identifier}: ${response.body}`);
        assert.equal(response.body, unknown.body);
      }
      assert.equal((await userRow(`cn=twin-a,ou=people,${SUFFIX}`)).length, 0);
    });

    it('takes filter syntax in the identifier literally (RFC 4515): no wildcard, no injected clause', async () => {
      const unknown = await login('nobody', 'alice-pass');
      for (const identifier of ['*', 'a*', '*)(uid=*', 'alice)(|(uid=*', '*))(|(objectClass=*', 'alice\\2a', 'o*']) {
        const response = await login(identifier, identifier === 'o*' ? 'obrien-pass' : 'alice-pass');
        assert.equal(response.statusCode, 401, `${identifier}: ${response.body}`);
        assert.equal(response.body, unknown.body);
      }
      // An identifier made of filter syntax is someone's real name when the directory says so.
      const literal = await login('o*brien)(x', 'obrien-pass');
      assert.equal(literal.statusCode, 200, literal.body);
      assert.equal((await userRow(`cn=obrien,ou=people,${SUFFIX}`)).length, 1);
    });

    it('refuses an empty password before any bind (the unauthenticated-bind trick), and malformed bodies', async () => {
      for (const payload of [
        { identifier: 'alice', password: '' },
        { identifier: 'alice' },
        { identifier: '', password: 'alice-pass' },
        { identifier: ['alice'], password: 'alice-pass' },
        { identifier: 'alice', password: { $ne: '' } },
        { identifier: 'alice', password: 'alice-pass', mode: 'tokens' },
        { identifier: '\0alice', password: 'alice-pass' },
      ]) {
        const response = await t.request({ method: 'POST', url: '/auth/login/directory', payload, token: null });
        assert.equal(response.statusCode, 400, `${JSON.stringify(payload)}: ${response.body}`);
        assert.equal(errorCode(response), 'INVALID_PAYLOAD');
      }
    });

    it('refuses an empty password in the driver itself, whoever calls it', async () => {
      const provider = ldapSettings(t, 'directory');
      const log = { warn: () => {} };
      await assert.rejects(authenticateInDirectory(provider, { identifier: 'alice', password: '' }, log), (error) => {
        assert.ok(error instanceof InvalidCredentialsError);
        return true;
      });
    });

    it('never links a directory entry to the local account that has its email', async () => {
      const response = await login('carol', 'carol-pass');
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(errorCode(response), 'INVALID_PROVIDER');
      const admin = await queryBuilder(t.context.db)('service_users')
        .select('provider', 'external_identifier')
        .where('email', ADMIN.email)
        .first();
      assert.deepEqual({ ...admin }, { provider: 'default', external_identifier: null });
      // And a directory user has no password of Strata's own: /auth/login does not let it in.
      const local = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'alice@example.org', password: 'alice-pass' },
        token: null,
      });
      assert.equal(errorCode(local), 'INVALID_CREDENTIALS');
    });

    it('asks a two-factor user for its code, and refuses a suspended user like a wrong password', async () => {
      const [{ id }] = await userRow(ALICE_DN);
      const secret = new Secret();
      const users = () => queryBuilder(t.context.db)('service_users').where('id', id);
      await users().update({ tfa_secret: secret.base32 });
      const without = await login('alice', 'alice-pass');
      assert.equal(errorCode(without), 'INVALID_OTP');
      const otp = new TOTP({ secret }).generate({ timestamp: t.clock.now() });
      const withCode = await login('alice', 'alice-pass', { otp });
      assert.equal(withCode.statusCode, 200, withCode.body);
      await users().update({ tfa_secret: null, status: 'suspended' });
      const suspended = await login('alice', 'alice-pass');
      assert.equal(suspended.statusCode, 401);
      assert.equal(errorCode(suspended), 'INVALID_CREDENTIALS');
      await users().update({ status: 'active' });
    });

    it('counts wrong passwords of a known user toward auth_login_attempts, and suspends it', async () => {
      const settings = () => queryBuilder(t.context.db)('service_settings');
      await settings().update({ auth_login_attempts: 2 });
      try {
        const codes = [];
        for (let i = 0; i < 3; i++) codes.push(errorCode(await login('o*brien)(x', 'wrong')));
        assert.deepEqual(codes, ['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'INVALID_CREDENTIALS']);
        const [row] = await queryBuilder(t.context.db)('service_users')
          .select('id', 'status')
          .where('external_identifier', `cn=obrien,ou=people,${SUFFIX}`);
        assert.equal(row.status, 'suspended');
        assert.equal(errorCode(await login('o*brien)(x', 'obrien-pass')), 'INVALID_CREDENTIALS');
        await queryBuilder(t.context.db)('service_users').update({ status: 'active' }).where('id', row.id);
      } finally {
        await settings().update({ auth_login_attempts: 25 });
      }
    });

    it('asks the directory again at each refresh: a removed entry ends the session', async () => {
      const first = await login('bob', 'bob-pass');
      const { refresh_token } = json(first).data;
      const refresh = (token: string) =>
        t.request({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: token }, token: null });
      const kept = await refresh(refresh_token);
      assert.equal(kept.statusCode, 200, kept.body);
      const admin = new Client({ url: ldap.url });
      try {
        await admin.bind(`cn=admin,${SUFFIX}`, LDAP_ROOT_PASSWORD);
        await admin.del(`uid=bob,ou=people,${SUFFIX}`);
      } finally {
        await admin.unbind();
      }
      const ended = await refresh(json(kept).data.refresh_token);
      assert.equal(ended.statusCode, 401, ended.body);
      assert.equal(errorCode(ended), 'INVALID_CREDENTIALS');
      // The local admin's refresh does not ask any directory.
      const local = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password },
        token: null,
      });
      assert.equal((await refresh(json(local).data.refresh_token)).statusCode, 200);
    });

    it('knows only its ldap providers as routes (their names in any case)', async () => {
      const upper = await login('alice', 'alice-pass', {}, 'DIRECTORY');
      assert.equal(upper.statusCode, 200, upper.body);
      const oas = await t.request({ method: 'GET', url: '/server/specs/oas' });
      assert.equal(oas.statusCode, 200);
      assert.ok(json(oas).paths['/auth/login/{provider}']?.post, 'the route is in the OpenAPI document');
      for (const name of ['nope', '__proto__', 'constructor', 'hasOwnProperty']) {
        const response = await login('alice', 'alice-pass', {}, name);
        assert.equal(response.statusCode, 404, `${name}: ${response.body}`);
        assert.equal(errorCode(response), 'ROUTE_NOT_FOUND');
      }
    });

    it('records logins and refused logins as activity, as password logins are', async () => {
      const activity = () =>
        queryBuilder(t.context.db)('service_activity')
          .select('action', 'item', 'user')
          .where('collection', 'service_users')
          .orderBy('id', 'desc');
      const [{ id }] = await userRow(ALICE_DN);
      assert.equal((await login('alice', 'wrong')).statusCode, 401);
      assert.deepEqual((await activity().first()) as unknown, { action: 'login_failed', item: id, user: null });
      assert.equal((await login('Nobody', 'x')).statusCode, 401);
      assert.deepEqual((await activity().first()) as unknown, {
        action: 'login_failed',
        item: 'directory:Nobody',
        user: null,
      });
      assert.equal((await login('alice', 'alice-pass')).statusCode, 200);
      assert.deepEqual((await activity().first()) as unknown, { action: 'login', item: id, user: id });
      // A directory that fails refused no one: nothing is recorded.
      const before = (await activity().first()) as unknown;
      assert.equal((await login('alice', 'alice-pass', {}, 'wrongbind')).statusCode, 503);
      assert.deepEqual((await activity().first()) as unknown, before);
    });

    it('lists its providers in GET /auth, and keeps signing in under AUTH_DISABLE_DEFAULT', async () => {
      const list = await t.request({ method: 'GET', url: '/auth', token: null });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(json(list).data, [
        { name: 'directory', driver: 'ldap', icon: null, label: null },
        { name: 'wrongbind', driver: 'ldap', icon: null, label: null },
        { name: 'silent', driver: 'ldap', icon: null, label: null },
      ]);
      const closed = await startTestApp(client, {
        env: {
          AUTH_PROVIDERS: 'directory',
          AUTH_DISABLE_DEFAULT: 'true',
          ...providerEnv('DIRECTORY', ldap.url, { AUTH_DIRECTORY_LABEL: 'Staff', AUTH_DIRECTORY_ICON: 'badge' }),
        },
      });
      try {
        const listed = json(await closed.request({ method: 'GET', url: '/auth', token: null }));
        assert.deepEqual(listed, {
          data: [{ name: 'directory', driver: 'ldap', icon: 'badge', label: 'Staff' }],
          disableDefault: true,
        });
        const local = await closed.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: ADMIN.email, password: ADMIN.password },
          token: null,
        });
        assert.equal(errorCode(local), 'INVALID_PROVIDER');
        const directory = await closed.request({
          method: 'POST',
          url: '/auth/login/directory',
          payload: { identifier: 'alice', password: 'alice-pass' },
          token: null,
        });
        assert.equal(directory.statusCode, 200, directory.body);
        // The redirect flow's route is not an ldap provider's.
        const redirect = await closed.request({ method: 'GET', url: '/auth/login/directory', token: null });
        assert.equal(errorCode(redirect), 'INVALID_PROVIDER');
      } finally {
        await closed.close();
      }
    });

    it('answers 503 for a refused service account, without its password in the answer or the log', async () => {
      const response = await login('alice', 'alice-pass', {}, 'wrongbind');
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(errorCode(response), 'INVALID_PROVIDER_CONFIG');
      assert.ok(!response.body.includes(WRONG_BIND_PASSWORD));
      const logged: string[] = [];
      const log = { warn: (message: string) => logged.push(message) };
      for (const name of ['wrongbind', 'silent']) {
        const provider = ldapSettings(t, name);
        await assert.rejects(authenticateInDirectory(provider, { identifier: 'alice', password: 'alice-pass' }, log));
      }
      assert.equal(logged.length, 2);
      for (const line of logged) {
        assert.ok(!line.includes(WRONG_BIND_PASSWORD) && !line.includes(SERVICE_PASSWORD), line);
        assert.ok(!line.includes('alice-pass'), line);
      }
    });

    it('answers 503 when the directory is silent or down, and keeps serving', async () => {
      const quiet = await login('alice', 'alice-pass', {}, 'silent');
      assert.equal(quiet.statusCode, 503, quiet.body);
      assert.equal(errorCode(quiet), 'SERVICE_UNAVAILABLE');
      // A flood against a silent directory holds at most 32 connections; the others are told at once. The bound is
      // each process's: in pair mode the flood goes to one worker.
      const flood = await Promise.all(Array.from({ length: 40 }, () => login('alice', 'alice-pass', {}, 'silent', 0)));
      assert.ok(flood.every((response) => response.statusCode === 503));
      const turnedAway = flood.filter((r) => json(r).errors[0].extensions.reason === 'Too many sign-ins at once');
      assert.equal(turnedAway.length, 8);
      const before = json(await login('alice', 'alice-pass')).data.refresh_token;
      await ldap.stop();
      try {
        const refreshed = await t.request({
          method: 'POST',
          url: '/auth/refresh',
          payload: { refresh_token: before },
          token: null,
        });
        assert.equal(refreshed.statusCode, 503, refreshed.body);
        assert.equal(errorCode(refreshed), 'SERVICE_UNAVAILABLE');
        const down = await login('alice', 'alice-pass');
        assert.equal(down.statusCode, 503, down.body);
        assert.equal(errorCode(down), 'SERVICE_UNAVAILABLE');
        assert.ok(!down.body.includes(SERVICE_PASSWORD));
        const ping = await t.request({ method: 'GET', url: '/server/ping', token: null });
        assert.equal(ping.statusCode, 200);
        const local = await t.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: ADMIN.email, password: ADMIN.password },
          token: null,
        });
        assert.equal(local.statusCode, 200, local.body);
      } finally {
        await ldap.resume();
      }
      const back = await login('alice', 'alice-pass');
      assert.equal(back.statusCode, 200, back.body);
    });
  });
}
