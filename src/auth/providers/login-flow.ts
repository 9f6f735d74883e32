/**
 * The state of one sign-in between its two legs: provider, state, nonce, PKCE verifier, where to return and the
 * mode, in a short-lived HS256 token in an httpOnly cookie (bound to the browser that started it). A flow is spent
 * at its callback: a second callback with the same cookie is refused even before the provider would refuse the code,
 * on whichever worker or instance it arrives (the spent ids are rows of the database: SpentFlows).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';
import * as oidc from 'openid-client';
import type { AuthMode } from '../auth-service.js';
import type { FlowSecrets } from './provider-types.js';

/** How long a sign-in may take at the provider. */
export const FLOW_TTL_MS = 5 * 60_000;
/**
 * How long a spent flow is remembered past its spending: the cookie's lifetime (it was signed no later than now), and a
 * minute more for clocks of instances that differ a little.
 */
const SPENT_KEEP_MS = FLOW_TTL_MS + 60_000;
/** Expired spent flows are deleted at most this often, this many at a time, after a callback (never awaited by it). */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 500;
const ISSUER = 'strata-sso-flow';

export interface LoginFlow extends FlowSecrets {
  id: string;
  provider: string;
  redirect: string | null;
  mode: AuthMode;
}

/** Where spent flows are kept for every worker and instance: the database (db/repositories/sign-on-flows.ts). */
export interface SpentFlows {
  /** True when this call spent flow `id`; false when it was spent before. */
  spend(id: string, expiresAt: number): Promise<boolean>;
  /** Deletes up to `batch` spent flows expired by `now`. */
  pruneExpired(now: number, batch: number): Promise<number>;
}

export class LoginFlows {
  private readonly sign: (payload: Record<string, unknown>) => string;
  private readonly verify: (token: string) => Record<string, unknown>;
  private nextPrune = 0;

  constructor(
    secret: string,
    private readonly spent: SpentFlows,
    private readonly onPruneError: (error: unknown) => void = () => {},
  ) {
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
  async take(token: string | undefined, provider: string): Promise<LoginFlow | null> {
    if (!token) return null;
    let payload: Record<string, unknown>;
    try {
      payload = this.verify(token);
    } catch {
      return null;
    }
    const flow = parseFlow(payload);
    if (!flow || flow.provider !== provider) return null;
    const now = Date.now();
    const first = await this.spent.spend(flow.id, now + SPENT_KEEP_MS);
    this.pruneNowAndThen(now);
    return first ? flow : null;
  }

  /** Off the callback's path: its answer does not wait for the delete, nor fails with it. */
  private pruneNowAndThen(now: number): void {
    if (now < this.nextPrune) return;
    this.nextPrune = now + PRUNE_EVERY_MS;
    this.spent.pruneExpired(now, PRUNE_BATCH).catch(this.onPruneError);
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
