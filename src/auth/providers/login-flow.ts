/**
 * The state of one sign-in between its two legs: provider, state, nonce, PKCE verifier, where to return and the
 * mode, in a short-lived HS256 token in an httpOnly cookie (bound to the browser that started it). A flow is spent
 * at its callback: a second callback with the same cookie is refused even before the provider would refuse the code.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';
import * as oidc from 'openid-client';
import { Cache } from '../../cache/cache.js';
import type { AuthMode } from '../auth-service.js';
import type { FlowSecrets } from './provider-types.js';

/** How long a sign-in may take at the provider. */
export const FLOW_TTL_MS = 5 * 60_000;
/** Spent flows remembered (each for FLOW_TTL_MS); docs/limits.md. */
export const MAX_SPENT_FLOWS = 10_000;
const ISSUER = 'strata-sso-flow';

export interface LoginFlow extends FlowSecrets {
  id: string;
  provider: string;
  redirect: string | null;
  mode: AuthMode;
}

export class LoginFlows {
  private readonly sign: (payload: Record<string, unknown>) => string;
  private readonly verify: (token: string) => Record<string, unknown>;
  private readonly spent = new Cache<string, true>('spent-sign-on-flows', { max: MAX_SPENT_FLOWS, ttlMs: FLOW_TTL_MS });

  constructor(secret: string) {
    // A key of its own: a flow token can never pass as an access token, nor the reverse.
    const key = createHmac('sha256', secret).update('strata sign-on flow').digest('hex');
    this.sign = createSigner({ key, algorithm: 'HS256', iss: ISSUER, expiresIn: FLOW_TTL_MS });
    this.verify = createVerifier({ key, algorithms: ['HS256'], allowedIss: ISSUER, cache: false });
  }

  start(provider: string, redirect: string | null, mode: AuthMode): { flow: LoginFlow; token: string } {
    const flow: LoginFlow = {
      id: randomUUID(),
      provider,
      redirect,
      mode,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
    };
    return { flow, token: this.sign({ ...flow }) };
  }

  /** The flow of a cookie, or null (missing, forged, expired, of another provider, or spent); spends it. */
  take(token: string | undefined, provider: string): LoginFlow | null {
    if (!token) return null;
    let payload: Record<string, unknown>;
    try {
      payload = this.verify(token);
    } catch {
      return null;
    }
    const flow = parseFlow(payload);
    if (!flow || flow.provider !== provider || this.spent.get(flow.id) !== undefined) return null;
    this.spent.set(flow.id, true);
    return flow;
  }
}

function parseFlow(p: Record<string, unknown>): LoginFlow | null {
  const strings = ['id', 'provider', 'state', 'nonce', 'verifier', 'mode'] as const;
  if (!strings.every((k) => typeof p[k] === 'string')) return null;
  if (p.redirect !== null && typeof p.redirect !== 'string') return null;
  const mode = p.mode as string;
  if (mode !== 'json' && mode !== 'cookie' && mode !== 'session') return null;
  return {
    id: p.id as string,
    provider: p.provider as string,
    state: p.state as string,
    nonce: p.nonce as string,
    verifier: p.verifier as string,
    redirect: p.redirect as string | null,
    mode,
  };
}
