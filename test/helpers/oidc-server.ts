/**
 * A real OpenID Connect provider on loopback for the sign-on tests: `oidc-provider` (certified) with one client and
 * an interaction the test drives over HTTP — GET /interaction/<uid>?account=<id> signs in as that account and
 * consents, as a person at the provider's login page would. Accounts are set by the test.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  groups?: string[];
}

export interface OidcServer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  close(): Promise<void>;
}

/** `port` 0: any free one (a test that must name the issuer before the provider starts passes a freePort()). */
export async function startOidcServer(redirectUris: string[], port = 0): Promise<OidcServer> {
  const server = http.createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const clientId = 'strata-test';
  const clientSecret = 'provider-client-secret-do-not-leak';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    cookies: { keys: ['oidc-test-cookie-key'] },
    pkce: { required: () => true, methods: ['S256'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['given_name', 'family_name'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, id) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: async () => ({ sub: id, ...account }) } : undefined;
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(provider, req, res).catch(() => {
        res.statusCode = 500;
        res.end('interaction failed');
      });
    } else {
      callback(req, res);
    }
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function interact(provider: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const accountId = new URL(req.url!, 'http://x').searchParams.get('account');
  if (accountId === null) {
    // A person in a browser: the provider's sign-in page, one field.
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      '<!doctype html><title>Test provider</title><form method="get"><label for="account">Account</label>' +
        '<input id="account" name="account"><button type="submit">Continue</button></form>',
    );
    return;
  }
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

/** Follows the provider's redirects with a cookie jar, signing in as `account`; returns the URL back at Strata. */
export async function signInAtProvider(authorizationUrl: string, account: string, until: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(until)) return url;
    if (url.pathname.startsWith('/interaction/')) url.searchParams.set('account', account);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (!location)
      throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${await response.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects at the provider');
}
