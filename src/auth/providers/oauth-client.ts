/**
 * The openid and oauth2 drivers over openid-client: one authorization-code flow with PKCE and state (and a nonce when
 * an ID token is expected). openid finds its endpoints by discovery (once, then kept; retried after a failure);
 * oauth2 is given them. Plain http is allowed only to loopback providers (tests, a provider on the same host).
 */
import * as oidc from 'openid-client';
import type { OAuthSettings } from '../../config/oauth-config.js';
import type { FlowSecrets, ProviderIdentity, RedirectDriver } from './provider-types.js';
import { ProfileError, providerFailure } from './provider-errors.js';

/** Seconds an identity provider has to answer one request. */
const PROVIDER_TIMEOUT_S = 10;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function allowPlainHttpToLoopback(url: string): ((config: oidc.Configuration) => void)[] {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname) ? [oidc.allowInsecureRequests] : [];
}

export class OAuthDriver implements RedirectDriver {
  readonly kind = 'redirect';
  private config: Promise<oidc.Configuration> | null = null;

  constructor(
    readonly provider: string,
    readonly driver: 'openid' | 'oauth2',
    private readonly settings: OAuthSettings,
  ) {}

  async authorizationUrl(redirectUri: string, secrets: FlowSecrets): Promise<URL> {
    const config = await this.configuration();
    const params: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [key, value] of this.settings.params) params[key] = value;
    Object.assign(params, {
      redirect_uri: redirectUri,
      scope: this.settings.scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.verifier),
      code_challenge_method: 'S256',
      state: secrets.state,
    });
    if (this.driver === 'openid') params.nonce = secrets.nonce;
    return oidc.buildAuthorizationUrl(config, params);
  }

  async identity(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: secrets.verifier,
        expectedState: secrets.state,
        ...(this.driver === 'openid' ? { expectedNonce: secrets.nonce, idTokenExpected: true } : {}),
      });
      const claims: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      if (this.driver === 'openid') {
        const idClaims = tokens.claims();
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims?.sub ?? oidc.skipSubjectCheck);
        Object.assign(claims, info, idClaims);
      } else {
        Object.assign(claims, await this.profile(config, tokens.access_token));
      }
      return this.identityOf(claims);
    } catch (error) {
      throw providerFailure(this.provider, this.driver, error);
    }
  }

  private async profile(config: oidc.Configuration, accessToken: string): Promise<Record<string, unknown>> {
    const response = await oidc.fetchProtectedResource(config, accessToken, new URL(this.settings.profileUrl!), 'GET');
    if (!response.ok) throw new ProfileError(`profile answered ${response.status}`);
    const body: unknown = await response.json();
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ProfileError('profile is not an object');
    return body as Record<string, unknown>;
  }

  private identityOf(claims: Record<string, unknown>): ProviderIdentity {
    const text = (key: string) => {
      const value = Object.hasOwn(claims, key) ? claims[key] : undefined;
      return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
    };
    return {
      identifier: text(this.settings.identifierKey),
      email: text(this.settings.emailKey)?.toLowerCase() ?? null,
      emailVerified: claims.email_verified === true,
      firstName: text('given_name'),
      lastName: text('family_name'),
      claims,
      requireVerifiedEmail: this.settings.requireVerifiedEmail,
    };
  }

  private configuration(): Promise<oidc.Configuration> {
    if (!this.config) {
      this.config = this.makeConfiguration().catch((error: unknown) => {
        this.config = null;
        throw providerFailure(this.provider, this.driver, error);
      });
    }
    return this.config;
  }

  private async makeConfiguration(): Promise<oidc.Configuration> {
    const { clientId, clientSecret } = this.settings;
    const auth = clientSecret === null ? oidc.None() : oidc.ClientSecretPost(clientSecret);
    let config: oidc.Configuration;
    if (this.driver === 'openid') {
      const issuer = this.settings.issuerUrl!;
      config = await oidc.discovery(new URL(issuer), clientId, undefined, auth, {
        execute: allowPlainHttpToLoopback(issuer),
        timeout: PROVIDER_TIMEOUT_S,
      });
    } else {
      const authorize = this.settings.authorizeUrl!;
      config = new oidc.Configuration(
        {
          issuer: new URL(authorize).origin,
          authorization_endpoint: authorize,
          token_endpoint: this.settings.accessUrl!,
          userinfo_endpoint: this.settings.profileUrl!,
        },
        clientId,
        undefined,
        auth,
      );
      for (const step of allowPlainHttpToLoopback(authorize)) step(config);
    }
    config.timeout = PROVIDER_TIMEOUT_S;
    return config;
  }
}
