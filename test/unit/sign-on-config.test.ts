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
    assert.equal(p.settings.driver, 'openid');
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
    assert.equal(oauth2.settings.oauth.identifierKey, 'email');
    assert.equal(oauth2.roleMapping.get('staff'), 'r1');
    assert.equal(readConfig({}).authProviders.providers.length, 0);
  });

  it('refuses bad provider settings at start, naming the variable', () => {
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
