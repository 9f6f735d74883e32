/** What the provider registry holds: one driver per configured provider, and what a sign-in learns from it. */
import type { Database } from '../../db/connection.js';
import type { CreateProviderUser } from './provider-user-create.js';
import type { ChangeEvents } from '../../engine/write/change-events.js';

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

/** The account a credentials driver signed in, as the login goes on with it (status, two-factor code). */
export interface CredentialsUser {
  id: string;
  status: string;
  tfa_secret: string | null;
}

/** A driver that checks an identifier and password itself, given in a POST (ldap). */
export interface CredentialsDriver {
  readonly kind: 'credentials';
  readonly provider: string;
  readonly driver: string;
  /** The user the provider vouched for (created or updated here); INVALID_CREDENTIALS when it refuses them. */
  authenticate(credentials: { identifier: string; password: string }): Promise<CredentialsUser>;
  /** At a refresh: whether the provider still knows the user of this `external_identifier`. */
  stillValid(identifier: string): Promise<boolean>;
}

/** Every kind of driver. */
export type AuthDriver = RedirectDriver | CredentialsDriver;

/** What drivers that keep accounts themselves (ldap) are built with. */
export interface DriverDeps {
  db: Database;
  changes: ChangeEvents | null;
  /** The creation of a first-time user, through the items writer (activity, revision, hooks). */
  createUser: CreateProviderUser;
  /** Where a provider's failures are told (a directory that is down, a refused service account). */
  warn: (message: string) => void;
}
