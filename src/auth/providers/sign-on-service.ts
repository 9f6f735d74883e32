/**
 * Single sign-on through a redirect provider (Directus docs: SSO): the first leg sends the browser to the provider
 * with a fresh state, nonce and PKCE challenge held in a signed cookie; the callback checks them, exchanges the code,
 * finds or creates the user and opens a session as a password login would, then returns to an allowed URL.
 */
import type { AuthMode, AuthResult, AuthService, ClientInfo } from '../auth-service.js';
import type { Config } from '../../config/config.js';
import {
  InvalidCredentialsError,
  InvalidPayloadError,
  InvalidProviderError,
  ServiceError,
} from '../../errors/catalogue.js';
import { LoginFlows, type LoginFlow, type SpentFlows } from './login-flow.js';
import { ProviderFailure } from './provider-errors.js';
import type { ProviderRegistry, RegisteredProvider } from './provider-registry.js';
import type { CredentialsDriver, RedirectDriver } from './provider-types.js';
import { redirectAllowed } from './redirect-allow-list.js';
import type { SignOnUsers } from './sign-on-users.js';

export interface SignOnStart {
  location: string;
  flowToken: string;
}

export interface SignOnEnd {
  result: AuthResult;
  /** Where the browser goes back to; null: the tokens are the answer's body. */
  redirect: string | null;
}

/** A failed callback, with where to send the browser (with `?reason=<code>`, as Directus) when the flow said. */
export class SignOnError extends Error {
  constructor(
    readonly error: ServiceError,
    readonly redirect: string | null,
  ) {
    super(error.message);
  }
}

type Log = (details: Record<string, unknown>, message: string) => void;

export class SignOnService {
  private readonly flows: LoginFlows;

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly auth: AuthService,
    private readonly users: SignOnUsers,
    private readonly config: Pick<Config, 'authProviders' | 'docs'>,
    secret: string,
    spent: SpentFlows,
    private readonly log: Log = () => {},
  ) {
    this.flows = new LoginFlows(secret, spent, (error) =>
      this.log({ error: String(error) }, 'Pruning spent sign-on flows failed'),
    );
  }

  /** GET /auth. */
  providers(): { data: ReturnType<ProviderRegistry['list']>; disableDefault: boolean } {
    return { data: this.registry.list(), disableDefault: this.config.authProviders.disableDefault };
  }

  /** The driver of a provider that takes an identifier and password (`POST /auth/login/<name>`), or undefined. */
  credentials(name: string): CredentialsDriver | undefined {
    return this.registry.credentials(name);
  }

  hasCredentials(): boolean {
    return this.registry.hasCredentials();
  }

  async start(name: string, query: { redirect?: string; mode?: string }, origin: string): Promise<SignOnStart> {
    const { config, driver } = this.redirectProvider(name);
    const redirect = query.redirect === undefined || query.redirect === '' ? null : query.redirect;
    if (redirect !== null && !redirectAllowed(redirect, this.allowList(config.redirectAllowList)))
      throw new InvalidPayloadError(`URL "${redirect.slice(0, 200)}" can't be used to redirect after login`);
    const mode = query.mode ?? (redirect === null ? 'json' : 'cookie');
    if (mode !== 'json' && mode !== 'cookie' && mode !== 'session')
      throw new InvalidPayloadError('"mode" must be one of [json, cookie, session]');
    if (mode === 'json' && redirect !== null)
      throw new InvalidPayloadError('Tokens are never put in a redirect: use "cookie" or "session" mode');
    const { flow, token } = this.flows.start(config.name, redirect, mode as AuthMode);
    try {
      const url = await driver.authorizationUrl(this.callbackUrl(config.name, origin), flow);
      return { location: url.href, flowToken: token };
    } catch (error) {
      throw this.unwrap(error);
    }
  }

  /** `query` is the callback's query string as the provider sent it; `origin` the request's (without PUBLIC_URL). */
  async callback(
    name: string,
    query: string,
    origin: string,
    flowToken: string | undefined,
    client: ClientInfo,
  ): Promise<SignOnEnd> {
    const provider = this.redirectProvider(name);
    // The URL the code was issued for: the token request must name the same redirect_uri.
    const url = new URL(this.callbackUrl(provider.config.name, origin));
    url.search = query;
    const flow = await this.flows.take(flowToken, provider.config.name);
    // No flow (missing, forged, expired, spent) or a state that is not this flow's: nothing goes to the provider.
    if (!flow || url.searchParams.get('state') !== flow.state)
      throw new SignOnError(new InvalidCredentialsError(), null);
    try {
      return { result: await this.finish(provider, url, flow, client), redirect: flow.redirect };
    } catch (error) {
      throw new SignOnError(this.unwrap(error), flow.redirect);
    }
  }

  private async finish(
    { config, driver }: RegisteredProvider & { driver: RedirectDriver },
    url: URL,
    flow: LoginFlow,
    client: ClientInfo,
  ): Promise<AuthResult> {
    const identity = await driver.identity(url, flow);
    const user = await this.users.userFor(config, identity);
    return this.auth.signIn(user, flow.mode, client, flow.provider);
  }

  /** The callback's URL as the provider has it registered: PUBLIC_URL's, or the request's origin when unset. */
  private callbackUrl(name: string, origin: string): string {
    const base = this.config.docs.publicUrl === '/' ? origin : this.config.docs.publicUrl.replace(/\/+$/, '');
    return `${base}/auth/login/${encodeURIComponent(name)}/callback`;
  }

  private allowList(providerList: string[]): string[] {
    const publicUrl = this.config.docs.publicUrl;
    return publicUrl === '/' ? providerList : [...providerList, publicUrl];
  }

  private redirectProvider(name: string): RegisteredProvider & { driver: RedirectDriver } {
    const provider = this.registry.get(name);
    if (!provider || provider.driver.kind !== 'redirect') throw new InvalidProviderError();
    return provider as RegisteredProvider & { driver: RedirectDriver };
  }

  private unwrap(error: unknown): ServiceError {
    if (error instanceof ProviderFailure) {
      this.log(error.logged, 'sign-on failed at the identity provider');
      return error.error;
    }
    if (error instanceof ServiceError) return error;
    throw error;
  }
}
