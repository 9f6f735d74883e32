/**
 * AUTH_PROVIDERS and AUTH_<NAME>_* as the config loader reads them (defaults, Directus's names) and the settings it
 * refuses at start; the redirect allow-list; and what a provider failure leaves in the log.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResponseBodyError } from 'openid-client';
import { providerFailure } from '../../src/auth/providers/provider-errors.js';
import { redirectAllowed } from '../../src/auth/providers/redirect-allow-list.js';
import { readConfig } from '../../src/config/config.js';

const openid = {
  AUTH_PROVIDERS: 'Keycloak',
  AUTH_KEYCLOAK_DRIVER: 'openid',
  AUTH_KEYCLOAK_CLIENT_ID: 'strata',
  AUTH_KEYCLOAK_ISSUER_URL: 'https://sso.example.com/realms/staff',
};

describe('sign-on settings', () => {
  it('reads a provider with Directus defaults', () => {
    const { providers, disableDefault } = readConfig(openid).authProviders;
    assert.equal(disableDefault, false);
    assert.equal(providers.length, 1);
    const [p] = providers;
    assert.equal(p.name, 'keycloak');
    assert.equal(p.allowPublicRegistration, false);
    assert.ok(p.settings.driver === 'openid');
    assert.equal(p.settings.oauth.scope, 'openid profile email');
    assert.equal(p.settings.oauth.identifierKey, 'sub');
    const oauth2 = readConfig({
      AUTH_PROVIDERS: 'gh',
      AUTH_GH_DRIVER: 'oauth2',
      AUTH_GH_CLIENT_ID: 'x',
      AUTH_GH_AUTHORIZE_URL: 'https://github.com/login/oauth/authorize',
      AUTH_GH_ACCESS_URL: 'https://github.com/login/oauth/access_token',
      AUTH_GH_PROFILE_URL: 'https://api.github.com/user',
      AUTH_GH_ROLE_MAPPING: '{"staff":"r1"}',
    }).authProviders.providers[0];
    assert.ok(oauth2.settings.driver === 'oauth2');
    assert.equal(oauth2.settings.oauth.identifierKey, 'email');
    assert.equal(oauth2.roleMapping.get('staff'), 'r1');
    assert.equal(readConfig({}).authProviders.providers.length, 0);
  });

  it('reads ldap providers with the same reader: shared settings once, the directory ones beside', () => {
    const { providers } = readConfig({
      ...openid,
      AUTH_PROVIDERS: 'Keycloak,Directory',
      AUTH_DIRECTORY_DRIVER: 'LDAP',
      AUTH_DIRECTORY_CLIENT_URL: 'ldap://127.0.0.1:389',
      AUTH_DIRECTORY_USER_DN: 'ou=people,dc=example,dc=org',
      AUTH_DIRECTORY_DEFAULT_ROLE_ID: '0b7c1d4e-2f3a-4b5c-8d6e-7f8091a2b3c4',
      AUTH_DIRECTORY_SYNC_USER_INFO: 'true',
      AUTH_DIRECTORY_LABEL: 'Staff directory',
    }).authProviders;
    assert.deepEqual(
      providers.map((p) => [p.name, p.settings.driver]),
      [
        ['keycloak', 'openid'],
        ['directory', 'ldap'],
      ],
    );
    const [, ldap] = providers;
    assert.equal(ldap.defaultRoleId, '0b7c1d4e-2f3a-4b5c-8d6e-7f8091a2b3c4');
    assert.equal(ldap.syncUserInfo, true);
    assert.equal(ldap.label, 'Staff directory');
    assert.ok(ldap.settings.driver === 'ldap');
    assert.equal(ldap.settings.ldap.userAttribute, 'cn');
    assert.equal(ldap.settings.ldap.userScope, 'one');
    assert.equal(ldap.settings.ldap.timeoutMs, 10_000);
  });

  it('refuses bad provider settings at start, naming the variable', () => {
    const ldap = {
      AUTH_PROVIDERS: 'dir',
      AUTH_DIR_DRIVER: 'ldap',
      AUTH_DIR_CLIENT_URL: 'ldap://127.0.0.1:389',
      AUTH_DIR_USER_DN: 'ou=people,dc=example,dc=org',
    };
    const cases: [Record<string, string>, RegExp][] = [
      [{ ...openid, AUTH_KEYCLOAK_DRIVER: 'saml' }, /AUTH_KEYCLOAK_DRIVER/],
      [{ ...openid, AUTH_KEYCLOAK_CLIENT_ID: '' }, /AUTH_KEYCLOAK_CLIENT_ID/],
      [{ ...openid, AUTH_KEYCLOAK_ISSUER_URL: 'ftp://x' }, /AUTH_KEYCLOAK_ISSUER_URL/],
      [{ ...openid, AUTH_PROVIDERS: 'keycloak,keycloak' }, /AUTH_PROVIDERS/],
      [{ ...openid, AUTH_PROVIDERS: '__proto__' }, /AUTH_PROVIDERS/],
      [{ ...openid, AUTH_PROVIDERS: 'default' }, /AUTH_PROVIDERS/],
      [{ ...openid, AUTH_KEYCLOAK_PARAMS: '{"state":"fixed"}' }, /AUTH_KEYCLOAK_PARAMS/],
      [{ ...openid, AUTH_KEYCLOAK_PARAMS: '[1]' }, /AUTH_KEYCLOAK_PARAMS/],
      [{ ...openid, AUTH_KEYCLOAK_ROLE_MAPPING: '{"a":1}' }, /AUTH_KEYCLOAK_ROLE_MAPPING/],
      [{ ...openid, AUTH_KEYCLOAK_REDIRECT_ALLOW_LIST: 'javascript:x' }, /AUTH_KEYCLOAK_REDIRECT_ALLOW_LIST/],
      [{ ...openid, AUTH_DISABLE_DEFAULT: 'maybe' }, /AUTH_DISABLE_DEFAULT/],
      [{ ...openid, AUTH_KEYCLOAK_DEFAULT_ROLE_ID: 'editors' }, /AUTH_KEYCLOAK_DEFAULT_ROLE_ID/],
      [{ ...ldap, AUTH_DIR_CLIENT_URL: 'http://127.0.0.1' }, /AUTH_DIR_CLIENT_URL/],
      [{ ...ldap, AUTH_DIR_USER_DN: '' }, /AUTH_DIR_USER_DN/],
      [{ ...ldap, AUTH_DIR_USER_SCOPE: 'all' }, /AUTH_DIR_USER_SCOPE/],
      [{ ...ldap, AUTH_DIR_DEFAULT_ROLE_ID: 'readers' }, /AUTH_DIR_DEFAULT_ROLE_ID/],
    ];
    for (const [env, variable] of cases) assert.throws(() => readConfig(env), variable, JSON.stringify(env));
  });

  it('allows paths here and URLs under an allow-list entry, nothing else', () => {
    const list = ['https://app.example.com/signed-in'];
    for (const ok of ['/admin/', 'https://app.example.com/signed-in', 'https://app.example.com/signed-in/x?y=1'])
      assert.ok(redirectAllowed(ok, list), ok);
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      'https://app.example.com.evil.example/signed-in',
      'https://app.example.com@evil.example/signed-in',
      'https://app.example.com/signed-inx',
      'http://app.example.com/signed-in',
      'https://app.example.com:444/signed-in',
      'javascript:alert(1)',
      'data:text/html,x',
      '/admin\n',
      `/${'a'.repeat(3000)}`,
    ])
      assert.ok(!redirectAllowed(bad, list), bad);
  });

  it('logs a provider failure by class and code, never what the provider sent', () => {
    const secret = 'client-secret-123';
    const error = new ResponseBodyError(`bad client ${secret}`, {
      cause: { error: 'invalid_client', error_description: secret },
      response: new Response('{}', { status: 401 }),
    } as never);
    const failure = providerFailure('kc', 'openid', error);
    assert.equal(failure.error.code, 'INVALID_CREDENTIALS');
    assert.ok(!JSON.stringify(failure.logged).includes(secret));
    assert.ok(!failure.error.message.includes(secret));
    const down = providerFailure('kc', 'openid', new TypeError(`fetch failed ${secret}`));
    assert.equal(down.error.code, 'SERVICE_UNAVAILABLE');
    assert.ok(!JSON.stringify({ ...down.logged, message: down.error.message }).includes(secret));
  });
});
