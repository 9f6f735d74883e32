/** What the provider registry holds: one driver per configured provider, and what a sign-in learns from it. */

/** The one-time values of one sign-in, kept in its signed cookie between the two legs. */
export interface FlowSecrets {
  state: string;
  nonce: string;
  verifier: string;
}

/** Who the provider says signed in. */
export interface ProviderIdentity {
  /** The value of the provider's IDENTIFIER_KEY: the user's external_identifier. */
  identifier: string | null;
  email: string | null;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
  /** Every claim or profile key (for ROLE_MAPPING); a null-prototype object. */
  claims: Record<string, unknown>;
  requireVerifiedEmail: boolean;
}

/** A driver that signs in by sending the browser to the provider and back (openid, oauth2). */
export interface RedirectDriver {
  readonly kind: 'redirect';
  readonly provider: string;
  readonly driver: string;
  authorizationUrl(redirectUri: string, secrets: FlowSecrets): Promise<URL>;
  identity(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity>;
}

/**
 * Every kind of driver. A driver that takes credentials in a POST (ldap) adds its own interface with
 * `kind: 'credentials'` to this union.
 */
export type AuthDriver = RedirectDriver;
